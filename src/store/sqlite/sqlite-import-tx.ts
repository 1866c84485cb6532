// SQLite backend: the ImportTx of one import, over the writer connection; the caller holds the
// transaction (BEGIN IMMEDIATE … COMMIT) around writeImport and calls `finish` before COMMIT.
//
// Where a large import's time went (bench/RESULTS.md, issue 20): a statement call per node, per index
// row and per prop_kinds row, a uuid and a path lookup per node, and B-tree inserts at random places of
// the value indexes (dropped by migration 6), then the 13 props rows a node of the bench set had
// (the table dropped by migration 7: values are read from the node's document). So rows are written
// many per statement (multi-row-insert.ts), node ids are drawn here (full-text rows name their node
// without waiting for its insert), kinds and types are written once per transaction, the questions writeImport asks per node
// are answered from what this transaction knows where it can (import-known-nodes.ts), and a large
// import builds its deferrable index after its load (deferred-indexes.ts).
import type Database from 'better-sqlite3';
import type { ImportTx, InsertNode } from '../import-tx.js';
import { forEachIndexedKind, fullTextOf } from '../index-values.js';
import type { BlobSpool, ImportDocument, NodeDraft } from '../rows.js';
import type { ChangedNode, NewChange } from '../changes.js';
import type { SqliteChanges } from './changes.js';
import { DEFER_MIN_NODES, DeferredIndexes, shouldDefer } from './deferred-indexes.js';
import { KnownNodes } from './import-known-nodes.js';
import { KIND_CODE } from './migrations.js';
import { MultiRowInsert } from './multi-row-insert.js';
import { deleteSubtreeRows } from './single-node-writes.js';
import { insertBlobChunks, type Statements } from './statements.js';

/** Page cache of the writer during an import of DEFER_MIN_NODES or more (KiB, as cache_size counts it). */
const LARGE_IMPORT_CACHE = -1_048_576;

export class SqliteImportTx implements ImportTx {
  readonly #s: Statements;
  readonly #changes: SqliteChanges;
  readonly #known = new Map<string, KnownNodes>();
  readonly #nodes: MultiRowInsert;
  readonly #db: Database.Database;
  readonly #fts: MultiRowInsert;
  /** prop_kinds and node_types rows this transaction has written (INSERT OR IGNORE once each). */
  readonly #kinds = new Set<string>();
  readonly #types = new Set<string>();
  readonly #deferred: DeferredIndexes;
  #nextNid: number;
  /** The connection's cache_size while a large import raises it. */
  #cacheSize: number | undefined;

