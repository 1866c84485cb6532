// SQLite backend: the options of a SqliteStore (what `petal.yaml` and the CLI can set).
import type { QueryIndexEvent } from '../query-index/live-workspaces.js';

export interface SqliteStoreOptions {
  /** File path, or `:memory:`. */
  readonly file: string;
  /**
   * Workspaces with at least this many nodes answer queries from the in-memory query index; smaller
   * ones (and queries it cannot serve) use SQL (`cache.queryIndexThreshold`). Default 0, every size:
   * through SQL a filtered, sorted list with its total costs a count and a page per request (about
   * 1.8 ms of CPU on 1,000 nodes), through the index a kept bit set and page (bench/RESULTS.md, issue 20).
   * Infinity = never the index (the tests' SQL run).
   */
  readonly queryIndexThreshold?: number;
  /**
   * Imports of at least this many nodes run their transaction on a worker thread's connection, so that
   * SQLite's work overlaps with the preparation of the rows (default 10,000; Infinity: never).
   */
  readonly importWorkerMinNodes?: number;
  /** Bytes the query index may keep of what requests choose (`cache.queryIndexMaxBytes`; default 1 GiB). */
  readonly queryIndexMaxBytes?: number;
  /** Told of each full load and each in-place update of the query index (the app logs them). */
  readonly onIndexEvent?: (event: QueryIndexEvent) => void;
  /** Persist the query index's base segments in the database (`cache.persistQueryIndex`; default true). */
  readonly persistQueryIndex?: boolean;
  /** Workspaces smaller than this are not persisted (default 10,000; tests lower it). */
  readonly persistQueryIndexMinNodes?: number;
  /** Told when the store changed something an operator should know (a database file's mode narrowed). */
  readonly onNotice?: (message: string) => void;
  /**
   * WAL checkpoints in a worker thread every this many milliseconds (wal-checkpointer.ts; 0 = only on
   * `checkpointWal()`, for tests). `petal serve` sets it; without it (the CLI, short-lived stores)
   * SQLite checkpoints on commit as usual, and no worker thread is started.
   */
  readonly walCheckpointIntervalMs?: number;
}
