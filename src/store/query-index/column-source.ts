// Store layer (query index): what a backend hands the in-memory query index. Ordinals are the rank of
// a node in path order within its workspace, so scopes and ancestors are ranges of ordinals and the
// default order is ascending ordinal.
import type { ValueKind } from '../../query/ast.js';
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
  /** Row ids of the nodes with these UUIDs. */
  nidsOfIds(workspace: string, ids: readonly string[]): Promise<Int32Array>;
  /** Row ids of the nodes whose full text matches (the same match expression as the SQL path). */
  fullText(match: string): Promise<Int32Array>;
  /** The rows of these ids, in the given order. */
  nodesByNid(nids: readonly number[]): Promise<NodeRecord[]>;
}
