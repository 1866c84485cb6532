// Store layer (query index): base segments persisted in the database (index_segments), so that a
// restarted instance, or another one, loads a large workspace with a few sequential reads instead of
// reading every node and property row again.
//
// Why a persisted segment gives the same answers as SQL:
// - A node table read at change floor P, plus the change events after P, is the current state: that
//   is how every base is kept (live-workspaces.ts). A persisted table is used only while the events
//   after P are few and none is truncated (what changed is then listed); otherwise SQL is read.
// - A column read at floor C serves a base of floor P iff C >= P: a node changed after P is tombstoned
//   in the base's delta anyway, and one created after P has no ordinal in the base. A column of a floor
//   below P may hold old values of nodes the base holds as changed: it is read from SQL instead.
// This relies on change events never being deleted (no store prunes them): if they ever are, a table
// older than the oldest event kept must be ignored, or changes after its floor would go unseen.
// Writes follow every full read from SQL (first load, rebuild, reload after a drop), in the background
// and in their own short transaction; a failed write only logs. Anything wrong with a stored segment
// (unknown format, bad checksum, a store that cannot read it) means "read SQL", never an error.
import type { ColumnSource, NodeTable, PropertyColumn } from './column-source.js';
import { rebuildThreshold, type QueryIndexEvent } from './live-workspaces.js';
import { decodeColumn, sameKey, decodeTable, encodeColumn, encodeTable, SEGMENT_FORMAT, type KeyColumn, type PersistedColumn } from './segment-codec.js';
import type { IndexSegmentStore, SegmentKind } from './segment-store.js';

/** The index's `persist` option from a store's options: on unless `persistQueryIndex` is false. */
export function persistOptions(
  o: { readonly persistQueryIndex?: boolean; readonly persistQueryIndexMinNodes?: number; readonly onIndexEvent?: ((e: QueryIndexEvent) => void) | undefined },
  store: IndexSegmentStore,
): { persist?: PersistOptions } {
  if (o.persistQueryIndex === false) return {};
  const tell = o.onIndexEvent;
  return {
    persist: {
      store,
      ...(o.persistQueryIndexMinNodes !== undefined ? { minNodes: o.persistQueryIndexMinNodes } : {}),
      ...(tell !== undefined ? { onMessage: (workspace: string, message: string) => tell({ kind: 'persist', workspace, message }) } : {}),
    },
  };
}

/** Catching up from a floor reads every workspace's events after it: past this many, read SQL. */
const MAX_EVENTS_AFTER = 10_000;

export interface PersistOptions {
  readonly store: IndexSegmentStore;
  /** Workspaces smaller than this are not persisted (their SQL read is quick). Default 10,000. */
  readonly minNodes?: number;
  /** Told of what was used, written, ignored or failed (the app logs it). */
  readonly onMessage?: (workspace: string, message: string) => void;
}

export class PersistedSegments {
  readonly #store: IndexSegmentStore;
  readonly #minNodes: number;
  readonly #tell: (workspace: string, message: string) => void;
  /** Writes in flight (tests and `refresh` wait for them). */
  #writes = new Set<Promise<void>>();

  constructor(private readonly source: ColumnSource, o: PersistOptions) {
    this.#store = o.store;
    this.#minNodes = o.minNodes ?? 10_000;
    this.#tell = (w, m) => { try { o.onMessage?.(w, m); } catch { /* the log's failure is not the index's */ } };
  }

  /** The persisted node table and its floor, when it may serve as the base (see the top of this file). */
  async table(workspace: string): Promise<{ table: NodeTable; floor: number } | undefined> {
    const stored = await this.#read(workspace, 'table', '');
    if (stored === undefined) return undefined;
    let table: NodeTable;
    try {
      table = decodeTable(stored.data);
    } catch (err) {
      this.#tell(workspace, `query index: ignored the persisted node table of workspace ${workspace}: ${(err as Error).message}`);
      return undefined;
    }
    const after = await this.#store.changesAfter(stored.floor, workspace);
    // A changed node is two delta entries (tombstone and record): half the threshold keeps a load
    // from a persisted table from asking for a rebuild at once.
    if (after.truncated || after.nodes > rebuildThreshold(table.nids.length) / 2 || after.events > MAX_EVENTS_AFTER) return undefined;
    this.#tell(workspace, `query index: read the persisted node table of workspace ${workspace} (${table.nids.length} nodes, floor ${stored.floor}, ${after.nodes} changed nodes after it)`);
    return { table, floor: stored.floor };
  }

  /** The persisted column of a property, when its floor is at least the base's. */
  async column(workspace: string, name: string, baseFloor: number): Promise<PersistedColumn | undefined> {
    const stored = await this.#read(workspace, 'column', name);
    if (stored === undefined || stored.floor < baseFloor) return undefined;
    try {
      return decodeColumn(stored.data);
    } catch (err) {
      this.#tell(workspace, `query index: ignored the persisted column ${name} of workspace ${workspace}: ${(err as Error).message}`);
      return undefined;
    }
  }

