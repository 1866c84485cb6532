// Store layer: the contract every backend (SQLite, PostgreSQL) implements. It persists: rows in, rows
// out, in transactions; it decides nothing (the rules of writes, publishing and imports are in
// repository/, which runs them inside `transaction` / `importTransaction`). It knows nothing of users,
// HTTP or JSON rendering. Missing rows are `undefined`.
import type { Condition, StoreQuery, ValueKind } from '../query/ast.js';
import type { BlobInfo, NodeRecord } from './rows.js';
import type { VersionInfo } from './versions.js';
import type { ChildPageRequest } from './child-pages.js';
import type { ChangeEvent } from './changes.js';
import type { ByteLruStats } from '../cache/byte-lru.js';
import type { QueryIndexStats } from './query-index/memory-budget.js';
import type { NewSchedule, Schedule } from './schedules.js';
import type { WebhookLog } from './webhook-log.js';
import type { BootstrapFile } from './bootstrap-files.js';
import type { WriteTx } from './write-tx.js';
import type { ImportTx } from './import-tx.js';

export type ReadableCondition = Extract<Condition, { kind: 'readable' }>;

/** What a store's caches of request-chosen keys hold, each against its byte bound. */
export interface StoreMemoryStats {
  readonly queryIndex: QueryIndexStats;
  /** Property kinds and node types by the names a query asks for. */
  readonly memo: ByteLruStats;
  /** Prepared statements of compiled queries (SQLite). */
  readonly statements?: ByteLruStats;
}

export interface QueryResult {
  /** Number of matching nodes, whatever the page. */
  readonly total: number;
  /** The requested page, in query order. */
  readonly nodes: readonly NodeRecord[];
}

/** What a backend can do, read by shared code instead of branching on the backend's name. */
export interface StoreCapabilities {
  readonly name: string;
  /** Full-text flavour used by the query compiler. */
  readonly fullText: 'fts5' | 'tsvector' | 'none';
  /** True when other processes' writes are announced (PostgreSQL LISTEN/NOTIFY). */
  readonly notifyOnWrite: boolean;
  /**
   * `value` as the backend can store it (PostgreSQL text cannot hold U+0000: replaced by U+FFFD);
   * a path or id that this changes names no stored node.
   */
  storableText(value: string): string;
}

/** Reads of the last commit (a replica recent enough, on PostgreSQL). */
export interface NodeReads {
  /** Cheap round trip used by `/.health`. */
  ping(): Promise<boolean>;
  getNode(workspace: string, path: string): Promise<NodeRecord | undefined>;
  getNodeById(workspace: string, id: string): Promise<NodeRecord | undefined>;
  /** The nodes of these ids that exist, in no particular order; one round trip. */
  getNodesByIds(workspace: string, ids: readonly string[]): Promise<NodeRecord[]>;
  /**
   * The node at `path` (the workspace root when `/`) and its descendants down to `depth` levels below it,
   * in one round trip, ordered by depth and then by natural order. The root `/` itself is not a row.
   */
  getSubtree(workspace: string, path: string, depth: number): Promise<NodeRecord[]>;
  /**
   * The descendants (not the nodes themselves) of each of `paths`, down to `depth` levels below it,
   * ordered by depth then natural order; one round trip however many paths.
   */
  getSubtrees(workspace: string, paths: readonly string[], depth: number): Promise<NodeRecord[]>;
  /**
   * A page of the children of each parent: at most `limit` each (clamped to 1..MAX_CHILD_PAGE), in natural
   * order (position, ties broken by name), after the parent's cursor when it has one. Rows come parent by
   * parent in the order asked, each parent once; a missing parent has none. One consistent read, whose
   * cost is the rows it returns whatever the parents' fan-out. A parent with `limit` rows may have more:
   * its next page starts after the last of them (see child-pages.ts).
   */
  getChildrenPages(workspace: string, parents: readonly ChildPageRequest[], limit: number): Promise<NodeRecord[]>;
  /**
   * Runs a query (compiled by the backend: SQL, or its in-memory query index): the total and one page,
   * from one consistent snapshot. `fullTextHidden` is decided above (repository/hidden-full-text.ts).
   */
  query(query: StoreQuery): Promise<QueryResult>;
  /**
   * The kinds each of these properties is stored with in the workspace (absent = no node has it);
   * with `readable`, only among the nodes the caller may read (so a 400 for a value of the wrong
   * type never reveals what hidden nodes hold).
   */
  propertyKinds(workspace: string, names: readonly string[], readable?: ReadableCondition): Promise<Map<string, ValueKind[]>>;
  /** The primary types present in the workspace. */
  nodeTypesPresent(workspace: string): Promise<string[]>;
  /** Number of nodes, in one workspace or in all. */
  countNodes(workspace?: string): Promise<number>;
  listWorkspaces(): Promise<string[]>;
}

