// PostgreSQL backend: deleting nodes with their full-text rows (there is no foreign key to cascade
// them: see migration 2). Property values have no rows of their own (migration 7): the query index
// reads them from the nodes' JSON.
import type pg from 'pg';
import { descendantRange } from '../../model/paths.js';
import { run, type Statement } from './statements.js';

const s = (name: string, text: string): Statement => ({ name: `petal_d_${name}`, text });

/** Nodes deleted (`gone`), their full text with them; the count. */
const DELETED = `
  f AS (DELETE FROM fts WHERE nid IN (SELECT nid FROM gone))
  SELECT count(*)::int AS n FROM gone`;

const SQL = {
  /** The node at $2 and its descendants ($3 / $4 the descendant range). */
  subtree: s('subtree', `
    WITH gone AS (DELETE FROM nodes WHERE workspace = $1 AND (path = $2 OR (path >= $3 AND path < $4)) RETURNING nid),
    ${DELETED}`),
  /** The nodes at the paths of $2. */
  nodes: s('nodes', `WITH gone AS (DELETE FROM nodes WHERE workspace = $1 AND path = ANY ($2::text[]) RETURNING nid), ${DELETED}`),
  /** The node at $2 alone. */
  node: s('node', `WITH gone AS (DELETE FROM nodes WHERE workspace = $1 AND path = $2 RETURNING nid), ${DELETED}`),
} as const;

/** Deletes the node at `path` and its subtree, with their full-text rows; the number of nodes removed. */
export async function deleteSubtree(client: pg.PoolClient, workspace: string, path: string): Promise<number> {
  const [lo, hi] = descendantRange(path);
  return (await run<{ n: number }>(client, SQL.subtree, [workspace, path, lo, hi]))[0]!.n;
}

/** Deletes the node at `path` alone (its children are the caller's), with its full-text row; the number of nodes removed. */
export async function deleteNode(client: pg.PoolClient, workspace: string, path: string): Promise<number> {
  return (await run<{ n: number }>(client, SQL.node, [workspace, path]))[0]!.n;
}

/** Deletes the nodes at `paths` alone (their children are the caller's), in one statement; the number removed. */
export async function deleteNodes(client: pg.PoolClient, workspace: string, paths: readonly string[]): Promise<number> {
  return (await run<{ n: number }>(client, SQL.nodes, [workspace, [...paths]]))[0]!.n;
}
