// SQLite backend: rows for a worker's connection (import-worker.ts), encoded into one byte buffer
// that is handed over, not copied: a structured clone of thousands of strings (and the garbage of the
// arrays holding them) was a fifth of the importing thread's time. A value is a tag byte and then an
// 8-byte number, or a 4-byte length and UTF-8 bytes, or nothing (null).
import type { RowBuffer, RowValue } from './import-connection.js';
import { ROWS_PER_STATEMENT } from './multi-row-insert.js';

/** Rows of one table, ready for the worker: it decodes them and binds ROWS_PER_STATEMENT rows per statement. */
export interface EncodedBatch {
  /** `INSERT INTO t (a, b, c)` */
  readonly head: string;
  readonly width: number;
  readonly rows: number;
  readonly data: ArrayBuffer;
  readonly bytes: number;
}

/** A batch's buffer to begin with (a batch of node rows of the bench set takes about 400 KB). */
export const BATCH_BYTES = 1 << 20;

/** Tags of the encoding (import-worker.ts decodes them). */
export const TAG_NUMBER = 0;
export const TAG_TEXT = 1;
export const TAG_NULL = 2;

export class EncodedRows implements RowBuffer {
  readonly #head: string;
  readonly #width: number;
  readonly #bufferRows: number;
  readonly #allocate: (bytes: number) => Buffer;
  #data: Buffer;
  #at = 0;
  #rows = 0;

  /**
   * `allocate` gives a buffer of at least `bytes` that owns its memory (it is moved to the worker); the
   * connection hands back those the worker returns (allocating a megabyte per batch made V8 collect
   * garbage for the external memory).
   */
  constructor(head: string, width: number, bufferRows = 8 * ROWS_PER_STATEMENT, allocate: (bytes: number) => Buffer = (n) => Buffer.allocUnsafeSlow(n)) {
    this.#head = head;
    this.#width = width;
    this.#bufferRows = bufferRows;
    this.#allocate = allocate;
    this.#data = allocate(BATCH_BYTES);
  }

  /** Buffers one row (exactly `width` values); true when the buffer is full (`take` it). */
  add(...row: RowValue[]): boolean {
    for (const v of row) this.put(v);
    return this.endRow();
  }

  put(v: RowValue): void {
    if (typeof v === 'string') {
      // UTF-8 takes at most 3 bytes per UTF-16 unit.
      this.#room(5 + 3 * v.length);
      const data = this.#data;
      data[this.#at] = TAG_TEXT;
      const n = data.write(v, this.#at + 5, 'utf8');
      data.writeUInt32LE(n, this.#at + 1);
      this.#at += 5 + n;
    } else if (typeof v === 'number') {
      this.#room(9);
      this.#data[this.#at] = TAG_NUMBER;
      this.#data.writeDoubleLE(v, this.#at + 1);
      this.#at += 9;
    } else {
      this.#room(1);
      this.#data[this.#at++] = TAG_NULL;
    }
  }

  endRow(): boolean {
    return ++this.#rows >= this.#bufferRows;
  }

  /** The buffered rows (undefined when none); the buffer starts afresh. */
  take(): EncodedBatch | undefined {
    if (this.#rows === 0) return undefined;
    const batch: EncodedBatch = { head: this.#head, width: this.#width, rows: this.#rows, data: this.#data.buffer as ArrayBuffer, bytes: this.#at };
    this.#data = this.#allocate(BATCH_BYTES);
    this.#at = 0;
    this.#rows = 0;
    return batch;
  }

  #room(bytes: number): void {
    if (this.#at + bytes <= this.#data.length) return;
    const grown = this.#allocate(Math.max(this.#data.length * 2, this.#at + bytes));
    this.#data.copy(grown, 0, 0, this.#at);
    this.#data = grown;
  }
}
