// SQLite backend: the schema, as ordered migrations (kept in TypeScript so the build ships them).

export interface Migration { readonly version: number; readonly name: string; readonly sql: string }

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'nodes',
    sql: `
-- Nodes of every workspace: one row per node, properties as one JSON document for fast rendering.
CREATE TABLE nodes (
  nid         INTEGER PRIMARY KEY,
  workspace   TEXT    NOT NULL,
  id          TEXT    NOT NULL,
  path        TEXT    NOT NULL,
  parent_path TEXT    NOT NULL,
  name        TEXT    NOT NULL,
  depth       INTEGER NOT NULL,
  position    INTEGER NOT NULL,
  type        TEXT    NOT NULL,
  mixins      TEXT    NOT NULL,
  props       TEXT    NOT NULL
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
];
