// SQLite backend: the change log (see store/changes.ts). Events are written by the caller's write
// transaction (BEGIN IMMEDIATE: one writer at a time, so sequence order is commit order).
import type Database from 'better-sqlite3';
import type { ImportConnection } from './import-connection.js';
import { descendantRange } from '../../model/paths.js';
import { changesPage, toChangeEvent, type ChangeEntry, type ChangeEvent, type ChangeOp, type ChangedNode, type NewChange } from '../changes.js';

/** Migration 4 (see migrations.ts). */
export const CHANGES_SQL = `
-- One row per change event; AUTOINCREMENT: a sequence number is never reused, even after the
-- newest event is gone.
CREATE TABLE changes (
  seq       INTEGER PRIMARY KEY AUTOINCREMENT,
  workspace TEXT    NOT NULL,
  at        TEXT    NOT NULL,
  kind      TEXT    NOT NULL,
  by        TEXT,
  version   TEXT,
  truncated INTEGER NOT NULL,
  count     INTEGER NOT NULL
);
-- The nodes of each event (none when truncated): op created | changed | moved | removed.
CREATE TABLE change_nodes (
  seq       INTEGER NOT NULL REFERENCES changes (seq),
  ord       INTEGER NOT NULL,
  op        TEXT    NOT NULL,
  id        TEXT    NOT NULL,
  path      TEXT    NOT NULL,
  type      TEXT    NOT NULL,
  from_path TEXT,
  PRIMARY KEY (seq, ord)
) WITHOUT ROWID;
`;

interface EventRow {
  sequence: number; workspace: string; at: string; kind: string; by: string | null; version: string | null; truncated: number; count: number;
}
interface NodeRow { seq: number; op: string; id: string; path: string; type: string; from_path: string | null }

/** The statements of a change event's writes, shared with an import's connection (recordVia). */
export const CHANGE_SQL = {
  insert: 'INSERT INTO changes (workspace, at, kind, by, version, truncated, count) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING seq',
  insertNode: 'INSERT INTO change_nodes (seq, ord, op, id, path, type, from_path) VALUES (?, ?, ?, ?, ?, ?, ?)',
  subtree: 'SELECT id, path, type FROM nodes WHERE workspace = ? AND (path = ? OR (path >= ? AND path < ?)) LIMIT ?',
} as const;

const eventRow = (change: NewChange): unknown[] => [change.workspace, new Date().toISOString(), change.kind, change.by ?? null,
  change.version ?? null, change.truncated ? 1 : 0, change.count];
const nodeRow = (seq: number, n: NewChange['nodes'][number], i: number): unknown[] => [seq, i, n.op, n.id, n.path, n.type, n.from ?? null];

/** Writes a change event through an import's connection, inside its transaction. */
export async function recordVia(db: ImportConnection, change: NewChange): Promise<void> {
  const { seq } = (await db.get<{ seq: number }>(CHANGE_SQL.insert, eventRow(change)))!;
  await db.write([], change.nodes.map((n, i) => [CHANGE_SQL.insertNode, nodeRow(seq, n, i)] as const));
}

/** The node at `path` and its descendants, at most `limit`, through an import's connection. */
export function subtreeVia(db: ImportConnection, workspace: string, path: string, limit: number): Promise<ChangedNode[]> {
  const [lo, hi] = descendantRange(path);
  return db.all<ChangedNode>(CHANGE_SQL.subtree, [workspace, path, lo, hi, limit]);
}

function statements(db: Database.Database) {
  return {
    insert: db.prepare(CHANGE_SQL.insert),
    insertNode: db.prepare(CHANGE_SQL.insertNode),
    since: db.prepare(`SELECT seq AS sequence, workspace, at, kind, by, version, truncated, count FROM changes WHERE seq > ? ORDER BY seq LIMIT ?`),
    nodes: db.prepare('SELECT seq, op, id, path, type, from_path FROM change_nodes WHERE seq >= ? AND seq <= ? ORDER BY seq, ord'),
    latest: db.prepare('SELECT coalesce(max(seq), 0) AS seq FROM changes'),
    typeOf: db.prepare('SELECT type FROM nodes WHERE workspace = ? AND path = ?'),
    subtree: db.prepare(CHANGE_SQL.subtree),
  };
}

export class SqliteChanges {
  readonly #read: ReturnType<typeof statements>;
  readonly #write: ReturnType<typeof statements>;
  readonly #reader: Database.Database;

  constructor(reader: Database.Database, writer: Database.Database) {
    this.#reader = reader;
    this.#read = statements(reader);
    this.#write = statements(writer);
  }

  /** Inside the caller's write transaction. */
  record(change: NewChange): void {
    const s = this.#write;
    const { seq } = s.insert.get(eventRow(change)) as { seq: number };
    change.nodes.forEach((n, i) => s.insertNode.run(nodeRow(seq, n, i)));
  }

  /** On the writer, inside a write transaction (it sees the transaction's own rows). */
  subtreeNodes(workspace: string, path: string, limit: number): ChangedNode[] {
    const [lo, hi] = descendantRange(path);
    return this.#write.subtree.all(workspace, path, lo, hi, limit) as ChangedNode[];
  }

  since(sequence: number, limit: number): ChangeEvent[] {
    const s = this.#read;
    let out: ChangeEvent[] = [];
    // One read transaction: the events and their nodes from one snapshot.
    this.#reader.transaction(() => {
      const rows = s.since.all(sequence, changesPage(limit)) as EventRow[];
      if (rows.length === 0) return;
      const nodes = s.nodes.all(rows[0]!.sequence, rows[rows.length - 1]!.sequence) as NodeRow[];
      const bySeq = new Map<number, ChangeEntry[]>();
      for (const n of nodes) {
        let list = bySeq.get(n.seq);
        if (!list) bySeq.set(n.seq, (list = []));
        list.push({ op: n.op as ChangeOp, id: n.id, path: n.path, type: n.type, ...(n.from_path !== null ? { from: n.from_path } : {}) });
      }
      out = rows.map((r) => toChangeEvent({ ...r, truncated: r.truncated !== 0 }, bySeq.get(r.sequence) ?? []));
    })();
    return out;
  }

  latest(): number {
    return (this.#read.latest.get() as { seq: number }).seq;
  }
}
