// SQLite backend: the columns of a node row, written once for the tables that hold them.

/** The columns of a node row after its key, in the nodes table and in a version's frozen copy (version_nodes). */
export const NODE_ROW_COLUMNS = `  id          TEXT    NOT NULL,
  path        TEXT    NOT NULL,
  parent_path TEXT    NOT NULL,
  name        TEXT    NOT NULL,
  depth       INTEGER NOT NULL,
  position    INTEGER NOT NULL,
  type        TEXT    NOT NULL,
  mixins      TEXT    NOT NULL,
  props       TEXT    NOT NULL`;
