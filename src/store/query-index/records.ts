// Query index: the records of a page of results, from the byte-bounded record cache or read once from
// the store. A read that a cache drop overtook (`current()` false) is answered but not kept.
import type { ByteLru } from '../../cache/byte-lru.js';
import { stringBytes } from '../../cache/byte-lru.js';
import { recordBytes } from '../record-bytes.js';
import type { NodeRecord } from '../rows.js';
import type { ColumnSource } from './column-source.js';
import type { Workspace } from './workspace.js';

export async function recordsOf(
  cache: ByteLru<string, NodeRecord>, source: ColumnSource, ws: Workspace, workspace: string,
  nids: readonly number[], current: () => boolean,
): Promise<NodeRecord[]> {
  const found = new Map<number, NodeRecord>();
  const missing: number[] = [];
  for (const n of nids) {
    const r = cache.get(`${workspace}\u0000${n}`);
    if (r !== undefined) found.set(n, r);
    else missing.push(n);
  }
  if (missing.length > 0) {
    const nidOfPath = new Map(missing.map((n) => [ws.table.paths.at(ws.ordinalOfNid[n]! - 1), n]));
    for (const r of await source.nodesByNid(missing)) {
      const nid = nidOfPath.get(r.path);
      if (nid === undefined) continue;
      found.set(nid, r);
      const key = `${workspace}\u0000${nid}`;
      if (current()) cache.set(key, r, stringBytes(key) + recordBytes(r));
    }
  }
  const out: NodeRecord[] = [];
  for (const n of nids) {
    const r = found.get(n);
    if (r !== undefined) out.push(r);
  }
  return out;
}
