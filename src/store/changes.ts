// Store layer: change events. Every committed write (an import, a publish; later the nodes API and
// unpublish) records one event per workspace it touched, in the same transaction, with a sequence
// number that increases with every commit of the database. Caches, other instances and (later)
// webhooks and CDN purges read them with `changesSince`.

export type ChangeKind = 'import' | 'publish' | 'nodes' | 'unpublish';
export type ChangeOp = 'created' | 'changed' | 'moved' | 'removed';

/**
 * Node lists of one event are kept up to this many entries; beyond it the event records only
 * `truncated` and the count. A change that large (a site import) is better told as "the workspace
 * changed" than as a list no consumer would walk node by node, and it keeps one event's rows (and the
 * recorder's memory during the import) bounded.
 */
export const CHANGE_NODE_LIMIT = 10_000;

/** Most events one `changesSince` call returns (each holds up to CHANGE_NODE_LIMIT nodes). */
export const CHANGES_PAGE_MAX = 1_000;

export interface ChangedNode {
  readonly id: string;
  readonly path: string;
  readonly type: string;
  /** Where a moved node was before (moved nodes only). */
  readonly from?: string;
}

/** One node entry of an event, as the stores write it. */
export interface ChangeEntry extends ChangedNode {
  readonly op: ChangeOp;
}

/** What a write records; the store adds the sequence number and the time. */
export interface NewChange {
  readonly workspace: string;
  readonly kind: ChangeKind;
  /** Who made the change, when known (a publish's `by`). */
  readonly by?: string;
  /** The version a publish created. */
  readonly version?: string;
  /** Empty when truncated. */
  readonly nodes: readonly ChangeEntry[];
  readonly truncated: boolean;
  /** Node entries of the change; when truncated, the operations counted (an upper bound). */
  readonly count: number;
}

export interface ChangeEvent {
  /** Increases with every committed change of the database; gaps are possible (rolled-back writes). */
  readonly sequence: number;
  readonly workspace: string;
  /** ISO 8601 instant (UTC) of the change. */
  readonly at: string;
  readonly kind: ChangeKind;
  readonly by?: string;
  readonly version?: string;
  readonly created: readonly ChangedNode[];
  readonly changed: readonly ChangedNode[];
  readonly moved: readonly ChangedNode[];
  readonly removed: readonly ChangedNode[];
  /** True when the node lists were left out (more than CHANGE_NODE_LIMIT nodes): treat the whole workspace as changed. */
  readonly truncated: boolean;
  readonly count: number;
}

/** A stored event row and its node rows as a ChangeEvent (shared by both backends). */
export function toChangeEvent(
  row: { sequence: number; workspace: string; at: string; kind: string; by: string | null; version: string | null; truncated: boolean; count: number },
  entries: readonly ChangeEntry[],
): ChangeEvent {
  const lists: Record<ChangeOp, ChangedNode[]> = { created: [], changed: [], moved: [], removed: [] };
  for (const e of entries) {
    const node: ChangedNode = e.from === undefined ? { id: e.id, path: e.path, type: e.type } : { id: e.id, path: e.path, type: e.type, from: e.from };
    lists[e.op].push(node);
  }
  return {
    sequence: row.sequence, workspace: row.workspace, at: row.at, kind: row.kind as ChangeKind,
    ...(row.by !== null ? { by: row.by } : {}), ...(row.version !== null ? { version: row.version } : {}),
    ...lists, truncated: row.truncated, count: row.count,
  };
}

/** `limit` for changesSince, clamped to 1..CHANGES_PAGE_MAX. */
export function changesPage(limit: number): number {
  return Number.isFinite(limit) ? Math.min(Math.max(Math.floor(limit), 1), CHANGES_PAGE_MAX) : CHANGES_PAGE_MAX;
}
