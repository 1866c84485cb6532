// PostgreSQL backend of the ContentStore: many stateless Petal instances share one database. A pool
// of connections (node-postgres), named prepared statements, the schema migrated on open. Queries
// are answered by the in-memory query index over columns loaded from the property index. Every
// import announces its generation (NOTIFY); each store LISTENs on a dedicated connection, so
// instances learn of each other's writes at once. Optional read replicas serve the reads once they
// have caught up with the newest generation this instance knows of (read-router.ts).
import type pg from 'pg';
import type {
  BlobReads, ChangeLog, ContentStore, NodeReads, ScheduleLog, StoreCaches, StoreCapabilities, VersionReads,
} from '../content-store.js';
import { QueryIndex } from '../query-index/query-index.js';
import type { NodeRecord } from '../rows.js';
import { ChangeListener, changeChannel } from './change-listener.js';
import { postgresColumnSource } from './column-source.js';
import { importTransaction } from './import-transaction.js';
import { withBootstrapLock } from './bootstrap-files.js';
import type { BootstrapFile } from '../bootstrap-files.js';
import { writeTransaction } from './write-transaction.js';
import type { WriteTx } from '../write-tx.js';
import type { ImportTx } from '../import-tx.js';
import { ReadRouter } from './read-router.js';
import { SQL, run } from './statements.js';
import { listVersions, versionSubtree } from './versions.js';
import { changesSince, latestChange } from './changes.js';
import { GenerationMemo } from '../generation-memo.js';
import { StoreClosedError, storeFaultOf } from '../store-faults.js';
import { openPools } from './open-pools.js';
import { blobInfo, readBlobRange } from './blob-reads.js';
import { addSchedule, dueSchedules, failSchedule, listSchedules, removeSchedule } from './schedules.js';
import { PostgresWebhookLog } from './webhook-log.js';
import type { WebhookLog } from '../webhook-log.js';
import { hasNul, storableText } from './nul-text.js';
import { toRecord, type NodeRow } from '../node-rows.js';
import { postgresIndexSegments } from './index-segments.js';
import type { PostgresStoreOptions } from './options.js';
export type { PostgresStoreOptions } from './options.js';
import { persistOptions } from '../query-index/persisted-segments.js';
import { PostgresReads } from './node-reads.js';

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export { DEFAULT_CONNECTION_TIMEOUT_MS } from './open-pools.js';

