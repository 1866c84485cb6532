// SQLite backend: secondary indexes a large import builds after its load instead of row by row: built
// by CREATE INDEX, an index is one sort and pages written once. Since migration 6 (the value indexes
// of props and nodes dropped, the query index serving every query) only the query index's covering
// index of nodes remains to defer. Inside the import's transaction (SQLite's
// DDL is transactional): a rollback, or a crash, brings the indexes back as they were, and readers
// keep their snapshot, indexes included, until the commit.
import type { ImportConnection } from './import-connection.js';

/**
 * Indexes an import never needs while it runs (its lookups use nodes_by_path, nodes_by_id and
 * nodes_by_parent). A store not yet migrated has no others to defer: migrations run on open, before
 * any import.
 */
const DEFERRABLE = ['nodes_by_path_type'];

/** Below this many nodes an import maintains the indexes as it goes (a rebuild costs more than it saves). */
export const DEFER_MIN_NODES = 10_000;
/**
 * A rebuild sorts the whole table, rows already there included, while row-by-row inserts cost about
 * four times as much per row as a rebuild (bench/RESULTS.md, issue 20): it pays while the store holds
 * at most this many times the nodes the import brings.
 */
export const DEFER_MAX_STORED = 3;

/** The connection's page cache while the indexes are built (KiB, as cache_size counts it): the sorter's memory is that much. */
const SORT_CACHE = -4096;

/** True when an import of `importNodes` into a store of `storedNodes` should build the indexes after its load. */
export function shouldDefer(importNodes: number, storedNodes: number): boolean {
  return importNodes >= DEFER_MIN_NODES && storedNodes <= DEFER_MAX_STORED * importNodes;
}

/** Drops the deferrable indexes (inside the caller's transaction); `rebuild` creates them again. */
export class DeferredIndexes {
  readonly #db: ImportConnection;
  /** The CREATE INDEX statements of the dropped indexes, as the schema holds them. */
  #dropped: string[] = [];

  constructor(db: ImportConnection) {
    this.#db = db;
  }

  get active(): boolean {
    return this.#dropped.length > 0;
  }

  async drop(): Promise<void> {
    for (const name of DEFERRABLE) {
      const row = await this.#db.get<{ sql: string }>("SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?", [name]);
      if (row === undefined) continue;
      await this.#db.exec(`DROP INDEX ${name}`);
      this.#dropped.push(row.sql);
    }
  }

  /**
   * Creates the dropped indexes from the table rows, with a sorter of SORT_CACHE and no helper thread:
   * the sort of a million-node store's index took 50 MB more RSS with `threads = 2` and the connection's
   * 16 MB cache (a buffer of the cache's size per sorting thread), and was not faster on two cores.
   */
  async rebuild(): Promise<void> {
    if (this.#dropped.length === 0) return;
    // The sort spills to temporary files, not memory (an import's worker keeps statement journals in
    // memory: its temp_store is MEMORY), so that the rebuild of a large store's index is not held in RSS.
    const { temp_store: tempStore } = (await this.#db.get<{ temp_store: number }>('PRAGMA temp_store'))!;
    const { cache_size: cacheSize } = (await this.#db.get<{ cache_size: number }>('PRAGMA cache_size'))!;
    if (tempStore === 2) await this.#db.exec('PRAGMA temp_store = FILE');
    await this.#db.exec(`PRAGMA cache_size = ${SORT_CACHE}`);
    try {
      for (const sql of this.#dropped) await this.#db.exec(sql);
    } finally {
      await this.#db.exec(`PRAGMA cache_size = ${cacheSize}`);
      if (tempStore === 2) await this.#db.exec('PRAGMA temp_store = MEMORY');
    }
    this.#dropped = [];
  }
}