  /** Persists a node table read from SQL at `floor`, after the current request (never delaying it). */
  saveTable(workspace: string, floor: number, table: NodeTable): void {
    if (table.nids.length < this.#minNodes) return;
    this.#background(workspace, 'table', '', floor, () => encodeTable(table));
  }

  /** Persists a column read from SQL at `floor` (with its sort orders) for a workspace of `size` nodes. */
  saveColumn(workspace: string, name: string, floor: number, size: number, column: PropertyColumn): void {
    if (size < this.#minNodes) return;
    this.#background(workspace, 'column', name, floor, () => encodeColumn(column));
  }

  /**
   * Reads the workspace's node table and its persisted columns from SQL and persists them now (after
   * an import: the next instance to start does not pay the SQL read). Workspaces with nothing
   * persisted are left alone. Returns the number of segments written.
   */
  async refresh(workspace: string): Promise<number> {
    const names = await this.#store.columnNames(workspace);
    const hasTable = (await this.#store.read(workspace, 'table', '').catch(() => undefined)) !== undefined;
    if (!hasTable && names.length === 0) return 0;
    const floor = await this.source.changeFloor();
    const table = await this.source.nodeTable(workspace);
    await this.#write(workspace, 'table', '', floor, encodeTable(table));
    let written = 1;
    // One pass over the documents for several columns when the source can (ColumnSource.propertyColumns);
    // one column through its own read, as BaseReader does.
    const columns = this.source.propertyColumns !== undefined && names.length > 1 ? await this.source.propertyColumns(workspace, names) : undefined;
    for (const name of names) {
      const column = columns?.get(name) ?? await this.source.propertyColumn(workspace, name);
      await this.#write(workspace, 'column', name, floor, encodeColumn(column));
      written++;
    }
    return written;
  }

  /** Waits for the background writes begun so far. */
  async settled(): Promise<void> {
    while (this.#writes.size > 0) await Promise.all([...this.#writes]);
  }

  async #read(workspace: string, kind: SegmentKind, name: string) {
    try {
      const stored = await this.#store.read(workspace, kind, name);
      if (stored !== undefined && stored.format !== SEGMENT_FORMAT) return undefined; // another version's: rewritten on the next SQL read
      return stored;
    } catch (err) {
      this.#tell(workspace, `query index: could not read the persisted ${kind} ${name} of workspace ${workspace}: ${(err as Error).message}`);
      return undefined;
    }
  }

  #background(workspace: string, kind: SegmentKind, name: string, floor: number, encode: () => Buffer): void {
    const done = new Promise<void>((resolve) => setImmediate(resolve))
      .then(async () => {
        const started = performance.now();
        const data = encode();
        await this.#write(workspace, kind, name, floor, data);
        this.#tell(workspace, `query index: persisted the ${kind === 'table' ? 'node table' : `column ${name}`} of workspace ${workspace} (${data.length} bytes, floor ${floor}) in ${Math.round(performance.now() - started)} ms`);
      })
      .catch((err: unknown) => this.#tell(workspace, `query index: could not persist the ${kind} ${name} of workspace ${workspace}: ${(err as Error).message}`))
      .finally(() => this.#writes.delete(done));
    this.#writes.add(done);
  }

  async #write(workspace: string, kind: SegmentKind, name: string, floor: number, data: Buffer): Promise<void> {
    await this.#store.write(workspace, kind, name, { floor, format: SEGMENT_FORMAT, data });
  }
}

/**
 * The ordinals that have the property, ascending by their first value then by ordinal (as
 * order-keys.ts `sortedByKey`), from a persisted column's key order: its entries mapped to ordinals,
 * then each run of equal keys sorted by ordinal.
 */
export function persistedKeyOrder(col: KeyColumn, ords: Int32Array, order: Int32Array): Int32Array {
  const out = new Int32Array(order.length);
  const entries = new Int32Array(order.length);
  let n = 0;
  for (let i = 0; i < order.length; i++) {
    const e = order[i]!;
    const o = ords[e]!;
    if (o < 0) continue;
    entries[n] = e;
    out[n++] = o;
  }
  for (let start = 0; start < n;) {
    let end = start + 1;
    while (end < n && sameKey(col, entries[start]!, entries[end]!)) end++;
    if (end - start > 32) out.subarray(start, end).sort();
    else insertionSort(out, start, end); // most runs are short: no subarray, no native call
    start = end;
  }
  return out.slice(0, n);
}

function insertionSort(a: Int32Array, from: number, to: number): void {
  for (let i = from + 1; i < to; i++) {
    const v = a[i]!;
    let j = i - 1;
    while (j >= from && a[j]! > v) {
      a[j + 1] = a[j]!;
      j--;
    }
    a[j + 1] = v;
  }
}

/** Entries of a persisted numeric order that have an ordinal (as column-scan.ts builds `numOrder`). */
export function persistedNumOrder(order: Int32Array, ords: Int32Array): Int32Array {
  const out = new Int32Array(order.length);
  let n = 0;
  for (let i = 0; i < order.length; i++) if (ords[order[i]!]! >= 0) out[n++] = order[i]!;
  return out.slice(0, n);
}
