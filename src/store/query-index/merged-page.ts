// Store layer (query index): one page of a query answered by a base segment plus delta records. The
// base's first `offset + limit` matches (in the query's order, from ordered-page.ts) and the matching
// delta records are merged under one comparison with the same semantics as the base's: typed property
// keys (first value; numbers before text as SQL sorts NULL numbers; case-folded text; missing values
// last in both directions), names, paths, types and UUIDs, and path order to break ties.
import type { StoreOrder } from '../../query/ast.js';
import { compareCodePoints } from './compare.js';
import type { Extra } from './delta.js';
import { hasKey, keyFolded, keyNumber, type OrderKeys } from './order-keys.js';
import { compareNullableNumber, compareNullableString } from './top-k.js';
import { foldedNamesOf, namesOf, type Workspace } from './workspace.js';

/** A base ordinal (a number) or a delta record. */
export type Item = number | Extra;

/** What ordering needs besides the base: per `orderBy` entry, the property's keys (when the base has it), and base UUIDs. */
export interface MergeKeys {
  readonly propertyKeys: readonly (OrderKeys | undefined)[];
  readonly ids: readonly string[] | undefined;
}

type Compare = (a: Item, b: Item) => number;

function pathOf(ws: Workspace, i: Item): string {
  return typeof i === 'number' ? ws.table.paths.at(i) : i.record.path;
}

function propertyKey(keys: OrderKeys | undefined, name: string, i: Item): { n: number; f: string | undefined } | undefined {
  if (typeof i === 'number') {
    if (keys === undefined || !hasKey(keys, i)) return undefined;
    return { n: keyNumber(keys, i), f: keyFolded(keys, i) };
  }
  const row = i.rows.find((r) => r.name === name && r.pos === 0);
  return row === undefined ? undefined : { n: row.n ?? NaN, f: row.f };
}

function keyCompare(ws: Workspace, o: StoreOrder, keys: OrderKeys | undefined, ids: readonly string[] | undefined): Compare {
  const dir = o.descending ? -1 : 1;
  const target = o.target;
  switch (target.kind) {
    case 'property':
      return (a, b) => {
        const ka = propertyKey(keys, target.name, a);
        const kb = propertyKey(keys, target.name, b);
        if (ka === undefined || kb === undefined) return ka === kb ? 0 : ka === undefined ? 1 : -1;
        return dir * (compareNullableNumber(ka.n, kb.n) || compareNullableString(ka.f, kb.f));
      };
    case 'name': {
      const names = namesOf(ws);
      const folded = foldedNamesOf(ws);
      const name = (i: Item) => (typeof i === 'number' ? names[i]! : pathOf(ws, i).slice(pathOf(ws, i).lastIndexOf('/') + 1));
      const fold = (i: Item) => (typeof i === 'number' ? folded[i]! : name(i).toLowerCase());
      return (a, b) => dir * (compareCodePoints(fold(a), fold(b)) || compareCodePoints(name(a), name(b)));
    }
    case 'path':
      return (a, b) => dir * (compareCodePoints(pathOf(ws, a).toLowerCase(), pathOf(ws, b).toLowerCase())
        || compareCodePoints(pathOf(ws, a), pathOf(ws, b)));
    case 'type': {
      const type = (i: Item) => (typeof i === 'number' ? ws.table.types[ws.table.typeCodes[i]!]! : i.record.type);
      return (a, b) => dir * compareCodePoints(type(a), type(b));
    }
    case 'uuid': {
      const id = (i: Item) => (typeof i === 'number' ? ids![i]! : i.record.id);
      return (a, b) => dir * compareCodePoints(id(a), id(b));
    }
  }
}

/** The query's order over base ordinals and delta records; path order (the ordinal order) breaks ties. */
export function mergedCompare(ws: Workspace, orderBy: readonly StoreOrder[], keys: MergeKeys): Compare {
  const chain = orderBy.map((o, i) => keyCompare(ws, o, keys.propertyKeys[i], keys.ids));
  return (a, b) => {
    for (const k of chain) {
      const r = k(a, b);
      if (r !== 0) return r;
    }
    return compareCodePoints(pathOf(ws, a), pathOf(ws, b));
  };
}

/**
 * Items `offset .. offset + limit` of the merge of `base` (the base's first matches, already in the
 * query's order) and `extras` (every matching delta record, in any order).
 */
export function mergedPage(base: readonly number[], extras: readonly Extra[], compare: Compare, offset: number, limit: number): Item[] {
  const sorted = [...extras].sort(compare);
  const out: Item[] = [];
  const end = offset + limit;
  let i = 0;
  let j = 0;
  while (out.length < end && (i < base.length || j < sorted.length)) {
    if (j >= sorted.length || (i < base.length && compare(base[i]!, sorted[j]!) <= 0)) out.push(base[i++]!);
    else out.push(sorted[j++]!);
  }
  return out.slice(offset, end);
}
