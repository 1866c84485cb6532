// Store layer (query index): a fixed-size bit set over dense node ordinals, with the few operations a
// query needs. Words are 32 bits so that popcount and iteration stay in small integers.

export class Bitmap {
  readonly words: Uint32Array;

  constructor(readonly size: number, words?: Uint32Array) {
    this.words = words ?? new Uint32Array((size + 31) >>> 5);
  }

  static full(size: number): Bitmap {
    const b = new Bitmap(size);
    b.words.fill(0xffffffff);
    const extra = b.words.length * 32 - size;
    if (extra > 0) b.words[b.words.length - 1] = 0xffffffff >>> extra;
    return b;
  }

  static range(size: number, lo: number, hi: number): Bitmap {
    const b = new Bitmap(size);
    for (let i = lo; i < hi; i++) b.set(i);
    return b;
  }

  set(i: number): void {
    this.words[i >>> 5]! |= 1 << (i & 31);
  }

  has(i: number): boolean {
    return (this.words[i >>> 5]! & (1 << (i & 31))) !== 0;
  }

  and(other: Bitmap): this {
    const a = this.words;
    const b = other.words;
    for (let i = 0; i < a.length; i++) a[i]! &= b[i]!;
    return this;
  }

  or(other: Bitmap): this {
    const a = this.words;
    const b = other.words;
    for (let i = 0; i < a.length; i++) a[i]! |= b[i]!;
    return this;
  }

  andNot(other: Bitmap): this {
    const a = this.words;
    const b = other.words;
    for (let i = 0; i < a.length; i++) a[i]! &= ~b[i]!;
    return this;
  }

  clone(): Bitmap {
    return new Bitmap(this.size, this.words.slice());
  }

  count(): number {
    let n = 0;
    const w = this.words;
    for (let i = 0; i < w.length; i++) {
      let v = w[i]!;
      if (v === 0) continue;
      v -= (v >>> 1) & 0x55555555;
      v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
      n += (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
    }
    return n;
  }

  /** How many bits are set in both: e.g. the tombstoned ordinals among a query's matches, without a copy. */
  countAnd(other: Bitmap): number {
    let n = 0;
    const a = this.words;
    const b = other.words;
    for (let i = 0; i < a.length; i++) {
      let v = a[i]! & b[i]!;
      if (v === 0) continue;
      v -= (v >>> 1) & 0x55555555;
      v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
      n += (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
    }
    return n;
  }

  /** Ordinals of the set bits (less those set in `except`) in ascending order, stopping after `max`. */
  first(max: number, skip = 0, except?: Bitmap): number[] {
    const out: number[] = [];
    const w = this.words;
    const x = except?.words;
    for (let i = 0; i < w.length && out.length < max; i++) {
      let v = x === undefined ? w[i]! : w[i]! & ~x[i]!;
      while (v !== 0) {
        const bit = 31 - Math.clz32(v & -v);
        v &= v - 1;
        if (skip > 0) { skip--; continue; }
        out.push((i << 5) + bit);
        if (out.length >= max) break;
      }
    }
    return out;
  }

  /** Calls `fn` for every set ordinal in ascending order. */
  forEach(fn: (ordinal: number) => void): void {
    const w = this.words;
    for (let i = 0; i < w.length; i++) {
      let v = w[i]!;
      while (v !== 0) {
        const bit = 31 - Math.clz32(v & -v);
        v &= v - 1;
        fn((i << 5) + bit);
      }
    }
  }
}
