// SQLite backend of the ContentStore (embedded default): one file, WAL, better-sqlite3 (synchronous,
// so every call is one in-process round trip; the async interface is for the networked backends).
import type { NewSchedule, Schedule, StateRequest, StateResult } from '../publishing.js';
import { mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Database as Connection } from 'better-sqlite3';
import Database from './driver.js';
import type { ContentStore, QueryResult, ReadableCondition, StoreCapabilities, StoreMemoryStats } from '../content-store.js';
import type { StoreQuery, ValueKind } from '../../query/ast.js';
import { withoutHiddenWordMatches } from '../hidden-full-text.js';
import { ftsMatch, NODE_COLUMNS } from './compile-query.js';
import { sqlKinds, sqlQuery } from './sql-query.js';
import { QueryIndex } from '../query-index/query-index.js';
import { sqliteColumnSource } from './column-source.js';
import type { BlobInfo, ImportDocument, ImportOptions, ImportResult, NodeRecord } from '../rows.js';
import type { ChildPageRequest } from '../child-pages.js';
import { childrenPages, subtrees } from './subtree-reads.js';
import { descendantRange } from '../../model/paths.js';
import { migrate } from './schema.js';
import { connect, prepare, type Statements } from './statements.js';
import { GenerationMemo } from '../generation-memo.js';
import { SqliteVersions } from './versions.js';
import { SqliteChanges } from './changes.js';
import type { ChangeEvent } from '../changes.js';
import type { VersionInfo } from '../versions.js';
import { StoreClosedError } from '../store-faults.js';
import { createProcessFolder } from '../process-folder.js';
import { privateDatabaseFile } from './database-file.js';
import { toRecord, type NodeRow } from '../node-rows.js';
import { draftCount } from './sqlite-import-tx.js';
import { importInWorker, importOnWriter } from './sqlite-imports.js';
import { DEFER_MIN_NODES } from './deferred-indexes.js';
import { sqliteNodeWriteTx } from './sqlite-node-write-tx.js';
import { writeNodes } from '../write-nodes.js';
import { publishState, unpublishState, type StateTx } from '../publish-state.js';
import { SqliteSchedules } from './schedules.js';
import { SqliteWebhookLog } from './webhook-log.js';
import type { WebhookLog } from '../webhook-log.js';
import { WriteQueue } from './write-queue.js';
import type { NodeOperation, NodeWriteOptions, NodeWriteResult } from '../node-write.js';
import { readBlobRange } from './blob-reads.js';
import { StatementCache } from './statement-cache.js';
import { checkpointInBackground, type WalCheckpointer, type WalCheckpoint } from './wal-checkpointer.js';
import { WorkspaceSizes } from './workspace-sizes.js';
import { sqliteIndexSegments } from './index-segments.js';
import type { SqliteStoreOptions } from './sqlite-store-options.js';
export type { SqliteStoreOptions } from './sqlite-store-options.js';
import { persistOptions } from '../query-index/persisted-segments.js';
import { BootstrapTurns } from './bootstrap-files.js';
import type { BootstrapFile } from '../bootstrap-files.js';

const GENERATION_HINT_MS = 100;

