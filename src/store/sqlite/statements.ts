// SQLite backend: connections (pragmas, the `fold` function) and every fixed statement of the store,
// prepared once per connection. Identifiers are fixed here; every value is a parameter.
import type { Database as Connection } from 'better-sqlite3';
import Database from './driver.js';
import { compileLike, likeMatch, type LikePattern } from '../../query/like.js';
import { indexRows } from '../index-values.js';
import type { StoredProperty } from '../../model/property-type.js';
import { KIND_CODES } from '../query-index/column-source.js';

/** Binaries are stored in chunks of this size (a Range read touches only the chunks it needs). */
export const BLOB_CHUNK = 1 << 20;
const COLUMNS = 'id, workspace, path, parent_path, name, depth, position, type, mixins, props';

/** Statements an import runs through its connection (import-connection.ts), shared with the store's own. */
export const IMPORT_SQL = {
  countAll: 'SELECT count(*) AS n FROM nodes',
  pathOfId: 'SELECT path FROM nodes WHERE workspace = ? AND id = ?',
  pathsOfIds: 'SELECT id, path FROM nodes WHERE workspace = ? AND id IN (SELECT value FROM json_each(?))',
  anyInWorkspace: 'SELECT 1 AS any FROM nodes WHERE workspace = ? LIMIT 1',
  maxNid: 'SELECT coalesce(max(nid), 0) AS m FROM nodes',
  positionOf: 'SELECT position FROM nodes WHERE workspace = ? AND path = ?',
  maxChild: 'SELECT max(position) AS m FROM nodes WHERE workspace = ? AND parent_path = ?',
  deleteNode: 'DELETE FROM nodes WHERE workspace = ? AND path = ?',
  deleteBelow: 'DELETE FROM nodes WHERE workspace = ? AND path >= ? AND path < ?',
  insertKind: 'INSERT OR IGNORE INTO prop_kinds (ws, name, kind) VALUES (?, ?, ?)',
  insertType: 'INSERT OR IGNORE INTO node_types (ws, type) VALUES (?, ?)',
  hasBlob: 'SELECT 1 AS any FROM blobs WHERE hash = ?',
  insertBlob: 'INSERT INTO blobs (hash, size) VALUES (?, ?)',
  insertChunk: 'INSERT OR REPLACE INTO blob_chunks (hash, seq, data) VALUES (?, ?, ?)',
  bump: "UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation'",
} as const;

/** The prepared statements of one connection. */
export type Statements = ReturnType<typeof prepare>;

export function connect(file: string): Connection {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  db.pragma('cache_size = -65536');
  // Unicode-aware lower case, as PostgreSQL's lower(): for ilike on names and case-insensitive order.
  db.function('fold', { deterministic: true }, (v: unknown) => (typeof v === 'string' ? v.toLowerCase() : v));
  // `like` as the query index matches it (query/like.ts): GLOB backtracks exponentially on `*?*?*?`.
  // A statement calls it with one pattern per row run, so the last compiled pattern is kept.
  let lastPattern: string | undefined;
  let compiled: LikePattern = compileLike('');
  db.function('like_match', { deterministic: true }, (value: unknown, pattern: unknown) => {
    if (typeof value !== 'string' || typeof pattern !== 'string') return 0;
    if (pattern !== lastPattern) {
      compiled = compileLike(pattern);
      lastPattern = pattern;
    }
    return likeMatch(compiled, value) ? 1 : 0;
  });
  // The property-index rows of one node's property document (index-values.ts), for the SQL query path:
  // `FROM nodes n, index_rows(n.props) p`. Derived per query instead of stored (migration 7).
  db.table('index_rows', {
    columns: ['name', 'pos', 'kind', 's', 'f', 'n'],
    parameters: ['props'],
    *rows(props: unknown) {
      if (typeof props !== 'string') return;
      for (const r of indexRows(JSON.parse(props) as StoredProperty[])) yield [r.name, r.pos, KIND_CODES[r.kind], r.s, r.f, r.n];
    },
  });
  return db;
}

