// SQLite backend: a node rewritten in place (Nodes API update). The row keeps its nid; only the
// property-index rows whose value changed (or that were added or removed) are written, and the
// full-text row only when the text changed. At a million nodes each `props` row touched costs five
// B-tree updates of 12M entries, so rewriting all of a node's rows (delete + insert) made a one-property
// write cost ~10 ms on the main thread; this touches the two or three rows that actually changed.
import type { InsertNode } from '../import-tx.js';
import { fullTextOf, indexRows, type IndexRow } from '../index-values.js';
import type { StoredProperty } from '../../repository/property-type.js';
import { KIND_CODE } from './migrations.js';
import type { Statements } from './statements.js';

interface CurrentRow { nid: number; type: string; props: string }

const keyOf = (r: IndexRow): string => `${r.name}\u0000${r.pos}`;
const sameValue = (a: IndexRow, b: IndexRow): boolean => a.kind === b.kind && a.s === b.s && a.f === b.f && a.n === b.n;

/**
 * Rewrites the node at `node.path` (same id, path and position) keeping its row. Returns false, writing
 * nothing, when there is no row there (the caller inserts the node, as delete + insert did).
 */
export function updateInPlace(s: Statements, node: InsertNode): boolean {
  const current = s.nodeForUpdate.get(node.workspace, node.path) as CurrentRow | undefined;
  if (current === undefined) return false;
  const { nid } = current;
  const before = JSON.parse(current.props) as StoredProperty[];
  s.updateNode.run(node.type, JSON.stringify(node.mixins), JSON.stringify(node.properties), nid);

  const old = new Map(indexRows(before).map((r) => [keyOf(r), r]));
  const added: IndexRow[] = [];
  for (const r of indexRows(node.properties)) {
    const key = keyOf(r);
    const was = old.get(key);
    if (was !== undefined && sameValue(was, r)) {
      old.delete(key);
      continue;
    }
    added.push(r);
  }
  // Removed or changed values first: a changed value keeps its (name, pos) key.
  for (const r of old.values()) s.deleteProp.run(node.workspace, r.name, nid, r.pos);
  for (const r of added) {
    const kind = KIND_CODE[r.kind];
    s.insertProp.run(nid, node.workspace, r.name, r.pos, kind, r.s, r.f, r.n);
    s.insertKind.run(node.workspace, r.name, kind);
  }
  if (node.type !== current.type) s.insertType.run(node.workspace, node.type);

  const text = fullTextOf(node.properties);
  const oldText = fullTextOf(before);
  if (text !== oldText) {
    if (oldText !== '') s.deleteFts.run(nid);
    if (text !== '') s.insertFts.run(nid, text);
  }
  return true;
}
