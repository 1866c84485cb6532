// Store layer: the contract every backend (SQLite, PostgreSQL) implements. Rows in, rows out,
// transactions; it knows nothing of users, HTTP or JSON rendering. Missing rows are `undefined`.
import type { Condition, StoreQuery, ValueKind } from '../query/ast.js';

export type ReadableCondition = Extract<Condition, { kind: 'readable' }>;
import type { BlobInfo, ImportDocument, ImportOptions, ImportResult, NodeRecord } from './rows.js';
import type { VersionInfo } from './versions.js';
import type { NodeOperation, NodeWriteOptions, NodeWriteResult } from './node-write.js';
import type { ChildPageRequest } from './child-pages.js';
import type { ChangeEvent } from './changes.js';
import type { ByteLruStats } from '../cache/byte-lru.js';
import type { QueryIndexStats } from './query-index/memory-budget.js';
import type { NewSchedule, Schedule, StateRequest, StateResult } from './publishing.js';
import type { WebhookLog } from './webhook-log.js';
import type { BootstrapFile } from './bootstrap-files.js';

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
}

export interface ContentStore {
  readonly capabilities: StoreCapabilities;

  /** Creates or migrates the schema; safe to call on every start. */
  open(): Promise<void>;
  close(): Promise<void>;
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

  /** Runs a query: the total and one page, from one consistent snapshot. */
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

  /** Writes all documents in one transaction: all of them become visible, or none (then it throws). */
  importDocuments(documents: readonly ImportDocument[], options: ImportOptions): Promise<ImportResult>;
  /**
   * Runs `body` with the recorded bootstrap files (bootstrap-files.ts; written by an import with
   * `options.bootstrap`) while no other caller runs one, in this process or (PostgreSQL) in any
   * instance sharing the database: one instance checks and imports, the others then see its records.
   */
  withBootstrapFiles<T>(body: (recorded: readonly BootstrapFile[]) => Promise<T>): Promise<T>;

  /**
   * The Nodes API's writes (create, update, delete, move) in ONE transaction with ONE change event of
   * kind 'nodes' and a generation bump; rules in write-nodes.ts. A refusal throws a NodeWriteError and
   * nothing is written.
   */
  writeNodes(workspace: string, operations: readonly NodeOperation[], options: NodeWriteOptions): Promise<NodeWriteResult>;

  /**
   * Publishes the node at `path` (not the root `/`): stores a frozen copy of it and its whole subtree
   * as the next version of that path (`1.0`, then `1.1`, …), in one transaction that also bumps the
   * generation. Concurrent publishes of one path get distinct names (a unique constraint backs the
   * numbering). Later imports never change the copy; the blobs it references stay readable (blobs are
   * never deleted). Undefined, and nothing written, when there is no node at `path`.
   */
  publish(workspace: string, path: string, by: string): Promise<VersionInfo | undefined>;
  /**
   * Publishing on (publishing.ts): copies the working node at `path` (with `recursive` its whole
   * subtree, else it and the descendants `takenAlong` accepts) into the published state, in ONE
   * transaction that also sets the working nodes' activation status, records a version (as `publish`)
   * with the request's comment, records the change events of both workspaces and bumps the generation.
   * Refusals throw a NodeWriteError (`missing`, `denied`, `parentNotPublished`) and write nothing.
   */
  publishState(request: StateRequest): Promise<StateResult>;
  /**
   * Removes the published node at `path` with its whole published subtree, and marks the working
   * subtree (when there is one) unpublished, in one transaction as publishState. `missing` when
   * neither state has a node there.
   */
  unpublishState(request: StateRequest): Promise<StateResult>;
  /** Stores a schedule; it runs when due (publishing/scheduler.ts), once whichever instance runs it. */
  addSchedule(schedule: NewSchedule): Promise<Schedule>;
  /** Every stored schedule (failed ones included), soonest first. */
  listSchedules(): Promise<Schedule[]>;
  /** Removes a schedule; the one removed, or undefined when there was none of that id. */
  cancelSchedule(id: string): Promise<Schedule | undefined>;
  /** Schedules due at `now` (ISO instant) that have not failed, soonest first, at most `limit`. */
  dueSchedules(now: string, limit: number): Promise<Schedule[]>;
  /** Records why a schedule's run was refused; it stays listed and does not run again. */
  failSchedule(id: string, error: string): Promise<void>;
  /** The versions of `path`, oldest first; empty when it has none (whether or not the node still exists). */
  listVersions(workspace: string, path: string): Promise<VersionInfo[]>;
  /**
   * The frozen copy of version `name` of `path`, shaped as `getSubtree` returns the live node: the node
   * and its descendants down to `depth` levels, ordered by depth then natural order, with the paths and
   * ids they had when published. Undefined when `path` has no version of that name.
   */
  getVersionSubtree(workspace: string, path: string, name: string, depth: number): Promise<NodeRecord[] | undefined>;

  /**
   * Change events with a sequence number above `sequence`, oldest first, at most `limit` of them
   * (clamped to 1..1,000). Every committed import records one per workspace it changed, every publish
   * one, in the write's own transaction (see changes.ts).
   */
  changesSince(sequence: number, limit: number): Promise<ChangeEvent[]>;
  /** The sequence number of the newest change event; 0 when there is none. */
  latestChange(): Promise<number>;
  /** Webhook cursors and deliveries over the change events (webhook-log.ts); on the primary. */
  readonly webhooks: WebhookLog;

  getBlobInfo(hash: string): Promise<BlobInfo | undefined>;
  /** Reads `length` bytes of a blob from `offset`. */
  readBlob(hash: string, offset: number, length: number): Promise<Buffer>;

  /** Increases on every committed write; the response cache keys on it. */
  generation(): Promise<number>;
  /**
   * A generation known without a round trip, recent enough for caches (this process's own writes at
   * once; other processes' within a short bound the backend documents); undefined when there is none.
   */
  generationHint?(): number | undefined;
  /**
   * Re-reads and persists the query index's segments of these workspaces that have any persisted (after
   * an import changed them, so the next instance to start does not read them from SQL); the number of
   * segments written. Stores without persisted segments have none to refresh.
   */
  refreshQueryIndex?(workspaces: readonly string[]): Promise<number>;
  /** What the store's byte-bounded caches hold (for tests and diagnostics). */
  memoryStats?(): StoreMemoryStats;
}
