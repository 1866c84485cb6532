// PostgreSQL backend of the ContentStore: many stateless Petal instances share one database. A pool
// of connections (node-postgres), named prepared statements, the schema migrated on open. Queries
// are answered by the in-memory query index over columns loaded from the property index. Every
// import announces its generation (NOTIFY); each store LISTENs on a dedicated connection, so
// instances learn of each other's writes at once. Optional read replicas serve the reads once they
// have caught up with the newest generation this instance knows of (read-router.ts).
import type { NewSchedule, Schedule, StateRequest, StateResult } from '../publishing.js';
import type pg from 'pg';
import type { ChildPageRequest } from '../child-pages.js';
import { childPageRows, subtreesRows } from './subtree-reads.js';
import type { ContentStore, QueryResult, ReadableCondition, StoreCapabilities, StoreMemoryStats } from '../content-store.js';
import type { StoreQuery, ValueKind } from '../../query/ast.js';
import { QueryIndex } from '../query-index/query-index.js';
import { kindsFromRows } from '../query-index/column-source.js';
import type { BlobInfo, ImportDocument, ImportOptions, ImportResult, NodeRecord } from '../rows.js';
import { descendantRange } from '../../model/paths.js';
import { ChangeListener, changeChannel } from './change-listener.js';
import { postgresColumnSource } from './column-source.js';
import { tsQueryText } from './full-text.js';
import { withoutHiddenWordMatches } from '../hidden-full-text.js';
import { importDocuments } from './import-documents.js';
import { withBootstrapLock } from './bootstrap-files.js';
import type { BootstrapFile } from '../bootstrap-files.js';
import { nodeWriteTransaction } from './node-write-transaction.js';
import { writeNodes } from '../write-nodes.js';
import { publishState, publishVersion, unpublishState, type StateTx } from '../publish-state.js';
import type { NodeOperation, NodeWriteOptions, NodeWriteResult } from '../node-write.js';
import { ReadRouter } from './read-router.js';
import { SQL, run } from './statements.js';
import { listVersions, versionSubtree } from './versions.js';
import type { VersionInfo } from '../versions.js';
import { changesSince, latestChange } from './changes.js';
import type { ChangeEvent } from '../changes.js';
import { GenerationMemo } from '../generation-memo.js';
import { StoreClosedError, storeFaultOf } from '../store-faults.js';
import { openPools } from './open-pools.js';
import { blobInfo, readBlobRange } from './blob-reads.js';
import { addSchedule, dueSchedules, failSchedule, listSchedules, removeSchedule } from './schedules.js';
import { PostgresWebhookLog } from './webhook-log.js';
import type { WebhookLog } from '../webhook-log.js';
import { hasNul, stateRequest, storableText, withoutNul } from './nul-text.js';
import { toRecord, type NodeRow } from '../node-rows.js';
import { postgresIndexSegments } from './index-segments.js';
import type { PostgresStoreOptions } from './postgres-store-options.js';
export type { PostgresStoreOptions } from './postgres-store-options.js';
import { persistOptions } from '../query-index/persisted-segments.js';

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export { DEFAULT_CONNECTION_TIMEOUT_MS } from './open-pools.js';

