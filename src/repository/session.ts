// Repository layer: a caller's view of the content. Every read of delivery goes through a Session,
// so workspace permissions filter nodes in one place, below rendering: a node the caller may not read
// is, to everything above, a node that does not exist (reads, children, queries, totals, look-ups).
import type { ContentStore, QueryResult } from '../store/content-store.js';
import type { NodeRecord } from '../store/rows.js';
import type { Condition, QuerySpec } from '../query/ast.js';
import type { ReadRule } from '../query/glob.js';
import type { NodeTypeRegistry } from './node-types.js';
import { buildStoreQuery } from './build-query.js';
import { withoutHiddenWordMatches } from './hidden-full-text.js';
import { SubtreeCache, type SubtreeCacheOptions } from './subtree-cache.js';
import { listVersions, readVersion, type VersionRead } from './versions.js';
import type { VersionInfo } from '../store/versions.js';
import { readChildPages, type ChildPage, type ChildPageRequest } from '../store/child-pages.js';
import { ChangeFollower } from './change-follower.js';
import type { Dependencies } from './dependencies.js';
import { recordingSession } from './recording-session.js';
import { takenAlongBy } from './publish-rules.js';
import { logicalWorkspace, publishedWorkspace } from '../model/workspaces.js';

/**
 * Which content a session reads (petal.yaml `publishing`): the working content (what imports and the
 * Nodes API change; everything when publishing is off), or the published content.
 */
export type ContentState = 'working' | 'published';

export interface Session {
  readonly types: NodeTypeRegistry;
  getNode(workspace: string, path: string): Promise<NodeRecord | undefined>;
  getNodesByIds(workspace: string, ids: readonly string[]): Promise<NodeRecord[]>;
  /** The node and its descendants down to `depth` levels, ordered by depth then natural order. */
  getSubtree(workspace: string, path: string, depth: number): Promise<NodeRecord[]>;
  /** The descendants of each path down to `depth` levels (for rendering query results). */
  getSubtrees(workspace: string, paths: readonly string[], depth: number): Promise<NodeRecord[]>;
  /**
   * A page of each parent's children (at most `limit` each, natural order), for readers of folders of any
   * size. Children the caller may not read are left out, and so are all children of a parent it may not
   * read; a page may then be short or empty while `next` still points further: follow `next`, not the count.
   */
  getChildrenPages(workspace: string, parents: readonly ChildPageRequest[], limit: number): Promise<ChildPage[]>;
  /** Query nodes: filter values typed by the stored kinds, then run by the store. */
  query(spec: QuerySpec, extra?: readonly Condition[]): Promise<QueryResult>;
  /** Version `name` of the node at `path` down to `depth` levels, reached through the node (versions.ts). */
  readVersion(workspace: string, path: string, name: string, depth: number): Promise<VersionRead>;
  /** The node's versions, oldest first; undefined when the node is missing or not readable. */
  listVersions(workspace: string, path: string): Promise<VersionInfo[] | undefined>;
}

/**
 * What a caller may read, decided by the security layer. `rulesFor` gives the ordered rules of a
 * workspace, or null when the caller reads all of it (then no per-node check runs at all).
 */
export interface ReadAccess {
  rulesFor(workspace: string): readonly ReadRule[] | null;
  canRead(workspace: string, path: string): boolean;
}

/** The content repository: hands out sessions over one store. */
export class Repository {
  readonly #subtrees: SubtreeCache;
  readonly #takenAlong: (type: string) => boolean;
  /**
   * The store's change events, read once for everything of this process that follows them (the caches,
   * and where a server passes its own, the purger, the webhook sender and the metrics).
   */
  readonly changes: ChangeFollower;

  constructor(
    readonly store: ContentStore, readonly types: NodeTypeRegistry, cache: SubtreeCacheOptions = {},
    changes: ChangeFollower = new ChangeFollower(store),
  ) {
    this.changes = changes;
    this.#subtrees = new SubtreeCache(store, this.changes, cache);
    this.#takenAlong = takenAlongBy(types);
  }

  /** What the subtree cache holds against its byte budget. */
  subtreeCacheStats(): { entries: number; bytes: number; maxBytes: number } {
    return this.#subtrees.stats();
  }

  /** True when the store answers (for health probes). */
  ping(): Promise<boolean> {
    return this.store.reads.ping();
  }

  /**
   * A session that may read everything (endpoints with `bypassWorkspaceAcls`, internal use); with
   * `deps`, every read is recorded there (what a cached answer depends on).
   */
  systemSession(deps?: Dependencies, state: ContentState = 'working'): Session {
    if (state === 'published') return inPublishedState(this.#systemSession(deps));
    return this.#systemSession(deps);
  }

  #systemSession(deps: Dependencies | undefined): Session {
    const { store, types } = this;
    const takenAlong = this.#takenAlong;
    const subtrees = this.#subtrees;
    return recordingSession({
      types,
      getNode: (ws, path) => store.reads.getNode(ws, path),
      getNodesByIds: (ws, ids) => store.reads.getNodesByIds(ws, ids),
      getSubtree: (ws, path, depth) => subtrees.getSubtree(ws, path, depth),
      getSubtrees: (ws, paths, depth) => store.reads.getSubtrees(ws, paths, depth),
      getChildrenPages: (ws, parents, limit) => readChildPages(store.reads, ws, parents, limit),
      query: (spec, extra) => runQuery(store, spec, extra ?? [], null),
      readVersion: (ws, path, name, depth) => readVersion(store, null, ws, path, name, depth, takenAlong),
      listVersions: (ws, path) => listVersions(store, null, ws, path),
    }, deps);
  }

