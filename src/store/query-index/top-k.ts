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
