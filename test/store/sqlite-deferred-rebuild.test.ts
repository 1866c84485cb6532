// The rebuild of a large import's deferred index (deferred-indexes.ts) sorts with a small buffer and
// no helper thread, its temporary files on disk, and gives the connection back as it was: with
// `threads = 2` and the worker's 16 MB cache, the sort of a 1M-node store's index took ~50 MB more RSS
// (bench/RESULTS.md, issue 31), no faster on two cores.
import { describe, expect, it } from 'vitest';
import { DeferredIndexes } from '../../src/store/sqlite/deferred-indexes.js';
import type { ImportConnection, RowBuffer, StatementCall } from '../../src/store/sqlite/import-connection.js';

/** A connection that answers the pragmas and the schema, and records what it is told to run. */
class RecordingConnection implements ImportConnection {
  readonly execs: string[] = [];
  /** The pragmas in force when each CREATE INDEX ran. */
  readonly atCreate: { cacheSize: number; tempStore: number }[] = [];
  #cacheSize = -16384;
  #tempStore = 2;

  rows(): RowBuffer {
    throw new Error('not used');
  }

  async write(_buffers: readonly RowBuffer[], _calls?: readonly StatementCall[]): Promise<void> {}

  async get<T>(sql: string): Promise<T | undefined> {
    if (sql.startsWith('SELECT sql FROM sqlite_master')) return { sql: 'CREATE INDEX nodes_by_path_type ON nodes (workspace, path, type)' } as T;
    if (sql === 'PRAGMA temp_store') return { temp_store: this.#tempStore } as T;
    if (sql === 'PRAGMA cache_size') return { cache_size: this.#cacheSize } as T;
    throw new Error(`unexpected ${sql}`);
  }

  async all<T>(): Promise<T[]> {
    return [];
  }

  async run(): Promise<{ changes: number }> {
    return { changes: 0 };
  }

  async exec(sql: string): Promise<void> {
    this.execs.push(sql);
    const cache = /^PRAGMA cache_size = (-?\d+)$/.exec(sql);
    if (cache) this.#cacheSize = Number(cache[1]);
    if (sql === 'PRAGMA temp_store = FILE') this.#tempStore = 1;
    if (sql === 'PRAGMA temp_store = MEMORY') this.#tempStore = 2;
    if (sql.startsWith('CREATE INDEX')) this.atCreate.push({ cacheSize: this.#cacheSize, tempStore: this.#tempStore });
  }

  pragmas(): { cacheSize: number; tempStore: number } {
    return { cacheSize: this.#cacheSize, tempStore: this.#tempStore };
  }
}

describe('deferred index rebuild', () => {
  it('sorts with a 4 MB cache, temporary files on disk and no sorter thread, then restores the connection', async () => {
    const db = new RecordingConnection();
    const deferred = new DeferredIndexes(db);
    await deferred.drop();
    expect(deferred.active).toBe(true);
    await deferred.rebuild();
    expect(db.atCreate).toEqual([{ cacheSize: -4096, tempStore: 1 }]);
    expect(db.execs.some((sql) => sql.startsWith('PRAGMA threads'))).toBe(false);
    expect(db.pragmas()).toEqual({ cacheSize: -16384, tempStore: 2 });
    expect(deferred.active).toBe(false);
  });
});
