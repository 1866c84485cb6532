// PostgreSQL backend: the ImportTx of an import transaction, batched. Round trips, not rows, are what
// an import over the network costs, so new nodes are buffered and written a batch at a time (a COPY
// each for the nodes and their full text, an INSERT each for kinds and types: see
// batch-rows.ts), and the questions writeImport asks per node (does this path exist? whose is this
// uuid?) are answered from what this transaction has already learnt or written, asking the database
// only about the rest.
//
// What it relies on: every stored node's parent is stored (imports create missing ancestors and
// delete whole subtrees), so nothing lies below a path that holds no node. Below a node written by
// this transaction, or a subtree it deleted, every node is therefore one it knows of.
import type pg from 'pg';
import type { ImportTx, InsertNode } from '../import-tx.js';
import { BatchRows } from './batch-rows.js';
import { SQL, run, type Queryable, type Statement } from './statements.js';
import { subtreeNodes } from './changes.js';
import { deleteSubtree } from './delete-nodes.js';
import type { ChangedNode } from '../changes.js';

/** Nodes buffered before a batch is written: large enough that round trips do not matter. */
const BATCH_NODES = 1_000;

/** What this transaction knows of one workspace, its own buffered rows included. */
interface Known {
  /** Position of the node at a path, or null when it is known to hold none. */
  readonly positions: Map<string, number | null>;
  /** Path of the node with an id, or null when no node has it. */
  readonly ids: Map<string, string | null>;
  /** Paths below which (themselves included) every node is in `positions`. */
  readonly complete: Set<string>;
  /** Highest position among the children of a parent path written since the last flush (maybe not yet in the database). */
  readonly writtenMax: Map<string, number>;
  /** Highest position among the children of a parent path this transaction wrote. */
  readonly insertedMax: Map<string, number>;
  /** This transaction deleted nodes here: the last commit no longer tells what it does not know. */
  removed: boolean;
}

const isAtOrBelow = (path: string, root: string): boolean => path === root || path.startsWith(`${root}/`);

export class BatchedImportTx implements Omit<ImportTx, 'hasBlob' | 'insertBlob' | 'bumpGeneration' | 'recordChange' | 'recordBootstrap'> {
  readonly #client: pg.PoolClient;
  /**
   * Other connections, reading the last commit: while this transaction has only inserted into a
   * workspace, what it does not know there is as the last commit holds it (every statement of this
   * READ COMMITTED transaction would see the same), so it is read there, not queued on this
   * transaction's connection behind the batch being written: the server writes one batch while the
   * next is built, instead of after a round trip that waited for it.
   */
  readonly #committed: Queryable | undefined;
  readonly #known = new Map<string, Known>();
  #pending = new BatchRows();
  /** The batch being written, if any. */
  #writing: Promise<void> | undefined;

  constructor(client: pg.PoolClient, committed?: Queryable) {
    this.#client = client;
    this.#committed = committed;
  }