export class PostgresStore implements ContentStore {
  readonly #memo = new GenerationMemo();
  readonly capabilities: StoreCapabilities = { name: 'postgres', fullText: 'tsvector', notifyOnWrite: true, storableText };
  readonly webhooks: WebhookLog = new PostgresWebhookLog(() => this.#db);
  readonly #options: PostgresStoreOptions;
  readonly #channel: string;
  #pool: pg.Pool | undefined;
  #router: ReadRouter | undefined;
  #listener: ChangeListener | undefined;
  /** The newest generation seen: own commits, announcements, reads of the primary; -1 before any. */
  #known = -1;
  /** `#known` when the change listener lost its connection; undefined while it is connected. */
  #knownAtLoss: number | undefined;
  readonly #changeListeners = new Set<(generation: number) => void>();
  #opening: Promise<void> | undefined;
  /** Imports run one at a time in this process: each waits for the previous one to commit or roll back. */
  #writeQueue: Promise<unknown> = Promise.resolve();
  readonly #index: QueryIndex;

  constructor(options: PostgresStoreOptions) {
    if (options.schema !== undefined && !SCHEMA_NAME.test(options.schema)) {
      throw new Error(`PostgresStore: invalid schema name ${JSON.stringify(options.schema)}`);
    }
    this.#options = options;
    this.#channel = changeChannel(options.schema);
    this.#index = new QueryIndex(postgresColumnSource(
      (fn) => this.#read(fn),
      // The announced generation saves a round trip per query; without a listener, ask the primary.
      async () => this.generationHint() ?? this.generation(),
      toRecord as (row: never) => NodeRecord,
      (generation) => this.#advance(generation),
    ), {
      ...(options.queryIndexMaxBytes !== undefined ? { maxBytes: options.queryIndexMaxBytes } : {}),
      ...(options.onIndexEvent !== undefined ? { onEvent: options.onIndexEvent } : {}),
      ...persistOptions(options, postgresIndexSegments((fn) => this.#read(fn), () => this.#db)),
    });
    this.reads = new PostgresReads({
      read: (fn) => this.#read(fn),
      primary: () => this.#db,
      index: this.#index,
      memo: this.#memo,
      generationHint: () => this.generationHint(),
      indexed: (fn) => this.#indexed(fn),
    });
  }

  /** The query index and memos. */
  readonly caches: StoreCaches = {
    stats: () => ({ queryIndex: this.#index.memoryStats(), memo: this.#memo.stats() }),
    refreshPersisted: (workspaces) => this.#indexed(() => this.#index.refreshPersisted(workspaces)),
  };

  readonly reads: NodeReads;

  readonly versions: VersionReads = {
    list: async (workspace, path) => (hasNul(path) || hasNul(workspace) ? [] : this.#read((db) => listVersions(db, workspace, path))),
    subtree: async (workspace, path, name, depth) => {
      if (hasNul(path) || hasNul(workspace) || hasNul(name)) return undefined;
      const rows = await this.#read((db) => versionSubtree<NodeRow>(db, workspace, path, name, depth));
      return rows?.map(toRecord);
    },
  };

  readonly schedules: ScheduleLog = {
    add: (schedule) => addSchedule(this.#db, schedule, storableText),
    list: () => listSchedules(this.#db),
    cancel: async (id) => (hasNul(id) ? undefined : removeSchedule(this.#db, id)),
    due: (now, limit) => dueSchedules(this.#db, now, limit),
    fail: async (id, error) => { if (!hasNul(id)) await failSchedule(this.#db, id, storableText(error)); },
  };

  /** On the primary: a replica may lag behind the newest events. */
  readonly changes: ChangeLog = {
    since: (sequence, limit) => changesSince(this.#db, sequence, limit),
    latest: () => latestChange(this.#db),
  };

  readonly blobs: BlobReads = {
    info: async (hash) => (hasNul(hash) ? undefined : this.#read((db) => blobInfo(db, hash))),
    read: async (hash, offset, length) => {
      if (length <= 0 || hasNul(hash)) return Buffer.alloc(0);
      return this.#read((db) => readBlobRange(db, hash, offset, length));
    },
  };

  get schema(): string | undefined {
    return this.#options.schema;
  }

  /** The primary's pool (search_path set to the schema), shared with the shop records. */
  get primaryPool(): pg.Pool {
    return this.#db;
  }

  get #db(): pg.Pool {
    if (!this.#pool) throw new StoreClosedError('PostgresStore is not open');
    return this.#pool;
  }

  /** A read: on a replica recent enough, else on the primary. */
  #read<T>(fn: (db: pg.Pool) => Promise<T>): Promise<T> {
    if (!this.#router) throw new StoreClosedError('PostgresStore is not open');
    return this.#router.read(fn);
  }

  /** Records a generation seen; listeners hear of each newer one. */
  #advance(generation: number): void {
    if (!(generation > this.#known)) return;
    this.#known = generation;
    for (const listener of this.#changeListeners) {
      try {
        listener(generation);
      } catch {
        // a listener's failure is its own; the others still hear of the change
      }
    }
  }

  /**
   * The change listener is LISTENing again and read `generation` from the primary. Announcements
   * missed meanwhile show as a newer generation (every cache keyed by it drops). An older one than was
   * known when the connection was lost means the database went back (restored, or failed over to a
   * replica that lagged): the store forgets what it knew, or its caches would keep serving content
   * the database no longer holds and ignore new commits up to the old number.
   */
  #resync(generation: number): void {
    const before = this.#knownAtLoss;
    this.#knownAtLoss = undefined;
    if (before === undefined || generation >= before) return; // #advance has seen it already
    this.#known = generation;
    this.#index.invalidate();
    for (const listener of this.#changeListeners) {
      try {
        listener(generation);
      } catch {
        // as in #advance
      }
    }
  }

  /**
   * Calls `listener` with every newer content generation this store learns of: its own commits, and
   * other instances' commits (announced through LISTEN/NOTIFY, normally within milliseconds). Returns
   * the function that removes the listener.
   */
  onChange(listener: (generation: number) => void): () => void {
    this.#changeListeners.add(listener);
    return () => { this.#changeListeners.delete(listener); };
  }

  /**
   * The newest generation seen, without a round trip, while the change listener is connected (so no
   * announced commit was missed); undefined otherwise, and the caller asks `generation()`. It may lag
   * another instance's commit by the time its announcement takes to arrive.
   */
  generationHint(): number | undefined {
    return this.#listener?.listening === true && this.#known >= 0 ? this.#known : undefined;
  }

  async open(): Promise<void> {
    if (this.#pool) return;
    this.#opening ??= this.#connect().finally(() => { this.#opening = undefined; });
    return this.#opening;
  }

  async #connect(): Promise<void> {
    const { pool, replicas, settings } = await openPools(this.#options);
    const router = new ReadRouter(pool, replicas, () => this.#known);
    const listener = new ChangeListener({
      client: settings,
      channel: this.#channel,
      onGeneration: (g) => this.#advance(g),
      onLost: () => { this.#knownAtLoss = this.#known; },
      onReconnected: (g) => this.#resync(g),
    });
    this.#pool = pool;
    this.#router = router;
    this.#listener = listener;
    await listener.start();
    await router.checkAll();
  }

  async close(): Promise<void> {
    await this.#opening?.catch(() => undefined);
    await this.#index.persistedSettled();
    await this.#writeQueue.catch(() => undefined);
    const pool = this.#pool;
    const listener = this.#listener;
    const replicas = this.#router?.replicaPools ?? [];
    this.#pool = undefined;
    this.#router = undefined;
    this.#listener = undefined;
    this.#known = -1;
    this.#index.invalidate();
    await listener?.stop();
    await Promise.all(replicas.map((p) => p.end().catch(() => undefined)));
    if (pool) await pool.end();
  }

  /**
   * The query index keeps the promises of the columns it loads; one that failed because the database
   * could not be reached would fail every later query of its workspace until the next write. Such a
   * failure drops the index's columns, so the first request after the database is back loads them anew.
   */
  async #indexed<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (storeFaultOf(err) === 'unreachable') this.#index.invalidate();
      throw err;
    }
  }

  importTransaction<T>(_nodes: number, body: (tx: ImportTx) => Promise<T>): Promise<T> {
    // The query index applies the import's change events when it sees the new generation.
    return this.#write(() => importTransaction(this.#db, this.#channel, body));
  }

  async withBootstrapFiles<T>(body: (recorded: readonly BootstrapFile[]) => Promise<T>): Promise<T> {
    return withBootstrapLock(this.#db, body);
  }

  /** One write's transaction (write-transaction.ts). */
  transaction<T>(body: (tx: WriteTx) => Promise<T>): Promise<T> {
    return this.#write(() => writeTransaction(this.#db, this.#channel, body));
  }

  /**
   * A content write of this instance: queued (one at a time), then its generation is recorded so that
   * reads go to the primary until a replica has it too (read-after-write).
   */
  #write<T>(transaction: () => Promise<{ result: T; generation: number | undefined }>): Promise<T> {
    const run = this.#writeQueue.then(async () => {
      const { result, generation } = await transaction();
      if (generation !== undefined) this.#advance(generation);
      return result;
    });
    this.#writeQueue = run.catch(() => undefined);
    return run;
  }

  async generation(): Promise<number> {
    const [row] = await run<{ value: string }>(this.#db, SQL.generation);
    const generation = Number(row!.value);
    this.#advance(generation);
    return generation;
  }
}

