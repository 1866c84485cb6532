// Store layer: which backend a store URL names and the options its store takes, shared by createStore
// and loadStore (create-store.ts), without loading either backend (types only).
import type { QueryIndexEvent } from './query-index/live-workspaces.js';
import type { SqliteStoreOptions } from './sqlite/options.js';
import type { PostgresStoreOptions } from './postgres/options.js';

export interface StoreOptions {
  replicas?: readonly string[];
  onNotice?: (message: string) => void;
  queryIndexMaxBytes?: number;
  onIndexEvent?: (event: QueryIndexEvent) => void;
  /** SQLite: workspaces below this many nodes answer queries by SQL (`cache.queryIndexThreshold`; default 0). */
  queryIndexThreshold?: number;
  /** False: the query index's segments are not persisted (`cache.persistQueryIndex`). */
  persistQueryIndex?: boolean;
  /** SQLite: checkpoint the WAL in a worker thread at this interval (servers; see SqliteStoreOptions). */
  walCheckpointIntervalMs?: number;
}

/** The backend of a store URL; throws for a URL that names none. */
export function backendOf(url: string): 'sqlite' | 'postgres' {
  if (url.startsWith('sqlite:')) return 'sqlite';
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) return 'postgres';
  throw new Error(`Unknown store ${JSON.stringify(url)}: expected sqlite:<file> or postgres://…`);
}

function indexOptions(options: StoreOptions) {
  return {
    ...(options.queryIndexMaxBytes !== undefined ? { queryIndexMaxBytes: options.queryIndexMaxBytes } : {}),
    ...(options.onIndexEvent !== undefined ? { onIndexEvent: options.onIndexEvent } : {}),
    ...(options.persistQueryIndex !== undefined ? { persistQueryIndex: options.persistQueryIndex } : {}),
  };
}

export function sqliteOptions(url: string, options: StoreOptions): SqliteStoreOptions {
  return {
    file: url.slice('sqlite:'.length), ...indexOptions(options),
    ...(options.onNotice !== undefined ? { onNotice: options.onNotice } : {}),
    ...(options.walCheckpointIntervalMs !== undefined ? { walCheckpointIntervalMs: options.walCheckpointIntervalMs } : {}),
    ...(options.queryIndexThreshold !== undefined ? { queryIndexThreshold: options.queryIndexThreshold } : {}),
  };
}

export function postgresOptions(url: string, options: StoreOptions): PostgresStoreOptions {
  return { url, ...(options.replicas !== undefined ? { replicas: options.replicas } : {}), ...indexOptions(options) };
}
