// Store layer (query index): the paths of a workspace in path order, as one UTF-8 buffer and offsets.
// A million paths as JavaScript strings cost ~60 MB of heap and a million objects for the collector to
// trace; as bytes they cost their length plus 4 bytes each, and load (or persist) as two blocks.
// UTF-8 byte order is code point order, the order both backends sort paths in (SQLite's BINARY
// collation, PostgreSQL's "C"), so binary search compares bytes without decoding.

export class PathList {
  /** `offsets[i]`..`offsets[i + 1]` are the bytes of path `i`. */
  constructor(readonly bytes: Buffer, readonly offsets: Uint32Array) {}

  get length(): number {
    return this.offsets.length - 1;
  }

  at(i: number): string {
    return this.bytes.toString('utf8', this.offsets[i]!, this.offsets[i + 1]!);
  }

  /** True when path `i` is exactly `key` (UTF-8 bytes of it). */
  equals(i: number, key: Buffer): boolean {
    const start = this.offsets[i]!;
    const end = this.offsets[i + 1]!;
    return end - start === key.length && this.bytes.compare(key, 0, key.length, start, end) === 0;
  }

  /** The first index whose path is not below `key` in code point order (`length` when none). */
  lowerBound(key: string | Buffer): number {
    const k = typeof key === 'string' ? Buffer.from(key, 'utf8') : key;
    let lo = 0;
    let hi = this.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      // Buffer#compare(target, …, sourceStart, sourceEnd) compares the source range with the target.
      if (this.bytes.compare(k, 0, k.length, this.offsets[mid]!, this.offsets[mid + 1]!) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The index of `path`, or -1 when it is not in the list. */
  indexOf(path: string): number {
    const k = Buffer.from(path, 'utf8');
    const i = this.lowerBound(k);
    return i < this.length && this.equals(i, k) ? i : -1;
  }

  /** Every path as a string (for the rare full scans that test each path; not kept). */
  *strings(): IterableIterator<string> {
    for (let i = 0; i < this.length; i++) yield this.at(i);
  }

  get byteLength(): number {
    return this.bytes.length + this.offsets.byteLength;
  }

  static from(paths: readonly string[]): PathList {
    const b = new PathListBuilder(paths.length);
    for (const p of paths) b.push(p);
    return b.finish();
  }
}

/** Appends paths (already in order) into a growing buffer. */
export class PathListBuilder {
  #bytes: Buffer;
  #offsets: Uint32Array;
  #count = 0;
  #end = 0;

  constructor(expected = 1024) {
    this.#offsets = new Uint32Array(Math.max(expected, 16) + 1);
    this.#bytes = Buffer.allocUnsafe(Math.max(expected, 16) * 32);
  }

  push(path: string): void {
    // At most 3 bytes per UTF-16 unit.
    const room = path.length * 3;
    if (this.#end + room > this.#bytes.length) {
      const grown = Buffer.allocUnsafe(Math.max(this.#bytes.length * 2, this.#end + room));
      this.#bytes.copy(grown, 0, 0, this.#end);
      this.#bytes = grown;
    }
    if (this.#count + 2 > this.#offsets.length) {
      const grown = new Uint32Array(this.#offsets.length * 2);
      grown.set(this.#offsets);
      this.#offsets = grown;
    }
    this.#end += this.#bytes.write(path, this.#end, 'utf8');
    this.#offsets[++this.#count] = this.#end;
  }

  finish(): PathList {
    // Copies, so the list holds exactly its bytes and not the builder's spare room.
    const bytes = Buffer.allocUnsafeSlow(this.#end);
    this.#bytes.copy(bytes, 0, 0, this.#end);
    return new PathList(bytes, this.#offsets.slice(0, this.#count + 1));
  }
}
