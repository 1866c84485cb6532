// PostgreSQL backend: deleting nodes with their index and full-text rows (there are no foreign keys to
// cascade them: see migration 2). Index rows are found through the props primary key (workspace,
// name, nid, pos): their names are the names in each deleted node's properties JSON. An index on
// props (nid) would find them directly, but its upkeep cost every import about a fifth of the
// server's time for 13 rows per node (migration 5 dropped it).
import type pg from 'pg';
import { descendantRange } from '../../repository/paths.js';
import { run, type Statement } from './statements.js';

const s = (name: string, text: string): Statement => ({ name: `petal_d_${name}`, text });

/**
 * The (name, nid) of every index row of the nodes in `gone`. A properties JSON holding the escape of
 * U+0000 (stored in the index as U+FFFD, see nul-text.ts; rare) is not read: its node is paired with
 * every property name of the workspace instead, which is exact too, only slower.
 */
const INDEX_KEYS = `
  keys AS (
    SELECT e.value->>0 AS name, g.nid FROM gone g CROSS JOIN LATERAL json_array_elements(g.props::json) e
    WHERE strpos(g.props, '\\u0000') = 0
    UNION ALL
    SELECT k.name, g.nid FROM gone g JOIN prop_kinds k ON k.ws = $1 WHERE strpos(g.props, '\\u0000') > 0
  )`;

/** Nodes deleted ($1 workspace), their full text with them; the count and the keys of their index rows. */
const DELETED = `
  f AS (DELETE FROM fts WHERE nid IN (SELECT nid FROM gone)),
  ${INDEX_KEYS}
  SELECT (SELECT count(*)::int FROM gone) AS n,
    coalesce(array_agg(keys.name), '{}') AS names, coalesce(array_agg(keys.nid), '{}') AS nids FROM keys`;

const SQL = {
  /** The node at $2 and its descendants ($3 / $4 the descendant range). */
  subtree: s('subtree', `
    WITH gone AS (DELETE FROM nodes WHERE workspace = $1 AND (path = $2 OR (path >= $3 AND path < $4)) RETURNING nid, props),
    ${DELETED}`),
  /** The node at $2 alone. */
  node: s('node', `WITH gone AS (DELETE FROM nodes WHERE workspace = $1 AND path = $2 RETURNING nid, props), ${DELETED}`),
  /** Index rows by key: one probe of the primary key each (the list's row estimate keeps the plan a nested loop). */
  indexRows: s('index_rows', `
    DELETE FROM props p USING unnest($2::text[], $3::int8[]) AS k(name, nid)
    WHERE p.ws = $1 AND p.name = k.name COLLATE "C" AND p.nid = k.nid`),
} as const;

interface Deleted {
  n: number;
  names: string[];
  nids: string[];
}

async function deleted(client: pg.PoolClient, workspace: string, rows: Deleted[]): Promise<number> {
  const { n, names, nids } = rows[0]!;
  if (names.length > 0) await run(client, SQL.indexRows, [workspace, names, nids]);
  return n;
}

/** Deletes the node at `path` and its subtree, with their index and full-text rows; the number of nodes removed. */
export async function deleteSubtree(client: pg.PoolClient, workspace: string, path: string): Promise<number> {
  const [lo, hi] = descendantRange(path);
  return deleted(client, workspace, await run<Deleted>(client, SQL.subtree, [workspace, path, lo, hi]));
}

/** Deletes the node at `path` alone (its children are the caller's), with its index and full-text rows. */
export async function deleteNode(client: pg.PoolClient, workspace: string, path: string): Promise<number> {
  return deleted(client, workspace, await run<Deleted>(client, SQL.node, [workspace, path]));
}
