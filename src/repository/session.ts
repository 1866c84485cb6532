// Repository layer: a caller's view of the content. Every read of delivery goes through a Session, so
// that workspace permissions (added with the security capability) filter nodes in one place, below
// rendering: a node the caller may not read is, to everything above, a node that does not exist.
import type { ContentStore } from '../store/content-store.js';
import type { NodeRecord } from '../store/rows.js';
import type { NodeTypeRegistry } from './node-types.js';

export interface Session {
  readonly types: NodeTypeRegistry;
  getNode(workspace: string, path: string): Promise<NodeRecord | undefined>;
  getNodesByIds(workspace: string, ids: readonly string[]): Promise<NodeRecord[]>;
  /** The node and its descendants down to `depth` levels, ordered by depth then natural order. */
  getSubtree(workspace: string, path: string, depth: number): Promise<NodeRecord[]>;
}

/** The content repository: hands out sessions over one store. */
export class Repository {
  constructor(readonly store: ContentStore, readonly types: NodeTypeRegistry) {}

  /** True when the store answers (for health probes). */
  ping(): Promise<boolean> {
    return this.store.ping();
  }

  /** A session that may read everything (no workspace permissions apply). */
  systemSession(): Session {
    const { store, types } = this;
    return {
      types,
      getNode: (ws, path) => store.getNode(ws, path),
      getNodesByIds: (ws, ids) => store.getNodesByIds(ws, ids),
      getSubtree: (ws, path, depth) => store.getSubtree(ws, path, depth),
    };
  }
}
