// Store layer: what a decoded node row costs in memory, roughly but never less than its text, so that
// caches of rows (the repository's subtree cache, the query index's records) can be bounded by bytes.
import { stringBytes } from '../cache/byte-lru.js';
import type { NodeRecord } from './rows.js';

/** Object header and fields of a record, and of each property's tuple. */
const RECORD_OVERHEAD = 160;
const PROPERTY_OVERHEAD = 48;

function valueBytes(v: unknown): number {
  if (typeof v === 'string') return stringBytes(v);
  if (Array.isArray(v)) {
    let n = 16 + v.length * 8;
    for (const x of v) n += valueBytes(x);
    return n;
  }
  return 16; // numbers, booleans, null: a slot and a boxed value at most
}

export function recordBytes(r: NodeRecord): number {
  let n = RECORD_OVERHEAD + stringBytes(r.id) + stringBytes(r.path) + stringBytes(r.parentPath) + stringBytes(r.name)
    + stringBytes(r.type) + stringBytes(r.workspace);
  for (const m of r.mixins) n += stringBytes(m);
  for (const [name, , value] of r.properties) n += PROPERTY_OVERHEAD + stringBytes(name) + valueBytes(value);
  return n;
}

export function recordsBytes(rows: readonly NodeRecord[]): number {
  let n = 16 + rows.length * 8;
  for (const r of rows) n += recordBytes(r);
  return n;
}