  #of(workspace: string): Known {
    let k = this.#known.get(workspace);
    if (!k) {
      k = { positions: new Map(), ids: new Map(), complete: new Set(), writtenMax: new Map(), insertedMax: new Map(), removed: false };
      this.#known.set(workspace, k);
    }
    return k;
  }

  /** True when every node at or below some ancestor-or-self of `path` is known. */
  #isComplete(k: Known, path: string): boolean {
    if (k.complete.size === 0) return false;
    for (let p = path; p.length > 1; p = p.slice(0, p.lastIndexOf('/')) || '/') {
      if (k.complete.has(p)) return true;
    }
    return false;
  }

  async pathOfId(workspace: string, id: string): Promise<string | undefined> {
    const k = this.#of(workspace);
    const known = k.ids.get(id);
    if (known !== undefined) return known ?? undefined;
    // Not known: the database answers exactly (every buffered node's id is known).
    const path = (await this.#lookup(k, SQL.pathOfId, [workspace, id]) as { path: string }[])[0]?.path;
    k.ids.set(id, path ?? null);
    return path;
  }

  async prefetchIds(workspace: string, ids: readonly string[]): Promise<void> {
    const k = this.#of(workspace);
    const unknown = [...new Set(ids.filter((id) => !k.ids.has(id) && !id.includes('\u0000')))];
    if (unknown.length === 0) return;
    const rows = await this.#lookup(k, SQL.pathsOfIds, [workspace, unknown]) as { id: string; path: string }[];
    for (const id of unknown) k.ids.set(id, null);
    for (const r of rows) k.ids.set(r.id, r.path);
  }

  async positionOf(workspace: string, path: string): Promise<number | undefined> {
    const k = this.#of(workspace);
    const known = k.positions.get(path);
    if (known !== undefined) return known ?? undefined;
    if (this.#isComplete(k, path)) return undefined;
    const position = (await this.#lookup(k, SQL.positionOf, [workspace, path]) as { position: number }[])[0]?.position;
    k.positions.set(path, position ?? null);
    return position;
  }

  async maxChildPosition(workspace: string, parentPath: string): Promise<number> {
    const k = this.#of(workspace);
    if (this.#committed !== undefined && !k.removed) {
      const committed = (await run<{ m: number | null }>(this.#committed, SQL.maxChild, [workspace, parentPath]))[0]?.m ?? -1;
      return Math.max(committed, k.insertedMax.get(parentPath) ?? -1);
    }
    const stored = (await this.#read(run<{ m: number | null }>(this.#client, SQL.maxChild, [workspace, parentPath])))[0]?.m ?? -1;
    return Math.max(stored, this.#of(workspace).writtenMax.get(parentPath) ?? -1);
  }

  async subtreeNodes(workspace: string, path: string, limit: number): Promise<ChangedNode[]> {
    // Buffered nodes may lie in the subtree: written first, the database lists them all.
    await this.flush();
    return subtreeNodes(this.#client, workspace, path, limit);
  }

  async deleteSubtree(workspace: string, path: string): Promise<number> {
    // Rare during an import (re-imported roots, duplicates, moved uuids): write what is buffered first,
    // so that the database's delete is exact.
    await this.flush();
    const removed = await deleteSubtree(this.#client, workspace, path);
    const k = this.#of(workspace);
    k.removed = true;
    for (const p of k.positions.keys()) if (isAtOrBelow(p, path)) k.positions.set(p, null);
    for (const [id, p] of k.ids) if (p !== null && isAtOrBelow(p, path)) k.ids.set(id, null);
    for (const p of k.complete) if (isAtOrBelow(p, path)) k.complete.delete(p);
    k.complete.add(path);
    return removed;
  }

  async insertNode(node: InsertNode): Promise<void> {
    const k = this.#of(node.workspace);
    k.positions.set(node.path, node.position);
    k.ids.set(node.id, node.path);
    // A new node has no descendants but those this transaction writes (see the file's comment).
    k.complete.add(node.path);
    k.writtenMax.set(node.parentPath, Math.max(node.position, k.writtenMax.get(node.parentPath) ?? -1));
    k.insertedMax.set(node.parentPath, Math.max(node.position, k.insertedMax.get(node.parentPath) ?? -1));
    // Its rows are built now, while the batch in flight (if any) is being written.
    this.#pending.add(node);
    if (this.#pending.size >= BATCH_NODES) await this.#send();
  }

  /** Writes everything buffered, and waits until it is written. */
  async flush(): Promise<void> {
    await this.#send();
    const writing = this.#writing;
    this.#writing = undefined;
    await writing;
    // Every node written is now in the database, which answers maxChildPosition alone.
    for (const k of this.#known.values()) k.writtenMax.clear();
  }

  /**
   * Waits for the batch in flight, whatever its outcome: before a ROLLBACK, so that no statement of
   * it is sent after the transaction ended (it would run, and commit, on its own).
   */
  async settle(): Promise<void> {
    await this.#writing?.catch(() => undefined);
    this.#pending = new BatchRows();
  }

  /**
   * Starts writing the buffered nodes, once the previous batch is written: the rows of the next
   * batch are built while the database writes this one (at most one batch in flight).
   */
  async #send(): Promise<void> {
    await this.#writing;
    const batch = this.#pending;
    if (batch.size === 0) return;
    this.#pending = new BatchRows();
    const writing = batch.write(this.#client);
    writing.catch(() => undefined); // awaited later (next batch, flush, or a failing read)
    this.#writing = writing;
  }

  /** A lookup of what `k` does not know: on the last commit while it holds all of it, else in the transaction. */
  #lookup(k: Known, st: Statement, values: readonly unknown[]): Promise<unknown[]> {
    if (this.#committed !== undefined && !k.removed) return run(this.#committed, st, values);
    return this.#read(run(this.#client, st, values));
  }

  /** A read on the connection, queued behind the batch in flight: if that batch failed, its error. */
  async #read<T>(query: Promise<T>): Promise<T> {
    try {
      return await query;
    } catch (err) {
      await this.#writing;
      throw err;
    }
  }
}

