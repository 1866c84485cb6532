// SQLite backend: the connection an import writes through. Small imports use the store's writer on
// the main thread (LocalImportConnection); a large one runs its transaction on a connection of a
// worker thread (import-worker.ts), so that SQLite's B-tree work for one batch of rows overlaps with
// the JavaScript that prepares the next one (bench/RESULTS.md, issue 20: each was about half of a
// large import's time). Both answer every call in the order the calls were made.
import type Database from 'better-sqlite3';
import { StatementCache } from './statement-cache.js';
import { MultiRowInsert } from './multi-row-insert.js';

/** One statement and its parameters. */
export type StatementCall = readonly [sql: string, params: readonly unknown[]];

export type RowValue = string | number | null;

/** Rows of one table buffered for a connection, in the form it takes fastest. */
export interface RowBuffer {
  /** Buffers one row (exactly the table's width of values); true when the buffer is full. */
  add(...row: RowValue[]): boolean;
  /** The next value of the row being buffered (the row's values one call each: no array per row). */
  put(value: RowValue): void;
  /** Ends the row `put` gave (exactly the table's width of values); true when the buffer is full. */
  endRow(): boolean;
}

export interface ImportConnection {
  /** A buffer of rows for `INSERT INTO t (…)` (`head`), handed over by `write` every `bufferRows` rows or sooner. */
  rows(head: string, width: number, bufferRows: number): RowBuffer;
  /**
   * Writes whose result is not needed: the rows buffered in `buffers` (made by this connection's
   * `rows`), then `calls`. They may run later, but before any call made after them. Resolves when the
   * connection can take more (a worker bounds the writes in flight).
   */
  write(buffers: readonly RowBuffer[], calls?: readonly StatementCall[]): Promise<void>;
  get<T>(sql: string, params?: readonly unknown[]): Promise<T | undefined>;
  all<T>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  run(sql: string, params?: readonly unknown[]): Promise<{ changes: number }>;
  exec(sql: string): Promise<void>;
}

/** The store's writer, inside the transaction the store holds around the import. */
export class LocalImportConnection implements ImportConnection {
  readonly #db: Database.Database;
  readonly #statements = new StatementCache();

  constructor(db: Database.Database) {
    this.#db = db;
  }

  #prepared(sql: string): Database.Statement {
    return this.#statements.get(this.#db, sql);
  }

  rows(head: string, width: number, bufferRows: number): RowBuffer {
    return new MultiRowInsert(head, width, bufferRows);
  }

  async write(buffers: readonly RowBuffer[], calls: readonly StatementCall[] = []): Promise<void> {
    for (const b of buffers) {
      if (!(b instanceof MultiRowInsert)) throw new TypeError('a row buffer of another connection');
      for (const [sql, params] of b.take()) this.#prepared(sql).run(params as unknown[]);
    }
    for (const [sql, params] of calls) this.#prepared(sql).run(params as unknown[]);
  }

  async get<T>(sql: string, params: readonly unknown[] = []): Promise<T | undefined> {
    return this.#prepared(sql).get(params as unknown[]) as T | undefined;
  }

  async all<T>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
    return this.#prepared(sql).all(params as unknown[]) as T[];
  }

  async run(sql: string, params: readonly unknown[] = []): Promise<{ changes: number }> {
    return { changes: this.#prepared(sql).run(params as unknown[]).changes };
  }

  async exec(sql: string): Promise<void> {
    this.#db.exec(sql);
  }
}
