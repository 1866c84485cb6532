// Store layer: the few primitives an import needs inside one transaction, implemented by each backend.
import type { BlobSpool, NodeRecord } from './rows.js';

export interface InsertNode {
  readonly id: string;
  readonly workspace: string;
  readonly path: string;
  readonly parentPath: string;
  readonly name: string;
  readonly depth: number;
  readonly position: number;
  readonly type: string;
  readonly mixins: readonly string[];
  readonly properties: NodeRecord['properties'];
}

/** Operations available while an import transaction is open. */
export interface ImportTx {
  pathOfId(workspace: string, id: string): Promise<string | undefined>;
  positionOf(workspace: string, path: string): Promise<number | undefined>;
  /** Highest sibling position under `parentPath`, or -1 when it has no children. */
  maxChildPosition(workspace: string, parentPath: string): Promise<number>;
  /** Deletes the node at `path` and its whole subtree; returns the number of rows removed. */
  deleteSubtree(workspace: string, path: string): Promise<number>;
  insertNode(node: InsertNode): Promise<void>;
  hasBlob(hash: string): Promise<boolean>;
  insertBlob(spool: BlobSpool): Promise<void>;
  bumpGeneration(): Promise<void>;
}
