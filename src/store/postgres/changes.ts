// PostgreSQL backend: the change log (see store/changes.ts). Events are written inside the write's
// transaction, which holds the import lock (IMPORT_LOCK): writers of every instance take their
// sequence numbers one after the other, so a reader never sees a number before a smaller one commits.
// Every writer (imports, write-transaction.ts) takes that lock before recording.
import type pg from 'pg';
import { descendantRange } from '../../model/paths.js';
import { changesPage, toChangeEvent, type ChangeEntry, type ChangeEvent, type ChangeOp, type ChangedNode, type NewChange } from '../changes.js';
import { exec, run, type Statement } from './statements.js';

/** Migration 4 (see migrations.ts). */
export const CHANGES_SQL = `
-- One row per change event, numbered by a sequence (gaps where a write rolled back).
CREATE TABLE changes (
  seq       bigserial   PRIMARY KEY,
  workspace text        NOT NULL COLLATE "C",
  at        timestamptz NOT NULL DEFAULT now(),
  kind      text        NOT NULL,
  by        text,
  version   text,
  truncated boolean     NOT NULL,
  count     integer     NOT NULL
);
-- The nodes of each event (none when truncated): op created | changed | moved | removed.
CREATE TABLE change_nodes (
  seq       bigint  NOT NULL REFERENCES changes (seq),
  ord       integer NOT NULL,
  op        text    NOT NULL,
  id        text    NOT NULL COLLATE "C",
  path      text    NOT NULL COLLATE "C",
  type      text    NOT NULL COLLATE "C",
  from_path text    COLLATE "C",
  PRIMARY KEY (seq, ord)
);
`;

const s = (name: string, text: string): Statement => ({ name: `petal_c_${name}`, text });
const EVENT = 'seq::int8 AS sequence, workspace, at, kind, by, version, truncated, count';

const SQL = {
  insert: s('insert', `INSERT INTO changes (workspace, kind, by, version, truncated, count) VALUES ($1, $2, $3, $4, $5, $6) RETURNING seq`),
  insertNodes: s('insert_nodes', `
    INSERT INTO change_nodes (seq, ord, op, id, path, type, from_path)
    SELECT $1, * FROM unnest($2::int[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[])`),
  since: s('since', `SELECT ${EVENT} FROM changes WHERE seq > $1 ORDER BY seq LIMIT $2`),
  nodes: s('nodes', 'SELECT seq::int8 AS seq, op, id, path, type, from_path FROM change_nodes WHERE seq >= $1 AND seq <= $2 ORDER BY seq, ord'),
  latest: s('latest', 'SELECT coalesce(max(seq), 0)::int8 AS seq FROM changes'),
  /** $1 workspace, $2 path, $3 / $4 its descendant range, $5 most rows. */
  subtree: s('subtree', 'SELECT id, path, type FROM nodes WHERE workspace = $1 AND (path = $2 OR (path >= $3 AND path < $4)) LIMIT $5'),
} as const;

interface EventRow {
  sequence: string; workspace: string; at: Date; kind: string; by: string | null; version: string | null; truncated: boolean; count: number;
}
interface NodeRow { seq: string; op: string; id: string; path: string; type: string; from_path: string | null }

type Queryable = pg.Pool | pg.PoolClient;

/** Inside the caller's transaction, which holds the import lock. */
export async function recordChange(client: pg.PoolClient, change: NewChange): Promise<void> {
  const [row] = await run<{ seq: string }>(client, SQL.insert,
    [change.workspace, change.kind, change.by ?? null, change.version ?? null, change.truncated, change.count]);
  if (change.nodes.length === 0) return;
  const n = change.nodes;
  await exec(client, SQL.insertNodes, [row!.seq, n.map((_, i) => i), n.map((x) => x.op), n.map((x) => x.id),
    n.map((x) => x.path), n.map((x) => x.type), n.map((x) => x.from ?? null)]);
}

export async function subtreeNodes(client: pg.PoolClient, workspace: string, path: string, limit: number): Promise<ChangedNode[]> {
  const [lo, hi] = descendantRange(path);
  return run<{ id: string; path: string; type: string }>(client, SQL.subtree, [workspace, path, lo, hi, limit]);
}

/** Events after `sequence`, with their nodes; one snapshot (REPEATABLE READ) on one connection. */
export async function changesSince(pool: pg.Pool, sequence: number, limit: number): Promise<ChangeEvent[]> {
  const client = await pool.connect();
  let failed = false;
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const rows = await run<EventRow>(client, SQL.since, [Math.max(0, Math.floor(sequence)), changesPage(limit)]);
    const nodes = rows.length === 0 ? [] : await run<NodeRow>(client, SQL.nodes, [rows[0]!.sequence, rows[rows.length - 1]!.sequence]);
    await client.query('COMMIT');
    const bySeq = new Map<string, ChangeEntry[]>();
    for (const n of nodes) {
      let list = bySeq.get(n.seq);
      if (!list) bySeq.set(n.seq, (list = []));
      list.push({ op: n.op as ChangeOp, id: n.id, path: n.path, type: n.type, ...(n.from_path !== null ? { from: n.from_path } : {}) });
    }
    return rows.map((r) => toChangeEvent({ ...r, sequence: Number(r.sequence), at: r.at.toISOString() }, bySeq.get(r.sequence) ?? []));
  } catch (err) {
    await client.query('ROLLBACK').catch(() => { failed = true; });
    throw err;
  } finally {
    client.release(failed);
  }
}

export async function latestChange(db: Queryable): Promise<number> {
  const [row] = await run<{ seq: string }>(db, SQL.latest);
  return Number(row!.seq);
}
