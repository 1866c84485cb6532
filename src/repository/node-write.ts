// Repository layer: the Nodes API's write operations (create, update, delete, move/reorder), the
// caller's guard and options, and the error a refused write throws. The rules are in write-nodes.ts;
// they run over the store's WriteTx (store/write-tx.ts).
import type { StoredProperty } from '../model/property-type.js';
import type { NodeRecord } from '../store/rows.js';

/** A node of a request body, validated and typed (names canonical, values typed as imports type them). */
export interface NodeInput {
  readonly name: string;
  /** Primary type (canonical); on create `cms:contentNode` when absent, on update unchanged when absent. */
  readonly type?: string;
  /** Mixin types (canonical); on update unchanged when absent. */
  readonly mixins?: readonly string[];
  /** On create: the node's UUID (fresh when absent); on update: must be the node's own. */
  readonly id?: string;
  readonly properties: readonly StoredProperty[];
  readonly children: readonly NodeInput[];
  /** Where this node sits in the request body, as a prefix of field names (empty for the body itself, `nodes[1].` for a child), for error messages. */
  readonly field: string;
}

export type NodeOperation =
  /** A new child of `parentPath`, last among its siblings, with its descendants. */
  | { readonly op: 'create'; readonly parentPath: string; readonly node: NodeInput }
  /**
   * Sets or adds the properties given (others stay), removes `remove`, sets type/mixins when given;
   * each child of `node` is updated when one of that name exists, else created (last among siblings).
   */
  | { readonly op: 'update'; readonly path: string; readonly node: NodeInput; readonly remove?: readonly string[] }
  /** The node and its whole subtree. */
  | { readonly op: 'delete'; readonly path: string }
  /**
   * Moves (or renames) the node with its subtree to `to` (an absolute path whose parent exists;
   * `to` = `path` keeps it where it is), then places it before the sibling named `before`, or last
   * among its new siblings when `before` is undefined and the node changed parent.
   */
  | { readonly op: 'move'; readonly path: string; readonly to: string; readonly before?: string };

/**
 * Asked inside the transaction, so that the answer and the write agree. The HTTP layer passes the
 * caller's workspace permissions (SecurityService.writeAccess).
 */
export interface NodeWriteGuard {
  canRead(workspace: string, path: string): boolean;
  /** readWrite on this node. */
  mayWrite(workspace: string, path: string): boolean;
  /** readWrite on this node and everything that is or could be below it. */
  mayReplaceSubtree(workspace: string, path: string): boolean;
}

export interface NodeWriteOptions {
  /** Who writes: `cms:createdBy` / `cms:lastModifiedBy` and the change event's `by`. */
  readonly by: string;
  readonly guard?: NodeWriteGuard;
  /**
   * Optimistic concurrency: the node at `path` must exist (readable) and satisfy `matches` (the HTTP
   * layer compares its ETag's state part); decided inside the transaction, before anything is written.
   */
  readonly ifMatch?: { readonly path: string; readonly matches: (node: NodeRecord) => boolean };
  /** The write's instant (ISO 8601 with milliseconds and offset); now when absent. */
  readonly now?: string;
  /**
   * Publishing is on (publishing.ts): a changed node that was published becomes `modified`, and the
   * activation properties are maintained like the others (a body's values for them are ignored).
   */
  readonly publishing?: boolean;
}

export interface NodeWriteResult {
  /** The node the request named (the created node for a create), as stored; undefined after a delete. */
  readonly node?: NodeRecord;
  /** Nodes created, changed, moved or removed (as in the change event, before truncation). */
  readonly count: number;
}

export type NodeWriteReason =
  /** No node there, or one the caller may not read (never told apart). */
  | 'missing'
  /** A sibling of that name exists. */
  | 'exists'
  /** The UUID belongs to another node (which is not named). */
  | 'identifierInUse'
  /** If-Match did not match the node's current state. */
  | 'stale'
  /** The caller's workspace permissions do not allow it (decided by the rules, never by hidden nodes). */
  | 'denied'
  /** A request that cannot be done (a move into its own subtree, an identifier that is not the node's…). */
  | 'invalid'
  /** A publish of a node whose parent has no published state (publishing.ts). */
  | 'parentNotPublished';

export class NodeWriteError extends Error {
  constructor(readonly reason: NodeWriteReason, message: string) {
    super(message);
    this.name = 'NodeWriteError';
  }
}
