// Store layer (query index): what a backend hands the in-memory query index. Ordinals are the rank of
// a node in path order within its workspace, so scopes and ancestors are ranges of ordinals and the
// default order is ascending ordinal.
import type { ValueKind } from '../../query/ast.js';
import type { ChangeEvent } from '../changes.js';
import type { NodeRecord } from '../rows.js';

export interface NodeTable {
  /** ordinal → nid (the backend's row id) */
  readonly nids: Int32Array;
  /** ordinal → path, ascending in the backend's (code point) order */
  readonly paths: readonly string[];
  /** ordinal → index into `types` */
  readonly typeCodes: Uint16Array;
  readonly types: readonly string[];
}

/** The values of one property, one entry per value (a multi-value property has several). */
export interface PropertyColumn {
  readonly nids: Int32Array;
  readonly pos: Uint16Array;
  readonly kinds: readonly ValueKind[];
  /** Number or epoch milliseconds; NaN for strings and booleans. */
  readonly nums: Float64Array;
  readonly strs: readonly string[];
  readonly folded: readonly string[];
}

export interface ColumnSource {
  generation(): Promise<number>;
  nodeTable(workspace: string): Promise<NodeTable>;
  propertyColumn(workspace: string, name: string): Promise<PropertyColumn>;
  /**
   * Names of the properties the workspace's nodes have (a superset is fine): a name outside it has
   * an empty column, which the index then neither loads nor keeps.
   */
  propertyNames(workspace: string): Promise<readonly string[]>;
  /** Row ids of the nodes with these UUIDs. */
  nidsOfIds(workspace: string, ids: readonly string[]): Promise<Int32Array>;
  /** Row ids of the nodes whose full text matches (the same match expression as the SQL path). */
  fullText(match: string): Promise<Int32Array>;
  /** The rows of these ids, in the given order. */
  nodesByNid(nids: readonly number[]): Promise<NodeRecord[]>;
  /**
   * The change events after `sequence`, oldest first, at most `limit` (store/changes.ts). Reads of
   * this source made afterwards see at least the commits of the events returned.
   */
  changesSince(sequence: number, limit: number): Promise<ChangeEvent[]>;
  /**
   * The newest change sequence, read so that a node table or column read afterwards holds every
   * change up to it (the index records it before it loads a workspace, then applies what follows).
   */
  changeFloor(): Promise<number>;
  /** The current rows of the nodes with these UUIDs in the workspace, with their row ids (missing ids left out). */
  nodesOfIds(workspace: string, ids: readonly string[]): Promise<CurrentNode[]>;
}

/** A node as it is now, with the row id the property index and full-text index know it by. */
export interface CurrentNode {
  readonly nid: number;
  readonly record: NodeRecord;
}

/** One row of the property index as both backends read it: nid, pos, kind code, s, f, n. */
export type PropertyRow = [nid: number, pos: number, kind: number, s: string, f: string, n: number | null];

/** Kind codes of the `props.kind` column (1 string, 2 number, 3 date, 4 boolean). */
const KINDS: readonly ValueKind[] = ['string', 'string', 'number', 'date', 'boolean'];

/** Builds a column from property-index rows (shared by the SQLite and PostgreSQL sources). */
export function columnFromRows(rows: readonly PropertyRow[]): PropertyColumn {
  const len = rows.length;
  const nids = new Int32Array(len);
  const pos = new Uint16Array(len);
  const nums = new Float64Array(len);
  const kinds: ValueKind[] = new Array(len);
  const strs: string[] = new Array(len);
  const folded: string[] = new Array(len);
  for (let i = 0; i < len; i++) {
    const r = rows[i]!;
    nids[i] = r[0];
    pos[i] = Math.min(r[1], 65535);
    kinds[i] = KINDS[r[2]] ?? 'string';
    strs[i] = r[3];
    folded[i] = r[4];
    nums[i] = r[5] ?? NaN;
  }
  return { nids, pos, kinds, nums, strs, folded };
}

/** `{name, kind code}` rows of the kinds catalogue as a map of property name → kinds. */
export function kindsFromRows(rows: Iterable<{ readonly name: string; readonly kind: number }>): Map<string, ValueKind[]> {
  const out = new Map<string, ValueKind[]>();
  for (const r of rows) {
    const kind = r.kind >= 1 ? KINDS[r.kind] : undefined;
    if (kind === undefined) continue;
    const list = out.get(r.name);
    if (list) list.push(kind);
    else out.set(r.name, [kind]);
  }
  return out;
}

/**
 * A source that can also list the UUIDs of a workspace's nodes, which lets the index order by `@id`
 * (with `nidsOfIds`, which every source has, it then answers every query: see `canRun`).
 */
export interface UuidColumnSource extends ColumnSource {
  idColumn(workspace: string): Promise<{ readonly nids: Int32Array; readonly ids: readonly string[] }>;
}

export function hasIdColumn(source: ColumnSource): source is UuidColumnSource {
  return typeof (source as Partial<UuidColumnSource>).idColumn === 'function';
}
