// The sorted-scan path of ordering gives exactly what the bounded heap gives (ties, values that are
// not numbers, missing values, offsets, both directions), and gives up (undefined) instead of
// guessing when its budget runs out or too few matches have the key.
import { describe, expect, it } from 'vitest';
import { Bitmap } from '../../../src/store/query-index/bitmap.js';
import { compareNullableNumber, compareNullableString, topK, topKBySortedScan } from '../../../src/store/query-index/top-k.js';

function random(seed: number): () => number {
  let x = seed;
  return () => ((x = (x * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
}

function setup(size: number, seed: number, density: number) {
  const r = random(seed);
  const has = new Uint8Array(size);
  const n = new Float64Array(size).fill(NaN);
  const f: (string | undefined)[] = new Array(size);
  const matches = new Bitmap(size);
  for (let o = 0; o < size; o++) {
    if (r() < 0.9) {
      has[o] = 1;
      if (r() < 0.8) n[o] = Math.floor(r() * 20); // many ties
      else f[o] = ['b', 'a', 'c'][Math.floor(r() * 3)];
    }
    if (r() < density) matches.set(o);
  }
  const sorted = Int32Array.from([...Array(size).keys()].filter((o) => has[o] === 1))
    .sort((a, b) => compareNullableNumber(n[a]!, n[b]!) || compareNullableString(f[a], f[b]) || a - b);
  const same = (a: number, b: number) => n[a] === n[b] || (Number.isNaN(n[a]!) && Number.isNaN(n[b]!) && f[a] === f[b]);
  const compareFor = (dir: number) => (a: number, b: number) => {
    if (has[a] !== has[b]) return has[b]! - has[a]!;
    if (has[a] === 0) return a - b;
    return dir * (compareNullableNumber(n[a]!, n[b]!) || compareNullableString(f[a], f[b])) || a - b;
  };
  return { matches, sorted, same, compareFor };
}

describe('topKBySortedScan', () => {
  it.each([[1, 0.5], [2, 0.05], [3, 0.01], [4, 0.9]])('equals topK (seed %i, %d of nodes matching)', (seed, density) => {
    const { matches, sorted, same, compareFor } = setup(3_000, seed, density);
    for (const descending of [false, true]) {
      const compare = compareFor(descending ? -1 : 1);
      for (const need of [1, 5, 10, 37, 100]) {
        const fast = topKBySortedScan(sorted, matches, need, descending, same, compare, 1_000_000);
        if (fast === undefined) continue; // fewer than `need` matches with the key
        expect(fast).toEqual(topK(matches, need, compare));
      }
    }
  });

  it('answers undefined when too few matches have the key, or when its budget runs out', () => {
    const { matches, sorted, same, compareFor } = setup(500, 7, 0.01);
    let withKey = 0;
    for (const o of sorted) if (matches.has(o)) withKey++;
    expect(topKBySortedScan(sorted, matches, withKey + 1, false, same, compareFor(1), 1_000_000)).toBeUndefined();
    expect(topKBySortedScan(sorted, matches, 1, false, same, compareFor(1), 0)).toBeUndefined();
  });
});
