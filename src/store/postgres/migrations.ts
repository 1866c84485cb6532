// PostgreSQL backend: the schema, as ordered migrations (kept in TypeScript so the build ships them).
// Text that is compared or ordered by path uses the "C" collation: code point order, as SQLite's
// BINARY collation and the query index (`compareCodePoints`), so `path >= lo AND path < hi` ranges
// select exactly the descendants.
import { VERSIONS_SQL } from './versions.js';
import { CHANGES_SQL } from './changes.js';
import { INDEX_SEGMENTS_SQL } from './index-segments.js';
import { SCHEDULE_RUN_AS_SQL, SCHEDULES_SQL } from './schedules.js';
import { WEBHOOKS_SQL } from './webhook-log.js';
import { BOOTSTRAP_FILES_SQL } from './bootstrap-files.js';
import { sharedMigration } from '../shared-migrations.js';
import { NODE_ROW_COLUMNS } from './node-row-columns.js';

export interface Migration {
  readonly version: number;
  readonly name: string;
  readonly sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'nodes, property index, full text, blobs',
    sql: `
-- Nodes of every workspace: one row per node, properties as one JSON document (the same text as
-- SQLite's) for fast rendering.
CREATE TABLE nodes (
  nid         bigserial PRIMARY KEY,
  workspace   text    NOT NULL COLLATE "C",
${NODE_ROW_COLUMNS}
);
CREATE UNIQUE INDEX nodes_by_path ON nodes (workspace, path);
CREATE UNIQUE INDEX nodes_by_id ON nodes (workspace, id);
CREATE INDEX nodes_by_parent ON nodes (workspace, parent_path, position);
-- Covers the query index's load of a workspace (nid, path, type in path order).
CREATE INDEX nodes_by_path_type ON nodes (workspace, path) INCLUDE (nid, type);

-- Typed property index: one row per value (multi-value properties have several), loaded per
-- property by the query index. kind: 1 string, 2 number, 3 date, 4 boolean.
CREATE TABLE props (
  ws   text    NOT NULL COLLATE "C",
  name text    NOT NULL COLLATE "C",
  nid  bigint  NOT NULL REFERENCES nodes (nid) ON DELETE CASCADE,
  pos  integer NOT NULL,
  kind smallint NOT NULL,
  s    text    NOT NULL COLLATE "C",
  f    text    NOT NULL COLLATE "C",
  n    double precision,
  PRIMARY KEY (ws, name, nid, pos)
);
CREATE INDEX props_by_node ON props (nid);
CREATE INDEX props_by_text ON props (ws, name, kind, s);
CREATE INDEX props_by_number ON props (ws, name, kind, n) WHERE n IS NOT NULL;

-- Property kinds present per workspace, so a filter value is converted to the stored types.
CREATE TABLE prop_kinds (
  ws   text     NOT NULL COLLATE "C",
  name text     NOT NULL COLLATE "C",
  kind smallint NOT NULL,
  PRIMARY KEY (ws, name, kind)
);

-- Primary types seen per workspace (kept on insert; a stale entry only widens an IN list).
CREATE TABLE node_types (
  ws   text NOT NULL COLLATE "C",
  type text NOT NULL COLLATE "C",
  PRIMARY KEY (ws, type)
);

-- Full text of each node's own string properties (all language variants), rich text stripped: its
-- distinct words, lower-cased, separated by spaces, cut the way FTS5's unicode61 tokenizer cuts them
-- (see full-text.ts). They become the lexemes as they are: PostgreSQL's own parser (to_tsvector)
-- would cut some words differently (\`x²\` → \`x\`, a combining mark ends a word), and \`q\` must
-- match exactly what it matches on SQLite.
CREATE TABLE fts (
  nid  bigint PRIMARY KEY REFERENCES nodes (nid) ON DELETE CASCADE,
  body text   NOT NULL,
  tsv  tsvector GENERATED ALWAYS AS (array_to_tsvector(string_to_array(body, ' '))) STORED
);
CREATE INDEX fts_by_words ON fts USING gin (tsv);

-- Binaries, content-addressed, in 1 MiB chunks so that large files are never one value in memory.
CREATE TABLE blobs (
  hash text   PRIMARY KEY COLLATE "C",
  size bigint NOT NULL
);
CREATE TABLE blob_chunks (
  hash text    NOT NULL COLLATE "C",
  seq  integer NOT NULL,
  data bytea   NOT NULL,
  PRIMARY KEY (hash, seq)
);

-- Small key/value facts about the store, such as the content generation.
CREATE TABLE meta (
  key   text   PRIMARY KEY,
  value bigint NOT NULL
);
INSERT INTO meta (key, value) VALUES ('generation', 0);
`,
  },
  {
    version: 2,
    name: 'faster imports: no unused property indexes, index rows deleted with their nodes explicitly',
    sql: `
-- The query index filters and orders in memory over columns loaded by (ws, name) (the primary key):
-- no statement searches props by text or number, and each index costs every imported value.
DROP INDEX IF EXISTS props_by_text;
DROP INDEX IF EXISTS props_by_number;
-- A foreign key check per index row (several per node) made imports several times slower. Nodes are
-- deleted by statements that delete their props and fts rows with them (now delete-nodes.ts).
ALTER TABLE props DROP CONSTRAINT IF EXISTS props_nid_fkey;
ALTER TABLE fts DROP CONSTRAINT IF EXISTS fts_nid_fkey;
`,
  },
  sharedMigration(3, VERSIONS_SQL),
  sharedMigration(4, CHANGES_SQL),
  {
    version: 5,
    name: 'faster imports: index rows deleted through the props primary key, one index of paths',
    sql: `
-- Its upkeep cost about a fifth of an import's server time (13 index rows per node); deletes find a
-- node's index rows through the primary key by the names in its properties (delete-nodes.ts).
DROP INDEX IF EXISTS props_by_node;
-- Two indexes of (workspace, path), one unique, one covering the query index's load: one does both.
CREATE UNIQUE INDEX nodes_by_path_covering ON nodes (workspace, path) INCLUDE (nid, type);
DROP INDEX nodes_by_path;
DROP INDEX nodes_by_path_type;
ALTER INDEX nodes_by_path_covering RENAME TO nodes_by_path;
`,
  },
  {
    version: 6,
    name: 'persisted query index segments',
    sql: INDEX_SEGMENTS_SQL,
  },
  {
    version: 7,
    name: 'no props table: the query index reads property values from the nodes\' own JSON',
    sql: `
-- One row per property value (13 a node in the bench data) was most of an import's server time and
-- about twice the nodes' own size on disk, for one reader: the query index's column loads, which now
-- take the values from nodes.props (column-source.ts, property-document.ts), the document every read
-- serves, so no second copy can fall out of step. No SQL statement filters or orders by property
-- (queries run in memory). prop_kinds stays: the names and kinds present per workspace.
DROP TABLE IF EXISTS props;
`,
  },
  sharedMigration(8, SCHEDULES_SQL),
  sharedMigration(9, WEBHOOKS_SQL),
  sharedMigration(10, SCHEDULE_RUN_AS_SQL),
  sharedMigration(11, BOOTSTRAP_FILES_SQL),
];

/** Key of the advisory lock that serializes migrations across every instance sharing the database. */
export const MIGRATION_LOCK = 0x7065_7461; // 'peta'
/** Key of the advisory lock that serializes imports across instances. */
export const IMPORT_LOCK = 0x7065_7469; // 'peti'
