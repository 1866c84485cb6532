// PostgreSQL backend: content versions (publish, list, read a frozen copy). The copy is rows of its own
// (`version_nodes`), so later imports of the live node never change it.
import type pg from 'pg';
import { depthOf, descendantRange } from '../../model/paths.js';
import { toVersionInfo, type VersionInfo, type VersionRow, type VersionSource } from '../versions.js';
import { exec, run, type Statement } from './statements.js';
import { NODE_ROW_COLUMNS } from './node-row-columns.js';

/** Migration 2 (see migrations.ts). */
export const VERSIONS_SQL = `
-- One row per published version of a node path; (workspace, path, seq) is unique, so two publishes
-- can never both be "1.3".
CREATE TABLE versions (
  vid        bigserial PRIMARY KEY,
  workspace  text        NOT NULL COLLATE "C",
  path       text        NOT NULL COLLATE "C",
  seq        integer     NOT NULL,
  name       text        NOT NULL COLLATE "C",
  node_id    text        NOT NULL COLLATE "C",
  created_at timestamptz NOT NULL DEFAULT now(),
  created_by text        NOT NULL,
  nodes      integer     NOT NULL,
  UNIQUE (workspace, path, seq),
  UNIQUE (workspace, path, name)
);

-- The frozen subtree of each version: the node rows as they were, paths absolute in the workspace.
CREATE TABLE version_nodes (
  vid         bigint  NOT NULL REFERENCES versions (vid),
${NODE_ROW_COLUMNS},
  PRIMARY KEY (vid, path)
);
CREATE INDEX version_nodes_by_depth ON version_nodes (vid, depth, parent_path, position);
`;

const s = (name: string, text: string): Statement => ({ name: `petal_v_${name}`, text });
const INFO = 'workspace, path, name, node_id, created_at, created_by, nodes, comment';

const SQL = {
  nodeId: s('node_id', 'SELECT id FROM nodes WHERE workspace = $1 AND path = $2'),
  /** The next number is read under the import lock; the unique constraint backs it up. */
  insertVersion: s('insert', `
    INSERT INTO versions (workspace, path, seq, name, node_id, created_by, nodes, comment)
    SELECT $1, $2, x.seq, '1.' || x.seq, $3, $4, 0, $5
    FROM (SELECT coalesce(max(seq) + 1, 0) AS seq FROM versions WHERE workspace = $1 AND path = $2) x
    RETURNING vid, seq`),
  /** $1 vid, $2 workspace, $3 path, $4 / $5 its descendant range. */
  copyNodes: s('copy', `
    INSERT INTO version_nodes (vid, id, path, parent_path, name, depth, position, type, mixins, props)
    SELECT $1, id, path, parent_path, name, depth, position, type, mixins, props FROM nodes
    WHERE workspace = $2 AND (path = $3 OR (path >= $4 AND path < $5))`),
  /** As copyNodes, only the rows whose id is in $6. */
  copyNodesOf: s('copy_of', `
    INSERT INTO version_nodes (vid, id, path, parent_path, name, depth, position, type, mixins, props)
    SELECT $1, id, path, parent_path, name, depth, position, type, mixins, props FROM nodes
    WHERE workspace = $2 AND (path = $3 OR (path >= $4 AND path < $5)) AND id = ANY($6::text[])`),
  setCount: s('set_count', `UPDATE versions SET nodes = $1 WHERE vid = $2 RETURNING ${INFO}`),
  list: s('list', `SELECT ${INFO} FROM versions WHERE workspace = $1 AND path = $2 ORDER BY seq`),
  /** $1 workspace, $2 path, $3 name, $4 deepest depth. */
  subtree: s('subtree', `
    SELECT n.id, v.workspace, n.path, n.parent_path, n.name, n.depth, n.position, n.type, n.mixins, n.props
    FROM versions v JOIN version_nodes n ON n.vid = v.vid
    WHERE v.workspace = $1 AND v.path = $2 AND v.name = $3 AND n.depth <= $4
    ORDER BY n.depth, n.parent_path, n.position`),
} as const;

type Queryable = pg.Pool | pg.PoolClient;

/**
 * Freezes `source` (default: the workspace's own rows of the subtree) as the next version of `path`.
 * Runs inside the caller's transaction, which holds the import lock and bumps the generation.
 */
export async function publishVersion(
  client: pg.PoolClient, workspace: string, path: string, by: string, comment?: string, source?: VersionSource,
): Promise<VersionInfo | undefined> {
  const from = source?.workspace ?? workspace;
  const [node] = await run<{ id: string }>(client, SQL.nodeId, [from, path]);
  if (node === undefined) return undefined;
  const [v] = await run<{ vid: string; seq: number }>(client, SQL.insertVersion, [workspace, path, node.id, by, comment ?? null]);
  const [lo, hi] = descendantRange(path);
  const copied = source?.ids === undefined
    ? await exec(client, SQL.copyNodes, [v!.vid, from, path, lo, hi])
    : await exec(client, SQL.copyNodesOf, [v!.vid, from, path, lo, hi, [...source.ids]]);
  const [row] = await run<VersionRow>(client, SQL.setCount, [copied, v!.vid]);
  return toVersionInfo(row!);
}

export async function listVersions(db: Queryable, workspace: string, path: string): Promise<VersionInfo[]> {
  return (await run<VersionRow>(db, SQL.list, [workspace, path])).map(toVersionInfo);
}

/** Rows in the store's NodeRow shape (the caller turns them into records); undefined = no such version. */
export async function versionSubtree<R extends pg.QueryResultRow>(
  db: Queryable, workspace: string, path: string, name: string, depth: number,
): Promise<R[] | undefined> {
  const rows = await run<R>(db, SQL.subtree, [workspace, path, name, depthOf(path) + Math.max(depth, 0)]);
  // A version always holds its own node, so no rows means no such version.
  return rows.length > 0 ? rows : undefined;
}
