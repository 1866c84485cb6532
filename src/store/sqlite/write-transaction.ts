// SQLite backend: the WriteTx of one write (a Nodes API write, a publish, an unpublish, a version),
// over the writer connection's prepared statements (inserts, removals and change events as imports
// do them); the store holds the transaction (BEGIN IMMEDIATE … COMMIT) around the repository's rules.
import { depthOf, descendantRange, nameOf, parentOf } from '../../model/paths.js';

import { toRecord, type NodeRow } from '../node-rows.js';
import type { SiblingRow, WriteTx } from '../write-tx.js';
import type { SqliteChanges } from './changes.js';
import type { SqliteSchedules } from './schedules.js';
import { deleteSubtreeRows, insertNodeRow } from './single-node-writes.js';
import type { Statements } from './statements.js';
import { updateInPlace } from './update-in-place.js';
import type { SqliteVersions } from './versions.js';

/** Length in code points, as SQLite's substr() counts characters of text. */
const codePoints = (text: string): number => [...text].length;

/** What the transaction writes through besides the nodes' statements (all on the writer connection). */
export interface SqliteWriters {
  readonly changes: SqliteChanges;
  readonly versions: SqliteVersions;
  readonly schedules: SqliteSchedules;
}

export function sqliteWriteTx(s: Statements, { changes, versions, schedules }: SqliteWriters): WriteTx {
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
    replaceNodes: async (nodes) => {
      for (const node of nodes) if (!updateInPlace(s, node)) insertNodeRow(s, node);
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
    subtree: async (ws, path) => {
      const root = s.byPath.get(ws, path) as NodeRow | undefined;
      if (root === undefined) return [];
      const [lo, hi] = descendantRange(path);
      return [root, ...(s.subtree.all(ws, lo, hi, Number.MAX_SAFE_INTEGER) as NodeRow[])].map(toRecord);
    },
    childrenOf: async (ws, parents) => (s.childrenOf.all(ws, JSON.stringify(parents)) as NodeRow[]).map(toRecord),
    pathsOfIds: async (ws, ids) => new Map((s.pathsOfIds.all(ws, JSON.stringify(ids)) as { id: string; path: string }[]).map((r) => [r.id, r.path])),
    recordVersion: async (ws, path, by, comment, source) => versions.publish(ws, path, by, comment, source),
    claimSchedule: async (id) => schedules.remove(id) !== undefined,
  };
}
