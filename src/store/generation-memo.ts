// Store layer: answers that only change with the content (property kinds, node types present),
// kept for the current generation so that a query does not ask the database for them every time.
// Keys hold the property names a query asks for, so the memo is bounded by bytes, not entries.
import { ByteLru, stringBytes, type ByteLruStats } from '../cache/byte-lru.js';

/** Default budget: thousands of typical entries. */
const DEFAULT_MEMO_BYTES = 4 * 1024 * 1024;

/** A rough estimate of a memoized value: strings, arrays and maps of them. */
function valueBytes(v: unknown): number {
  if (typeof v === 'string') return stringBytes(v);
  if (Array.isArray(v)) return v.reduce((n: number, x: unknown) => n + valueBytes(x), 16 + v.length * 8);
  if (v instanceof Map) {
    let n = 64;
    for (const [k, x] of v) n += 48 + valueBytes(k) + valueBytes(x);
    return n;
  }
  return 16;
}

export class GenerationMemo {
  #generation: number | undefined;
  readonly #values: ByteLru<string, unknown>;

  constructor(maxBytes = DEFAULT_MEMO_BYTES) {
    this.#values = new ByteLru(maxBytes);
  }

  async get<T>(generation: number, key: string, load: () => Promise<T> | T): Promise<T> {
    if (generation !== this.#generation) {
      this.#values.clear();
      this.#generation = generation;
    }
    if (this.#values.has(key)) return this.#values.get(key) as T;
    const value = await load();
    if (this.#generation === generation) this.#values.set(key, value, stringBytes(key) + valueBytes(value));
    return value;
  }

  stats(): ByteLruStats {
    return this.#values.stats();
  }
}
