// Store layer (query index): one property column scanned for a range, by exact-value lookup, by binary
// search over the numeric sort order, or entry by entry; plus the path-order search of ordinals.
import type { TypedRange, ValueKind } from '../../query/ast.js';
import type { Bitmap } from './bitmap.js';
import type { PropertyColumn } from './column-source.js';
import { compareCodePoints } from './compare.js';
import { valueRange } from './segment-codec.js';

/** A property column with each entry's ordinal resolved (-1: a node of another workspace). */
export interface Column extends PropertyColumn {
  readonly ords: Int32Array;
  /** Exact-value lookup for equality on strings and booleans, built on first use. */
  byValue?: Map<string, number[]>;
  /** Entries of numeric kinds sorted by value, built on first use (range scans by binary search). */
  numOrder?: Int32Array;
  /** From a persisted segment: first-value entries ascending by key, ties by entry (order keys' `sorted` uses it). */
  keyOrder?: Int32Array;
  /** From a persisted segment: string and boolean entries grouped by value (equality without `byValue`). */
  valueOrder?: Int32Array;
}

/** Sets the ordinals of the entries of `col` that fall in `r`, using the value lookup or sort order. */
export function rangeInto(col: Column, r: TypedRange, out: Bitmap): void {
  const numeric = r.kind === 'number' || r.kind === 'date';
  if (!numeric && r.lo && r.hi && r.lo.inclusive && r.hi.inclusive && r.lo.value === r.hi.value) {
    if (col.valueOrder && (r.kind === 'string' || r.kind === 'boolean')) {
      const [from, to] = valueRange(col, col.valueOrder, r.kind, r.lo.value as string);
      for (let i = from; i < to; i++) {
        const o = col.ords[col.valueOrder[i]!]!;
        if (o >= 0) out.set(o);
      }
      return;
    }
    if (!col.byValue) {
      const m = new Map<string, number[]>();
      for (let i = 0; i < col.ords.length; i++) {
        if (col.ords[i]! < 0 || (col.kinds[i] !== 'string' && col.kinds[i] !== 'boolean')) continue;
        const key = `${col.kinds[i]}\u0000${col.strs[i]}`;
        const list = m.get(key);
        if (list) list.push(col.ords[i]!);
        else m.set(key, [col.ords[i]!]);
      }
      col.byValue = m;
    }
    for (const o of col.byValue.get(`${r.kind}\u0000${r.lo.value as string}`) ?? []) out.set(o);
    return;
  }
  if (numeric) {
    if (!col.numOrder) {
      const idx: number[] = [];
      for (let i = 0; i < col.ords.length; i++) {
        if (col.ords[i]! >= 0 && (col.kinds[i] === 'number' || col.kinds[i] === 'date')) idx.push(i);
      }
      idx.sort((a, b) => col.nums[a]! - col.nums[b]!);
      col.numOrder = Int32Array.from(idx);
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
    for (let i = lo; i < hi; i++) {
      const e = order[i]!;
      if (col.kinds[e] === r.kind) out.set(col.ords[e]!);
    }
    return;
  }
  for (let i = 0; i < col.ords.length; i++) {
    if (col.ords[i]! >= 0 && inRange(r, col.kinds[i]!, col.nums[i]!, col.strs[i]!)) out.set(col.ords[i]!);
  }
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

export function lowerBound(sorted: readonly string[], key: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareCodePoints(sorted[mid]!, key) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
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
