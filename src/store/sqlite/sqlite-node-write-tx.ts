// SQLite backend: the NodeWriteTx of one Nodes API write, over the writer connection's prepared
// statements (inserts, removals and change events as imports do them); the caller holds the
// transaction (BEGIN IMMEDIATE … COMMIT) around writeNodes.
import { depthOf, descendantRange, nameOf, parentOf } from '../../repository/paths.js';
import type { NodeWriteTx, SiblingRow } from '../node-write.js';
import { toRecord, type NodeRow } from '../node-rows.js';
import type { SqliteChanges } from './changes.js';
import { deleteSubtreeRows, insertNodeRow } from './single-node-writes.js';
import type { Statements } from './statements.js';
import { updateInPlace } from './update-in-place.js';

/** Length in code points, as SQLite's substr() counts characters of text. */
const codePoints = (text: string): number => [...text].length;

export function sqliteNodeWriteTx(s: Statements, changes: SqliteChanges): NodeWriteTx {
  return {
    getNode: async (ws, path) => {
      const row = s.byPath.get(ws, path) as NodeRow | undefined;
      return row === undefined ? undefined : toRecord(row);
    },
    idsInUse: async (ws, ids) => new Set((s.byIds.all(ws, JSON.stringify(ids)) as NodeRow[]).map((r) => r.id)),
    maxChildPosition: async (ws, parent) => (s.maxChild.get(ws, parent) as { m: number | null }).m ?? -1,
    children: async (ws, parent) => s.children.all(ws, parent) as SiblingRow[],
    insertNode: async (node) => insertNodeRow(s, node),
    // In place: the row keeps its nid, only changed index rows are written (update-in-place.ts).
    replaceNode: async (node) => {
      if (!updateInPlace(s, node)) insertNodeRow(s, node);
    },
    moveSubtree: async (ws, from, to, position) => {
      const [lo, hi] = descendantRange(from);
      const rest = codePoints(from) + 1;
      s.moveBelow.run(to, rest, to, rest, depthOf(to) - depthOf(from), ws, lo, hi);
      s.moveNode.run(to, parentOf(to), nameOf(to), depthOf(to), position, ws, from);
    },
    setPosition: async (ws, path, position) => { s.setPosition.run(position, ws, path); },
    deleteSubtree: async (ws, path) => deleteSubtreeRows(s, ws, path),
    subtreeNodes: async (ws, path, limit) => changes.subtreeNodes(ws, path, limit),
    recordChange: async (change) => changes.record(change),
    bumpGeneration: async () => { s.bump.run(); },
  };
}
