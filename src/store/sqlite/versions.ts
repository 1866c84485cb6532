// SQLite backend: content versions (publish, list, read a frozen copy). The copy is rows of its own
// (`version_nodes`), so later imports of the live node never change it.
import type Database from 'better-sqlite3';
import { depthOf, descendantRange } from '../../model/paths.js';
import type { NodeRecord } from '../rows.js';
import { toVersionInfo, versionName, type VersionInfo, type VersionRow, type VersionSource } from '../versions.js';
import { NODE_ROW_COLUMNS } from './node-row-columns.js';

/** Migration 3 (see migrations.ts). */
export const VERSIONS_SQL = `
-- One row per published version of a node path; (workspace, path, seq) is unique, so two publishes
-- can never both be "1.3".
CREATE TABLE versions (
  vid        INTEGER PRIMARY KEY,
  workspace  TEXT    NOT NULL,
  path       TEXT    NOT NULL,
  seq        INTEGER NOT NULL,
  name       TEXT    NOT NULL,
  node_id    TEXT    NOT NULL,
  created_at TEXT    NOT NULL,
  created_by TEXT    NOT NULL,
  nodes      INTEGER NOT NULL
);
CREATE UNIQUE INDEX versions_by_seq ON versions (workspace, path, seq);
CREATE UNIQUE INDEX versions_by_name ON versions (workspace, path, name);

-- The frozen subtree of each version: the node rows as they were, paths absolute in the workspace.
CREATE TABLE version_nodes (
  vid         INTEGER NOT NULL REFERENCES versions (vid),
${NODE_ROW_COLUMNS},
  PRIMARY KEY (vid, path)
);
CREATE INDEX version_nodes_by_depth ON version_nodes (vid, depth, parent_path, position);
`;

const INFO = 'workspace, path, name, node_id, created_at, created_by, nodes, comment';

function statements(db: Database.Database) {
  return {
    nodeId: db.prepare('SELECT id FROM nodes WHERE workspace = ? AND path = ?'),
    nextSeq: db.prepare('SELECT coalesce(max(seq) + 1, 0) AS seq FROM versions WHERE workspace = ? AND path = ?'),
    insertVersion: db.prepare(
      `INSERT INTO versions (workspace, path, seq, name, node_id, created_at, created_by, nodes, comment) VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?)`,
    ),
    copyNodes: db.prepare(`
      INSERT INTO version_nodes (vid, id, path, parent_path, name, depth, position, type, mixins, props)
      SELECT ?, id, path, parent_path, name, depth, position, type, mixins, props FROM nodes
      WHERE workspace = ? AND (path = ? OR (path >= ? AND path < ?))`),
    copyNodesOf: db.prepare(`
      INSERT INTO version_nodes (vid, id, path, parent_path, name, depth, position, type, mixins, props)
      SELECT ?, id, path, parent_path, name, depth, position, type, mixins, props FROM nodes
      WHERE workspace = ? AND (path = ? OR (path >= ? AND path < ?)) AND id IN (SELECT value FROM json_each(?))`),
    setCount: db.prepare('UPDATE versions SET nodes = ? WHERE vid = ?'),
    byVid: db.prepare(`SELECT ${INFO} FROM versions WHERE vid = ?`),
    list: db.prepare(`SELECT ${INFO} FROM versions WHERE workspace = ? AND path = ? ORDER BY seq`),
    vidOf: db.prepare('SELECT vid FROM versions WHERE workspace = ? AND path = ? AND name = ?'),
    subtree: db.prepare(`
      SELECT id, ? AS workspace, path, parent_path, name, depth, position, type, mixins, props FROM version_nodes
      WHERE vid = ? AND depth <= ? ORDER BY depth, parent_path, position`),
  };
}

/** Version statements over the store's two connections: reads on the reader, publishes on the writer. */
export class SqliteVersions {
  readonly #read: ReturnType<typeof statements>;
  readonly #write: ReturnType<typeof statements>;

  constructor(reader: Database.Database, writer: Database.Database, readonly toRecord: (row: never) => NodeRecord) {
    this.#read = statements(reader);
    this.#write = statements(writer);
  }

  /**
   * Freezes `source` (default: the workspace's own rows of the subtree) as the next version of `path`.
   * Runs inside the caller's write transaction (BEGIN IMMEDIATE: the numbering sees every commit),
   * which bumps the generation.
   */
  publish(workspace: string, path: string, by: string, comment?: string, source?: VersionSource): VersionInfo | undefined {
    const s = this.#write;
    const from = source?.workspace ?? workspace;
    const node = s.nodeId.get(from, path) as { id: string } | undefined;
    if (node === undefined) return undefined;
    const seq = (s.nextSeq.get(workspace, path) as { seq: number }).seq;
    const vid = s.insertVersion.run(workspace, path, seq, versionName(seq), node.id, new Date().toISOString(), by, comment ?? null).lastInsertRowid;
    const [lo, hi] = descendantRange(path);
    const ids = source?.ids;
    const copied = ids === undefined
      ? s.copyNodes.run(vid, from, path, lo, hi).changes
      : s.copyNodesOf.run(vid, from, path, lo, hi, JSON.stringify(ids)).changes;
    s.setCount.run(copied, vid);
    return toVersionInfo(s.byVid.get(vid) as VersionRow);
  }

  list(workspace: string, path: string): VersionInfo[] {
    return (this.#read.list.all(workspace, path) as VersionRow[]).map(toVersionInfo);
  }

  subtree(workspace: string, path: string, name: string, depth: number): NodeRecord[] | undefined {
    const v = this.#read.vidOf.get(workspace, path, name) as { vid: number } | undefined;
    if (v === undefined) return undefined;
    const rows = this.#read.subtree.all(workspace, v.vid, depthOf(path) + Math.max(depth, 0)) as never[];
    return rows.map(this.toRecord);
  }
}
