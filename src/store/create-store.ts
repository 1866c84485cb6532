// Store layer: the content store a URL names (sqlite:<file>, postgres://…), for the server and the CLI.
import type { ContentStore } from './content-store.js';
import { SqliteStore } from './sqlite/store.js';
import { PostgresStore } from './postgres/store.js';
import { backendOf, postgresOptions, sqliteOptions, type StoreOptions } from './store-options.js';

export function createStore(url: string, options: StoreOptions = {}): ContentStore {
  return backendOf(url) === 'sqlite' ? new SqliteStore(sqliteOptions(url, options)) : new PostgresStore(postgresOptions(url, options));
}

