// Ingest layer: text that arrives in chunks (read-export.ts decodes 256 KiB at a time) handed on as
// whole lines, without their `\n`: a line cut by a chunk's end waits for the next chunk.
export class ChunkLines {
  /** A line not ended by the last chunk. */
  #carry = '';

  constructor(private readonly onLine: (line: string) => void) {}

  write(chunk: string): void {
    let nl = chunk.indexOf('\n');
    if (nl < 0) {
      this.#carry += chunk;
      return;
    }
    this.onLine(this.#carry + chunk.slice(0, nl));
    this.#carry = '';
    let start = nl + 1;
    while ((nl = chunk.indexOf('\n', start)) >= 0) {
      this.onLine(chunk.slice(start, nl));
      start = nl + 1;
    }
    this.#carry = chunk.slice(start);
  }

  /** Hands on the last line if the text did not end with `\n`; says whether there was one. */
  end(): boolean {
    if (this.#carry === '') return false;
    const last = this.#carry;
    this.#carry = '';
    this.onLine(last);
    return true;
  }
}
