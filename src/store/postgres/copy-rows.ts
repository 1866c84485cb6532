// PostgreSQL backend: rows for `COPY … FROM STDIN` (text format), PostgreSQL's bulk-load path.
// An INSERT of parallel arrays makes the server parse one array literal per column and plan the
// statement; COPY streams the rows straight into the table. Inside the caller's transaction: a failed
// COPY aborts it, and nothing of it is written (see import-transaction.ts).
//
// Rows are encoded into one growing byte buffer as they are added, not kept as strings: a batch's rows
// live until it is sent, and thousands of small strings surviving each young-generation collection
// (copied, then promoted) made garbage collection the client's largest cost.

/** A value of a COPY row: text, a number, or null (`\N`). */
export type CopyValue = string | number | null;

const SPECIAL = /[\\\n\r\t]/;
const SPECIALS = /[\\\n\r\t]/g;
const ESCAPES: Readonly<Record<string, string>> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** Text in COPY's text format: backslash, tab, newline and carriage return escaped. */
export function copyEscape(value: string): string {
  return SPECIAL.test(value) ? value.replace(SPECIALS, (c) => ESCAPES[c]!) : value;
}

/** Width of a node id's slot: any bigint in decimal, zero-padded (which the server reads as the number). */
const NID_WIDTH = 19;
const NID_ZEROS = '0'.repeat(NID_WIDTH);

/**
 * Rows of one COPY, each starting with the id of the node it belongs to. The ids are drawn when the
 * batch is sent, after its rows were built: each row gets a fixed-width slot, filled in by `setNids`.
 */
export class CopyRows {
  #buf = Buffer.allocUnsafe(1 << 14);
  #length = 0;
  /** Offset of each row's id slot, and the index (in the batch) of the node whose id goes there. */
  #slots: number[] = [];
  #nodes: number[] = [];

  get rows(): number {
    return this.#slots.length;
  }

  /** A row of the node at `node` (its index in the batch): its id, then `values`. */
  add(node: number, values: readonly CopyValue[]): void {
    this.#slots.push(this.#length);
    this.#nodes.push(node);
    // One string per row, short-lived, written with one call (a call per value cost more than the string).
    let line = NID_ZEROS;
    for (const v of values) line += v === null ? '\t\\N' : typeof v === 'number' ? `\t${v}` : `\t${copyEscape(v)}`;
    line += '\n';
    // A UTF-16 code unit takes at most 3 bytes in UTF-8.
    this.#room(line.length * 3);
    this.#length += this.#buf.write(line, this.#length, 'utf8');
  }

  /** Fills the id slots: `nids[i]` is the id of the batch's node i (decimal text, as pg returns int8). */
  setNids(nids: readonly string[]): void {
    const buf = this.#buf;
    for (let r = 0; r < this.#slots.length; r++) {
      const nid = nids[this.#nodes[r]!]!;
      // Digit by digit: a Buffer.write call per row cost more than the copying.
      const at = this.#slots[r]! + NID_WIDTH - nid.length;
      for (let c = 0; c < nid.length; c++) buf[at + c] = nid.charCodeAt(c);
    }
  }

  /** Empties it for the next batch, keeping its buffer (grown to a batch's size once, not for every batch). */
  clear(): void {
    this.#length = 0;
    this.#slots = [];
    this.#nodes = [];
  }

  get bytes(): Buffer {
    return this.#buf.subarray(0, this.#length);
  }

  #room(bytes: number): void {
    if (this.#length + bytes <= this.#buf.length) return;
    let size = this.#buf.length * 2;
    while (size < this.#length + bytes) size *= 2;
    const grown = Buffer.allocUnsafe(size);
    this.#buf.copy(grown, 0, 0, this.#length);
    this.#buf = grown;
  }
}