export class SqliteStore implements ContentStore {
  readonly capabilities: StoreCapabilities = { name: 'sqlite', fullText: 'fts5', notifyOnWrite: false };
  readonly #file: string;
  readonly #onNotice: ((message: string) => void) | undefined;
  readonly #checkpointEvery: number | undefined;
  /** Imports of at least this many nodes write through a worker thread's connection. */
  readonly #importWorkerMinNodes: number;
  /** Import threads checkpointing after their commit (close waits for them). */
  readonly #ending = new Set<Promise<void>>();
  #db: Connection | undefined;
  #writer: Connection | undefined;
  #writeStmts: Statements | undefined;
  // The next reader sees a write's commit, not a hint from before it; the query index then applies the
  // write's change events in place (or reloads only a workspace an import rewrote wholesale).
  readonly #queue = new WriteQueue(() => this.#writer, () => { this.#known = undefined; });
  #path = '';
  #known: { value: number; at: number } | undefined;
  readonly #memo = new GenerationMemo();
  #tempDir: string | undefined;
  #stmts: Statements | undefined;
  #versions: SqliteVersions | undefined;
  #changes: SqliteChanges | undefined;
  #schedules: SqliteSchedules | undefined;
  readonly #cache = new StatementCache();
  readonly webhooks: WebhookLog = new SqliteWebhookLog(() => this.#reader(), (fn) => this.#queue.segment(fn));

  readonly #indexThreshold: number;
  readonly #index: QueryIndex;
  #sizes: WorkspaceSizes | undefined;
  #checkpointer: WalCheckpointer | undefined;

  constructor(options: SqliteStoreOptions) {
    this.#file = options.file;
    this.#onNotice = options.onNotice;
    this.#checkpointEvery = options.walCheckpointIntervalMs;
    this.#importWorkerMinNodes = options.importWorkerMinNodes ?? DEFER_MIN_NODES;
    this.#indexThreshold = options.queryIndexThreshold ?? 0;
    this.#index = new QueryIndex(sqliteColumnSource(
      () => this.#reader(),
      async () => this.generationHint() ?? this.generation(),
      toRecord as (row: never) => NodeRecord,
      NODE_COLUMNS,
      this,
    ), {
      ...(options.queryIndexMaxBytes !== undefined ? { maxBytes: options.queryIndexMaxBytes } : {}),
      ...(options.onIndexEvent !== undefined ? { onEvent: options.onIndexEvent } : {}),
      ...persistOptions(options, sqliteIndexSegments(() => this.#reader(), (fn) => this.#queue.segment(fn))),
    });
  }

  /** The reading connection (the query index and its segments read through it). */
  #reader(): Connection {
    if (!this.#db) throw new StoreClosedError('SqliteStore is not open');
    return this.#db;
  }

  /** What the store's byte-bounded caches hold (the query index, memos, prepared statements). */
  memoryStats(): StoreMemoryStats {
    return { queryIndex: this.#index.memoryStats(), memo: this.#memo.stats(), statements: this.#cache.stats() };
  }

  get file(): string {
    return this.#file;
  }

  /** The database file actually open (a temporary one for `:memory:`), for the shop records' connection. */
  get databaseFile(): string {
    if (!this.#db) throw new StoreClosedError('SqliteStore is not open');
    return this.#path;
  }

  async open(): Promise<void> {
    if (this.#db) return;
    // Imports write through a second connection, so readers never see an import's uncommitted rows
    // (WAL lets them read the last commit meanwhile). `:memory:` becomes a temporary file for that.
    if (this.#file === ':memory:') {
      // Named after the process: a killed server's copy (customers' data included) is swept by the next one.
      this.#tempDir = await createProcessFolder('petal-memory-');
      this.#path = join(this.#tempDir, 'petal.db');
    } else {
      this.#path = this.#file;
      mkdirSync(dirname(this.#path), { recursive: true, mode: 0o700 });
    }
    privateDatabaseFile(this.#path, this.#onNotice);
    const writer = connect(this.#path);
    migrate(writer);
    this.#writer = writer;
    this.#writeStmts = prepare(writer);
    const db = connect(this.#path);
    this.#db = db;
    this.#stmts = prepare(db);
    this.#versions = new SqliteVersions(db, writer, toRecord as (row: never) => NodeRecord);
    this.#changes = new SqliteChanges(db, writer);
    this.#schedules = new SqliteSchedules(db, writer);
    this.#sizes = new WorkspaceSizes(db, this.#changes, (ws) => (this.#s.countWs.get(ws) as { n: number }).n);
    // `:memory:` (a private temporary file) keeps SQLite's checkpoints on commit.
    if (this.#file !== ':memory:' && this.#checkpointEvery !== undefined) this.#checkpointer = checkpointInBackground(this.#path, writer, db, this.#onNotice, this.#checkpointEvery);
  }

  /** A PASSIVE checkpoint in the background worker now (tests, operators); undefined without one (`:memory:`, no interval). */
  async checkpointWal(): Promise<WalCheckpoint | undefined> {
    if (!this.#db) throw new StoreClosedError('SqliteStore is not open');
    return this.#checkpointer?.checkpoint();
  }

  async close(): Promise<void> {
    await this.#index.persistedSettled();
    await this.#queue.idle();
    await Promise.all([...this.#ending]);
    this.#cache.clear();
    this.#index.invalidate(); // reopening may open another database (`:memory:` does)
    const checkpointer = this.#checkpointer;
    this.#checkpointer = undefined;
    await checkpointer?.close();
    this.#sizes = undefined;
    this.#db?.close();
    this.#writer?.close();
    this.#db = undefined;
    this.#writer = undefined;
    this.#stmts = undefined;
    this.#writeStmts = undefined;
    this.#versions = undefined;
    this.#changes = undefined;
    this.#schedules = undefined;
    if (this.#tempDir) rmSync(this.#tempDir, { recursive: true, force: true });
    this.#tempDir = undefined;
  }

  get #s(): Statements {
    if (!this.#stmts) throw new StoreClosedError('SqliteStore is not open');
    return this.#stmts;
  }

  async ping(): Promise<boolean> {
    return this.#s.ping.get() !== undefined;
  }

  async getNode(workspace: string, path: string): Promise<NodeRecord | undefined> {
    const row = this.#s.byPath.get(workspace, path) as NodeRow | undefined;
    return row && toRecord(row);
  }

  async getNodeById(workspace: string, id: string): Promise<NodeRecord | undefined> {
    const row = this.#s.byId.get(workspace, id) as NodeRow | undefined;
    return row && toRecord(row);
  }

  async getNodesByIds(workspace: string, ids: readonly string[]): Promise<NodeRecord[]> {
    if (ids.length === 0) return [];
    const rows = this.#s.byIds.all(workspace, JSON.stringify(ids)) as NodeRow[];
    return rows.map(toRecord);
  }

  async getSubtree(workspace: string, path: string, depth: number): Promise<NodeRecord[]> {
    const out: NodeRecord[] = [];
    let baseDepth = 0;
    if (path !== '/') {
      const root = this.#s.byPath.get(workspace, path) as NodeRow | undefined;
      if (!root) return out;
      out.push(toRecord(root));
      baseDepth = root.depth;
    }
    if (depth <= 0) return out;
    const [lo, hi] = descendantRange(path);
    const rows = this.#s.subtree.all(workspace, lo, hi, baseDepth + depth) as NodeRow[];
    for (const r of rows) out.push(toRecord(r));
    return out;
  }

  async getChildrenPages(workspace: string, parents: readonly ChildPageRequest[], limit: number): Promise<NodeRecord[]> {
    return childrenPages(this.#db!, this.#s, workspace, parents, limit);
  }

  async getSubtrees(workspace: string, paths: readonly string[], depth: number): Promise<NodeRecord[]> {
    return subtrees(this.#db!, this.#s, workspace, paths, depth);
  }

  async query(q: StoreQuery): Promise<QueryResult> {
    if (q.fullTextHidden !== undefined) q = await withoutHiddenWordMatches(q, (x) => this.query(x));
    if (QueryIndex.supports(q) && (await this.#workspaceSize(q.workspace)) >= this.#indexThreshold) {
      return this.#index.run(q, ftsMatch(q));
    }
    return sqlQuery(this.#reader(), this.#cache, q);
  }

  async #workspaceSize(workspace: string): Promise<number> {
    if (this.#indexThreshold === 0) return 0;
    if (!Number.isFinite(this.#indexThreshold)) return -1;
    // A hint is enough for a threshold (this process's writes clear it; another's are seen within 100 ms).
    const generation = this.generationHint() ?? await this.generation();
    if (!this.#sizes) throw new StoreClosedError('SqliteStore is not open');
    return this.#sizes.size(workspace, generation);
  }

  async propertyKinds(workspace: string, names: readonly string[], readable?: ReadableCondition): Promise<Map<string, ValueKind[]>> {
    if (names.length === 0) return new Map();
    if (readable === undefined) {
      const generation = this.generationHint() ?? await this.generation();
      const kinds = await this.#memo.get(generation, `kinds\n${workspace}\n${names.join('\n')}`, () => this.#kinds(workspace, names));
      return new Map(kinds);
    }
    return this.#kinds(workspace, names, readable);
  }

  async #kinds(workspace: string, names: readonly string[], readable?: ReadableCondition): Promise<Map<string, ValueKind[]>> {
    if (readable && (await this.#workspaceSize(workspace)) >= this.#indexThreshold) {
      return this.#index.kinds(workspace, names, readable);
    }
    return sqlKinds(this.#reader(), this.#cache, this.#s, workspace, names, readable);
  }

  async nodeTypesPresent(workspace: string): Promise<string[]> {
    const generation = this.generationHint() ?? await this.generation();
    const types = await this.#memo.get(generation, `types\n${workspace}`, () => (this.#s.types.all(workspace) as { type: string }[]).map((r) => r.type));
    return [...types];
  }

  async countNodes(workspace?: string): Promise<number> {
    const r = (workspace === undefined ? this.#s.countAll.get() : this.#s.countWs.get(workspace)) as { n: number };
    return r.n;
  }

  async listWorkspaces(): Promise<string[]> {
    return (this.#s.workspaces.all() as { workspace: string }[]).map((r) => r.workspace);
  }

  async importDocuments(documents: readonly ImportDocument[], options: ImportOptions): Promise<ImportResult> {
    const count = draftCount(documents);
    if (count < this.#importWorkerMinNodes) return this.#write((db) => importOnWriter(db, documents, options, count));
    return this.#queue.exclusive(async () => {
      const { result, ended } = await importInWorker(this.#path, this.#reader(), documents, options, count);
      const tracked: Promise<void> = ended.finally(() => this.#ending.delete(tracked));
      this.#ending.add(tracked);
      return result;
    });
  }

  readonly #bootstrap = new BootstrapTurns();
  async withBootstrapFiles<T>(body: (recorded: readonly BootstrapFile[]) => Promise<T>): Promise<T> {
    return this.#bootstrap.run(() => this.#reader(), body);
  }

  async writeNodes(workspace: string, operations: readonly NodeOperation[], options: NodeWriteOptions): Promise<NodeWriteResult> {
    return this.#nodeWrite((tx) => writeNodes(tx, workspace, operations, options));
  }

  /** The shared rules of a Nodes API write or a publish / unpublish, over the writer's statements. */
  #nodeWrite<T>(body: (tx: StateTx) => Promise<T>): Promise<T> {
    return this.#write((_db, s) => body(sqliteNodeWriteTx(s, { changes: this.#c, versions: this.#v, schedules: this.#sch })));
  }

  /** A write: queued (one at a time), in one IMMEDIATE transaction on the writer. */
  #write<T>(body: (db: Connection, s: Statements) => Promise<T>): Promise<T> {
    return this.#queue.transaction((db) => {
      if (!this.#writeStmts) throw new StoreClosedError('SqliteStore is not open');
      return body(db, this.#writeStmts);
    });
  }

  async refreshQueryIndex(workspaces: readonly string[]): Promise<number> {
    return this.#index.refreshPersisted(workspaces);
  }

  async publish(workspace: string, path: string, by: string): Promise<VersionInfo | undefined> {
    // One IMMEDIATE transaction that never awaits: the next number is read under the write lock, and no
    // other store of this process on the file begins midway, blocking the thread on a lock only this holds.
    return this.#queue.exclusive(async () => {
      const db = this.#writer;
      const s = this.#writeStmts;
      if (!db || !s) throw new StoreClosedError('SqliteStore is not open');
      return db.transaction(() => {
        const info = this.#v.publish(workspace, path, by);
        if (info !== undefined) {
          this.#c.recordPublish(info);
          s.bump.run();
        }
        return info;
      }).immediate();
    });
  }

  async publishState(request: StateRequest): Promise<StateResult> {
    return this.#nodeWrite((tx) => publishState(tx, request));
  }

  async unpublishState(request: StateRequest): Promise<StateResult> {
    return this.#nodeWrite((tx) => unpublishState(tx, request));
  }

  // Schedules are written in the write queue: the writer connection holds one transaction at a time.
  async addSchedule(schedule: NewSchedule): Promise<Schedule> { return this.#write(async () => this.#sch.add(schedule)); }
  async listSchedules(): Promise<Schedule[]> { return this.#sch.list(); }
  async cancelSchedule(id: string): Promise<Schedule | undefined> { return this.#write(async () => this.#sch.remove(id)); }
  async dueSchedules(now: string, limit: number): Promise<Schedule[]> { return this.#sch.due(now, limit); }
  async failSchedule(id: string, error: string): Promise<void> { await this.#write(async () => this.#sch.fail(id, error)); }

  get #sch(): SqliteSchedules {
    if (!this.#schedules) throw new StoreClosedError('SqliteStore is not open');
    return this.#schedules;
  }

  async listVersions(workspace: string, path: string): Promise<VersionInfo[]> {
    return this.#v.list(workspace, path);
  }

  async getVersionSubtree(workspace: string, path: string, name: string, depth: number): Promise<NodeRecord[] | undefined> {
    return this.#v.subtree(workspace, path, name, depth);
  }

  async changesSince(sequence: number, limit: number): Promise<ChangeEvent[]> { return this.#c.since(sequence, limit); }
  async latestChange(): Promise<number> { return this.#c.latest(); }

  get #c(): SqliteChanges {
    if (!this.#changes) throw new StoreClosedError('SqliteStore is not open');
    return this.#changes;
  }

  get #v(): SqliteVersions {
    if (!this.#versions) throw new StoreClosedError('SqliteStore is not open');
    return this.#versions;
  }

  async getBlobInfo(hash: string): Promise<BlobInfo | undefined> {
    return this.#s.blobInfo.get(hash) as BlobInfo | undefined;
  }

  async readBlob(hash: string, offset: number, length: number): Promise<Buffer> {
    return length <= 0 ? Buffer.alloc(0) : readBlobRange(this.#s, hash, offset, length);
  }

  async generation(): Promise<number> {
    const value = Number((this.#s.generation.get() as { value: string }).value);
    this.#known = { value, at: Date.now() };
    return value;
  }

  /**
   * The generation read in the last 100 ms: another process's import (a CLI into a running server's
   * file) is seen within that bound; this process's imports at once (they refresh it on commit).
   */
  generationHint(): number | undefined {
    const k = this.#known;
    return k !== undefined && Date.now() - k.at < GENERATION_HINT_MS ? k.value : undefined;
  }
}
