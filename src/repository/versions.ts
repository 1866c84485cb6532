// Repository layer: content versions as a caller sees them. A version is reached through its node:
// only while the node exists and the caller may read it (else the node and its versions look alike:
// absent), and the frozen copy is filtered by the caller's current read rules, as the live subtree is.
// In the published state a version also shows nothing that is not public now: a subpage frozen in a
// version is shown only while it is published (an unpublished page never comes back through a version,
// and neither does a page that was a draft when an older version froze the working subtree).
import type { ContentStore } from '../store/content-store.js';
import type { NodeRecord } from '../store/rows.js';
import type { VersionInfo } from '../store/versions.js';
import type { ReadAccess } from './session.js';
import { isPublishedWorkspace, logicalWorkspace } from '../model/workspaces.js';

/** What reading one version of a node found. `node` is the live node the version belongs to. */
export type VersionRead =
  /** No node at the path, or one the caller may not read: nothing about its versions is revealed. */
  | { readonly kind: 'noNode' }
  | { readonly kind: 'noVersion'; readonly node: NodeRecord }
  /** `rows`: the frozen copy, in getSubtree's shape (the version's own node first), readable rows only. */
  | { readonly kind: 'found'; readonly node: NodeRecord; readonly rows: readonly NodeRecord[] };

const NO_NODE: VersionRead = Object.freeze({ kind: 'noNode' });

/** `access` null = the caller reads everything (system sessions, bypassWorkspaceAcls). */
async function liveNode(store: ContentStore, access: ReadAccess | null, ws: string, path: string): Promise<NodeRecord | undefined> {
  if (path === '/') return undefined;
  if (access !== null && access.rulesFor(ws) !== null && !access.canRead(ws, path)) return undefined;
  return store.reads.getNode(ws, path);
}

/**
 * `takenAlong`: node types that belong to their parent's content (repository/publish-rules.ts); the
 * other nodes below a version's own node are content of their own (subpages), public only while published.
 */
export async function readVersion(
  store: ContentStore, access: ReadAccess | null, ws: string, path: string, name: string, depth: number,
  takenAlong: (type: string) => boolean,
): Promise<VersionRead> {
  const node = await liveNode(store, access, ws, path);
  if (node === undefined) return NO_NODE;
  // Versions belong to the workspace, whichever state the live node was found in.
  const frozen = await store.versions.subtree(logicalWorkspace(ws), path, name, depth);
  if (frozen === undefined) return { kind: 'noVersion', node };
  const rows = isPublishedWorkspace(ws) ? await stillPublished(store, ws, path, depth, frozen, takenAlong) : frozen;
  // Today's rules on the copy's paths: a subpage denied now stays hidden in every old version too.
  const visible = access === null || access.rulesFor(ws) === null ? rows : rows.filter((r) => access.canRead(ws, r.path));
  return { kind: 'found', node, rows: visible };
}

/**
 * The frozen rows without the subpages that are not published now, and everything below them. Content
 * nodes (areas, components) follow their page: a component removed since still shows in the old version.
 */
async function stillPublished(
  store: ContentStore, published: string, path: string, depth: number, frozen: readonly NodeRecord[],
  takenAlong: (type: string) => boolean,
): Promise<NodeRecord[]> {
  if (frozen.length <= 1) return [...frozen];
  const live = new Set((await store.reads.getSubtree(published, path, depth)).map((r) => r.path));
  const hidden = new Set<string>();
  const out: NodeRecord[] = [];
  // Rows come depth first, so a parent is decided before its children.
  for (const r of frozen) {
    const gone = r.path !== path && (hidden.has(r.parentPath) || (!takenAlong(r.type) && !live.has(r.path)));
    if (gone) hidden.add(r.path);
    else out.push(r);
  }
  return out;
}

/** The versions of a node, oldest first; undefined when the node is missing or the caller may not read it. */
export async function listVersions(store: ContentStore, access: ReadAccess | null, ws: string, path: string): Promise<VersionInfo[] | undefined> {
  const node = await liveNode(store, access, ws, path);
  return node === undefined ? undefined : store.versions.list(logicalWorkspace(ws), path);
}
