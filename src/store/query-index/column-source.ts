// Store layer (query index): what a backend hands the in-memory query index. Ordinals are the rank of
// a node in path order within its workspace, so scopes and ancestors are ranges of ordinals and the
// default order is ascending ordinal.
import type { ValueKind } from '../../query/ast.js';
import type { ChangeEvent } from '../changes.js';
import type { NodeRecord } from '../rows.js';
import type { PathList } from './path-list.js';
import type { StoredProperty } from '../../model/property-type.js';
import { forEachIndexValue } from '../index-values.js';

export interface NodeTable {
  /** ordinal → nid (the backend's row id) */
  readonly nids: Int32Array;
  /** ordinal → path, ascending in the backend's (code point) order, as UTF-8 bytes (path-list.ts) */
  readonly paths: PathList;
  /** ordinal → index into `types` */
  readonly typeCodes: Uint16Array;
  readonly types: readonly string[];
}

/**
 * The values of one property, one entry per value (a multi-value property has several). Compact:
 * typed arrays and each distinct text once (`dict`), so a million values cost a few bytes each
 * rather than two strings and a pointer per value.
 */
export interface PropertyColumn {
  readonly nids: Int32Array;
  readonly pos: Uint16Array;
  /** Kind code per entry: the `props.kind` codes (1 string, 2 number, 3 date, 4 boolean). */
  readonly kinds: Uint8Array;
  /** Number or epoch milliseconds; NaN for strings and booleans. */
  readonly nums: Float64Array;
  /** Per entry, the index in `dict` of its exact text (1 byte an entry when there are at most 256 texts). */
  readonly codes: Uint8Array | Uint16Array | Uint32Array;
  /** The distinct exact texts. The case-folded text is derived (index-values.ts: lower case for strings only). */
  readonly dict: readonly string[];
}

export interface ColumnSource {
  generation(): Promise<number>;
  nodeTable(workspace: string): Promise<NodeTable>;
  propertyColumn(workspace: string, name: string): Promise<PropertyColumn>;
  /**
   * Several properties' columns in one read (a source whose values live in each node's document reads
   * every document once, whatever the number of columns). Optional: one propertyColumn per name otherwise.
   */
  propertyColumns?(workspace: string, names: readonly string[]): Promise<Map<string, PropertyColumn>>;
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

/** Kind codes of the `props.kind` column (1 string, 2 number, 3 date, 4 boolean), by name. */
export const KIND_NAMES: readonly ValueKind[] = ['string', 'string', 'number', 'date', 'boolean'];
export const KIND_CODES: Readonly<Record<ValueKind, number>> = { string: 1, number: 2, date: 3, boolean: 4 };
const KINDS = KIND_NAMES;

/**
 * Builds a column row by row (both backends stream their rows into it): typed arrays that grow by
 * doubling, and a dictionary of the distinct texts.
 */
export class ColumnBuilder {
  #nids: Int32Array;
  #pos: Uint16Array;
  #kinds: Uint8Array;
  #nums: Float64Array;
  #codes: Uint32Array;
  readonly #dict: string[] = [];
  readonly #codeOf = new Map<string, number>();
  #n = 0;

  constructor(expected = 256) {
    const size = Math.max(expected, 16);
    this.#nids = new Int32Array(size);
    this.#pos = new Uint16Array(size);
    this.#kinds = new Uint8Array(size);
    this.#nums = new Float64Array(size);
    this.#codes = new Uint32Array(size);
  }

  /** One property-index row (its case-folded text is not needed: it is derived from `s` and the kind). */
  push(nid: number, pos: number, kind: number, s: string, n: number | null): void {
    if (this.#n === this.#nids.length) this.#grow();
    const i = this.#n++;
    this.#nids[i] = nid;
    this.#pos[i] = Math.min(pos, 65535);
    this.#kinds[i] = kind >= 1 && kind <= 4 ? kind : 1;
    this.#nums[i] = n ?? NaN;
    let code = this.#codeOf.get(s);
    if (code === undefined) {
      code = this.#dict.length;
      this.#dict.push(s);
      this.#codeOf.set(s, code);
    }
    this.#codes[i] = code;
  }

  #grow(): void {
    const size = this.#nids.length * 2;
    const grow = <T extends Int32Array | Uint16Array | Uint8Array | Float64Array | Uint32Array>(a: T, make: (n: number) => T): T => {
      const b = make(size);
      b.set(a);
      return b;
    };
    this.#nids = grow(this.#nids, (n) => new Int32Array(n));
    this.#pos = grow(this.#pos, (n) => new Uint16Array(n));
    this.#kinds = grow(this.#kinds, (n) => new Uint8Array(n));
    this.#nums = grow(this.#nums, (n) => new Float64Array(n));
    this.#codes = grow(this.#codes, (n) => new Uint32Array(n));
  }

  finish(): PropertyColumn {
    const n = this.#n;
    const codes = this.#codes.subarray(0, n);
    const d = this.#dict.length;
    return {
      nids: this.#nids.slice(0, n), pos: this.#pos.slice(0, n), kinds: this.#kinds.slice(0, n),
      nums: this.#nums.slice(0, n), dict: this.#dict,
      codes: d <= 0x100 ? Uint8Array.from(codes) : d <= 0x10000 ? Uint16Array.from(codes) : codes.slice(),
    };
  }
}

/**
 * Adds one stored property's values to a column, derived as every backend derives them (index-values.ts):
 * the columns are built from the nodes' own property documents, so no other copy of the values exists
 * to fall out of step.
 */
export function pushProperty(b: ColumnBuilder, nid: number, property: StoredProperty): void {
  forEachIndexValue(property, (pos, kind, s, n) => b.push(nid, pos, KIND_CODES[kind], s, n));
}

/** Builds a column from property-index rows. */
export function columnFromRows(rows: readonly PropertyRow[]): PropertyColumn {
  const b = new ColumnBuilder(rows.length);
  for (const r of rows) b.push(r[0], r[1], r[2], r[3], r[5]);
  return b.finish();
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

/** The records of `rows` in the order of `nids` (a nid without a row, deleted since, is left out). */
export function inNidOrder(rows: readonly { nid: number }[], nids: readonly number[], toRecord: (row: never) => NodeRecord): NodeRecord[] {
  const byNid = new Map(rows.map((r) => [r.nid, r]));
  const out: NodeRecord[] = [];
  for (const nid of nids) {
    const r = byNid.get(nid);
    if (r) out.push(toRecord(r as never));
  }
  return out;
}
