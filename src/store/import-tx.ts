// Store layer: the few primitives an import needs inside one transaction, implemented by each backend.
import type { BlobSpool, NodeRecord } from './rows.js';
import type { ChangedNode, NewChange } from './changes.js';
import type { BootstrapRecords } from './bootstrap-files.js';

/** A node row to insert, as read back (NodeRecord). */
export type InsertNode = NodeRecord;

/** Operations available while an import transaction is open. */
export interface ImportTx {
  pathOfId(workspace: string, id: string): Promise<string | undefined>;
  positionOf(workspace: string, path: string): Promise<number | undefined>;
  /** Highest sibling position under `parentPath`, or -1 when it has no children. */
  maxChildPosition(workspace: string, parentPath: string): Promise<number>;
  /** Deletes the node at `path` and its whole subtree; returns the number of rows removed. */
  deleteSubtree(workspace: string, path: string): Promise<number>;
  /**
   * The node at `path` and its descendants (id, path, type), at most `limit` of them, in any order:
   * what a `deleteSubtree` that follows will remove, for the change event.
   */
  subtreeNodes(workspace: string, path: string, limit: number): Promise<ChangedNode[]>;
  /** May be buffered until the next call that reads (backends that batch writes answer from memory). */
  insertNode(node: InsertNode): Promise<void>;
  /**
   * Optional hint: the ids of a subtree about to be written, so a backend can check them all in one
   * round trip instead of one `pathOfId` each.
   */
  prefetchIds?(workspace: string, ids: readonly string[]): Promise<void>;
  hasBlob(hash: string): Promise<boolean>;
  insertBlob(spool: BlobSpool): Promise<void>;
  /** Writes a change event (the store numbers and dates it). */
  recordChange(change: NewChange): Promise<void>;
  bumpGeneration(): Promise<void>;
  /**
   * Records the bootstrap files after the import's change events (`ownChanges` of them): throws a
   * BootstrapRaceError when more events than those came after `records.decidedAt`.
   */
  recordBootstrap(records: BootstrapRecords, ownChanges: number): Promise<void>;
}