/** Frozen copies of published nodes (written by WriteTx.recordVersion). */
export interface VersionReads {
  /** The versions of `path`, oldest first; empty when it has none (whether or not the node still exists). */
  list(workspace: string, path: string): Promise<VersionInfo[]>;
  /**
   * The frozen copy of version `name` of `path`, shaped as `getSubtree` returns the live node: the node
   * and its descendants down to `depth` levels, ordered by depth then natural order, with the paths and
   * ids they had when published. Undefined when `path` has no version of that name.
   */
  subtree(workspace: string, path: string, name: string, depth: number): Promise<NodeRecord[] | undefined>;
}

/** Stored schedules of publications; each runs when due (publishing/scheduler.ts), once whichever instance runs it. */
export interface ScheduleLog {
  add(schedule: NewSchedule): Promise<Schedule>;
  /** Every stored schedule (failed ones included), soonest first. */
  list(): Promise<Schedule[]>;
  /** Removes a schedule; the one removed, or undefined when there was none of that id. */
  cancel(id: string): Promise<Schedule | undefined>;
  /** Schedules due at `now` (ISO instant) that have not failed, soonest first, at most `limit`. */
  due(now: string, limit: number): Promise<Schedule[]>;
  /** Records why a schedule's run was refused; it stays listed and does not run again. */
  fail(id: string, error: string): Promise<void>;
}

/** The change events every committed write appends in its own transaction (changes.ts); on the primary. */
export interface ChangeLog {
  /** Events with a sequence number above `sequence`, oldest first, at most `limit` (clamped to 1..1,000). */
  since(sequence: number, limit: number): Promise<ChangeEvent[]>;
  /** The sequence number of the newest event; 0 when there is none. */
  latest(): Promise<number>;
}

export interface BlobReads {
  info(hash: string): Promise<BlobInfo | undefined>;
  /** Reads `length` bytes of a blob from `offset`. */
  read(hash: string, offset: number, length: number): Promise<Buffer>;
}

/** The backend's own caches: the query index and memos (for tests, diagnostics and after imports). */
export interface StoreCaches {
  /** What the byte-bounded caches hold. */
  stats(): StoreMemoryStats;
  /**
   * Re-reads and persists the query index's segments of these workspaces that have any persisted (after
   * an import changed them, so the next instance to start does not read them from SQL); the number of
   * segments written. Stores without persisted segments have none to refresh.
   */
  refreshPersisted(workspaces: readonly string[]): Promise<number>;
}

export interface ContentStore {
  readonly capabilities: StoreCapabilities;
  /** Creates or migrates the schema; safe to call on every start. */
  open(): Promise<void>;
  close(): Promise<void>;
  readonly reads: NodeReads;
  /**
   * Runs `body` in ONE transaction, one write at a time in this process (and under the backend's write
   * lock across processes): everything it writes commits together, or nothing when it throws. The
   * rules of the Nodes API, publishing and versions run here (repository/writes.ts).
   */
  transaction<T>(body: (tx: WriteTx) => Promise<T>): Promise<T>;
  /**
   * As `transaction`, for an import of `nodes` nodes: rows are batched, and a large import writes on a
   * connection of its own (SQLite: a worker thread) while this thread prepares the next rows.
   */
  importTransaction<T>(nodes: number, body: (tx: ImportTx) => Promise<T>): Promise<T>;
  /**
   * Runs `body` with the recorded bootstrap files (bootstrap-files.ts; written by ImportTx.recordBootstrap)
   * while no other caller runs one, in this process or (PostgreSQL) in any instance sharing the
   * database: one instance checks and imports, the others then see its records.
   */
  withBootstrapFiles<T>(body: (recorded: readonly BootstrapFile[]) => Promise<T>): Promise<T>;
  readonly versions: VersionReads;
  readonly schedules: ScheduleLog;
  readonly changes: ChangeLog;
  /** Webhook cursors and deliveries over the change events (webhook-log.ts); on the primary. */
  readonly webhooks: WebhookLog;
  readonly blobs: BlobReads;
  /** Increases on every committed write; the response cache keys on it. */
  generation(): Promise<number>;
  /**
   * A generation known without a round trip, recent enough for caches (this process's own writes at
   * once; other processes' within a short bound the backend documents); undefined when there is none.
   */
  generationHint?(): number | undefined;
  readonly caches?: StoreCaches;
}
