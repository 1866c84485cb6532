// SQLite backend of the ContentStore (embedded default): one file, WAL, better-sqlite3 (synchronous,
// so every call is one in-process round trip; the async interface is for the networked backends).
import { mkdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { Database as Connection } from 'better-sqlite3';
import { connect, prepare, type Statements } from './statements.js';
import type {
  BlobReads, ChangeLog, ContentStore, NodeReads, ScheduleLog, StoreCaches, StoreCapabilities, VersionReads,
} from '../content-store.js';
import { NODE_COLUMNS } from './compile-query.js';
import { QueryIndex } from '../query-index/query-index.js';
import { sqliteColumnSource } from './column-source.js';
import type { NodeRecord } from '../rows.js';
import { migrate } from './schema.js';
import { GenerationMemo } from '../generation-memo.js';
import { SqliteVersions } from './versions.js';
import { SqliteChanges } from './changes.js';
import { StoreClosedError } from '../store-faults.js';
import { createProcessFolder } from '../process-folder.js';
import { privateDatabaseFile } from './database-file.js';
import { toRecord } from '../node-rows.js';
import { importInWorker, importOnWriter } from './import-transaction.js';
import { DEFER_MIN_NODES } from './deferred-indexes.js';
import { sqliteWriteTx } from './write-transaction.js';
import type { WriteTx } from '../write-tx.js';
import type { ImportTx } from '../import-tx.js';
import { SqliteSchedules } from './schedules.js';
import { SqliteWebhookLog } from './webhook-log.js';
import type { WebhookLog } from '../webhook-log.js';
import { WriteQueue } from './write-queue.js';
import { readBlobRange } from './blob-reads.js';
import { StatementCache } from './statement-cache.js';
import { checkpointInBackground, type WalCheckpointer, type WalCheckpoint } from './wal-checkpointer.js';
import { WorkspaceSizes } from './workspace-sizes.js';
import { sqliteIndexSegments } from './index-segments.js';
import type { SqliteStoreOptions } from './options.js';
export type { SqliteStoreOptions } from './options.js';
import { persistOptions } from '../query-index/persisted-segments.js';
import { BootstrapTurns } from './bootstrap-files.js';
import type { BootstrapFile } from '../bootstrap-files.js';
import { SqliteReads } from './node-reads.js';

const GENERATION_HINT_MS = 100;

export class SqliteStore implements ContentStore {
  readonly capabilities: StoreCapabilities = { name: 'sqlite', fullText: 'fts5', notifyOnWrite: false, storableText: (value) => value };
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
      this.changes,
    ), {
      ...(options.queryIndexMaxBytes !== undefined ? { maxBytes: options.queryIndexMaxBytes } : {}),
      ...(options.onIndexEvent !== undefined ? { onEvent: options.onIndexEvent } : {}),
      ...persistOptions(options, sqliteIndexSegments(() => this.#reader(), (fn) => this.#queue.segment(fn))),
    });
    this.reads = new SqliteReads({
      db: () => this.#reader(),
      statements: () => this.#s,
      cache: this.#cache,
      index: this.#index,
      memo: this.#memo,
      indexThreshold: this.#indexThreshold,
      generationHint: () => this.generationHint(),
      generation: () => this.generation(),
      workspaceSize: (workspace, generation) => {
        if (!this.#sizes) throw new StoreClosedError('SqliteStore is not open');
        return this.#sizes.size(workspace, generation);
      },
    });
  }

  /** The reading connection (the query index and its segments read through it). */
  #reader(): Connection {
    if (!this.#db) throw new StoreClosedError('SqliteStore is not open');
    return this.#db;
  }

  /** The query index, memos and prepared statements. */
  readonly caches: StoreCaches = {
    stats: () => ({ queryIndex: this.#index.memoryStats(), memo: this.#memo.stats(), statements: this.#cache.stats() }),
    refreshPersisted: (workspaces) => this.#index.refreshPersisted(workspaces),
  };

  readonly reads: NodeReads;

  readonly versions: VersionReads = {
    list: async (workspace, path) => this.#v.list(workspace, path),
    subtree: async (workspace, path, name, depth) => this.#v.subtree(workspace, path, name, depth),
  };

  // Schedules are written in the write queue: the writer connection holds one transaction at a time.
  readonly schedules: ScheduleLog = {
    add: (schedule) => this.#write(async () => this.#sch.add(schedule)),
    list: async () => this.#sch.list(),
    cancel: (id) => this.#write(async () => this.#sch.remove(id)),
    due: async (now, limit) => this.#sch.due(now, limit),
    fail: async (id, error) => { await this.#write(async () => this.#sch.fail(id, error)); },
  };

  readonly changes: ChangeLog = {
    since: async (sequence, limit) => this.#c.since(sequence, limit),
    latest: async () => this.#c.latest(),
  };

  readonly blobs: BlobReads = {
    info: async (hash) => this.#s.blobInfo.get(hash) as Awaited<ReturnType<BlobReads['info']>>,
    read: async (hash, offset, length) => (length <= 0 ? Buffer.alloc(0) : readBlobRange(this.#s, hash, offset, length)),
  };

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
    this.#queue.share(resolve(this.#path));
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
    this.#queue.unshare();
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

  async importTransaction<T>(nodes: number, body: (tx: ImportTx) => Promise<T>): Promise<T> {
    if (nodes < this.#importWorkerMinNodes) return this.#write((db) => importOnWriter(db, nodes, body));
    return this.#queue.exclusive(async () => {
      const { result, ended } = await importInWorker(this.#path, this.#reader(), nodes, body);
      const tracked: Promise<void> = ended.finally(() => this.#ending.delete(tracked));
      this.#ending.add(tracked);
      return result;
    });
  }

  readonly #bootstrap = new BootstrapTurns();
  async withBootstrapFiles<T>(body: (recorded: readonly BootstrapFile[]) => Promise<T>): Promise<T> {
    return this.#bootstrap.run(() => this.#reader(), body);
  }

  /** One write's transaction over the writer's statements (write-transaction.ts). */
  transaction<T>(body: (tx: WriteTx) => Promise<T>): Promise<T> {
    return this.#write((_db, s) => body(sqliteWriteTx(s, { changes: this.#c, versions: this.#v, schedules: this.#sch })));
  }

  /** A write: queued (one at a time), in one IMMEDIATE transaction on the writer. */
  #write<T>(body: (db: Connection, s: Statements) => Promise<T>): Promise<T> {
    return this.#queue.transaction((db) => {
      if (!this.#writeStmts) throw new StoreClosedError('SqliteStore is not open');
      return body(db, this.#writeStmts);
    });
  }

  get #sch(): SqliteSchedules {
    if (!this.#schedules) throw new StoreClosedError('SqliteStore is not open');
    return this.#schedules;
  }

  get #c(): SqliteChanges {
    if (!this.#changes) throw new StoreClosedError('SqliteStore is not open');
    return this.#changes;
  }

  get #v(): SqliteVersions {
    if (!this.#versions) throw new StoreClosedError('SqliteStore is not open');
    return this.#versions;
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
