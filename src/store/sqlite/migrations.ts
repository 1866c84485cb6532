// SQLite backend: the schema, as ordered migrations (kept in TypeScript so the build ships them).

import type Database from 'better-sqlite3';
import { fullTextOf, indexRows } from '../index-values.js';
import type { StoredProperty } from '../../model/property-type.js';
import { VERSIONS_SQL } from './versions.js';
import { CHANGES_SQL } from './changes.js';
import { INDEX_SEGMENTS_SQL } from './index-segments.js';
import { SCHEDULE_RUN_AS_SQL, SCHEDULES_SQL } from './schedules.js';
import { WEBHOOKS_SQL } from './webhook-log.js';
import { BOOTSTRAP_FILES_SQL } from './bootstrap-files.js';
import { KIND_CODES } from '../query-index/column-source.js';
import { sharedMigration } from '../shared-migrations.js';
import { NODE_ROW_COLUMNS } from './node-row-columns.js';

export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
  /** A data step run after `sql`, in the same transaction (e.g. filling a new index). */
  readonly run?: (db: Database.Database) => void;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'nodes',
    sql: `
-- Nodes of every workspace: one row per node, properties as one JSON document for fast rendering.
CREATE TABLE nodes (
  nid         INTEGER PRIMARY KEY,
  workspace   TEXT    NOT NULL,
${NODE_ROW_COLUMNS}
);
CREATE UNIQUE INDEX nodes_by_path ON nodes (workspace, path);
CREATE UNIQUE INDEX nodes_by_id ON nodes (workspace, id);
CREATE INDEX nodes_by_parent ON nodes (workspace, parent_path, position);

-- Binaries, content-addressed, in chunks so that large files are never one value in memory.
CREATE TABLE blobs (
  hash TEXT PRIMARY KEY,
  size INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE blob_chunks (
  hash TEXT    NOT NULL,
  seq  INTEGER NOT NULL,
  data BLOB    NOT NULL,
  PRIMARY KEY (hash, seq)
) WITHOUT ROWID;

-- Small key/value facts about the store, such as the content generation.
CREATE TABLE meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;
INSERT INTO meta (key, value) VALUES ('generation', '0');
`,
  },
  {
    version: 2,
    name: 'property and full-text indexes',
    sql: `
-- Typed property index: one row per value (multi-value properties have several), for filters,
-- ordering and totals without scanning nodes. kind: 1 string, 2 number, 3 date, 4 boolean.
CREATE TABLE props (
  nid  INTEGER NOT NULL,
  ws   TEXT    NOT NULL,
  name TEXT    NOT NULL,
  pos  INTEGER NOT NULL,
  kind INTEGER NOT NULL,
  s    TEXT    NOT NULL,
  f    TEXT    NOT NULL,
  n    REAL,
  -- Clustered by property: one property's values of a workspace are one contiguous range, which is
  -- what the query index loads and what a property filter scans.
  PRIMARY KEY (ws, name, nid, pos)
) WITHOUT ROWID;
CREATE INDEX props_by_node ON props (nid);
CREATE INDEX props_by_text ON props (ws, name, kind, s);
CREATE INDEX props_by_folded ON props (ws, name, f);
CREATE INDEX props_by_number ON props (ws, name, kind, n) WHERE n IS NOT NULL;

-- Property kinds present per workspace, so a filter value is converted to the stored types.
CREATE TABLE prop_kinds (
  ws   TEXT    NOT NULL,
  name TEXT    NOT NULL,
  kind INTEGER NOT NULL,
  PRIMARY KEY (ws, name, kind)
) WITHOUT ROWID;

CREATE INDEX nodes_by_name ON nodes (workspace, name);
CREATE INDEX nodes_by_type ON nodes (workspace, type);
-- Covers the query index's load of a workspace (nid, path, type in path order) without table reads.
CREATE INDEX nodes_by_path_type ON nodes (workspace, path, type);

-- Primary types seen per workspace (kept on insert; a stale entry only widens an IN list).
CREATE TABLE node_types (
  ws   TEXT NOT NULL,
  type TEXT NOT NULL,
  PRIMARY KEY (ws, type)
) WITHOUT ROWID;
INSERT OR IGNORE INTO node_types (ws, type) SELECT DISTINCT workspace, type FROM nodes;

-- Full text of each node's own string properties (all language variants), rich text stripped.
CREATE VIRTUAL TABLE fts USING fts5(body, content='', contentless_delete=1, tokenize="unicode61 remove_diacritics 0");

CREATE TRIGGER nodes_delete_indexes AFTER DELETE ON nodes BEGIN
  DELETE FROM props WHERE nid = old.nid;
  DELETE FROM fts WHERE rowid = old.nid;
END;
`,
    run: (db) => {
      const insertProp = db.prepare('INSERT INTO props (nid, ws, name, pos, kind, s, f, n) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
      const insertKind = db.prepare('INSERT OR IGNORE INTO prop_kinds (ws, name, kind) VALUES (?, ?, ?)');
      const insertFts = db.prepare('INSERT INTO fts (rowid, body) VALUES (?, ?)');
      // Pages of rows: better-sqlite3 cannot write while an iterator is open on the same connection.
      const page = db.prepare('SELECT nid, workspace, props FROM nodes WHERE nid > ? ORDER BY nid LIMIT 5000');
      let last = 0;
      for (;;) {
        const rows = page.all(last) as { nid: number; workspace: string; props: string }[];
        if (rows.length === 0) break;
        last = rows[rows.length - 1]!.nid;
        for (const r of rows) {
        const props = JSON.parse(r.props) as StoredProperty[];
        for (const x of indexRows(props)) {
          const kind = KIND_CODES[x.kind];
          insertProp.run(r.nid, r.workspace, x.name, x.pos, kind, x.s, x.f, x.n);
          insertKind.run(r.workspace, x.name, kind);
        }
        const text = fullTextOf(props);
        if (text !== '') insertFts.run(r.nid, text);
        }
      }
    },
  },
  sharedMigration(3, VERSIONS_SQL),
  sharedMigration(4, CHANGES_SQL),
  {
    version: 5,
    name: 'persisted query index segments',
    sql: INDEX_SEGMENTS_SQL,
  },
  {
    version: 6,
    name: 'faster imports: no value indexes of props and nodes',
    sql: `
-- Queries run through the in-memory query index, which loads a property's values by (ws, name) (the
-- props primary key) and nodes through nodes_by_path_type. These indexes served only the SQL query
-- path (compile-query.ts: uuid "like" conditions, or an operator's cache.queryIndexThreshold), which
-- answers as well by scanning the property's primary-key range; each cost every imported value.
DROP INDEX IF EXISTS props_by_text;
DROP INDEX IF EXISTS props_by_folded;
DROP INDEX IF EXISTS props_by_number;
DROP INDEX IF EXISTS nodes_by_name;
DROP INDEX IF EXISTS nodes_by_type;
`,
  },
  {
    version: 7,
    name: 'faster imports: no props table',
    sql: `
-- The query index builds its columns from the nodes' own property documents (column-source.ts), and the
-- SQL query path derives the same rows per node with index_rows(props) (statements.ts). The props table
-- was a second copy of every value: 13 rows a node in the bench set, about 40 % of an import's time and
-- of the file. prop_kinds (the kinds a filter value is converted to) and node_types stay.
DROP TRIGGER IF EXISTS nodes_delete_indexes;
DROP TABLE IF EXISTS props;
CREATE TRIGGER nodes_delete_indexes AFTER DELETE ON nodes BEGIN
  DELETE FROM fts WHERE rowid = old.nid;
END;
`,
  },
  sharedMigration(8, SCHEDULES_SQL),
  sharedMigration(9, WEBHOOKS_SQL),
  sharedMigration(10, SCHEDULE_RUN_AS_SQL),
  sharedMigration(11, BOOTSTRAP_FILES_SQL),
];

