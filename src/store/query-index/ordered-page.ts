// Store layer (query index): one page of the matches in `orderBy` order. Pure: the index resolves
// each ordering key to its in-memory column first; this file only compares ordinals and selects.
import type { Bitmap } from './bitmap.js';
import type { OrderKeys } from './order-keys.js';
import { compareKeys, keyFolded, keyNumber, sortedByKey } from './order-keys.js';
import { topK, topKBySortedScan } from './top-k.js';
import { compareCodePoints } from './compare.js';
import { foldedNamesOf, namesOf, type Workspace } from './workspace.js';

/** One ordering key as a comparison of two node ordinals (ascending; the caller applies direction). */
export type OrdinalCompare = (a: number, b: number) => number;

/** A property key: typed values, case-insensitive text; nodes without the property last, whatever the direction. */
export function propertyCompare(k: OrderKeys, descending: boolean): OrdinalCompare {
  const dir = descending ? -1 : 1;
  const entry = k.entry;
  return (a, b) => {
    const ha = entry[a]! >= 0;
    const hb = entry[b]! >= 0;
    if (ha !== hb) return ha ? -1 : 1;
    if (!ha) return 0;
    return dir * compareKeys(k, a, b);
  };
}


/** Order by a node's own name (case-folded first), path (case-folded, then path order) or type. */
export function nodeCompare(ws: Workspace, kind: 'name' | 'path' | 'type', descending: boolean): OrdinalCompare {
  const dir = descending ? -1 : 1;
  switch (kind) {
    case 'name': {
      const folded = foldedNamesOf(ws);
      const names = namesOf(ws);
      return (a, b) => dir * (compareCodePoints(folded[a]!, folded[b]!) || compareCodePoints(names[a]!, names[b]!));
    }
    case 'path': {
      const paths = ws.table.paths;
      return (a, b) => dir * (compareCodePoints(paths.at(a).toLowerCase(), paths.at(b).toLowerCase()) || a - b);
    }
    case 'type': {
      const { typeCodes, types } = ws.table;
      return (a, b) => dir * compareCodePoints(types[typeCodes[a]!]!, types[typeCodes[b]!]!);
    }
  }
}
/** The keys in turn; path order (the ordinal) breaks ties, as in SQL. */
export function chainCompare(keys: readonly OrdinalCompare[]): OrdinalCompare {
  return (a, b) => {
    for (const k of keys) {
      const r = k(a, b);
      if (r !== 0) return r;
    }
    return a - b;
  };
}

export interface PageRequest {
  readonly matches: Bitmap;
  readonly total: number;
  readonly offset: number;
  readonly limit: number;
  readonly compare: OrdinalCompare;
  /** Set when the order is one property: its keys, direction, and the workspace size. */
  readonly single?: { readonly keys: OrderKeys; readonly descending: boolean; readonly size: number };
}

/** The ordinals of the page: by a scan of the property's sorted entries when that is cheaper, else a bounded heap. */
export function orderedPage(p: PageRequest): number[] {
  const k = Math.min(p.total, p.offset + p.limit);
  const s = p.single;
  if (s !== undefined && k > 0) {
    const keys = s.keys;
    keys.sorted ??= sortedByKey(keys);
    const budget = Math.max(4_096, Math.ceil((16 * k * s.size) / p.total));
    const same = (a: number, b: number) => {
      const na = keyNumber(keys, a);
      const nb = keyNumber(keys, b);
      return na === nb || (Number.isNaN(na) && Number.isNaN(nb) && keyFolded(keys, a) === keyFolded(keys, b));
    };
    const top = topKBySortedScan(keys.sorted, p.matches, k, s.descending, same, p.compare, budget);
    if (top !== undefined) return top.slice(p.offset, p.offset + p.limit);
  }
  return topK(p.matches, k, p.compare).slice(p.offset, p.offset + p.limit);
}