export class PostgresStore implements ContentStore {
  readonly #memo = new GenerationMemo();
  readonly capabilities: StoreCapabilities = { name: 'postgres', fullText: 'tsvector', notifyOnWrite: true };
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
  }

  /** What the store's byte-bounded caches hold (the query index and memos). */
  memoryStats(): StoreMemoryStats {
    return { queryIndex: this.#index.memoryStats(), memo: this.#memo.stats() };
  }

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

  async ping(): Promise<boolean> {
    try {
      return (await run(this.#db, SQL.ping)).length === 1;
    } catch {
      return false;
    }
  }

  async getNode(workspace: string, path: string): Promise<NodeRecord | undefined> {
    if (hasNul(path)) return undefined;
    const rows = await this.#read((db) => run<NodeRow>(db, SQL.byPath, [workspace, path]));
    return rows[0] && toRecord(rows[0]);
  }

  async getNodeById(workspace: string, id: string): Promise<NodeRecord | undefined> {
    if (hasNul(id)) return undefined;
    const rows = await this.#read((db) => run<NodeRow>(db, SQL.byId, [workspace, id]));
    return rows[0] && toRecord(rows[0]);
  }

  async getNodesByIds(workspace: string, ids: readonly string[]): Promise<NodeRecord[]> {
    const wanted = withoutNul(ids);
    if (wanted.length === 0) return [];
    return (await this.#read((db) => run<NodeRow>(db, SQL.byIds, [workspace, wanted]))).map(toRecord);
  }

  async getSubtree(workspace: string, path: string, depth: number): Promise<NodeRecord[]> {
    if (hasNul(path)) return [];
    if (path === '/') {
      if (depth <= 0) return [];
      return (await this.#read((db) => run<NodeRow>(db, SQL.rootSubtree, [workspace, depth]))).map(toRecord);
    }
    if (depth <= 0) {
      const node = await this.getNode(workspace, path);
      return node ? [node] : [];
    }
    const [lo, hi] = descendantRange(path);
    return (await this.#read((db) => run<NodeRow>(db, SQL.subtree, [workspace, path, lo, hi, depth]))).map(toRecord);
  }

  async getChildrenPages(workspace: string, parents: readonly ChildPageRequest[], limit: number): Promise<NodeRecord[]> {
    return (await this.#read((db) => childPageRows(db, workspace, parents, limit))).map(toRecord);
  }

  async getSubtrees(workspace: string, paths: readonly string[], depth: number): Promise<NodeRecord[]> {
    return (await this.#read((db) => subtreesRows(db, workspace, paths, depth))).map(toRecord);
  }

  async query(q: StoreQuery): Promise<QueryResult> {
    if (q.fullTextHidden !== undefined) q = await withoutHiddenWordMatches(q, (x) => this.query(x));
    // Always the query index (the delivery layer only builds queries it can run: eq / ne on @id).
    if (!this.#index.canRun(q)) throw new Error('PostgresStore: this query (a uuid condition other than eq / ne) is not supported');
    return this.#indexed(() => this.#index.run(q, tsQueryText(q)));
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

  async propertyKinds(workspace: string, names: readonly string[], readable?: ReadableCondition): Promise<Map<string, ValueKind[]>> {
    names = withoutNul(names);
    if (names.length === 0) return new Map();
    if (readable) return this.#indexed(() => this.#index.kinds(workspace, names, readable));
    const load = async () => kindsFromRows(await this.#read((db) => run<{ name: string; kind: number }>(db, SQL.kinds, [workspace, names])));
    // Memoized only while the change listener vouches for the generation (see generationHint).
    const generation = this.generationHint();
    return new Map(generation === undefined ? await load() : await this.#memo.get(generation, `kinds\n${workspace}\n${names.join('\n')}`, load));
  }

  async nodeTypesPresent(workspace: string): Promise<string[]> {
    const load = async () => (await this.#read((db) => run<{ type: string }>(db, SQL.types, [workspace]))).map((r) => r.type);
    const generation = this.generationHint();
    return [...(generation === undefined ? await load() : await this.#memo.get(generation, `types\n${workspace}`, load))];
  }

  async countNodes(workspace?: string): Promise<number> {
    const rows = await this.#read((db) => workspace === undefined
      ? run<{ n: number }>(db, SQL.countAll)
      : run<{ n: number }>(db, SQL.countWs, [workspace]));
    return rows[0]!.n;
  }

  async listWorkspaces(): Promise<string[]> {
    return (await this.#read((db) => run<{ workspace: string }>(db, SQL.workspaces))).map((r) => r.workspace);
  }

  async importDocuments(documents: readonly ImportDocument[], options: ImportOptions): Promise<ImportResult> {
    // The query index applies the import's change events when it sees the new generation.
    return this.#write(() => importDocuments(this.#db, this.#channel, documents, options));
  }

  async withBootstrapFiles<T>(body: (recorded: readonly BootstrapFile[]) => Promise<T>): Promise<T> {
    return withBootstrapLock(this.#db, body);
  }

  async writeNodes(workspace: string, operations: readonly NodeOperation[], options: NodeWriteOptions): Promise<NodeWriteResult> {
    return this.#nodeWrite((tx) => writeNodes(tx, workspace, operations, { ...options, by: storableText(options.by) }));
  }

  async publish(workspace: string, path: string, by: string): Promise<VersionInfo | undefined> {
    if (hasNul(path) || hasNul(workspace)) return undefined;
    return this.#nodeWrite((tx) => publishVersion(tx, workspace, path, storableText(by)));
  }

  async publishState(request: StateRequest): Promise<StateResult> {
    return this.#nodeWrite((tx) => publishState(tx, stateRequest(request)));
  }

  async unpublishState(request: StateRequest): Promise<StateResult> {
    return this.#nodeWrite((tx) => unpublishState(tx, stateRequest(request)));
  }

  /** The shared rules of a Nodes API write, a publish or an unpublish, in one transaction. */
  #nodeWrite<T>(body: (tx: StateTx) => Promise<T>): Promise<T> {
    return this.#write(() => nodeWriteTransaction(this.#db, this.#channel, body));
  }

  async addSchedule(schedule: NewSchedule): Promise<Schedule> { return addSchedule(this.#db, schedule, storableText); }
  async listSchedules(): Promise<Schedule[]> { return listSchedules(this.#db); }
  async cancelSchedule(id: string): Promise<Schedule | undefined> { return hasNul(id) ? undefined : removeSchedule(this.#db, id); }
  async dueSchedules(now: string, limit: number): Promise<Schedule[]> { return dueSchedules(this.#db, now, limit); }
  async failSchedule(id: string, error: string): Promise<void> { if (!hasNul(id)) await failSchedule(this.#db, id, storableText(error)); }

  async refreshQueryIndex(workspaces: readonly string[]): Promise<number> {
    return this.#indexed(() => this.#index.refreshPersisted(workspaces));
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

  async listVersions(workspace: string, path: string): Promise<VersionInfo[]> {
    if (hasNul(path) || hasNul(workspace)) return [];
    return this.#read((db) => listVersions(db, workspace, path));
  }

  async getVersionSubtree(workspace: string, path: string, name: string, depth: number): Promise<NodeRecord[] | undefined> {
    if (hasNul(path) || hasNul(workspace) || hasNul(name)) return undefined;
    const rows = await this.#read((db) => versionSubtree<NodeRow>(db, workspace, path, name, depth));
    return rows?.map(toRecord);
  }

  /** On the primary: a replica may lag behind the newest events. */
  async changesSince(sequence: number, limit: number): Promise<ChangeEvent[]> {
    return changesSince(this.#db, sequence, limit);
  }

  async latestChange(): Promise<number> {
    return latestChange(this.#db);
  }

  async getBlobInfo(hash: string): Promise<BlobInfo | undefined> {
    return hasNul(hash) ? undefined : this.#read((db) => blobInfo(db, hash));
  }

  async readBlob(hash: string, offset: number, length: number): Promise<Buffer> {
    if (length <= 0 || hasNul(hash)) return Buffer.alloc(0);
    return this.#read((db) => readBlobRange(db, hash, offset, length));
  }

  async generation(): Promise<number> {
    const [row] = await run<{ value: string }>(this.#db, SQL.generation);
    const generation = Number(row!.value);
    this.#advance(generation);
    return generation;
  }
}

