// Store layer: the content store a URL names (sqlite:<file>, postgres://…), for the server and the CLI.
import type { QueryIndexEvent } from './query-index/live-workspaces.js';
import type { ContentStore } from './content-store.js';
import { SqliteStore } from './sqlite/store.js';
import { PostgresStore } from './postgres/store.js';

export function createStore(
  url: string,
  options: {
    replicas?: readonly string[]; onNotice?: (message: string) => void; queryIndexMaxBytes?: number; onIndexEvent?: (event: QueryIndexEvent) => void;
    /** SQLite: workspaces below this many nodes answer queries by SQL (`cache.queryIndexThreshold`; default 0). */
    queryIndexThreshold?: number;
    /** False: the query index's segments are not persisted (`cache.persistQueryIndex`). */
    persistQueryIndex?: boolean;
    /** SQLite: checkpoint the WAL in a worker thread at this interval (servers; see SqliteStoreOptions). */
    walCheckpointIntervalMs?: number;
  } = {},
): ContentStore {
  const index = {
    ...(options.queryIndexMaxBytes !== undefined ? { queryIndexMaxBytes: options.queryIndexMaxBytes } : {}),
    ...(options.onIndexEvent !== undefined ? { onIndexEvent: options.onIndexEvent } : {}),
    ...(options.persistQueryIndex !== undefined ? { persistQueryIndex: options.persistQueryIndex } : {}),
  };
  if (url.startsWith('sqlite:')) {
    return new SqliteStore({
      file: url.slice('sqlite:'.length), ...index,
      ...(options.onNotice !== undefined ? { onNotice: options.onNotice } : {}),
      ...(options.walCheckpointIntervalMs !== undefined ? { walCheckpointIntervalMs: options.walCheckpointIntervalMs } : {}),
      ...(options.queryIndexThreshold !== undefined ? { queryIndexThreshold: options.queryIndexThreshold } : {}),
    });
  }
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
    return new PostgresStore({ url, ...(options.replicas !== undefined ? { replicas: options.replicas } : {}), ...index });
  }
  throw new Error(`Unknown store ${JSON.stringify(url)}: expected sqlite:<file> or postgres://…`);
}

