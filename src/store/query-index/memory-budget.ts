// Store layer (query index): the byte-bounded caches of what requests choose. Property names come
// from filters and `orderBy`, conditions and conjunctions from query strings: each kind of structure
// is an LRU over its share of `cache.queryIndexMaxBytes`, so no flood of names or filters can grow
// the index past it (typed arrays live outside the JS heap, where nothing else would stop them).
import { ByteLru, stringBytes, type ByteLruStats } from '../../cache/byte-lru.js';
import type { NodeRecord } from '../rows.js';
import type { Bitmap } from './bitmap.js';
import type { LiveWorkspacesStats } from './live-workspaces.js';
import type { Column } from './column-scan.js';
import type { Extra } from './delta.js';
import type { OrderKeys } from './order-keys.js';
import type { OrderedPrefix } from './ordered-prefix.js';

/** Default of `cache.queryIndexMaxBytes`. */
export const DEFAULT_QUERY_INDEX_BYTES = 1024 * 1024 * 1024;
/**
 * Results (bit sets of conditions, conjunctions, ordered prefixes) at most: 256 bit sets of a
 * million-node workspace, thousands of a smaller one; a quarter of a smaller budget.
 */
export const RESULTS_MAX_BYTES = 32 * 1024 * 1024;

export type PerName = { readonly column: Column } | { readonly keys: OrderKeys };
/**
 * A whole query's base matches (scope, types, conditions, full text) and their count: they hold for
 * the base, whatever the delta (tombstones are taken out per request).
 */
export interface Conjunction {
  readonly kind: 'conjunction';
  readonly matches: Bitmap;
  readonly total: number;
}
/** What one delta version changes in a conjunction's answer: its tombstoned matches, its matching delta records. */
export interface DeltaMatches {
  readonly kind: 'delta';
  readonly version: number;
  readonly tombstoned: number;
  readonly extras: readonly Extra[];
}
export type Result = Bitmap | Conjunction | DeltaMatches | OrderedPrefix;

/** The byte-bounded caches, and how the loaded workspaces follow changes (live-workspaces.ts). */
export interface QueryIndexStats extends LiveWorkspacesStats {
  readonly maxBytes: number;
  /** Property columns and order keys. */
  readonly perName: ByteLruStats;
  /** Bit sets of scopes, conditions and conjunctions. */
  readonly results: ByteLruStats;
  /** Result rows already read. */
  readonly records: ByteLruStats;
}

export class MemoryBudget {
  readonly perName: ByteLru<string, PerName>;
  readonly results: ByteLru<string, Result>;
  readonly records: ByteLru<string, NodeRecord>;

  constructor(readonly maxBytes: number) {
    // Half for per-name structures (they are what makes a query fast), the rest for results and rows.
    // Per-name structures and rows exist only for what the content holds; results are keyed by the
    // query string, so a flood of random filters fills their share: at most RESULTS_MAX_BYTES.
    this.perName = new ByteLru(Math.floor(maxBytes / 2));
    this.results = new ByteLru(Math.min(RESULTS_MAX_BYTES, Math.floor(maxBytes / 4)));
    this.records = new ByteLru(Math.floor(maxBytes / 4));
  }

  clear(): void {
    this.perName.clear();
    this.results.clear();
    this.records.clear();
  }

  stats(): Omit<QueryIndexStats, keyof LiveWorkspacesStats> {
    return { maxBytes: this.maxBytes, perName: this.perName.stats(), results: this.results.stats(), records: this.records.stats() };
  }

  /** Drops every entry of one base (its keys start with `prefix`). */
  dropPrefix(prefix: string): void {
    for (const lru of [this.perName, this.results, this.records] as const) {
      for (const key of [...lru.keys()]) if (key.startsWith(prefix)) lru.delete(key);
    }
  }
}

/**
 * What a typed array costs besides its elements: its object and its ArrayBuffer in the heap, and the
 * backing store's bookkeeping outside it (about 200 bytes on Node 20, x64). A small query's bit set
 * is mostly this.
 */
const TYPED_ARRAY_BYTES = 256;

/**
 * A column's arrays (ordinals, positions, kinds, numbers, codes: 23 bytes an entry), its
 * distinct texts, and a reserve for what is built on first use (`numOrder`, 4 bytes an entry, and
 * the folded texts), so that the entry's cost does not grow after it is counted.
 */
export function columnBytes(col: Column): number {
  let n = 64 + 6 * TYPED_ARRAY_BYTES + col.ords.length * (23 + 4);
  for (const t of col.dict) n += 2 * stringBytes(t);
  return n;
}

/**
 * Order keys over `size` ordinals (an entry each) and their sorted ordinals, plus the column they
 * point into: it stays alive as long as they do, even once its own cache entry is evicted.
 */
export function orderKeysBytes(col: Column, size: number): number {
  return 64 + 2 * TYPED_ARRAY_BYTES + size * (4 + 4) + columnBytes(col);
}

export function bitmapBytes(b: Bitmap): number {
  return 64 + TYPED_ARRAY_BYTES + b.words.length * 4;
}

/** A cached result: its bit set or ordinals, and the references to delta records it holds (the records are the delta's). */
export function resultBytes(r: Result): number {
  if ('words' in r) return bitmapBytes(r);
  switch (r.kind) {
    case 'conjunction': return 16 + bitmapBytes(r.matches);
    case 'delta': return 64 + 16 + 8 * r.extras.length;
    case 'prefix': return 64 + TYPED_ARRAY_BYTES + 4 * r.ordinals.length;
  }
}
