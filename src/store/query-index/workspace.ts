// Store layer (query index): what the index keeps per workspace for one content generation.
import type { NodeRecord } from '../rows.js';
import type { Bitmap } from './bitmap.js';
import type { Column } from './column-scan.js';
import type { NodeTable } from './column-source.js';
import type { OrderKeys } from './order-keys.js';

export interface Workspace {
  readonly table: NodeTable;
  /** nid → ordinal + 1 (0 = not in this workspace) */
  readonly ordinalOfNid: Int32Array;
  readonly columns: Map<string, Promise<Column>>;
  /** Scope bit sets by rootPath and types (they repeat across requests of one endpoint). */
  readonly scopes: Map<string, Bitmap>;
  /** Bit sets of recent conditions, least recently used first. */
  readonly filters: Map<string, Bitmap>;
  readonly orderKeys: Map<string, OrderKeys>;
  names?: string[];
  foldedNames?: string[];
  /** ordinal → UUID, loaded on the first order by `@id` (sources with `idColumn` only). */
  ids?: Promise<string[]>;
  /** Result nodes already read, by nid: pages of popular queries cost no store read (this generation). */
  readonly records: Map<number, NodeRecord>;
  /** Matches (never modified once stored) and their count, by scope, conditions and full-text match. */
  readonly conjunctions: Map<string, { readonly matches: Bitmap; readonly total: number }>;
}

/** The ordinal (path order) of a node id in the workspace, or -1 when it is not there. */
export function ordinalOf(ws: Workspace, nid: number): number {
  return nid < ws.ordinalOfNid.length ? ws.ordinalOfNid[nid]! - 1 : -1;
}
