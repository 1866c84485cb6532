// SQLite backend: the ImportTx of one import, over its connection (import-connection.ts: the store's
// writer, or a worker thread's for a large import); the caller holds the transaction (BEGIN IMMEDIATE
// … COMMIT) around writeImport and calls `finish` before COMMIT.
//
// Where a large import's time went (bench/RESULTS.md, issue 20): a statement call per node, per index
// row and per prop_kinds row, a uuid and a path lookup per node, and B-tree inserts at random places of
// the value indexes (dropped by migration 6), then the 13 props rows a node of the bench set had
// (the table dropped by migration 7: values are read from the node's document). So rows are written
// many per statement (multi-row-insert.ts, encoded-rows.ts), node ids are drawn here (full-text rows
// name their node without waiting for its insert), kinds and types are written once per transaction,
// the questions writeImport asks per node are answered from what this transaction knows where it can
// (store/import-known-nodes.ts) and otherwise from the last commit while that is exact, and a large import
// builds its deferrable index after its load (deferred-indexes.ts).
import { closeSync, openSync, readSync } from 'node:fs';
import { descendantRange } from '../../model/paths.js';
import type { ImportTx, InsertNode } from '../import-tx.js';
import { fullTextOf } from '../index-values.js';
import { ListedKinds } from '../listed-kinds.js';
import type { BlobSpool } from '../rows.js';
import type { ChangedNode, NewChange } from '../changes.js';
import { recordVia, subtreeVia } from './changes.js';
import { recordBootstrapVia } from './bootstrap-files.js';
import type { BootstrapRecords } from '../bootstrap-files.js';
import { DEFER_MIN_NODES, DeferredIndexes, shouldDefer } from './deferred-indexes.js';
import type { ImportConnection, RowBuffer, StatementCall } from './import-connection.js';
import { KnownNodes } from '../import-known-nodes.js';
import { ROWS_PER_STATEMENT } from './multi-row-insert.js';
import { BLOB_CHUNK, IMPORT_SQL as SQL } from './statements.js';

/** Page cache of the store's writer during an import of DEFER_MIN_NODES or more (KiB, as cache_size counts it). */
const LARGE_IMPORT_CACHE = -1_048_576;
/** Node rows handed to the connection at once (a worker gets them as one message). */
const NODE_BATCH = 8 * ROWS_PER_STATEMENT;

export interface SqliteImportOptions {
  /** Raise the connection's page cache for a large import, and set it back on `close` (the store's writer). */
  readonly raiseCache: boolean;
  /**
   * A connection reading the last commit (the store's reader): while the transaction has only inserted
   * into a workspace, what it does not know there is read from it, without waiting for the import's
   * connection to write the rows sent before (see KnownNodes.onlyInserted).
   */
  readonly committed?: ImportConnection;
}

