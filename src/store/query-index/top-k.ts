// Store layer (query index): ordering helpers: SQL-compatible comparison of keys, and the bounded heap
// that picks the first `k` matches without sorting them all.
import type { Bitmap } from './bitmap.js';
import { compareCodePoints } from './compare.js';

/** SQLite sorts NULL (here NaN: strings and booleans) before every number. */
export function compareNullableNumber(a: number, b: number): number {
  const na = Number.isNaN(a);
  const nb = Number.isNaN(b);
  if (na || nb) return na === nb ? 0 : na ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

export function compareNullableString(a: string | undefined, b: string | undefined): number {
  if (a === undefined || b === undefined) return a === b ? 0 : a === undefined ? -1 : 1;
  return compareCodePoints(a, b);
}

/** The `k` smallest set ordinals under `compare`, sorted: a bounded max-heap, O(n log k). */
export function topK(matches: Bitmap, k: number, compare: (a: number, b: number) => number): number[] {
  const heap: number[] = [];
  const up = (i: number) => {
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (compare(heap[i]!, heap[p]!) <= 0) break;
      [heap[i], heap[p]] = [heap[p]!, heap[i]!];
      i = p;
    }
  };
  const down = (i: number) => {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < heap.length && compare(heap[l]!, heap[m]!) > 0) m = l;
      if (r < heap.length && compare(heap[r]!, heap[m]!) > 0) m = r;
      if (m === i) return;
      [heap[i], heap[m]] = [heap[m]!, heap[i]!];
      i = m;
    }
  };
  matches.forEach((o) => {
    if (heap.length < k) {
      heap.push(o);
      up(heap.length - 1);
    } else if (k > 0 && compare(o, heap[0]!) < 0) {
      heap[0] = o;
      down(0);
    }
  });
  return heap.sort(compare);
}

/**
 * The first `need` matches in the order of `sorted` (every ordinal that has the key, ascending by
 * it), walked from the start (`descending` false) or the end: when the order's first entries match
 * often, this reads a handful of entries where the heap would visit every match. Ties with the last
 * one taken are taken too, and `compare` (the query's full order) sorts the result, so it equals
 * `topK`. Undefined when it cannot decide within `budget` probes, or when fewer than `need` matches
 * have the key (the rest, without it, come last): then the caller uses `topK`.
 */
export function topKBySortedScan(
  sorted: Int32Array, matches: Bitmap, need: number, descending: boolean,
  sameKey: (a: number, b: number) => boolean, compare: (a: number, b: number) => number, budget: number,
): number[] | undefined {
  const out: number[] = [];
  const n = sorted.length;
  let probes = 0;
  for (let i = 0; i < n; i++) {
    if (++probes > budget) return undefined;
    const o = sorted[descending ? n - 1 - i : i]!;
    if (out.length >= need && !sameKey(o, out[out.length - 1]!)) return out.sort(compare).slice(0, need);
    if (matches.has(o)) out.push(o);
  }
  return out.length >= need ? out.sort(compare).slice(0, need) : undefined;
}
