// Repository layer: a caller's view of the content. Every read of delivery goes through a Session, so
// that workspace permissions (added with the security capability) filter nodes in one place, below
// rendering: a node the caller may not read is, to everything above, a node that does not exist.
import type { ContentStore } from '../store/content-store.js';
import type { NodeRecord } from '../store/rows.js';
import type { NodeTypeRegistry } from './node-types.js';
import type { QueryResult } from '../store/content-store.js';
import type { Condition, QuerySpec } from '../query/ast.js';
import { buildStoreQuery } from './build-query.js';

export interface Session {
  readonly types: NodeTypeRegistry;
  getNode(workspace: string, path: string): Promise<NodeRecord | undefined>;
  getNodesByIds(workspace: string, ids: readonly string[]): Promise<NodeRecord[]>;
  /** The node and its descendants down to `depth` levels, ordered by depth then natural order. */
  getSubtree(workspace: string, path: string, depth: number): Promise<NodeRecord[]>;
  /** The descendants of each path down to `depth` levels (for rendering query results). */
  getSubtrees(workspace: string, paths: readonly string[], depth: number): Promise<NodeRecord[]>;
  /** Query nodes: filter values typed by the stored kinds, then run by the store. */
  query(spec: QuerySpec, extra?: readonly Condition[]): Promise<QueryResult>;
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
      getSubtrees: (ws, paths, depth) => store.getSubtrees(ws, paths, depth),
      query: (spec, extra) => runQuery(store, spec, extra ?? []),
    };
  }
}

async function runQuery(store: ContentStore, spec: QuerySpec, extra: readonly Condition[]): Promise<QueryResult> {
  const names = new Set<string>();
  for (const f of spec.filters) if (f.kind === 'filter' && f.target.kind === 'property') names.add(f.target.name);
  const kinds = await store.propertyKinds(spec.workspace, [...names]);
  const typesPresent = spec.typeFilter === null ? [] : await store.nodeTypesPresent(spec.workspace);
  const q = buildStoreQuery(spec, { kindsOf: (n) => kinds.get(n) ?? [], typesPresent }, extra);
  return store.query(q);
}