export class SqliteImportTx implements ImportTx {
  readonly #db: ImportConnection;
  readonly #committed: ImportConnection | undefined;
  readonly #known = new Map<string, KnownNodes>();
  readonly #nodes: RowBuffer;
  readonly #fts: RowBuffer;
  /** prop_kinds rows this transaction has written. */
  readonly #kinds = new ListedKinds();
  /** Node types this transaction has written, by workspace. */
  readonly #types = new Map<string, Set<string>>();
  /** The workspace of the node whose kinds are being listed, for #listKind (a closure per node showed as garbage). */
  #kindsOf = '';
  readonly #listKind = (name: string, kind: number): void => {
    this.#catalogue.push([SQL.insertKind, [this.#kindsOf, name, kind]]);
  };
  /** Catalogue rows (kinds, types) written with the next batch of node rows. */
  #catalogue: StatementCall[] = [];
  readonly #deferred: DeferredIndexes;
  #nextNid = 0;
  /** The connection's cache_size while a large import raises it. */
  #cacheSize: number | undefined;

  private constructor(db: ImportConnection, committed: ImportConnection | undefined) {
    this.#db = db;
    this.#committed = committed;
    this.#nodes = db.rows('INSERT INTO nodes (nid, workspace, id, path, parent_path, name, depth, position, type, mixins, props)', 11, NODE_BATCH);
    this.#fts = db.rows('INSERT INTO fts (rowid, body)', 2, NODE_BATCH);
    this.#deferred = new DeferredIndexes(db);
  }

  /**
   * Opens the import's writes, inside the transaction the caller began on `db`; `importNodes` decides
   * whether the deferrable indexes are built after the load.
   */
  static async open(db: ImportConnection, importNodes: number, options: SqliteImportOptions): Promise<SqliteImportTx> {
    const tx = new SqliteImportTx(db, options.committed);
    // As SQLite would number them (max + 1): the transaction holds the write lock, no one else inserts.
    tx.#nextNid = (await db.get<{ m: number }>(SQL.maxNid))!.m + 1;
    if (importNodes >= DEFER_MIN_NODES) {
      if (options.raiseCache) {
        // Rows of a large import land all over the uuid index (nodes_by_id): pages kept in memory instead
        // of spilled and read back (SQLite frees them when `close` sets the connection's size back).
        tx.#cacheSize = (await db.get<{ cache_size: number }>('PRAGMA cache_size'))!.cache_size;
        await db.exec(`PRAGMA cache_size = ${LARGE_IMPORT_CACHE}`);
      }
      if (shouldDefer(importNodes, (await db.get<{ n: number }>(SQL.countAll))!.n)) await tx.#deferred.drop();
    }
    return tx;
  }

  /** After COMMIT or ROLLBACK: the connection's page cache back to its size. */
  async close(): Promise<void> {
    if (this.#cacheSize !== undefined) await this.#db.exec(`PRAGMA cache_size = ${this.#cacheSize}`);
    this.#cacheSize = undefined;
  }

  /** Writes what is buffered and builds the deferred indexes; before COMMIT. */
  async finish(): Promise<void> {
    await this.#flush();
    await this.#deferred.rebuild();
  }

  async #of(workspace: string): Promise<KnownNodes> {
    let k = this.#known.get(workspace);
    if (!k) {
      k = new KnownNodes((await this.#db.get(SQL.anyInWorkspace, [workspace])) === undefined);
      this.#known.set(workspace, k);
    }
    return k;
  }

  /** Where a lookup of what `k` does not know is answered: the last commit while it holds all of it. */
  #lookup(k: KnownNodes): ImportConnection {
    return this.#committed !== undefined && k.onlyInserted ? this.#committed : this.#db;
  }

  /** Every buffered row to the connection, before a read or delete that must see them. */
  async #flush(): Promise<void> {
    const catalogue = this.#catalogue;
    this.#catalogue = [];
    await this.#db.write([this.#nodes, this.#fts], catalogue);
  }

  async pathOfId(workspace: string, id: string): Promise<string | undefined> {
    const k = this.#known.get(workspace) ?? await this.#of(workspace);
    const known = k.pathOf(id);
    if (typeof known === 'object') return known.known ?? undefined;
    const path = (await (await this.#where(k, known)).get<{ path: string }>(SQL.pathOfId, [workspace, id]))?.path;
    if (known === 'db') k.learnId(id, path ?? null);
    return path;
  }

  async prefetchIds(workspace: string, ids: readonly string[]): Promise<void> {
    const k = await this.#of(workspace);
    const unknown = [...new Set(ids.filter((id) => k.pathOf(id) === 'db'))];
    if (unknown.length === 0) return;
    k.reserveIds(unknown.length);
    for (const id of unknown) k.learnId(id, null);
    for (const r of await this.#lookup(k).all<{ id: string; path: string }>(SQL.pathsOfIds, [workspace, JSON.stringify(unknown)])) k.learnId(r.id, r.path);
  }

  async positionOf(workspace: string, path: string): Promise<number | undefined> {
    const k = this.#known.get(workspace) ?? await this.#of(workspace);
    const known = k.position(path);
    if (typeof known === 'object') return known.known ?? undefined;
    const position = (await (await this.#where(k, known)).get<{ position: number }>(SQL.positionOf, [workspace, path]))?.position;
    if (known === 'db') k.learnPosition(path, position ?? null);
    return position;
  }

  async maxChildPosition(workspace: string, parentPath: string): Promise<number> {
    // Asked once per document root and created folder, not per node: the database answers it exactly,
    // or the last commit and what this transaction inserted when it has only inserted.
    const k = this.#known.get(workspace) ?? await this.#of(workspace);
    const inserted = k.maxInsertedChild(parentPath);
    if (this.#committed !== undefined && k.onlyInserted && inserted !== 'own') {
      const stored = (await this.#committed.get<{ m: number | null }>(SQL.maxChild, [workspace, parentPath]))!.m ?? -1;
      return Math.max(stored, inserted ?? -1);
    }
    await this.#flush();
    return (await this.#db.get<{ m: number | null }>(SQL.maxChild, [workspace, parentPath]))!.m ?? -1;
  }

  /** The connection to ask what KnownNodes does not know: behind this transaction's writes (`own`) or where #lookup says. */
  async #where(k: KnownNodes, ask: 'db' | 'own'): Promise<ImportConnection> {
    if (ask === 'db') return this.#lookup(k);
    await this.#flush();
    return this.#db;
  }

  async subtreeNodes(workspace: string, path: string, limit: number): Promise<ChangedNode[]> {
    await this.#flush();
    return subtreeVia(this.#db, workspace, path, limit);
  }

  async deleteSubtree(workspace: string, path: string): Promise<number> {
    // Rare during an import (re-imported roots, duplicates, moved uuids): the buffered rows are written
    // first, so that the delete (and its trigger on fts) is exact.
    const k = await this.#of(workspace);
    await this.#flush();
    const [lo, hi] = descendantRange(path);
    const removed = (await this.#db.run(SQL.deleteNode, [workspace, path])).changes + (await this.#db.run(SQL.deleteBelow, [workspace, lo, hi])).changes;
    k.removed(path);
    return removed;
  }

  async insertNode(n: InsertNode): Promise<void> {
    const nid = this.#nextNid++;
    (this.#known.get(n.workspace) ?? await this.#of(n.workspace)).inserted(n.id, n.path, n.parentPath, n.position);
    // A value per call, not an array per row (the row of every node of an import).
    const rows = this.#nodes;
    rows.put(nid);
    rows.put(n.workspace);
    rows.put(n.id);
    rows.put(n.path);
    rows.put(n.parentPath);
    rows.put(n.name);
    rows.put(n.depth);
    rows.put(n.position);
    rows.put(n.type);
    rows.put(n.mixins.length === 0 ? '[]' : JSON.stringify(n.mixins));
    rows.put(JSON.stringify(n.properties));
    const full = rows.endRow();
    this.#kindsOf = n.workspace;
    this.#kinds.add(n.workspace, n.properties, this.#listKind);
    let types = this.#types.get(n.workspace);
    if (types === undefined) this.#types.set(n.workspace, (types = new Set()));
    if (!types.has(n.type)) {
      types.add(n.type);
      this.#catalogue.push([SQL.insertType, [n.workspace, n.type]]);
    }
    const text = fullTextOf(n.properties);
    if (text !== '') {
      this.#fts.put(nid);
      this.#fts.put(text);
      this.#fts.endRow();
    }
    if (full) await this.#flush();
  }

  async hasBlob(hash: string): Promise<boolean> {
    return (await this.#db.get(SQL.hasBlob, [hash])) !== undefined;
  }

  async insertBlob(spool: BlobSpool): Promise<void> {
    // In chunks of BLOB_CHUNK (a Range read touches only the chunks it needs), one at a time in memory.
    const fd = openSync(spool.file, 'r');
    try {
      let seq = 0;
      for (;;) {
        const buf = Buffer.allocUnsafe(BLOB_CHUNK);
        const n = readSync(fd, buf, 0, BLOB_CHUNK, null);
        if (n <= 0) break;
        await this.#db.run(SQL.insertChunk, [spool.hash, seq++, n === BLOB_CHUNK ? buf : buf.subarray(0, n)]);
      }
    } finally {
      closeSync(fd);
    }
    await this.#db.run(SQL.insertBlob, [spool.hash, spool.size]);
  }

  async recordChange(change: NewChange): Promise<void> {
    await this.#flush();
    await recordVia(this.#db, change);
  }

  async bumpGeneration(): Promise<void> {
    await this.#db.run(SQL.bump);
  }

  async recordBootstrap(records: BootstrapRecords, ownChanges: number): Promise<void> {
    await this.#flush();
    await recordBootstrapVia(this.#db, records, ownChanges);
  }
}
