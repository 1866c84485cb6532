// PostgreSQL backend: every SQL statement of the store, as named prepared statements (pg prepares a
// name once per connection and reuses it). Identifiers are fixed here; every value is a parameter.
import type pg from 'pg';

export const NODE_COLUMNS = 'n.id, n.workspace, n.path, n.parent_path, n.name, n.depth, n.position, n.type, n.mixins, n.props';
const ORDER = 'ORDER BY n.depth, n.parent_path, n.position';

export interface Statement {
  readonly name: string;
  readonly text: string;
}

const s = (name: string, text: string): Statement => ({ name: `petal_${name}`, text });

export const SQL = {
  ping: s('ping', 'SELECT 1 AS ok'),
  byPath: s('by_path', `SELECT ${NODE_COLUMNS} FROM nodes n WHERE n.workspace = $1 AND n.path = $2`),
  byId: s('by_id', `SELECT ${NODE_COLUMNS} FROM nodes n WHERE n.workspace = $1 AND n.id = $2`),
  byIds: s('by_ids', `SELECT ${NODE_COLUMNS} FROM nodes n WHERE n.workspace = $1 AND n.id = ANY ($2::text[])`),
  /** $1 workspace, $2 path, $3..$4 its descendant range, $5 levels below it. */
  subtree: s('subtree', `
    SELECT ${NODE_COLUMNS} FROM nodes n WHERE n.workspace = $1 AND n.path = $2
    UNION ALL
    SELECT ${NODE_COLUMNS} FROM nodes r JOIN nodes n
      ON n.workspace = $1 AND n.path >= $3 AND n.path < $4 AND n.depth <= r.depth + $5::int
    WHERE r.workspace = $1 AND r.path = $2
    ORDER BY depth, parent_path, position`),
  /** Descendants of the workspace root: $1 workspace, $2 deepest depth. */
  rootSubtree: s('root_subtree', `SELECT ${NODE_COLUMNS} FROM nodes n WHERE n.workspace = $1 AND n.depth <= $2 ${ORDER}`),
  /**
   * Descendants of several nodes, each node once: $1 workspace, $2 paths, $3 / $4 their descendant
   * ranges, $5 levels below each. `/` (depth 0) has no row of its own.
   */
  subtrees: s('subtrees', `
    WITH roots AS (
      SELECT p.lo, p.hi, CASE WHEN p.path = '/' THEN 0 ELSE r.depth END AS depth
      FROM unnest($2::text[], $3::text[], $4::text[]) AS p(path, lo, hi)
      LEFT JOIN nodes r ON r.workspace = $1 AND r.path = p.path COLLATE "C"
      WHERE p.path = '/' OR r.nid IS NOT NULL
    )
    SELECT ${NODE_COLUMNS} FROM nodes n WHERE n.nid IN (
      SELECT d.nid FROM roots JOIN nodes d
        ON d.workspace = $1 AND d.path >= roots.lo COLLATE "C" AND d.path < roots.hi COLLATE "C"
       AND d.depth <= roots.depth + $5
    ) ${ORDER}`),
  /**
   * A page of each parent's children after its cursor (child-pages.ts): $1 workspace, $2 parent paths,
   * $3 / $4 cursor positions and names, $5 rows per parent. Position bounds each index scan; name breaks ties.
   */
  childPages: s('child_pages', `
    SELECT c.* FROM unnest($2::text[], $3::int[], $4::text[]) WITH ORDINALITY AS p(path, pos, name, ord)
    CROSS JOIN LATERAL (
      SELECT ${NODE_COLUMNS} FROM nodes n
      WHERE n.workspace = $1 AND n.parent_path = p.path COLLATE "C"
        AND n.position >= p.pos AND (n.position > p.pos OR n.name > p.name COLLATE "C")
      ORDER BY n.position, n.name LIMIT $5
    ) c
    ORDER BY p.ord, c.position, c.name`),
  countAll: s('count_all', 'SELECT count(*)::int AS n FROM nodes'),
  countWs: s('count_ws', 'SELECT count(*)::int AS n FROM nodes WHERE workspace = $1'),
  workspaces: s('workspaces', 'SELECT DISTINCT workspace FROM nodes ORDER BY workspace'),
  kinds: s('kinds', 'SELECT name, kind FROM prop_kinds WHERE ws = $1 AND name = ANY ($2::text[])'),
  propertyNames: s('property_names', 'SELECT DISTINCT name FROM prop_kinds WHERE ws = $1'),
  types: s('types', 'SELECT type FROM node_types WHERE ws = $1'),
  blobInfo: s('blob_info', 'SELECT hash, size FROM blobs WHERE hash = $1'),
  blobChunks: s('blob_chunks', 'SELECT seq, data FROM blob_chunks WHERE hash = $1 AND seq BETWEEN $2 AND $3 ORDER BY seq'),
  generation: s('generation', "SELECT value FROM meta WHERE key = 'generation'"),

  // ---- import transaction ----
  anyInWorkspace: s('any_in_workspace', 'SELECT 1 AS any FROM nodes WHERE workspace = $1 LIMIT 1'),
  pathOfId: s('path_of_id', 'SELECT path FROM nodes WHERE workspace = $1 AND id = $2'),
  positionOf: s('position_of', 'SELECT position FROM nodes WHERE workspace = $1 AND path = $2'),
  maxChild: s('max_child', 'SELECT max(position) AS m FROM nodes WHERE workspace = $1 AND parent_path = $2'),
  /** Paths of those of ids $2 that exist in workspace $1. */
  pathsOfIds: s('paths_of_ids', 'SELECT id, path FROM nodes WHERE workspace = $1 AND id = ANY ($2::text[])'),
  /** $1 fresh node ids, drawn ahead so that full-text rows can name their node in the same batch. */
  allocateNids: s('allocate_nids', "SELECT nextval('nodes_nid_seq')::int8 AS nid FROM generate_series(1, $1::int)"),
  // Batched writes: every row of a batch in one statement, as parallel arrays.
  insertNodes: s('insert_nodes', `
    INSERT INTO nodes (nid, workspace, id, path, parent_path, name, depth, position, type, mixins, props)
    SELECT * FROM unnest($1::int8[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::int[],
      $8::int[], $9::text[], $10::text[], $11::text[])`),
  insertKinds: s('insert_kinds', `
    INSERT INTO prop_kinds (ws, name, kind)
    SELECT * FROM unnest($1::text[], $2::text[], $3::smallint[]) ON CONFLICT DO NOTHING`),
  insertTypes: s('insert_types', `
    INSERT INTO node_types (ws, type) SELECT * FROM unnest($1::text[], $2::text[]) ON CONFLICT DO NOTHING`),
  insertFts: s('insert_fts', 'INSERT INTO fts (nid, body) SELECT * FROM unnest($1::int8[], $2::text[])'),
  hasBlob: s('has_blob', 'SELECT 1 FROM blobs WHERE hash = $1'),
  insertBlob: s('insert_blob', 'INSERT INTO blobs (hash, size) VALUES ($1, $2) ON CONFLICT DO NOTHING'),
  insertChunk: s('insert_chunk', `
    INSERT INTO blob_chunks (hash, seq, data) VALUES ($1, $2, $3)
    ON CONFLICT (hash, seq) DO UPDATE SET data = EXCLUDED.data`),
  bump: s('bump', "UPDATE meta SET value = value + 1 WHERE key = 'generation' RETURNING value"),
  /** $1 channel, $2 the new generation: sent when the transaction commits. */
  notify: s('notify', 'SELECT pg_notify($1, $2)'),
  importLock: s('import_lock', 'SELECT pg_advisory_xact_lock($1)'),

  // ---- query index columns ----
  nodeTable: s('node_table', 'SELECT nid::int4 AS nid, path, type FROM nodes WHERE workspace = $1 ORDER BY path COLLATE "C"'),
  /**
   * The properties JSON of the nodes that may have a property ($2: the text its triple starts with,
   * property-document.ts), in row id order (through the primary key: `n.nid`, not the int4 output column,
   * which only a sort could order by).
   */
  propertyDocuments: s('property_documents', `
    SELECT n.nid::int4 AS nid, n.props FROM nodes n WHERE n.workspace = $1 AND strpos(n.props, $2) > 0 ORDER BY n.nid`),
  /** Every node's properties JSON, in row id order (several columns read in one scan). */
  allPropertyDocuments: s('all_property_documents', 'SELECT n.nid::int4 AS nid, n.props FROM nodes n WHERE n.workspace = $1 ORDER BY n.nid'),
  nidsOfIds: s('nids_of_ids', 'SELECT nid::int4 AS nid FROM nodes WHERE workspace = $1 AND id = ANY ($2::text[])'),
  idColumn: s('id_column', 'SELECT nid::int4 AS nid, id FROM nodes WHERE workspace = $1 ORDER BY nid'),
  fullText: s('full_text', 'SELECT nid::int4 AS nid FROM fts WHERE tsv @@ $1::tsquery'),
  nodesOfIds: s('nodes_of_ids', `SELECT n.nid::int4 AS nid, ${NODE_COLUMNS} FROM nodes n WHERE n.workspace = $1 AND n.id = ANY ($2::text[])`),
  nodesByNid: s('nodes_by_nid', `SELECT n.nid::int4 AS nid, ${NODE_COLUMNS} FROM nodes n WHERE n.nid = ANY ($1::int8[])`),
} as const;

export type Queryable = pg.Pool | pg.PoolClient | pg.Client;

/** Runs a prepared statement; rows as objects. */
export async function run<R extends pg.QueryResultRow>(db: Queryable, st: Statement, values: readonly unknown[] = []): Promise<R[]> {
  const r = await db.query<R>({ name: st.name, text: st.text, values: values as unknown[] });
  return r.rows;
}

/** Runs a prepared statement; the affected row count. */
export async function exec(db: Queryable, st: Statement, values: readonly unknown[] = []): Promise<number> {
  const r = await db.query({ name: st.name, text: st.text, values: values as unknown[] });
  return r.rowCount ?? 0;
}

/** Runs a prepared statement; rows as arrays (cheaper for large column loads). */
export async function runArrays<R extends unknown[]>(db: Queryable, st: Statement, values: readonly unknown[] = []): Promise<R[]> {
  const r = await db.query<R>({ name: st.name, text: st.text, values: values as unknown[], rowMode: 'array' });
  return r.rows;
}
