// Store layer (query index): what the index keeps per workspace as its base segment (later changes are
// in its delta: delta.ts). Only what the content decides lives here; what a request can choose (columns
// by property name, order keys, bit sets of conditions, result rows) lives in the index's byte-bounded
// caches (memory-budget.ts).
import { hasIdColumn, type ColumnSource, type NodeTable } from './column-source.js';

export interface Workspace {
  /**
   * Unique per loaded base (`<n>\u0001<workspace>`): the prefix of every cache key of its columns,
   * order keys, bit sets and records, so a rebuilt base never meets the structures of the one before.
   */
  readonly key: string;
  readonly workspace: string;
  /** The change sequence the table reflects: the base plus the events after it is the current state. */
  readonly floor: number;
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

/** Node names by ordinal, derived from the paths once per workspace. */
export function namesOf(ws: Workspace): string[] {
  if (ws.names === undefined) {
    const names: string[] = new Array(ws.table.paths.length);
    let i = 0;
    for (const p of ws.table.paths.strings()) names[i++] = p.slice(p.lastIndexOf('/') + 1);
    ws.names = names;
  }
  return ws.names;
}

/** Node names folded to lower case by ordinal (ilike and ordering by name). */
export function foldedNamesOf(ws: Workspace): string[] {
  ws.foldedNames ??= namesOf(ws).map((n) => n.toLowerCase());
  return ws.foldedNames;
}

/** UUIDs by ordinal, loaded once on the first order by `@id` from a source with `idColumn`. */
export function idsOf(ws: Workspace, source: ColumnSource, workspace: string): Promise<string[]> {
  if (!hasIdColumn(source)) return Promise.reject(new Error('order by uuid is served by SQL'));
  ws.ids ??= source.idColumn(workspace).then((col) => {
    const ids: string[] = new Array(ws.table.nids.length).fill('');
    for (let i = 0; i < col.nids.length; i++) {
      const o = ordinalOf(ws, col.nids[i]!);
      if (o >= 0) ids[o] = col.ids[i]!;
    }
    return ids;
  });
  return ws.ids;
}
