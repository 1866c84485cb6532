// SQLite backend: the query index's persisted base segments (see query-index/persisted-segments.ts),
// in the index_segments table of migration 5, in rows of at most 256 MiB.
import type Database from 'better-sqlite3';
import { chunksOf, type ChangesAfter, type IndexSegmentStore, type StoredSegment } from '../query-index/segment-store.js';

/** Migration 5 (see migrations.ts). A rowid table: its rows are large, and a rowid b-tree keeps them off the key pages. */
export const INDEX_SEGMENTS_SQL = `
-- The query index's base segments (node tables, property columns) in a compact binary form, so a
-- restarted server loads a large workspace with sequential reads: kind 'table' (name '') or
-- 'column' (the property's name); floor is the change sequence the segment reflects.
CREATE TABLE index_segments (
  ws     TEXT    NOT NULL,
  kind   TEXT    NOT NULL,
  name   TEXT    NOT NULL,
  chunk  INTEGER NOT NULL,
  floor  INTEGER NOT NULL,
  format INTEGER NOT NULL,
  data   BLOB    NOT NULL
);
CREATE UNIQUE INDEX index_segments_by_key ON index_segments (ws, kind, name, chunk);
`;

/** Below SQLite's default limit of 1e9 bytes per value: a 1M-node workspace's segments are one row each. */
const CHUNK_BYTES = 256 * 1024 * 1024;

interface ChunkRow { floor: number; format: number; chunk: number; data: Buffer }

/**
 * Reads on the reader connection; writes run `write` (the store's write queue, on its writer
 * connection: a content write's transaction is never interleaved with this one).
 */
export function sqliteIndexSegments(
  reader: () => Database.Database,
  write: (fn: (db: Database.Database) => void) => Promise<void>,
): IndexSegmentStore {
  return {
    async read(ws, kind, name): Promise<StoredSegment | undefined> {
      const rows = reader().prepare('SELECT floor, format, chunk, data FROM index_segments WHERE ws = ? AND kind = ? AND name = ? ORDER BY chunk')
        .all(ws, kind, name) as ChunkRow[];
      return assemble(rows);
    },
    write(ws, kind, name, segment): Promise<void> {
      return write((db) => {
        db.transaction(() => {
          const newest = db.prepare('SELECT max(floor) AS floor FROM index_segments WHERE ws = ? AND kind = ? AND name = ?').get(ws, kind, name) as { floor: number | null };
          if (newest.floor !== null && newest.floor > segment.floor) return;
          db.prepare('DELETE FROM index_segments WHERE ws = ? AND kind = ? AND name = ?').run(ws, kind, name);
          const insert = db.prepare('INSERT INTO index_segments (ws, kind, name, chunk, floor, format, data) VALUES (?, ?, ?, ?, ?, ?, ?)');
          chunksOf(segment.data, CHUNK_BYTES).forEach((data, chunk) => insert.run(ws, kind, name, chunk, segment.floor, segment.format, data));
        }).immediate();
      });
    },
    async columnNames(ws): Promise<string[]> {
      return reader().prepare("SELECT DISTINCT name FROM index_segments WHERE ws = ? AND kind = 'column'").pluck().all(ws) as string[];
    },
    async changesAfter(sequence, ws): Promise<ChangesAfter> {
      const r = reader().prepare(`SELECT count(*) AS events, coalesce(sum(CASE WHEN workspace = ? THEN count END), 0) AS nodes,
        coalesce(max(CASE WHEN workspace = ? THEN truncated END), 0) AS truncated FROM changes WHERE seq > ?`)
        .get(ws, ws, sequence) as { events: number; nodes: number; truncated: number };
      return { events: r.events, nodes: r.nodes, truncated: r.truncated !== 0 };
    },
  };
}

/** The chunks as one segment; undefined unless they are 0..n-1 of one floor and format (never a mix of two writes). */
export function assemble(rows: readonly { floor: number; format: number; chunk: number; data: Buffer }[]): StoredSegment | undefined {
  if (rows.length === 0) return undefined;
  const { floor, format } = rows[0]!;
  if (rows.some((r, i) => r.chunk !== i || r.floor !== floor || r.format !== format)) return undefined;
  return { floor, format, data: rows.length === 1 ? rows[0]!.data : Buffer.concat(rows.map((r) => r.data)) };
}
