// Store layer: a set of strings in 4 bytes each (a 32-bit hash in an open-addressing table), for what
// an import must remember of every node it wrote: "maybe" is asked again exactly, "no" is exact. A
// million paths take 8 MB instead of the ~150 MB of a Set of them.

const EMPTY = 0;
const EMPTY_TABLE = new Uint32Array(0);

export class Fingerprints {
  /** Allocated on the first add: most sets of an import (a leaf node's children) stay empty. */
  #table = EMPTY_TABLE;
  #size = 0;

  get size(): number {
    return this.#size;
  }

  add(text: string): void {
    if ((this.#size + 1) * 2 > this.#table.length) this.#grow();
    if (this.#insert(this.#table, hashOf(text))) this.#size++;
  }

  /** False: never added. True: probably added (a hash collision says true for another string). */
  mayHave(text: string): boolean {
    if (this.#size === 0) return false;
    const table = this.#table;
    const mask = table.length - 1;
    const h = hashOf(text);
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const v = table[i]!;
      if (v === EMPTY) return false;
      if (v === h) return true;
    }
  }

  /** Adds `h` unless there; true when added. */
  #insert(table: Uint32Array, h: number): boolean {
    const mask = table.length - 1;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const v = table[i]!;
      if (v === h) return false;
      if (v === EMPTY) {
        table[i] = h;
        return true;
      }
    }
  }

  #grow(): void {
    const old = this.#table;
    const table = new Uint32Array(Math.max(16, old.length * 2));
    for (const v of old) if (v !== EMPTY) this.#insert(table, v);
    this.#table = table;
  }
}

/** FNV-1a over UTF-16 code units, never 0 (0 marks an empty slot). */
function hashOf(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0) || 1;
}
