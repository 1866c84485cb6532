// SQLite backend: feeds the in-memory query index from the nodes and fts tables.
import type Database from 'better-sqlite3';
import type { NodeRecord } from '../rows.js';
import type { StoredProperty } from '../../model/property-type.js';
import { propertyIn, propertyNeedle } from '../property-document.js';
import { ColumnBuilder, inNidOrder, pushProperty, type ColumnSource, type CurrentNode, type NodeTable, type PropertyColumn } from '../query-index/column-source.js';
import { PathListBuilder } from '../query-index/path-list.js';
import type { ChangeLog } from '../content-store.js';


/** Up to this many columns, each is picked out of a document by itself; more, and the document is parsed once. */
const PICKED_COLUMNS = 4;

/**
 * Columns of several properties from one pass over the workspace's property documents (migration 7: the
 * values live only there), in row id order. A workspace holding a good part of the table is read in
 * row order (sequential pages); a small one through its index, sorted.
 */
function columnsOf(db: Database.Database, workspace: string, names: readonly string[]): Map<string, PropertyColumn> {
  const builders = new Map(names.map((n) => [n, new ColumnBuilder()]));
  const picks = names.length <= PICKED_COLUMNS ? names.map((n) => ({ needle: propertyNeedle(n), builder: builders.get(n)! })) : undefined;
  const size = (db.prepare('SELECT count(*) AS n FROM nodes WHERE workspace = ?').get(workspace) as { n: number }).n;
  const rows = (db.prepare('SELECT max(nid) AS m FROM nodes').get() as { m: number | null }).m ?? 0;
  const sql = size * 4 >= rows
    ? 'SELECT nid, props FROM nodes NOT INDEXED WHERE workspace = ?'
    : 'SELECT nid, props FROM nodes WHERE workspace = ? ORDER BY nid';
  for (const [nid, props] of db.prepare(sql).raw().iterate(workspace) as Iterable<[number, string]>) {
    if (picks !== undefined) {
      for (const { needle, builder } of picks) {
        const property = propertyIn(props, needle);
        if (property !== undefined) pushProperty(builder, nid, property);
      }
      continue;
    }
    for (const property of JSON.parse(props) as StoredProperty[]) {
      const b = builders.get(property[0]);
      if (b !== undefined) pushProperty(b, nid, property);
    }
  }
  return new Map([...builders].map(([n, b]) => [n, b.finish()]));
}

export function sqliteColumnSource(
  db: () => Database.Database,
  generation: () => Promise<number>,
  toRecord: (row: never) => NodeRecord,
  nodeColumns: string,
  /** The store's change log (one database: every read sees every commit before it). */
  changes: ChangeLog,
): ColumnSource {
  // Prepared once per connection: it runs for every page of query results.
  let nodesStmt: Database.Statement | undefined;
  return {
    generation,
    changesSince: (sequence, limit) => changes.since(sequence, limit),
    changeFloor: () => changes.latest(),
    async nodesOfIds(workspace: string, ids: readonly string[]): Promise<CurrentNode[]> {
      if (ids.length === 0) return [];
      const rows = db().prepare(`SELECT n.nid AS nid, ${nodeColumns} FROM nodes n WHERE n.workspace = ? AND n.id IN (SELECT value FROM json_each(?))`)
        .all(workspace, JSON.stringify(ids)) as { nid: number }[];
      return rows.map((r) => ({ nid: r.nid, record: toRecord(r as never) }));
    },
    async nodeTable(workspace: string): Promise<NodeTable> {
      const d = db();
      const n = (d.prepare('SELECT count(*) AS n FROM nodes WHERE workspace = ?').get(workspace) as { n: number }).n;
      const nids = new Int32Array(n);
      const typeCodes = new Uint16Array(n);
      const paths = new PathListBuilder(n);
      const types: string[] = [];
      const codeOf = new Map<string, number>();
      let i = 0;
      const rows = d.prepare('SELECT nid, path, type FROM nodes WHERE workspace = ? ORDER BY path').raw().iterate(workspace);
      for (const row of rows as Iterable<[number, string, string]>) {
        if (i >= n) break;
        let code = codeOf.get(row[2]);
        if (code === undefined) {
          code = types.length;
          types.push(row[2]);
          codeOf.set(row[2], code);
        }
        nids[i] = row[0];
        paths.push(row[1]);
        typeCodes[i] = code;
        i++;
      }
      return { nids: nids.slice(0, i), paths: paths.finish(), typeCodes: typeCodes.slice(0, i), types };
    },
    async propertyColumn(workspace: string, name: string): Promise<PropertyColumn> {
      return (await columnsOf(db(), workspace, [name])).get(name)!;
    },
    async propertyColumns(workspace: string, names: readonly string[]): Promise<Map<string, PropertyColumn>> {
      return columnsOf(db(), workspace, names);
    },
    async propertyNames(workspace: string): Promise<string[]> {
      return db().prepare('SELECT DISTINCT name FROM prop_kinds WHERE ws = ?').pluck().all(workspace) as string[];
    },
    async nidsOfIds(workspace: string, ids: readonly string[]): Promise<Int32Array> {
      const rows = db().prepare('SELECT nid FROM nodes WHERE workspace = ? AND id IN (SELECT value FROM json_each(?))')
        .pluck().all(workspace, JSON.stringify(ids)) as number[];
      return Int32Array.from(rows);
    },
    async fullText(match: string): Promise<Int32Array> {
      return Int32Array.from(db().prepare('SELECT rowid FROM fts WHERE fts MATCH ?').pluck().all(match) as number[]);
    },
    async nodesByNid(nids: readonly number[]): Promise<NodeRecord[]> {
      if (nids.length === 0) return [];
      const d = db();
      if (nodesStmt === undefined || nodesStmt.database !== d) {
        nodesStmt = d.prepare(`SELECT n.nid AS nid, ${nodeColumns} FROM nodes n WHERE n.nid IN (SELECT value FROM json_each(?))`);
      }
      const rows = nodesStmt.all(JSON.stringify(nids)) as { nid: number }[];
      return inNidOrder(rows, nids, toRecord);
    },
  };
}
