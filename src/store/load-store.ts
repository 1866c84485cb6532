// Store layer: createStore (create-store.ts) for the CLI, loading only the backend the URL names: its
// commands open one store, and the other backend's modules (pg and its driver for a SQLite import)
// were a part of the command's start.
import type { ContentStore } from './content-store.js';
import { backendOf, postgresOptions, sqliteOptions, type StoreOptions } from './store-options.js';

export async function loadStore(url: string, options: StoreOptions = {}): Promise<ContentStore> {
  if (backendOf(url) === 'sqlite') return new (await import('./sqlite/store.js')).SqliteStore(sqliteOptions(url, options));
  return new (await import('./postgres/store.js')).PostgresStore(postgresOptions(url, options));
}
