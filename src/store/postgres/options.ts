// PostgreSQL backend: the options of a PostgresStore (what `petal.yaml` and the CLI can set).
import type { QueryIndexEvent } from '../query-index/live-workspaces.js';

export interface PostgresStoreOptions {
  /** `postgres://user@host:port/database` (any option node-postgres reads from a connection string). */
  readonly url: string;
  /**
   * Schema to hold the tables (created when missing); every connection's search_path is set to it.
   * Default: the server's search_path (normally `public`).
   */
  readonly schema?: string;
  /** Pool size (of the primary and of each replica); default 10. */
  readonly max?: number;
  /**
   * Read replicas (streaming replicas of the primary, same schema): reads go to them in turn, once
   * they have caught up with the newest generation this instance knows of; writes go to the primary.
   */
  readonly replicas?: readonly string[];
  /**
   * How long a request waits for a connection of the primary's pool (a new one, or a free one when all
   * are busy) before it fails as "store unreachable" (503); default 10 s.
   */
  readonly connectionTimeoutMs?: number;
  /** Bytes the query index may keep of what requests choose (`cache.queryIndexMaxBytes`; default 1 GiB). */
  readonly queryIndexMaxBytes?: number;
  /** Told of each full load and each in-place update of the query index (the app logs them). */
  readonly onIndexEvent?: (event: QueryIndexEvent) => void;
  /** Persist the query index's base segments in the database (`cache.persistQueryIndex`; default true). */
  readonly persistQueryIndex?: boolean;
  /** Workspaces smaller than this are not persisted (default 10,000; tests lower it). */
  readonly persistQueryIndexMinNodes?: number;
}
