// Store layer: what a write may do inside one transaction (ContentStore.transaction): read what the
// transaction sees, put, replace, move and remove node rows, append the change event, record a version,
// claim a schedule and bump the generation. Each backend implements it; the rules that use it (Nodes
// API writes, publish, unpublish) are in repository/.
import type { InsertNode } from './import-tx.js';
import type { ChangedNode, NewChange } from './changes.js';
import type { NodeRecord } from './rows.js';
import type { VersionInfo, VersionSource } from './versions.js';

/** A sibling as the ordering of a parent's children needs it. */
export interface SiblingRow {
  readonly id: string;
  readonly path: string;
  readonly name: string;
  readonly type: string;
  readonly position: number;
}

/** Operations available while a nodes write transaction is open (each backend implements them). */
export interface NodeRowWrites {
  getNode(workspace: string, path: string): Promise<NodeRecord | undefined>;
  /** Those of `ids` that belong to a node of the workspace (one round trip). */
  idsInUse(workspace: string, ids: readonly string[]): Promise<Set<string>>;
  /** Highest sibling position under `parentPath`, or -1 when it has no children. */
  maxChildPosition(workspace: string, parentPath: string): Promise<number>;
  /** The children of `parentPath` in natural order (position, then name). */
  children(workspace: string, parentPath: string): Promise<SiblingRow[]>;
  insertNode(node: InsertNode): Promise<void>;
  /** Rewrites the node at `node.path` (same id, path and position): type, mixins, properties and their index rows. */
  replaceNode(node: InsertNode): Promise<void>;
  /** Moves the node at `from` and its descendants to `to` (whose parent exists and which holds no node); sets its position. */
  moveSubtree(workspace: string, from: string, to: string, position: number): Promise<void>;
  setPosition(workspace: string, path: string, position: number): Promise<void>;
  /** Deletes the node at `path` and its whole subtree; returns the number of rows removed. */
  deleteSubtree(workspace: string, path: string): Promise<number>;
  /** The node at `path` and its descendants (id, path, type), at most `limit` of them. */
  subtreeNodes(workspace: string, path: string, limit: number): Promise<ChangedNode[]>;
  recordChange(change: NewChange): Promise<void>;
  bumpGeneration(): Promise<void>;
}

/** What a publish or unpublish needs besides the Nodes API's primitives (each backend implements them). */
export interface WriteTx extends NodeRowWrites {
  /** The node at `path` and all its descendants, ordered by depth then natural order. */
  subtree(workspace: string, path: string): Promise<NodeRecord[]>;
  /** The children of every one of `parents`, in one round trip (in no particular order). */
  childrenOf(workspace: string, parents: readonly string[]): Promise<NodeRecord[]>;
  /** replaceNode of each node, in as few round trips as the backend can (a publish marks a whole subtree). */
  replaceNodes(nodes: readonly NodeRecord[]): Promise<void>;
  /** Id → path of the nodes of the workspace holding these ids. */
  pathsOfIds(workspace: string, ids: readonly string[]): Promise<Map<string, string>>;
  /**
   * Records the next version of `path` (as ContentStore.publish) without its event or a generation bump,
   * frozen from `source` (default: the workspace's own subtree).
   */
  recordVersion(workspace: string, path: string, by: string, comment: string | undefined, source?: VersionSource): Promise<VersionInfo | undefined>;
  /** Deletes the schedule; false when it was not there (already run or cancelled). */
  claimSchedule(id: string): Promise<boolean>;
}
