// Store layer (query index): the first ordinals of a base conjunction in a query's order, kept across
// delta versions. Order keys and base matches never change, so a write only tombstones ordinals: a
// request skips those and merges the delta records (merged-page.ts), and the expensive top-k over every
// base match runs again only when the kept prefix no longer covers the page (new tombstones in it, or
// a deeper page).
import type { Bitmap } from './bitmap.js';

/** The first `ordinals.length` base matches in order; `complete` when that is all of them. */
export interface OrderedPrefix {
  readonly kind: 'prefix';
  readonly ordinals: Int32Array;
  readonly complete: boolean;
}

/** Smallest prefix worth computing: below it a top-k costs the same, and small pages share it. */
const MIN_PREFIX = 64;

/**
 * How many ordinals to keep for a page ending at `need` when `tombstoned` matches are tombstoned:
 * rounded up to a power of two, so later writes and nearby deeper pages still fit.
 */
export function prefixLength(need: number, tombstoned: number, baseTotal: number): number {
  let k = MIN_PREFIX;
  while (k < need + tombstoned) k *= 2;
  return Math.min(k, baseTotal);
}

/**
 * The first `need` live ordinals of the prefix (tombstoned ones skipped), or undefined when the prefix
 * is too short to tell (it holds fewer live ordinals and is not the whole of the matches).
 */
export function livePrefix(prefix: OrderedPrefix, tombstones: Bitmap | undefined, need: number): number[] | undefined {
  const out: number[] = [];
  const ordinals = prefix.ordinals;
  for (let i = 0; i < ordinals.length && out.length < need; i++) {
    const o = ordinals[i]!;
    if (tombstones === undefined || !tombstones.has(o)) out.push(o);
  }
  return out.length >= need || prefix.complete ? out : undefined;
}
