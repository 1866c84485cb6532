// Store layer (query index): the small delta over a workspace's immutable base segment. The base (node
// table, columns, order keys, cached bit sets) stays as loaded; changes since then are
//   - tombstones: base ordinals whose node was removed, changed or moved (never answered again), and
//   - extras: the current rows of the nodes created, changed or moved since, evaluated per record.
// Applying an event re-reads the current rows of the nodes it names, so applying is idempotent and
// order-proof: an event already in the base, or applied twice, leaves the same delta. A delta is never
// changed once built: a query works on the one it started with while a newer one is applied.
import type { ChangedNode, ChangeEvent } from '../changes.js';
import { indexRows, type IndexRow } from '../index-values.js';
import { recordBytes } from '../record-bytes.js';
import type { NodeRecord } from '../rows.js';
import { Bitmap } from './bitmap.js';
import type { CurrentNode } from './column-source.js';
import type { Workspace } from './workspace.js';

/** A node created, changed or moved since the base was loaded, as it is now. */
export interface Extra {
  readonly nid: number;
  readonly record: NodeRecord;
  /** Its property-index rows, converted exactly as the stores index them (index-values.ts). */
  readonly rows: readonly IndexRow[];
  /** Estimated bytes held (record, rows). */
  readonly bytes: number;
}

export interface Delta {
  /** 0 for the empty delta; increases with every application (keys cached answers). */
  readonly version: number;
  /** Base ordinals no longer answered; undefined while none. */
  readonly tombstones: Bitmap | undefined;
  readonly tombstoneCount: number;
  /** By UUID. */
  readonly extras: ReadonlyMap<string, Extra>;
  readonly extraBytes: number;
}

export const EMPTY_DELTA: Delta = { version: 0, tombstones: undefined, tombstoneCount: 0, extras: new Map(), extraBytes: 0 };

/** Nodes the delta holds: what the rebuild threshold counts. */
export function deltaNodes(d: Delta): number {
  return d.tombstoneCount + d.extras.size;
}

/** Every node an event names (a moved node by both its paths). */
export function namedNodes(e: ChangeEvent): ChangedNode[] {
  return [...e.created, ...e.changed, ...e.moved, ...e.removed];
}

/** The UUIDs whose current rows an application needs. */
export function namedIds(events: readonly ChangeEvent[]): string[] {
  const ids = new Set<string>();
  for (const e of events) for (const n of namedNodes(e)) ids.add(n.id);
  return [...ids];
}

export interface Applied {
  readonly delta: Delta;
  /** Row ids whose cached records may be stale (tombstoned base nodes). */
  readonly staleNids: readonly number[];
}

/**
 * The delta after `events` (none truncated), given the current rows of every id they name. A base
 * node at any path named (and any `from`) is tombstoned; each named id is an extra if it exists now.
 */
export function applyEvents(base: Workspace, delta: Delta, events: readonly ChangeEvent[], current: readonly CurrentNode[]): Applied {
  const paths = base.table.paths;
  const tombstones = delta.tombstones?.clone() ?? new Bitmap(paths.length);
  let tombstoneCount = delta.tombstoneCount;
  const staleNids: number[] = [];
  const extras = new Map(delta.extras);
  let extraBytes = delta.extraBytes;
  const drop = (id: string) => {
    const old = extras.get(id);
    if (old === undefined) return;
    extras.delete(id);
    extraBytes -= old.bytes;
  };
  const tombstone = (path: string) => {
    const o = paths.indexOf(path);
    if (o < 0 || tombstones.has(o)) return;
    tombstones.set(o);
    tombstoneCount++;
    staleNids.push(base.table.nids[o]!);
  };
  for (const e of events) {
    for (const n of namedNodes(e)) {
      tombstone(n.path);
      if (n.from !== undefined) tombstone(n.from);
      drop(n.id);
    }
  }
  for (const { nid, record } of current) {
    drop(record.id);
    const rows = indexRows(record.properties);
    let bytes = 96 + recordBytes(record);
    for (const r of rows) bytes += 64 + 2 * (r.name.length + r.s.length + r.f.length);
    extras.set(record.id, { nid, record, rows, bytes });
    extraBytes += bytes;
  }
  return {
    delta: { version: delta.version + 1, tombstones, tombstoneCount, extras, extraBytes },
    staleNids,
  };
}
