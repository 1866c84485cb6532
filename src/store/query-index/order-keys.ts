// Store layer (query index): per-property ordering keys (the first value of each node) and, on first
// use, the ordinals sorted by them, which ordering by one property walks instead of visiting every match.
import type { Column } from './column-scan.js';
import { compareNullableNumber, compareNullableString } from './top-k.js';

/** Per ordinal, the first value of a property (what ordering uses); `has` 0 = missing. */
export interface OrderKeys {
  readonly has: Uint8Array;
  readonly n: Float64Array;
  readonly f: (string | undefined)[];
  readonly s: (string | undefined)[];
  /** The ordinals that have the property, ascending by it (then by ordinal); built on first use. */
  sorted?: Int32Array;
  /** Builds `sorted` from a persisted order instead of sorting (persisted-segments.ts). */
  sortedFromSegment?: () => Int32Array;
}

export function sortedByKey(k: OrderKeys): Int32Array {
  if (k.sortedFromSegment !== undefined) return k.sortedFromSegment();
  let count = 0;
  for (let o = 0; o < k.has.length; o++) count += k.has[o]!;
  const out = new Int32Array(count);
  let i = 0;
  for (let o = 0; o < k.has.length; o++) if (k.has[o] === 1) out[i++] = o;
  return out.sort((a, b) => compareNullableNumber(k.n[a]!, k.n[b]!) || compareNullableString(k.f[a], k.f[b]) || a - b);
}

/** The ordering keys of a property over `size` ordinals. */
export function orderKeysOf(col: Column, size: number): OrderKeys {
  const keys: OrderKeys = { has: new Uint8Array(size), n: new Float64Array(size).fill(NaN), f: new Array(size), s: new Array(size) };
  for (let i = 0; i < col.ords.length; i++) {
    const o = col.ords[i]!;
    if (col.pos[i] !== 0 || o < 0) continue;
    keys.has[o] = 1;
    keys.n[o] = col.nums[i]!;
    keys.f[o] = col.folded[i];
    keys.s[o] = col.strs[i];
  }
  return keys;
}
