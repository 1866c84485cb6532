// SQLite backend: rows of one table buffered and written many per INSERT. A statement call costs
// more than a row (binding, stepping the program, better-sqlite3's crossing into C++), so an import
// writes its nodes and full text ROWS_PER_STATEMENT rows per statement; the buffer hands its rows to
// the import's connection (import-connection.ts) as statement calls, several statements at a time.
import type { RowBuffer, RowValue, StatementCall } from './import-connection.js';

/** Rows per statement: a few hundred parameters, well below SQLite's 32,766 limit. */
export const ROWS_PER_STATEMENT = 64;

/** `INSERT INTO t (a, b) VALUES (?, ?), (?, ?), …` by head, width and row count (a few texts per table). */
const texts = new Map<string, string>();

function statementText(head: string, width: number, rows: number): string {
  const key = `${rows}\u0000${head}`;
  let sql = texts.get(key);
  if (sql === undefined) {
    const one = `(${Array.from({ length: width }, () => '?').join(', ')})`;
    sql = `${head} VALUES ${Array.from({ length: rows }, () => one).join(', ')}`;
    texts.set(key, sql);
  }
  return sql;
}

export class MultiRowInsert implements RowBuffer {
  /** `INSERT INTO t (a, b, c)`: the values lists are appended. */
  readonly #head: string;
  readonly #width: number;
  /** Values buffered before the rows are handed over (a multiple of a statement's). */
  readonly #bufferValues: number;
  #values: unknown[] = [];

  /** `bufferRows`: rows kept before `full` says so (a multiple of ROWS_PER_STATEMENT). */
  constructor(head: string, width: number, bufferRows = ROWS_PER_STATEMENT) {
    this.#bufferValues = bufferRows * width;
    this.#head = head;
    this.#width = width;
  }

  /** Buffers one row (exactly `width` values); true when the buffer is full (`take` it). */
  add(...row: RowValue[]): boolean {
    for (const v of row) this.#values.push(v);
    return this.endRow();
  }

  put(value: RowValue): void {
    this.#values.push(value);
  }

  endRow(): boolean {
    return this.#values.length >= this.#bufferValues;
  }

  /** The buffered rows as statement calls of ROWS_PER_STATEMENT rows (the last one shorter); empties the buffer. */
  take(): StatementCall[] {
    const values = this.#values;
    if (values.length === 0) return [];
    this.#values = [];
    const full = ROWS_PER_STATEMENT * this.#width;
    const calls: StatementCall[] = [];
    for (let i = 0; i < values.length; i += full) {
      const part = values.length <= full ? values : values.slice(i, i + full);
      calls.push([statementText(this.#head, this.#width, part.length / this.#width), part]);
    }
    return calls;
  }
}
