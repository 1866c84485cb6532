// Store layer (query index): what the index keeps per workspace for one content generation. Only what
// the content decides lives here; what a request can choose (columns by property name, order keys,
// bit sets of conditions, result rows) lives in the index's byte-bounded caches (memory-budget.ts).
import type { NodeTable } from './column-source.js';

export interface Workspace {
  readonly table: NodeTable;
  /** nid → ordinal + 1 (0 = not in this workspace) */
  readonly ordinalOfNid: Int32Array;
  /** Names of the properties present: any other name has no values and costs nothing. */
  readonly propertyNames: ReadonlySet<string>;
  names?: string[];
  foldedNames?: string[];
  /** ordinal → UUID, loaded on the first order by `@id` (sources with `idColumn` only). */
  ids?: Promise<string[]>;
}

/** The ordinal (path order) of a node id in the workspace, or -1 when it is not there. */
export function ordinalOf(ws: Workspace, nid: number): number {
  return nid < ws.ordinalOfNid.length ? ws.ordinalOfNid[nid]! - 1 : -1;
}