  /** A session limited to what `access` lets the caller read; `deps` as for `systemSession`. */
  session(access: ReadAccess, deps?: Dependencies, state: ContentState = 'working'): Session {
    if (state === 'published') return inPublishedState(this.#session(storedNamesAccess(access), deps));
    return this.#session(access, deps);
  }

  #session(access: ReadAccess, deps: Dependencies | undefined): Session {
    const { store, types } = this;
    const takenAlong = this.#takenAlong;
    const subtrees = this.#subtrees;
    const visible = (ws: string, rows: NodeRecord[]): NodeRecord[] =>
      access.rulesFor(ws) === null ? rows : rows.filter((r) => access.canRead(ws, r.path));
    return recordingSession({
      types,
      getNode: async (ws, path) => {
        if (access.rulesFor(ws) !== null && !access.canRead(ws, path)) return undefined;
        return store.reads.getNode(ws, path);
      },
      getNodesByIds: async (ws, ids) => visible(ws, await store.reads.getNodesByIds(ws, ids)),
      getSubtree: async (ws, path, depth) => {
        if (path !== '/' && access.rulesFor(ws) !== null && !access.canRead(ws, path)) return [];
        return visible(ws, await subtrees.getSubtree(ws, path, depth));
      },
      getSubtrees: async (ws, paths, depth) => visible(ws, await store.reads.getSubtrees(ws, paths, depth)),
      getChildrenPages: async (ws, parents, limit) => {
        if (access.rulesFor(ws) === null) return readChildPages(store.reads, ws, parents, limit);
        const hidden = (path: string) => path !== '/' && !access.canRead(ws, path);
        // A hidden parent is not read at all: its page is empty and ends, as for a missing node.
        const pages = await readChildPages(store.reads, ws, parents.filter((p) => !hidden(p.parentPath)), limit, (r) => !hidden(r.path));
        const byParent = new Map(pages.map((p) => [p.parentPath, p]));
        return [...new Set(parents.map((p) => p.parentPath))]
          .map((parentPath) => byParent.get(parentPath) ?? { parentPath, nodes: [], next: undefined });
      },
      query: (spec, extra) => {
        const rules = access.rulesFor(spec.workspace);
        return runQuery(store, spec, extra ?? [], rules === null ? null : { kind: 'readable', rules });
      },
      readVersion: (ws, path, name, depth) => readVersion(store, access, ws, path, name, depth, takenAlong),
      listVersions: (ws, path) => listVersions(store, access, ws, path),
    }, deps);
  }
}

/**
 * A session of the published state: every workspace a caller names is read as its published twin
 * (store/publishing.ts). Below this, names are the stored ones, so the recorded dependencies match the
 * change events of the published workspaces, and references resolve within the published state.
 */
function inPublishedState(session: Session): Session {
  const ws = publishedWorkspace;
  return {
    types: session.types,
    getNode: (w, path) => session.getNode(ws(w), path),
    getNodesByIds: (w, ids) => session.getNodesByIds(ws(w), ids),
    getSubtree: (w, path, depth) => session.getSubtree(ws(w), path, depth),
    getSubtrees: (w, paths, depth) => session.getSubtrees(ws(w), paths, depth),
    getChildrenPages: (w, parents, limit) => session.getChildrenPages(ws(w), parents, limit),
    query: (spec, extra) => session.query({ ...spec, workspace: ws(spec.workspace) }, extra),
    readVersion: (w, path, name, depth) => session.readVersion(ws(w), path, name, depth),
    listVersions: (w, path) => session.listVersions(ws(w), path),
  };
}

/** The caller's permissions asked with stored names: a published workspace has its working one's rules. */
function storedNamesAccess(access: ReadAccess): ReadAccess {
  return {
    rulesFor: (ws) => access.rulesFor(logicalWorkspace(ws)),
    canRead: (ws, path) => access.canRead(logicalWorkspace(ws), path),
  };
}

async function runQuery(
  store: ContentStore,
  spec: QuerySpec,
  extra: readonly Condition[],
  readable: Extract<Condition, { kind: 'readable' }> | null,
): Promise<QueryResult> {
  const names = new Set<string>();
  for (const f of spec.filters) {
    if (f.kind === 'filter' && f.target.kind === 'property' && spec.hiddenProperties?.has(f.target.name) !== true) names.add(f.target.name);
  }
  const kinds = await store.reads.propertyKinds(spec.workspace, [...names], readable ?? undefined);
  const typesPresent = spec.typeFilter === null ? [] : await store.reads.nodeTypesPresent(spec.workspace);
  const conditions = readable === null ? extra : [readable, ...extra];
  const q = buildStoreQuery(spec, { kindsOf: (n) => kinds.get(n) ?? [], typesPresent }, conditions);
  // Matches owed only to hidden properties' words are left out before the store counts and pages.
  return store.reads.query(q.fullTextHidden === undefined ? q : await withoutHiddenWordMatches(q, (x) => store.reads.query(x)));
}
