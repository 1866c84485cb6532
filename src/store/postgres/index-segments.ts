// PostgreSQL backend: the query index's persisted base segments (see query-index/persisted-segments.ts),
// in the index_segments table of migration 6, in rows of at most 64 MiB, shared by every instance.
import type pg from 'pg';
import { chunksOf, type ChangesAfter, type IndexSegmentStore, type StoredSegment } from '../query-index/segment-store.js';
import { assemble } from '../sqlite/index-segments.js';
import type { ReadOn } from './column-source.js';
import { copyBinaryRows } from './copy-binary-out.js';

/** Migration 6 (see migrations.ts). */
export const INDEX_SEGMENTS_SQL = `
-- The query index's base segments (node tables, property columns) in a compact binary form, so a
-- restarted instance loads a large workspace with sequential reads: kind 'table' (name '') or
-- 'column' (the property's name); floor is the change sequence the segment reflects.
CREATE TABLE index_segments (
  ws     text    NOT NULL COLLATE "C",
  kind   text    NOT NULL,
  name   text    NOT NULL COLLATE "C",
  chunk  integer NOT NULL,
  floor  bigint  NOT NULL,
  format integer NOT NULL,
  data   bytea   NOT NULL,
  PRIMARY KEY (ws, kind, name, chunk)
);
-- Stored as is: compressing costs every write and every read, and the segments are compact already.
ALTER TABLE index_segments ALTER COLUMN data SET STORAGE EXTERNAL;
`;

/** A row's value travels as one message. */
const CHUNK_BYTES = 64 * 1024 * 1024;

/** Key of the advisory locks that serialize two instances' writes of one segment. */
const SEGMENT_LOCK = 0x7065_7473; // 'pets'

/**
 * Reads on a pool the router picks (a replica's older segment is only older: its floor says so, and a
 * replica lagging behind only delays events to the next sync, as for any base); writes on the
 * primary, in their own transaction.
 */
export function postgresIndexSegments(read: ReadOn, primary: () => pg.Pool): IndexSegmentStore {
  return {
    async read(ws, kind, name): Promise<StoredSegment | undefined> {
      if (`${ws}${name}`.includes('\u0000')) return undefined;
      // A binary COPY: node-postgres decodes every result value as text (bytea as hex, twice its size);
      // COPY hands over the stored bytes as they are.
      const rows = await read(async (db) => {
        const client = await db.connect();
        let broken = false;
        try {
          const lit = (v: string) => client.escapeLiteral(v);
          return await copyBinaryRows(client,
            `SELECT floor, format, chunk, data FROM index_segments WHERE ws = ${lit(ws)} AND kind = ${lit(kind)} AND name = ${lit(name)} ORDER BY chunk`);
        } catch (err) {
          broken = true; // a COPY that failed midway may leave the connection in an unknown state
          throw err;
        } finally {
          client.release(broken);
        }
      });
      if (rows.some((r) => r.some((f) => f === null))) return undefined;
      return assemble(rows.map(([floor, format, chunk, data]) => ({
        floor: Number(floor!.readBigInt64BE(0)), format: format!.readInt32BE(0), chunk: chunk!.readInt32BE(0), data: data!,
      })));
    },
    async write(ws, kind, name, segment): Promise<void> {
      if (`${ws}${name}`.includes('\u0000')) return;
      const client = await primary().connect();
      let failed = false;
      try {
        await client.query('BEGIN');
        await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [SEGMENT_LOCK, `${ws}/${kind}/${name}`]);
        const { rows } = await client.query<{ floor: string | null }>('SELECT max(floor)::text AS floor FROM index_segments WHERE ws = $1 AND kind = $2 AND name = $3', [ws, kind, name]);
        if (rows[0]!.floor === null || Number(rows[0]!.floor) <= segment.floor) {
          await client.query('DELETE FROM index_segments WHERE ws = $1 AND kind = $2 AND name = $3', [ws, kind, name]);
          let chunk = 0;
          for (const data of chunksOf(segment.data, CHUNK_BYTES)) {
            await client.query('INSERT INTO index_segments (ws, kind, name, chunk, floor, format, data) VALUES ($1, $2, $3, $4, $5, $6, $7)',
              [ws, kind, name, chunk++, segment.floor, segment.format, data]);
          }
        }
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => { failed = true; });
        throw err;
      } finally {
        client.release(failed);
      }
    },
    async columnNames(ws): Promise<string[]> {
      const { rows } = await primary().query<{ name: string }>("SELECT DISTINCT name FROM index_segments WHERE ws = $1 AND kind = 'column'", [ws]);
      return rows.map((r) => r.name);
    },
    async changesAfter(sequence, ws): Promise<ChangesAfter> {
      const { rows } = await read((db) => db.query<{ events: string; nodes: string; truncated: boolean }>(
        `SELECT count(*) AS events, coalesce(sum(count) FILTER (WHERE workspace = $2), 0) AS nodes,
           coalesce(bool_or(truncated) FILTER (WHERE workspace = $2), false) AS truncated FROM changes WHERE seq > $1`, [sequence, ws]));
      const r = rows[0]!;
      return { events: Number(r.events), nodes: Number(r.nodes), truncated: r.truncated };
    },
  };
}
