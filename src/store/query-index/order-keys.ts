// Store layer (query index): per-property ordering keys (the entry of each node's first value) and,
// on first use, the ordinals sorted by them, which ordering by one property walks instead of visiting
// every match. The keys point into the column (no copy of its numbers or texts).
import { foldedAt, type Column } from './column-scan.js';
import { compareNullableNumber, compareNullableString } from './top-k.js';

/** Per ordinal, the column entry of its first value of a property (what ordering uses), -1 = missing. */
export interface OrderKeys {
  readonly column: Column;
  readonly entry: Int32Array;
  /** The ordinals that have the property, ascending by it (then by ordinal); built on first use. */
  sorted?: Int32Array;
  /** Builds `sorted` from a persisted order instead of sorting (persisted-segments.ts). */
  sortedFromSegment?: () => Int32Array;
}

export function hasKey(k: OrderKeys, o: number): boolean {
  return k.entry[o]! >= 0;
}

/** The number (or epoch milliseconds) of the ordinal's key; NaN for texts, booleans and missing keys. */
export function keyNumber(k: OrderKeys, o: number): number {
  const e = k.entry[o]!;
  return e < 0 ? NaN : k.column.nums[e]!;
}

/** The case-folded text of the ordinal's key; undefined when it has none. */
export function keyFolded(k: OrderKeys, o: number): string | undefined {
  const e = k.entry[o]!;
  return e < 0 ? undefined : foldedAt(k.column, e);
}

/** Ascending by number (NULL numbers first, as SQL sorts them), then case-folded text. */
export function compareKeys(k: OrderKeys, a: number, b: number): number {
  const col = k.column;
  const ea = k.entry[a]!;
  const eb = k.entry[b]!;
  return compareNullableNumber(col.nums[ea]!, col.nums[eb]!) || compareNullableString(foldedAt(col, ea), foldedAt(col, eb));
}

export function sortedByKey(k: OrderKeys): Int32Array {
  if (k.sortedFromSegment !== undefined) return k.sortedFromSegment();
  let count = 0;
  for (let o = 0; o < k.entry.length; o++) if (k.entry[o]! >= 0) count++;
  const out = new Int32Array(count);
  let i = 0;
  for (let o = 0; o < k.entry.length; o++) if (k.entry[o]! >= 0) out[i++] = o;
  return out.sort((a, b) => compareKeys(k, a, b) || a - b);
}

/** The ordering keys of a property over `size` ordinals. */
export function orderKeysOf(col: Column, size: number): OrderKeys {
  const entry = new Int32Array(size).fill(-1);
  for (let i = 0; i < col.ords.length; i++) {
    const o = col.ords[i]!;
    if (col.pos[i] !== 0 || o < 0) continue;
    entry[o] = i;
  }
  return { column: col, entry };
}
