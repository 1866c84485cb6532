// SQLite backend: rows of one table buffered and written many per INSERT. A statement call costs
// more than a row (binding, stepping the program, better-sqlite3's crossing into C++), so an import
// writes its nodes, index rows and full text ROWS_PER_STATEMENT rows per call of a prepared statement.
import type Database from 'better-sqlite3';

/** Rows per statement: a few hundred parameters, well below SQLite's 32,766 limit. */
export const ROWS_PER_STATEMENT = 64;

export class MultiRowInsert {
  readonly #db: Database.Database;
  /** `INSERT INTO t (a, b, c)`: the values lists are appended. */
  readonly #head: string;
  readonly #width: number;
  /** Prepared by row count: the full statement, and the shorter ones a flush needs. */
  readonly #statements: Map<number, Database.Statement>;
  /** Values buffered before a write (a multiple of a statement's). */
  readonly #bufferValues: number;
  #values: unknown[] = [];

  /**
   * `bufferRows`: rows kept before they are written (a multiple of ROWS_PER_STATEMENT); `statements`:
   * shared by the buffers of one table (same head), so each statement is prepared once.
   */
  constructor(db: Database.Database, head: string, width: number, bufferRows = ROWS_PER_STATEMENT, statements = new Map<number, Database.Statement>()) {
    this.#db = db;
    this.#statements = statements;
    this.#bufferValues = bufferRows * width;
    this.#head = head;
    this.#width = width;
  }

  /** Buffers one row (exactly `width` values); writes the buffer when it is full. */
  add(...row: unknown[]): void {
    for (const v of row) this.#values.push(v);
    if (this.#values.length >= this.#bufferValues) this.flush();
  }

  /** Rows buffered and not yet written. */
  get pending(): number {
    return this.#values.length / this.#width;
  }

  /** Writes every buffered row. */
  flush(): void {
    const values = this.#values;
    if (values.length === 0) return;
    this.#values = [];
    const full = ROWS_PER_STATEMENT * this.#width;
    if (values.length === full) return void this.#statement(ROWS_PER_STATEMENT).run(values);
    for (let i = 0; i < values.length; i += full) {
      const part = values.slice(i, i + full);
      this.#statement(part.length / this.#width).run(part);
    }
  }

  /** Forgets the buffered rows (the transaction rolls back). */
  discard(): void {
    this.#values = [];
  }

  #statement(rows: number): Database.Statement {
    let stmt = this.#statements.get(rows);
    if (stmt === undefined) {
      const one = `(${Array.from({ length: this.#width }, () => '?').join(', ')})`;
      stmt = this.#db.prepare(`${this.#head} VALUES ${Array.from({ length: rows }, () => one).join(', ')}`);
      this.#statements.set(rows, stmt);
    }
    return stmt;
  }
}
