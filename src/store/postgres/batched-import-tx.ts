// PostgreSQL backend: the ImportTx of an import transaction, batched. Round trips, not rows, are what
// an import over the network costs, so new nodes are buffered and written a batch at a time (a COPY
// each for the nodes and their full text, the kinds and types new to the transaction, all in one
// exchange with the server: see batch-rows.ts), and the questions writeImport asks per node (does
// this path exist? whose is this uuid?) are answered from what this transaction has already learnt
// or written (everything, in a workspace that was empty), asking the database only about the rest.
//
// What it relies on: every stored node's parent is stored (imports create missing ancestors and
// delete whole subtrees), so nothing lies below a path that holds no node. Below a node written by
// this transaction, or a subtree it deleted, every node is therefore one it knows of.
import type pg from 'pg';
import type { ImportTx, InsertNode } from '../import-tx.js';
import { BatchRows, type Listed } from './batch-rows.js';
import { SQL, run, type Queryable, type Statement } from './statements.js';
import { subtreeNodes } from './changes.js';
import { deleteSubtree } from './delete-nodes.js';
import type { ChangedNode } from '../changes.js';
import { KnownNodes } from '../import-known-nodes.js';
import { ListedKinds } from '../listed-kinds.js';

/** Nodes buffered before a batch is written: large enough that round trips do not matter. */
const BATCH_NODES = 1_000;

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
  readonly #known = new Map<string, KnownNodes>();
  readonly #asking = new Map<string, Promise<KnownNodes>>();
  /** Workspaces that held no node when the transaction began (asked before it wrote there). */
  readonly #emptyAtStart = new Set<string>();
  readonly #listed: Listed = { kinds: new ListedKinds(), types: new Set() };
  #pending = new BatchRows(this.#listed);
  /**
   * Node ids drawn from the sequence and not used yet. A full batch draws the next batch's ids in its
   * own exchange, so that no batch waits for a round trip before its rows go; the last block of a
   * large import may go unused (at most BATCH_NODES ids: sequences have gaps anyway), never one of a
   * small write, which draws exactly what it needs.
   */
  readonly #nids: string[] = [];
  /** The batch being written, if any. */
  #writing: Promise<void> | undefined;
  /**
   * The last batch written, emptied, to be filled next: its buffers are reused (a batch's rows take
   * about a megabyte, allocated anew and grown by doubling for every batch otherwise).
   */
  #spare: BatchRows | undefined;

  constructor(client: pg.PoolClient, committed?: Queryable) {
    this.#client = client;
    this.#committed = committed;
  }

  /** What is known of a workspace written to before any question about it: not that it was empty. */
  #of(workspace: string): KnownNodes {
    let k = this.#known.get(workspace);
    if (!k) this.#known.set(workspace, (k = new KnownNodes(false)));
    return k;
  }

  /**
   * What is known of a workspace, asking first (once) whether it held any node when the transaction
   * began: an import into an empty workspace then asks nothing more (no lookup of uuids or paths per
   * batch, which kept the main thread waiting). The import lock keeps every other writer out until
   * this transaction ends, so the answer holds throughout.
   */
  async #asked(workspace: string): Promise<KnownNodes> {
    const known = this.#known.get(workspace);
    if (known) return known;
    let asking = this.#asking.get(workspace);
    if (!asking) {
      asking = (async () => {
        const db = this.#committed ?? this.#client;
        const empty = (await this.#read(run(db, SQL.anyInWorkspace, [workspace]))).length === 0;
        if (empty) this.#emptyAtStart.add(workspace);
        // Written to meanwhile: that one stands (it was made without knowing).
        let k = this.#known.get(workspace);
        if (!k) this.#known.set(workspace, (k = new KnownNodes(empty)));
        return k;
      })();
      this.#asking.set(workspace, asking);
    }
    return asking;
  }

  async pathOfId(workspace: string, id: string): Promise<string | undefined> {
    const k = await this.#asked(workspace);
    const known = k.pathOf(id);
    if (typeof known === 'object') return known.known ?? undefined;
    // Not known: the database answers exactly.
    const path = (await this.#ask(k, known, SQL.pathOfId, [workspace, id]) as { path: string }[])[0]?.path;
    if (known === 'db') k.learnId(id, path ?? null);
    return path;
  }

  async prefetchIds(workspace: string, ids: readonly string[]): Promise<void> {
    const k = await this.#asked(workspace);
    const unknown = [...new Set(ids.filter((id) => k.pathOf(id) === 'db' && !id.includes('\u0000')))];
    if (unknown.length === 0) return;
    const rows = await this.#lookup(k, SQL.pathsOfIds, [workspace, unknown]) as { id: string; path: string }[];
    k.reserveIds(unknown.length);
    for (const id of unknown) k.learnId(id, null);
    for (const r of rows) k.learnId(r.id, r.path);
  }

  async positionOf(workspace: string, path: string): Promise<number | undefined> {
    const k = await this.#asked(workspace);
    const known = k.position(path);
    if (typeof known === 'object') return known.known ?? undefined;
    const position = (await this.#ask(k, known, SQL.positionOf, [workspace, path]) as { position: number }[])[0]?.position;
    if (known === 'db') k.learnPosition(path, position ?? null);
    return position;
  }

  async maxChildPosition(workspace: string, parentPath: string): Promise<number> {
    const k = await this.#asked(workspace);
    const inserted = k.maxInsertedChild(parentPath);
    // Nothing committed there: the highest position is the highest this transaction gave.
    if (this.#emptyAtStart.has(workspace) && k.onlyInserted && inserted !== 'own') return inserted ?? -1;
    if (this.#committed !== undefined && k.onlyInserted && inserted !== 'own') {
      const committed = (await run<{ m: number | null }>(this.#committed, SQL.maxChild, [workspace, parentPath]))[0]?.m ?? -1;
      return Math.max(committed, inserted ?? -1);
    }
    await this.flush();
    return (await run<{ m: number | null }>(this.#client, SQL.maxChild, [workspace, parentPath]))[0]?.m ?? -1;
  }

  /** Asks the database what KnownNodes does not know: behind this transaction's writes (`own`), or where #lookup says. */
  async #ask(k: KnownNodes, where: 'db' | 'own', st: Statement, values: readonly unknown[]): Promise<unknown[]> {
    if (where === 'db') return this.#lookup(k, st, values);
    await this.flush();
    return run(this.#client, st, values);
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
    this.#of(workspace).removed(path);
    return removed;
  }

  async insertNode(node: InsertNode): Promise<void> {
    this.#of(node.workspace).inserted(node.id, node.path, node.parentPath, node.position);
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
  }

  /**
   * Waits for the batch in flight, whatever its outcome: before a ROLLBACK, so that no statement of
   * it is sent after the transaction ended (it would run, and commit, on its own).
   */
  async settle(): Promise<void> {
    await this.#writing?.catch(() => undefined);
    this.#pending = new BatchRows(this.#listed);
  }

  /**
   * Starts writing the buffered nodes, once the previous batch is written: the rows of the next
   * batch are built while the database writes this one (at most one batch in flight).
   */
  async #send(): Promise<void> {
    await this.#writing;
    const batch = this.#pending;
    if (batch.size === 0) return;
    this.#pending = this.#spare ?? new BatchRows(this.#listed);
    this.#spare = undefined;
    const writing = this.#write(batch);
    writing.catch(() => undefined); // awaited later (next batch, flush, or a failing read)
    this.#writing = writing;
  }

  async #write(batch: BatchRows): Promise<void> {
    const missing = batch.size - this.#nids.length;
    if (missing > 0) {
      for (const r of await run<{ nid: string }>(this.#client, SQL.allocateNids, [missing])) this.#nids.push(r.nid);
    }
    const nids = this.#nids.splice(0, batch.size);
    // A full batch is most likely followed by another.
    const drawNext = batch.size >= BATCH_NODES ? BATCH_NODES - this.#nids.length : 0;
    for (const nid of await batch.write(this.#client, nids, drawNext)) this.#nids.push(nid);
    // Written: the server has read every byte of it.
    batch.clear();
    this.#spare = batch;
  }

  /** A lookup of what `k` does not know: on the last commit while it holds all of it, else in the transaction. */
  #lookup(k: KnownNodes, st: Statement, values: readonly unknown[]): Promise<unknown[]> {
    if (this.#committed !== undefined && k.onlyInserted) return run(this.#committed, st, values);
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

