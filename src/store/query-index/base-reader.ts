// Store layer (query index): reads what a base is made of (the node table with the change floor it
// reflects, property names, property columns with their ordinals) from a persisted segment when one
// may serve (persisted-segments.ts), else from the source's SQL, persisting what SQL gave.
import { ColumnBuilder, type ColumnSource, type NodeTable, type PropertyColumn } from './column-source.js';
import type { Column } from './column-scan.js';
import { PersistedSegments, persistedNumOrder, type PersistOptions } from './persisted-segments.js';
import { ordinalOf, type Workspace } from './workspace.js';

/** What a base is built from: its node table, the change sequence it reflects, its property names. */
export interface BaseParts {
  readonly table: NodeTable;
  readonly floor: number;
  readonly names: readonly string[];
  /** nid → ordinal + 1 (0 = not in this workspace) */
  readonly ordinalOfNid: Int32Array;
}

/** Column reads asked for within one turn of the event loop, per workspace: read together. */
interface PendingColumns {
  readonly names: Map<string, { resolve: (c: PropertyColumn) => void; reject: (e: unknown) => void }>;
}

export class BaseReader {
  readonly #persisted: PersistedSegments | undefined;
  readonly #pending = new Map<string, PendingColumns>();

  constructor(private readonly source: ColumnSource, persist: PersistOptions | undefined) {
    this.#persisted = persist && new PersistedSegments(source, persist);
  }

  /** A workspace's base parts; `fresh` reads SQL (a rebuild: a persisted table would bring the old delta back). */
  async base(workspace: string, fresh: boolean): Promise<BaseParts> {
    const persisted = fresh ? undefined : await this.#persisted?.table(workspace);
    let table: NodeTable;
    let floor: number;
    let names: readonly string[];
    if (persisted !== undefined) {
      ({ table, floor } = persisted);
      // Read now: a name of a node changed since the floor is listed too, and its column is then read.
      names = await this.source.propertyNames(workspace);
    } else {
      // Read first: every change up to it is in what is read next; the ones after are applied on top.
      floor = await this.source.changeFloor();
      [table, names] = await Promise.all([this.source.nodeTable(workspace), this.source.propertyNames(workspace)]);
      this.#persisted?.saveTable(workspace, floor, table);
    }
    let max = 0;
    for (let i = 0; i < table.nids.length; i++) if (table.nids[i]! > max) max = table.nids[i]!;
    const ordinalOfNid = new Int32Array(max + 1);
    for (let i = 0; i < table.nids.length; i++) ordinalOfNid[table.nids[i]!] = i + 1;
    return { table, floor, names, ordinalOfNid };
  }

  /**
   * A property's column over the base's ordinals: persisted at a floor the base may use, else read
   * from SQL (and persisted in the background). The row ids are not kept: every use goes through the
   * ordinals.
   */
  async column(ws: Workspace, name: string): Promise<Column> {
    const persisted = await this.#persisted?.column(ws.workspace, name, ws.floor);
    let col = persisted?.column;
    if (col === undefined) {
      const floor = this.#persisted === undefined ? 0 : await this.source.changeFloor();
      col = await this.#read(ws.workspace, name);
      this.#persisted?.saveColumn(ws.workspace, name, floor, ws.table.nids.length, col);
    }
    const { nids, ...rest } = col;
    const ords = new Int32Array(nids.length);
    for (let i = 0; i < ords.length; i++) ords[i] = ordinalOf(ws, nids[i]!);
    const column: Column = { ...rest, ords };
    if (persisted !== undefined) {
      column.numOrder = persistedNumOrder(persisted.numOrder, ords);
      column.keyOrder = persisted.keyOrder;
    }
    return column;
  }

  /**
   * A column from the source. Reads asked for in the same turn (a query's filters and orders, see
   * QueryIndex.run) become one propertyColumns read when the source has it: one pass over the
   * workspace's documents instead of one per property.
   */
  #read(workspace: string, name: string): Promise<PropertyColumn> {
    const source = this.source;
    if (source.propertyColumns === undefined) return source.propertyColumn(workspace, name);
    let batch = this.#pending.get(workspace);
    if (batch === undefined) {
      const started: PendingColumns = { names: new Map() };
      batch = started;
      this.#pending.set(workspace, started);
      setImmediate(() => {
        this.#pending.delete(workspace);
        const waiting = [...started.names];
        // One name: the source's own read of a column (it may narrow its scan to the nodes that have it).
        const read = waiting.length === 1
          ? source.propertyColumn(workspace, waiting[0]![0]).then((c) => new Map([[waiting[0]![0], c]]))
          : source.propertyColumns!(workspace, waiting.map(([n]) => n));
        read.then(
          (columns) => { for (const [n, w] of waiting) w.resolve(columns.get(n) ?? new ColumnBuilder(0).finish()); },
          (err: unknown) => { for (const [, w] of waiting) w.reject(err); },
        );
      });
    }
    const names = batch.names;
    const known = names.get(name);
    return new Promise<PropertyColumn>((resolve, reject) => {
      if (known === undefined) names.set(name, { resolve, reject });
      else names.set(name, { resolve: (c) => { known.resolve(c); resolve(c); }, reject: (e) => { known.reject(e); reject(e); } });
    });
  }

  /**
   * Re-reads from SQL and persists the segments of these workspaces that have any persisted (an import
   * changed them: the next instance to start should not pay the SQL read). Returns the segments written.
   */
  async refresh(workspaces: readonly string[]): Promise<number> {
    if (this.#persisted === undefined) return 0;
    let written = 0;
    for (const ws of workspaces) written += await this.#persisted.refresh(ws);
    return written;
  }

  /** Waits for the segment writes begun in the background (tests, a store closing). */
  async settled(): Promise<void> {
    await this.#persisted?.settled();
  }
}