export function prepare(db: Connection) {
  return {
    ping: db.prepare('SELECT 1 AS ok'),
    byPath: db.prepare(`SELECT ${COLUMNS} FROM nodes WHERE workspace = ? AND path = ?`),
    byId: db.prepare(`SELECT ${COLUMNS} FROM nodes WHERE workspace = ? AND id = ?`),
    byIds: db.prepare(`SELECT ${COLUMNS} FROM nodes WHERE workspace = ? AND id IN (SELECT value FROM json_each(?))`),
    subtree: db.prepare(
      `SELECT ${COLUMNS} FROM nodes WHERE workspace = ? AND path >= ? AND path < ? AND depth <= ? ORDER BY depth, parent_path, position`,
    ),
    /** A page of one parent's children after a cursor (child-pages.ts): position bounds the index scan, name breaks ties. */
    childPage: db.prepare(
      `SELECT ${COLUMNS} FROM nodes WHERE workspace = ? AND parent_path = ? AND position >= ? AND (position > ? OR name > ?)
       ORDER BY position, name LIMIT ?`,
    ),
    countAll: db.prepare(IMPORT_SQL.countAll),
    countWs: db.prepare('SELECT count(*) AS n FROM nodes WHERE workspace = ?'),
    workspaces: db.prepare('SELECT DISTINCT workspace FROM nodes ORDER BY workspace'),
    pathOfId: db.prepare(IMPORT_SQL.pathOfId),
    pathsOfIds: db.prepare(IMPORT_SQL.pathsOfIds),
    anyInWorkspace: db.prepare(IMPORT_SQL.anyInWorkspace),
    maxNid: db.prepare(IMPORT_SQL.maxNid),
    positionOf: db.prepare(IMPORT_SQL.positionOf),
    maxChild: db.prepare(IMPORT_SQL.maxChild),
    deleteNode: db.prepare(IMPORT_SQL.deleteNode),
    deleteBelow: db.prepare(IMPORT_SQL.deleteBelow),
    insert: db.prepare(
      `INSERT INTO nodes (workspace, id, path, parent_path, name, depth, position, type, mixins, props)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    // Nodes API writes (repository/write-nodes.ts).
    children: db.prepare('SELECT id, path, name, type, position FROM nodes WHERE workspace = ? AND parent_path = ? ORDER BY position, name'),
    /** Publishing (repository/publish-state.ts): the children of several parents (a JSON array of paths). */
    childrenOf: db.prepare(`SELECT ${COLUMNS} FROM nodes WHERE workspace = ? AND parent_path IN (SELECT value FROM json_each(?))`),
    /** The descendants of a moved node: new path and parent path prefixes (code points, as substr counts), depth shifted. */
    moveBelow: db.prepare(
      `UPDATE nodes SET path = ? || substr(path, ?), parent_path = ? || substr(parent_path, ?), depth = depth + ?
       WHERE workspace = ? AND path >= ? AND path < ?`,
    ),
    moveNode: db.prepare('UPDATE nodes SET path = ?, parent_path = ?, name = ?, depth = ?, position = ? WHERE workspace = ? AND path = ?'),
    setPosition: db.prepare('UPDATE nodes SET position = ? WHERE workspace = ? AND path = ?'),
    /** An update in place (update-in-place.ts): the row's nid and what its index rows were made from. */
    nodeForUpdate: db.prepare('SELECT nid, type, props FROM nodes WHERE workspace = ? AND path = ?'),
    updateNode: db.prepare('UPDATE nodes SET type = ?, mixins = ?, props = ? WHERE nid = ?'),
    deleteFts: db.prepare('DELETE FROM fts WHERE rowid = ?'),
    depthOf: db.prepare('SELECT depth FROM nodes WHERE workspace = ? AND path = ?'),
    insertKind: db.prepare(IMPORT_SQL.insertKind),
    insertFts: db.prepare('INSERT INTO fts (rowid, body) VALUES (?, ?)'),
    kinds: db.prepare('SELECT name, kind FROM prop_kinds WHERE ws = ? AND name IN (SELECT value FROM json_each(?))'),
    types: db.prepare('SELECT type FROM node_types WHERE ws = ?'),
    insertType: db.prepare(IMPORT_SQL.insertType),
    hasBlob: db.prepare(IMPORT_SQL.hasBlob),
    insertBlob: db.prepare(IMPORT_SQL.insertBlob),
    insertChunk: db.prepare(IMPORT_SQL.insertChunk),
    blobInfo: db.prepare('SELECT hash, size FROM blobs WHERE hash = ?'),
    blobChunks: db.prepare('SELECT seq, data FROM blob_chunks WHERE hash = ? AND seq BETWEEN ? AND ? ORDER BY seq'),
    generation: db.prepare("SELECT value FROM meta WHERE key = 'generation'"),
    bump: db.prepare(IMPORT_SQL.bump),
  };
}
