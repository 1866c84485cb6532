/**
 * A map bounded by the bytes its entries are estimated to hold, evicting the least recently used.
 *
 * Every cache whose keys a caller can choose (paths, property names, role sets, query strings) is
 * one of these, so a flood of distinct keys costs at most `maxBytes`, misses and empty results
 * included: a caller states each entry's size (its key included: cache/digest-key.ts keeps keys that
 * come from requests at a fixed size), and an entry is never free (ENTRY_OVERHEAD).
 */

/**
 * What an entry costs before its key and value: its slot in the Map's table (three words, with room
 * for the table to double) and the record holding the value and its size (a header and two fields).
 * Measured at about 80 bytes on Node 20 (x64); counted with room to spare.
 */
export const ENTRY_OVERHEAD = 128;

/**
 * Estimated bytes of a string held in V8: a 16-byte header and two bytes per code unit (a string is
 * two-byte as soon as one character is not Latin-1), rounded up to 8. Only true of a flat string: a
 * slice of a longer string keeps that one alive (see digest-key.ts).
 */
export function stringBytes(text: string): number {
  return (16 + text.length * 2 + 7) & ~7;
}

export interface ByteLruStats {
  entries: number;
  bytes: number;
  maxBytes: number;
  evictions: number;
}

interface Entry<V> {
  readonly value: V;
  readonly bytes: number;
  /** `#clock` when the entry was last put at the end of the order. */
  stamp: number;
}

export class ByteLru<K, V> {
  readonly #entries = new Map<K, Entry<V>>();
  /** Counts placements at the end of the order (sets and moves): how far back an entry's stamp is. */
  #clock = 0;
  readonly #onEvict: ((key: K, value: V) => void) | undefined;
  #bytes = 0;
  #evictions = 0;
  maxBytes: number;

  constructor(maxBytes: number, onEvict?: (key: K, value: V) => void) {
    if (!Number.isFinite(maxBytes) || maxBytes < 0) throw new RangeError(`maxBytes must be a non-negative number, got ${maxBytes}`);
    this.maxBytes = maxBytes;
    this.#onEvict = onEvict;
  }

  get size(): number {
    return this.#entries.size;
  }

  get bytes(): number {
    return this.#bytes;
  }

  has(key: K): boolean {
    return this.#entries.has(key);
  }

  /**
   * The value, marked as recently used: moved to the end of the order unless it is among the newer
   * half already (fewer placements than half the entries since its own), so an entry read is never
   * among the older half evicted first. Not moved every time because V8's Map keeps a deleted entry in
   * its bucket's chain until the table is rebuilt: deleting and re-adding the same hot key on every
   * read made each look-up walk thousands of dead slots (a get measured 7 µs at 3,000 entries, 22 µs
   * at 10,000; test/cache/byte-lru.test.ts).
   */
  get(key: K): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (this.#clock - entry.stamp > this.#entries.size >>> 1) {
      this.#entries.delete(key);
      entry.stamp = this.#clock++;
      this.#entries.set(key, entry);
    }
    return entry.value;
  }

  /** The value without changing its place in the eviction order. */
  peek(key: K): V | undefined {
    return this.#entries.get(key)?.value;
  }

  /**
   * Stores `value` as costing `bytes` (plus ENTRY_OVERHEAD); returns false when it alone exceeds
   * the bound, in which case nothing is kept (and an older value under `key` is dropped).
   */
  set(key: K, value: V, bytes: number): boolean {
    this.delete(key);
    const cost = ENTRY_OVERHEAD + Math.max(0, bytes);
    if (cost > this.maxBytes) return false;
    this.#entries.set(key, { value, bytes: cost, stamp: this.#clock++ });
    this.#bytes += cost;
    this.#shrink();
    return true;
  }

  delete(key: K): boolean {
    const entry = this.#entries.get(key);
    if (entry === undefined) return false;
    this.#entries.delete(key);
    this.#bytes -= entry.bytes;
    return true;
  }

  clear(): void {
    this.#entries.clear();
    this.#bytes = 0;
  }

  /** Changes the bound, evicting at once what no longer fits. */
  resize(maxBytes: number): void {
    this.maxBytes = maxBytes;
    this.#shrink();
  }

  keys(): IterableIterator<K> {
    return this.#entries.keys();
  }

  stats(): ByteLruStats {
    return { entries: this.#entries.size, bytes: this.#bytes, maxBytes: this.maxBytes, evictions: this.#evictions };
  }

  #shrink(): void {
    while (this.#bytes > this.maxBytes) {
      const oldest = this.#entries.keys().next();
      if (oldest.done === true) break;
      const entry = this.#entries.get(oldest.value)!;
      this.#entries.delete(oldest.value);
      this.#bytes -= entry.bytes;
      this.#evictions++;
      this.#onEvict?.(oldest.value, entry.value);
    }
  }
}
