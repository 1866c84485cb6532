// SQLite backend: a node rewritten in place (Nodes API update). The row keeps its nid (the query
// index and the full-text index know the node by it); the full-text row is written only when the text
// changed. The query index's values are derived from the row's property document (migration 7), so
// nothing else is written but the kinds catalogue's new entries.
import type { InsertNode } from '../import-tx.js';
import { forEachIndexedKind, fullTextOf } from '../index-values.js';
import type { StoredProperty } from '../../model/property-type.js';
import { KIND_CODES } from '../query-index/column-source.js';
import type { Statements } from './statements.js';

interface CurrentRow { nid: number; type: string; props: string }

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
  forEachIndexedKind(node.properties, (name, kind) => s.insertKind.run(node.workspace, name, KIND_CODES[kind]));
  if (node.type !== current.type) s.insertType.run(node.workspace, node.type);

  const text = fullTextOf(node.properties);
  const oldText = fullTextOf(before);
  if (text !== oldText) {
    if (oldText !== '') s.deleteFts.run(nid);
    if (text !== '') s.insertFts.run(nid, text);
  }
  return true;
}
