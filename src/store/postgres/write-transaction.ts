// PostgreSQL backend: one write (Nodes API, publish, unpublish, version) in one transaction on one
// connection, under the import lock (positions of new siblings, version numbers and change sequence
// numbers follow the last commit of every instance): the repository's rules over a WriteTx, new nodes
// batched as imports write them, the generation bumped and announced (NOTIFY, delivered on commit),
// and the connection dropped if it broke.
import type pg from 'pg';
import { depthOf, descendantRange, nameOf, parentOf } from '../../model/paths.js';
import { toRecord, type NodeRow } from '../node-rows.js';
import type { SiblingRow, WriteTx } from '../write-tx.js';
import { BatchedImportTx } from './batched-import-tx.js';
import { recordChange, subtreeNodes } from './changes.js';
import { deleteNode, deleteNodes, deleteSubtree } from './delete-nodes.js';
import { Generation, lockedTransaction } from './locked-transaction.js';
import { removeSchedule } from './schedules.js';
import { NODE_COLUMNS, SQL, exec, run, type Statement } from './statements.js';
import { publishVersion } from './versions.js';

const s = (name: string, text: string): Statement => ({ name: `petal_w_${name}`, text });
const COLUMNS = 'id, workspace, path, parent_path, name, depth, position, type, mixins, props';

const WRITE_SQL = {
  children: s('children', 'SELECT id, path, name, type, position FROM nodes WHERE workspace = $1 AND parent_path = $2 ORDER BY position, name'),
  byPath: s('by_path', `SELECT ${COLUMNS} FROM nodes WHERE workspace = $1 AND path = $2`),
  /** Descendants of a moved node: new path prefixes ($2 = 1 + code points of the old path), depth shifted. */
  moveBelow: s('move_below', `
    UPDATE nodes SET path = $1 || substr(path, $2), parent_path = $1 || substr(parent_path, $2), depth = depth + $3
    WHERE workspace = $4 AND path >= $5 AND path < $6`),
  moveNode: s('move_node', 'UPDATE nodes SET path = $1, parent_path = $2, name = $3, depth = $4, position = $5 WHERE workspace = $6 AND path = $7'),
  setPosition: s('set_position', 'UPDATE nodes SET position = $1 WHERE workspace = $2 AND path = $3'),
  /** Publishing: the node at $2 and all its descendants ($3 / $4 their range). */
  subtree: s('subtree', `
    SELECT ${NODE_COLUMNS} FROM nodes n WHERE n.workspace = $1 AND (n.path = $2 OR (n.path >= $3 AND n.path < $4))
    ORDER BY n.depth, n.parent_path, n.position`),
  childrenOf: s('children_of', `SELECT ${NODE_COLUMNS} FROM nodes n WHERE n.workspace = $1 AND n.parent_path = ANY ($2::text[])`),
};

/**
 * Runs `body` in the transaction; its result and the generation it committed as (undefined when the
 * body bumped none). All of it is committed, or it throws.
 */
export async function writeTransaction<T>(
  pool: pg.Pool, channel: string, body: (tx: WriteTx) => Promise<T>,
): Promise<{ result: T; generation: number | undefined }> {
  const client = await pool.connect();
  const batched = new BatchedImportTx(client);
  const generation = new Generation(client, channel, batched);
  /** Buffered new nodes are written before any other statement, so that every read and update sees them. */
  const flushed = async <T>(statement: () => Promise<T>): Promise<T> => {
    await batched.flush();
    return statement();
  };
  const tx: WriteTx = {
    getNode: (ws, path) => flushed(async () => {
      const [row] = await run<NodeRow>(client, WRITE_SQL.byPath, [ws, path]);
      return row === undefined ? undefined : toRecord(row);
    }),
    idsInUse: (ws, ids) => flushed(async () => new Set((await run<{ id: string }>(client, SQL.pathsOfIds, [ws, [...ids]])).map((r) => r.id))),
    maxChildPosition: (ws, parent) => flushed(async () => (await run<{ m: number | null }>(client, SQL.maxChild, [ws, parent]))[0]?.m ?? -1),
    children: (ws, parent) => flushed(() => run<SiblingRow & pg.QueryResultRow>(client, WRITE_SQL.children, [ws, parent])),
    insertNode: (node) => batched.insertNode(node),
    replaceNode: (node) => flushed(async () => {
      await deleteNode(client, node.workspace, node.path);
      await batched.insertNode(node);
    }),
    replaceNodes: (nodes) => flushed(async () => {
      // One delete per workspace, then the rows batched as new ones: two round trips per batch, not per node.
      const byWorkspace = new Map<string, string[]>();
      for (const n of nodes) byWorkspace.set(n.workspace, [...(byWorkspace.get(n.workspace) ?? []), n.path]);
      for (const [ws, paths] of byWorkspace) await deleteNodes(client, ws, paths);
      for (const n of nodes) await batched.insertNode(n);
    }),
    moveSubtree: (ws, from, to, position) => flushed(async () => {
      const [lo, hi] = descendantRange(from);
      await exec(client, WRITE_SQL.moveBelow, [to, [...from].length + 1, depthOf(to) - depthOf(from), ws, lo, hi]);
      await exec(client, WRITE_SQL.moveNode, [to, parentOf(to), nameOf(to), depthOf(to), position, ws, from]);
    }),
    setPosition: (ws, path, position) => flushed(async () => { await exec(client, WRITE_SQL.setPosition, [position, ws, path]); }),
    deleteSubtree: (ws, path) => flushed(() => deleteSubtree(client, ws, path)),
    subtreeNodes: (ws, path, limit) => flushed(() => subtreeNodes(client, ws, path, limit)),
    recordChange: (change) => flushed(() => recordChange(client, change)),
    bumpGeneration: () => generation.bump(),
    subtree: (ws, path) => flushed(async () => {
      const [lo, hi] = descendantRange(path);
      return (await run<NodeRow>(client, WRITE_SQL.subtree, [ws, path, lo, hi])).map(toRecord);
    }),
    childrenOf: (ws, parents) => flushed(async () => (await run<NodeRow>(client, WRITE_SQL.childrenOf, [ws, [...parents]])).map(toRecord)),
    pathsOfIds: (ws, ids) => flushed(async () => new Map(
      (await run<{ id: string; path: string }>(client, SQL.pathsOfIds, [ws, [...ids]])).map((r) => [r.id, r.path]),
    )),
    recordVersion: (ws, path, by, comment, source) => flushed(() => publishVersion(client, ws, path, by, comment, source)),
    claimSchedule: (id) => flushed(async () => (await removeSchedule(client, id)) !== undefined),
  };
  const result = await lockedTransaction(client, batched, () => body(tx));
  return { result, generation: generation.value };
}
