// PostgreSQL backend: the columns of a node row, written once for the tables that hold them.

/** The columns of a node row after its key, in the nodes table and in a version's frozen copy (version_nodes). */
export const NODE_ROW_COLUMNS = `  id          text    NOT NULL COLLATE "C",
  path        text    NOT NULL COLLATE "C",
  parent_path text    NOT NULL COLLATE "C",
  name        text    NOT NULL COLLATE "C",
  depth       integer NOT NULL,
  position    integer NOT NULL,
  type        text    NOT NULL COLLATE "C",
  mixins      text    NOT NULL,
  props       text    NOT NULL`;