  /** Opens the import's writes (inside the caller's transaction); `importNodes` decides whether indexes are built after the load. */
  constructor(db: Database.Database, s: Statements, changes: SqliteChanges, importNodes: number) {
    this.#db = db;
    this.#s = s;
    this.#changes = changes;
    this.#nodes = new MultiRowInsert(db,
      'INSERT INTO nodes (nid, workspace, id, path, parent_path, name, depth, position, type, mixins, props)', 11);
    this.#fts = new MultiRowInsert(db, 'INSERT INTO fts (rowid, body)', 2);
    // As SQLite would number them (max + 1): the writer holds the write lock, no one else inserts.
    this.#nextNid = (s.maxNid.get() as { m: number }).m + 1;
    this.#deferred = new DeferredIndexes(db);
    if (importNodes >= DEFER_MIN_NODES) {
      // Rows of a large import land all over the uuid index (nodes_by_id): pages kept in memory instead of
      // spilled and read back (SQLite frees them when `close` sets the connection's size back).
      this.#cacheSize = db.pragma('cache_size', { simple: true }) as number;
      db.pragma(`cache_size = ${LARGE_IMPORT_CACHE}`);
      if (shouldDefer(importNodes, () => (s.countAll.get() as { n: number }).n)) this.#deferred.drop();
    }
  }

  /** After COMMIT or ROLLBACK: the connection's page cache back to its size. */
  close(): void {
    if (this.#cacheSize !== undefined) this.#db.pragma(`cache_size = ${this.#cacheSize}`);
    this.#cacheSize = undefined;
  }

  /** True while the deferrable indexes are dropped (rebuilt by `finish`). */
  get deferringIndexes(): boolean {
    return this.#deferred.active;
  }

  /** Writes what is buffered and builds the deferred indexes; before COMMIT. */
  finish(): void {
    this.#flush();
    this.#deferred.rebuild();
  }

  #of(workspace: string): KnownNodes {
    let k = this.#known.get(workspace);
    if (!k) {
      k = new KnownNodes(this.#s.anyInWorkspace.get(workspace) === undefined);
      this.#known.set(workspace, k);
    }
    return k;
  }

  /** Every buffered row to the database, before a read or delete that must see them. */
  #flush(): void {
    this.#nodes.flush();
    this.#fts.flush();
  }

  async pathOfId(workspace: string, id: string): Promise<string | undefined> {
    const k = this.#of(workspace);
    const known = k.pathOf(id);
    if (known !== undefined) return known ?? undefined;
    // Not known: the database answers exactly (every buffered node's id is known).
    const path = (this.#s.pathOfId.get(workspace, id) as { path: string } | undefined)?.path;
    k.learnId(id, path ?? null);
    return path;
  }

  async prefetchIds(workspace: string, ids: readonly string[]): Promise<void> {
    const k = this.#of(workspace);
    const unknown = [...new Set(ids.filter((id) => k.pathOf(id) === undefined))];
    if (unknown.length === 0) return;
    for (const id of unknown) k.learnId(id, null);
    for (const r of this.#s.pathsOfIds.all(workspace, JSON.stringify(unknown)) as { id: string; path: string }[]) k.learnId(r.id, r.path);
  }

  async positionOf(workspace: string, path: string): Promise<number | undefined> {
    const k = this.#of(workspace);
    const known = k.position(path);
    if (known !== undefined) return known ?? undefined;
    const position = (this.#s.positionOf.get(workspace, path) as { position: number } | undefined)?.position;
    k.learnPosition(path, position ?? null);
    return position;
  }

  async maxChildPosition(workspace: string, parentPath: string): Promise<number> {
    // Asked once per document root and created folder, not per node: the database answers it exactly.
    this.#nodes.flush();
    return (this.#s.maxChild.get(workspace, parentPath) as { m: number | null }).m ?? -1;
  }

  async subtreeNodes(workspace: string, path: string, limit: number): Promise<ChangedNode[]> {
    this.#flush();
    return this.#changes.subtreeNodes(workspace, path, limit);
  }

  async deleteSubtree(workspace: string, path: string): Promise<number> {
    // Rare during an import (re-imported roots, duplicates, moved uuids): the buffered rows are written
    // first, so that the delete (and its trigger on fts) is exact.
    this.#flush();
    const removed = deleteSubtreeRows(this.#s, workspace, path);
    this.#of(workspace).removed(path);
    return removed;
  }

  async insertNode(n: InsertNode): Promise<void> {
    const nid = this.#nextNid++;
    this.#of(n.workspace).inserted(n.id, n.path, n.position);
    this.#nodes.add(nid, n.workspace, n.id, n.path, n.parentPath, n.name, n.depth, n.position, n.type,
      JSON.stringify(n.mixins), JSON.stringify(n.properties));
    forEachIndexedKind(n.properties, (name, kind) => {
      const key = `${n.workspace}\u0000${name}\u0000${kind}`;
      if (this.#kinds.has(key)) return;
      this.#kinds.add(key);
      this.#s.insertKind.run(n.workspace, name, KIND_CODE[kind]);
    });
    const typeKey = `${n.workspace}\u0000${n.type}`;
    if (!this.#types.has(typeKey)) {
      this.#types.add(typeKey);
      this.#s.insertType.run(n.workspace, n.type);
    }
    const text = fullTextOf(n.properties);
    if (text !== '') this.#fts.add(nid, text);
  }

  async hasBlob(hash: string): Promise<boolean> {
    return this.#s.hasBlob.get(hash) !== undefined;
  }

  async insertBlob(spool: BlobSpool): Promise<void> {
    insertBlobChunks(this.#s, spool);
  }

  async recordChange(change: NewChange): Promise<void> {
    this.#changes.record(change);
  }

  async bumpGeneration(): Promise<void> {
    this.#s.bump.run();
  }
}

/** Nodes the documents hold (roots and descendants; folders an import creates not counted). */
export function draftCount(documents: readonly ImportDocument[]): number {
  const count = (d: NodeDraft): number => d.children.reduce((n, c) => n + count(c), 1);
  return documents.reduce((n, doc) => n + doc.roots.reduce((m, r) => m + count(r), 0), 0);
}
