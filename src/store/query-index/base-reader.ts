// Store layer (query index): reads what a base is made of (the node table with the change floor it
// reflects, property names, property columns with their ordinals) from a persisted segment when one
// may serve (persisted-segments.ts), else from the source's SQL, persisting what SQL gave.
import type { ColumnSource, NodeTable } from './column-source.js';
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

export class BaseReader {
  readonly #persisted: PersistedSegments | undefined;

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
      col = await this.source.propertyColumn(ws.workspace, name);
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
