// PostgreSQL backend: feeds the in-memory query index from the nodes, props and fts tables, one
// SELECT per column (on a read replica when one is recent enough).
import type pg from 'pg';
import type { NodeRecord } from '../rows.js';
import type { ChangeEvent } from '../changes.js';
import { columnFromRows, type ColumnSource, type CurrentNode, type NodeTable, type PropertyColumn, type PropertyRow } from '../query-index/column-source.js';
import { SQL, run, runArrays } from './statements.js';


/** The query index's source, plus the UUID column it uses to order by `@id`. */
export interface PostgresColumnSource extends ColumnSource {
  idColumn(workspace: string): Promise<{ nids: Int32Array; ids: string[] }>;
}

/** Runs one read on a pool the store chooses (a replica recent enough, or the primary). */
export type ReadOn = <T>(fn: (db: pg.Pool) => Promise<T>) => Promise<T>;

/**
 * The change log and the primary. Events are read on the primary; `refreshFloor` then reads the
 * primary's generation, which raises the floor a replica must reach before it serves this instance
 * (read-router.ts): every read after it sees the commits of the events read before it.
 */
export interface PostgresChangeFeed {
  changesSince(sequence: number, limit: number): Promise<ChangeEvent[]>;
  latestChange(): Promise<number>;
  refreshFloor(): Promise<unknown>;
  primary(): pg.Pool;
}

export function postgresColumnSource(
  read: ReadOn,
  generation: () => Promise<number>,
  toRecord: (row: never) => NodeRecord,
  changes: PostgresChangeFeed,
): PostgresColumnSource {
  return {
    generation,
    async changesSince(sequence: number, limit: number): Promise<ChangeEvent[]> {
      const events = await changes.changesSince(sequence, limit);
      if (events.length > 0) await changes.refreshFloor();
      return events;
    },
    async changeFloor(): Promise<number> {
      const floor = await changes.latestChange();
      await changes.refreshFloor();
      return floor;
    },
    async nodesOfIds(workspace: string, ids: readonly string[]): Promise<CurrentNode[]> {
      const wanted = ids.filter((id) => !id.includes('\u0000'));
      if (wanted.length === 0) return [];
      // On the primary: the rows must be at least as new as the events that named them.
      const rows = await run<{ nid: number }>(changes.primary(), SQL.nodesOfIds, [workspace, wanted]);
      return rows.map((r) => ({ nid: r.nid, record: toRecord(r as never) }));
    },
    async nodeTable(workspace: string): Promise<NodeTable> {
      const rows = await read((db) => runArrays<[number, string, string]>(db, SQL.nodeTable, [workspace]));
      const n = rows.length;
      const nids = new Int32Array(n);
      const typeCodes = new Uint16Array(n);
      const paths: string[] = new Array(n);
      const types: string[] = [];
      const codeOf = new Map<string, number>();
      for (let i = 0; i < n; i++) {
        const row = rows[i]!;
        let code = codeOf.get(row[2]);
        if (code === undefined) {
          code = types.length;
          types.push(row[2]);
          codeOf.set(row[2], code);
        }
        nids[i] = row[0];
        paths[i] = row[1];
        typeCodes[i] = code;
      }
      return { nids, paths, typeCodes, types };
    },
    async propertyColumn(workspace: string, name: string): Promise<PropertyColumn> {
      const rows = name.includes('\u0000') // PostgreSQL text has no U+0000: no property has such a name
        ? []
        : await read((db) => runArrays<PropertyRow>(db, SQL.propertyColumn, [workspace, name]));
      return columnFromRows(rows);
    },
    async propertyNames(workspace: string): Promise<string[]> {
      const rows = await read((db) => runArrays<[string]>(db, SQL.propertyNames, [workspace]));
      return rows.map((r) => r[0]);
    },
    async nidsOfIds(workspace: string, ids: readonly string[]): Promise<Int32Array> {
      const wanted = ids.filter((id) => !id.includes('\u0000')); // no stored id holds U+0000
      if (wanted.length === 0) return new Int32Array(0);
      const rows = await read((db) => runArrays<[number]>(db, SQL.nidsOfIds, [workspace, wanted]));
      return Int32Array.from(rows, (r) => r[0]);
    },
    async idColumn(workspace: string): Promise<{ nids: Int32Array; ids: string[] }> {
      const rows = await read((db) => runArrays<[number, string]>(db, SQL.idColumn, [workspace]));
      return { nids: Int32Array.from(rows, (r) => r[0]), ids: rows.map((r) => r[1]) };
    },
    async fullText(match: string): Promise<Int32Array> {
      if (match === '') return new Int32Array(0);
      const rows = await read((db) => runArrays<[number]>(db, SQL.fullText, [match]));
      return Int32Array.from(rows, (r) => r[0]);
    },
    async nodesByNid(nids: readonly number[]): Promise<NodeRecord[]> {
      if (nids.length === 0) return [];
      const rows = await read((db) => run<{ nid: number }>(db, SQL.nodesByNid, [nids]));
      const byNid = new Map(rows.map((r) => [r.nid, r]));
      const out: NodeRecord[] = [];
      for (const nid of nids) {
        const r = byNid.get(nid);
        if (r) out.push(toRecord(r as never));
      }
      return out;
    },
  };
}
