// SQLite backend: one node written or a subtree deleted at once, statement by statement, for the
// Nodes API's writes (a handful of nodes, read back within the same transaction). Imports buffer
// their rows instead (batched-import-tx.ts).
import { descendantRange } from '../../model/paths.js';
import type { InsertNode } from '../import-tx.js';
import { forEachIndexedKind, fullTextOf } from '../index-values.js';
import { KIND_CODES } from '../query-index/column-source.js';
import type { Statements } from './statements.js';

export function insertNodeRow(s: Statements, n: InsertNode): void {
  const nid = s.insert.run(n.workspace, n.id, n.path, n.parentPath, n.name, n.depth, n.position, n.type,
    JSON.stringify(n.mixins), JSON.stringify(n.properties)).lastInsertRowid;
  forEachIndexedKind(n.properties, (name, kind) => s.insertKind.run(n.workspace, name, KIND_CODES[kind]));
  s.insertType.run(n.workspace, n.type);
  const text = fullTextOf(n.properties);
  if (text !== '') s.insertFts.run(nid, text);
}

/** Deletes the node at `path` and its subtree (the trigger removes their index rows); rows removed. */
export function deleteSubtreeRows(s: Statements, workspace: string, path: string): number {
  const [lo, hi] = descendantRange(path);
  return s.deleteNode.run(workspace, path).changes + s.deleteBelow.run(workspace, lo, hi).changes;
}
