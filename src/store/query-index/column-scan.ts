// Store layer (query index): one property column scanned for a range, by exact-value lookup, by binary
// search over the numeric sort order, or entry by entry; plus the path-order search of ordinals.
import type { TypedRange, ValueKind } from '../../query/ast.js';
import type { Bitmap } from './bitmap.js';
import { KIND_CODES, KIND_NAMES, type PropertyColumn } from './column-source.js';
import { compareCodePoints } from './compare.js';

/** A property column with each entry's ordinal resolved (-1: a node of another workspace). */
export interface Column extends Omit<PropertyColumn, 'nids'> {
  readonly ords: Int32Array;
  /** `dict` case-folded (string kinds fold, the others do not), built on first use. */
  foldedDict?: readonly string[];
  /** Entries of numeric kinds sorted by value, built on first use (range scans by binary search). */
  numOrder?: Int32Array;
  /** From a persisted segment: first-value entries ascending by key, ties by entry (order keys' `sorted` uses it). */
  keyOrder?: Int32Array;
}

/** What folding a column's texts needs (a PropertyColumn, or a Column). */
type Foldable = Pick<PropertyColumn, 'kinds' | 'codes' | 'dict'> & { foldedDict?: readonly string[] };

/** The exact text of entry `i`. */
export function textAt(col: Foldable, i: number): string {
  return col.dict[col.codes[i]!]!;
}

/** The case-folded text of entry `i`, as index-values.ts folds it (lower case for strings only). */
export function foldedAt(col: Foldable, i: number): string {
  if (col.kinds[i] !== KIND_CODES.string) return col.dict[col.codes[i]!]!;
  col.foldedDict ??= col.dict.map((t) => t.toLowerCase());
  return col.foldedDict[col.codes[i]!]!;
}

/**
 * Sets the ordinals of the entries of `col` for which `test(kind, num, text)` holds. The test runs
 * once per distinct (kind, text), not once per entry: a million values of ten categories cost ten
 * tests and one pass over the codes.
 */
export function matchInto(
  col: Column, folded: boolean, test: (kind: ValueKind, num: number, str: string) => boolean, out: Bitmap,
): void {
  // 0 unknown, 1 match, 2 no match; per kind code (1..4) and dictionary code.
  const seen = new Uint8Array(col.dict.length * 5);
  const { ords, kinds, codes } = col;
  for (let i = 0; i < ords.length; i++) {
    const o = ords[i]!;
    if (o < 0) continue;
    const slot = codes[i]! * 5 + kinds[i]!;
    let v = seen[slot]!;
    if (v === 0) {
      v = test(KIND_NAMES[kinds[i]!]!, col.nums[i]!, folded ? foldedAt(col, i) : textAt(col, i)) ? 1 : 2;
      seen[slot] = v;
    }
    if (v === 1) out.set(o);
  }
}

/** Sets the ordinals of the entries of `col` that fall in `r`, by binary search over the numeric sort order or per distinct text. */
export function rangeInto(col: Column, r: TypedRange, out: Bitmap): void {
  const numeric = r.kind === 'number' || r.kind === 'date';
  if (numeric) {
    if (!col.numOrder) {
      let count = 0;
      for (let i = 0; i < col.ords.length; i++) {
        if (col.ords[i]! >= 0 && (col.kinds[i] === KIND_CODES.number || col.kinds[i] === KIND_CODES.date)) count++;
      }
      const idx = new Int32Array(count);
      let j = 0;
      for (let i = 0; i < col.ords.length; i++) {
        if (col.ords[i]! >= 0 && (col.kinds[i] === KIND_CODES.number || col.kinds[i] === KIND_CODES.date)) idx[j++] = i;
      }
      const nums = col.nums;
      col.numOrder = idx.sort((a, b) => nums[a]! - nums[b]!);
    }
    const order = col.numOrder;
    const nums = col.nums;
    let lo = 0;
    let hi = order.length;
    if (r.lo) {
      const v = r.lo.value as number;
      const inclusive = r.lo.inclusive;
      lo = firstIndex(order.length, (i) => (inclusive ? nums[order[i]!]! >= v : nums[order[i]!]! > v));
    }
    if (r.hi) {
      const v = r.hi.value as number;
      const inclusive = r.hi.inclusive;
      hi = firstIndex(order.length, (i) => (inclusive ? nums[order[i]!]! > v : nums[order[i]!]! >= v));
    }
    const code = KIND_CODES[r.kind];
    for (let i = lo; i < hi; i++) {
      const e = order[i]!;
      if (col.kinds[e] === code) out.set(col.ords[e]!);
    }
    return;
  }
  matchInto(col, false, (kind, num, str) => inRange(r, kind, num, str), out);
}

/** Smallest index in [0, n) for which the monotone `pred` holds (n when none). */
function firstIndex(n: number, pred: (i: number) => boolean): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (pred(mid)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}
export function inRange(r: TypedRange, kind: ValueKind, num: number, str: string): boolean {
  if (r.kind !== kind) return false;
  const numeric = kind === 'number' || kind === 'date';
  const cmp = (bound: string | number) => (numeric ? num - (bound as number) : compareCodePoints(str, bound as string));
  if (r.lo) {
    const c = cmp(r.lo.value);
    if (c < 0 || (c === 0 && !r.lo.inclusive)) return false;
  }
  if (r.hi) {
    const c = cmp(r.hi.value);
    if (c > 0 || (c === 0 && !r.hi.inclusive)) return false;
  }
  return true;
}

/** The UUIDs of `eq` alternatives on `@id` (exact string equalities), or undefined for anything else. */
export function uuidEqualities(ranges: readonly TypedRange[]): string[] | undefined {
  const ids: string[] = [];
  for (const r of ranges) {
    if (r.kind !== 'string' || !r.lo || !r.hi || !r.lo.inclusive || !r.hi.inclusive || r.lo.value !== r.hi.value) return undefined;
    ids.push(r.lo.value as string);
  }
  return ids;
}
