// PostgreSQL backend: feeds the in-memory query index from the nodes and fts tables: a property's
// column from the nodes' own properties JSON (property-document.ts), one scan per column or one for
// several (on a read replica when one is recent enough).
import type pg from 'pg';
import type { NodeRecord } from '../rows.js';
import { changesSince, latestChange } from './changes.js';
import { PathListBuilder } from '../query-index/path-list.js';
import { readPaged } from './cursor-reads.js';
import { ColumnBuilder, inNidOrder, pushProperty, type ColumnSource, type CurrentNode, type NodeTable, type PropertyColumn } from '../query-index/column-source.js';
import { propertyIn, propertyNeedle } from '../property-document.js';
import { SQL, run, runArrays } from './statements.js';


/** The query index's source, plus the UUID column it uses to order by `@id`. */
export interface PostgresColumnSource extends ColumnSource {
  idColumn(workspace: string): Promise<{ nids: Int32Array; ids: string[] }>;
  propertyColumns(workspace: string, names: readonly string[]): Promise<Map<string, PropertyColumn>>;
}

/** Runs one read on a pool the store chooses (a replica recent enough, or the primary). */
export type ReadOn = <T>(fn: (db: pg.Pool) => Promise<T>) => Promise<T>;

/**
 * Told of the generation a pool reported after the change events (or the newest sequence) were read
 * on it: the store raises its floor to it, so every later read (node table, columns, rows of changed
 * nodes), on whichever replica the router picks, sees at least the commits of those events.
 */
export type AdvanceFloor = (generation: number) => void;

/** One read of `fn` on a pool the router picks, with that pool's generation read after it. */
async function withGeneration<T>(read: ReadOn, advance: AdvanceFloor, fn: (db: pg.Pool) => Promise<T>): Promise<T> {
  const { value, generation } = await read(async (db) => {
    const v = await fn(db);
    const [row] = await run<{ value: string }>(db, SQL.generation);
    return { value: v, generation: Number(row!.value) };
  });
  advance(generation);
  return value;
}

export function postgresColumnSource(
  read: ReadOn,
  generation: () => Promise<number>,
  toRecord: (row: never) => NodeRecord,
  advance: AdvanceFloor,
): PostgresColumnSource {
  return {
    generation,
    // On a replica when one is recent enough (as every read of the index): a replica lagging behind
    // the newest events only delays them to the next sync.
    changesSince: (sequence, limit) => withGeneration(read, advance, (db) => changesSince(db, sequence, limit)),
    changeFloor: () => withGeneration(read, advance, (db) => latestChange(db)),
    async nodesOfIds(workspace: string, ids: readonly string[]): Promise<CurrentNode[]> {
      const wanted = ids.filter((id) => !id.includes('\u0000'));
      if (wanted.length === 0) return [];
      const rows = await read((db) => run<{ nid: number }>(db, SQL.nodesOfIds, [workspace, wanted]));
      return rows.map((r) => ({ nid: r.nid, record: toRecord(r as never) }));
    },
    async nodeTable(workspace: string): Promise<NodeTable> {
      const nids: number[] = [];
      const typeCodes: number[] = [];
      const paths = new PathListBuilder(1024);
      const types: string[] = [];
      const codeOf = new Map<string, number>();
      await read((db) => readPaged<[number, string, string]>(db, SQL.nodeTable.text, [workspace], (rows) => {
        for (const row of rows) {
          let code = codeOf.get(row[2]);
          if (code === undefined) {
            code = types.length;
            types.push(row[2]);
            codeOf.set(row[2], code);
          }
          nids.push(row[0]);
          paths.push(row[1]);
          typeCodes.push(code);
        }
      }));
      return { nids: Int32Array.from(nids), paths: paths.finish(), typeCodes: Uint16Array.from(typeCodes), types };
    },
    async propertyColumn(workspace: string, name: string): Promise<PropertyColumn> {
      // The values as index-values.ts derives them from the stored documents (so exact: a text with
      // U+0000 keeps it, as in the node's JSON), in row id order (as the former props table gave them).
      const b = new ColumnBuilder();
      const needle = propertyNeedle(name); // JSON text: U+0000 in a name is escaped, so PostgreSQL takes it
      await read((db) => readPaged<[number, string]>(db, SQL.propertyDocuments.text, [workspace, needle.head], (rows) => {
        for (const [nid, json] of rows) {
          const property = propertyIn(json, needle);
          if (property !== undefined) pushProperty(b, nid, property);
        }
      }));
      return b.finish();
    },
    async propertyColumns(workspace: string, names: readonly string[]): Promise<Map<string, PropertyColumn>> {
      const builders = names.map(() => new ColumnBuilder());
      const needles = names.map(propertyNeedle);
      await read((db) => readPaged<[number, string]>(db, SQL.allPropertyDocuments.text, [workspace], (rows) => {
        for (const [nid, json] of rows) {
          for (let i = 0; i < needles.length; i++) {
            const property = propertyIn(json, needles[i]!);
            if (property !== undefined) pushProperty(builders[i]!, nid, property);
          }
        }
      }));
      return new Map(names.map((n, i) => [n, builders[i]!.finish()]));
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
      return inNidOrder(rows, nids, toRecord);
    },
  };
}
