// Repository layer: publish and unpublish (publishing.ts) over the store's WriteTx, inside the
// caller's transaction: the published state of workspace W is the workspace W@published, written
// with the same primitives as the Nodes API's writes. Refusals throw a NodeWriteError; any failure
// rolls the whole change back. One generation bump. A node the caller may not read is never named.
import { parentOf } from '../model/paths.js';
import type { StoredProperty } from '../model/property-type.js';
import { CHANGE_NODE_LIMIT, type ChangedNode, type NewChange } from '../store/changes.js';
import { NodeChangeList } from './node-change-list.js';
import { NodeWriteError } from './node-write.js';
import type { WriteTx } from '../store/write-tx.js';
import { ACTIVATION_STATUS, LAST_ACTIVATED, LAST_ACTIVATED_BY, LAST_ACTIVATED_VERSION, STATUS, type StateRequest, type StateResult } from './publishing.js';
import { isPublishedWorkspace, publishedWorkspace } from '../model/workspaces.js';
import type { NodeRecord } from '../store/rows.js';
import type { VersionInfo, VersionSource } from '../store/versions.js';
import { storedNow } from './write-nodes.js';

interface Context {
  readonly tx: WriteTx;
  readonly r: StateRequest;
  readonly ws: string;
  readonly published: string;
  readonly now: string;
}

const UNCLAIMED: StateResult = { claimed: false, nodes: 0 };

function context(tx: WriteTx, r: StateRequest): Context {
  // Its own published state would be itself: the copy would delete what it copies.
  if (isPublishedWorkspace(r.workspace)) throw new NodeWriteError('invalid', `${r.workspace} is a published state, not a workspace`);
  return { tx, r, ws: r.workspace, published: publishedWorkspace(r.workspace), now: r.now ?? storedNow() };
}

/** The working node at the request's path, if the caller may read it (a hidden node is missing, exactly). */
async function readable(c: Context): Promise<NodeRecord | undefined> {
  if (!visible(c, c.r.path)) return undefined;
  return c.tx.getNode(c.ws, c.r.path);
}

/** A node the caller may not read is, to its publish, as absent as none: never copied, removed or named. */
function visible(c: Context, path: string): boolean {
  return c.r.guard === undefined || c.r.guard.canRead(c.ws, path);
}

/** Refuses a node the caller may read (only such a node is ever named). */
function deny(c: Context, path: string, allowed: boolean | undefined): void {
  if (allowed === false) throw new NodeWriteError('denied', `You may not publish or unpublish ${c.ws}:${path}`);
}

/**
 * Removing a published subtree needs readWrite on all of it by the rules alone (mayReplaceSubtree):
 * then nothing hidden lies in it, and whether something does never changes the answer.
 */
async function removeSubtree(c: Context, removed: Removals, at: string, named: string): Promise<void> {
  deny(c, named, c.r.guard?.mayReplaceSubtree(c.ws, at));
  await removed.subtree(c, at);
}

export async function applyPublish(tx: WriteTx, request: StateRequest): Promise<StateResult> {
  const c = context(tx, request);
  if (request.schedule !== undefined && !(await tx.claimSchedule(request.schedule))) return UNCLAIMED;
  const path = request.path;
  if (path === '/') throw new NodeWriteError('invalid', 'The root / cannot be published; publish the nodes below it');
  const root = await readable(c);
  if (root === undefined) throw new NodeWriteError('missing', `No node at ${path} in workspace ${c.ws}`);
  await parentPublished(c);
  const guard = request.guard;
  // The whole subtree by the rules, before anything below the node is read: a hidden node below it
  // refuses it exactly as the rule that hides it does when there is none (no existence oracle).
  if (request.recursive) deny(c, path, guard?.mayReplaceSubtree(c.ws, path));
  const nodes = request.recursive ? await tx.subtree(c.ws, path) : await takenAlong(c, root);
  // Content taken along is replaced with its subtree: all of it must be the caller's by the rules, so
  // that nothing hidden lies below what it copies (what is hidden beside it is left out, see takenAlong).
  for (const n of nodes) {
    deny(c, n.path, guard?.mayWrite(c.ws, n.path));
    if (!request.recursive && n !== root) deny(c, n.path, guard?.mayReplaceSubtree(c.ws, n.path));
  }

  const removed = new Removals();
  const current = await tx.getNode(c.published, path);
  // What is kept of the published subtree: a non-recursive publish of the same node keeps its subpages.
  const kept = !request.recursive && current !== undefined && current.id === root.id;
  if (current !== undefined && !kept) await removeSubtree(c, removed, path, path);
  if (kept) {
    const children = await tx.children(c.published, path);
    const replaced = new Set(nodes.filter((n) => n.parentPath === path).map((n) => n.path));
    for (const child of children) {
      // Published content the caller cannot see stays as it is, as its working copy stays unpublished.
      if (!visible(c, child.path)) continue;
      if (replaced.has(child.path) || request.takenAlong(child.type)) await removeSubtree(c, removed, child.path, child.path);
    }
  }
  // Ids are unique per workspace: a node moved in the working state leaves its old published copy behind.
  // Where that copy lies may be hidden: a refusal names the node published, never that place.
  const holders = await tx.pathsOfIds(c.published, nodes.map((n) => n.id));
  const pathOf = new Map(nodes.map((n) => [n.id, n.path]));
  for (const [id, at] of holders) if (!(kept && id === root.id && at === path)) await removeSubtree(c, removed, at, pathOf.get(id) ?? path);
  if (holders.size > 0) await parentPublished(c); // a holder may have been an ancestor of the path

  const stamp: StoredProperty[] = [
    [ACTIVATION_STATUS, 'String', STATUS.published], [LAST_ACTIVATED, 'Date', c.now], [LAST_ACTIVATED_BY, 'String', request.by],
  ];
  const working = new NodeChangeList();
  const marked = nodes.map((n) => ({ ...n, properties: withProperties(n.properties, stamp) }));
  await tx.replaceNodes(marked);
  for (const record of marked) working.changed(record);
  const copies = new NodeChangeList();
  let rootCopy: NodeRecord | undefined;
  for (const n of nodes) {
    const record: NodeRecord = { ...n, workspace: c.published, properties: withProperties(n.properties, stamp) };
    if (n.path === path) rootCopy = record;
    if (kept && n === root) {
      await tx.replaceNode(record);
      if (current.position !== n.position) await tx.setPosition(c.published, path, n.position);
      copies.changed(record);
    } else {
      await tx.insertNode(record);
      removed.recreated(copies, record);
    }
  }
  removed.rest(copies);
  // The version freezes what this publish made public, as published: never a draft, nor subpages kept
  // from earlier publishes (each is public through its own publish and its own versions).
  const source: VersionSource = { workspace: c.published, ...(request.recursive ? {} : { ids: nodes.map((n) => n.id) }) };
  const version = await tx.recordVersion(c.ws, path, request.by, request.comment, source);
  if (version === undefined || rootCopy === undefined) throw new Error(`publish: the version of ${c.ws}:${path} was not recorded`);
  await tx.replaceNode({ ...rootCopy, properties: withProperties(rootCopy.properties, [[LAST_ACTIVATED_VERSION, 'String', version.name]]) });
  await record(tx, copies.change(c.published, request.by), 'publish', version.name);
  // The working nodes' activation marks: a publish's event there, not a content change ('nodes').
  await record(tx, working.change(c.ws, request.by), 'publish');
  await tx.recordChange(publishChange(version, root.type));
  await tx.bumpGeneration();
  return { claimed: true, nodes: nodes.length, version };
}

/**
 * A version of `path` (publishing off: `petal publish`) over a WriteTx: the version, its event and the generation bump; undefined, and
 * nothing written, when there is no node at `path`.
 */
export async function applyVersion(tx: WriteTx, workspace: string, path: string, by: string): Promise<VersionInfo | undefined> {
  const node = await tx.getNode(workspace, path);
  const version = node === undefined ? undefined : await tx.recordVersion(workspace, path, by, undefined);
  if (node === undefined || version === undefined) return undefined;
  await tx.recordChange(publishChange(version, node.type));
  await tx.bumpGeneration();
  return version;
}

export async function applyUnpublish(tx: WriteTx, request: StateRequest): Promise<StateResult> {
  const c = context(tx, request);
  if (request.schedule !== undefined && !(await tx.claimSchedule(request.schedule))) return UNCLAIMED;
  const path = request.path;
  if (path === '/') throw new NodeWriteError('invalid', 'The root / cannot be unpublished; unpublish the nodes below it');
  const hidden = request.guard !== undefined && !request.guard.canRead(c.ws, path);
  const current = hidden ? undefined : await tx.getNode(c.published, path);
  const root = await readable(c);
  if (current === undefined && root === undefined) throw new NodeWriteError('missing', `No node at ${path} in workspace ${c.ws}`);
  deny(c, path, request.guard?.mayReplaceSubtree(c.ws, path));

  const removed = new Removals();
  if (current !== undefined) await removed.subtree(c, path);
  const working = new NodeChangeList();
  if (root !== undefined) {
    const stamp: StoredProperty[] = [
      [ACTIVATION_STATUS, 'String', STATUS.unpublished], [LAST_ACTIVATED, 'Date', c.now], [LAST_ACTIVATED_BY, 'String', request.by],
    ];
    const marked = (await tx.subtree(c.ws, path)).map((n) => ({ ...n, properties: withProperties(n.properties, stamp) }));
    await tx.replaceNodes(marked);
    for (const record of marked) working.changed(record);
  }
  const gone = new NodeChangeList();
  removed.rest(gone);
  await record(tx, gone.change(c.published, request.by), 'unpublish');
  await record(tx, working.change(c.ws, request.by), 'unpublish');
  await tx.bumpGeneration();
  return { claimed: true, nodes: removed.total };
}

/** A node's parent must be published before it (the root `/` always is). */
async function parentPublished(c: Context): Promise<void> {
  const parent = parentOf(c.r.path);
  if (parent === '/' || (await c.tx.getNode(c.published, parent)) !== undefined) return;
  throw new NodeWriteError('parentNotPublished',
    `Parent content ${c.ws}:${parent} is not published yet; publish the parent before publishing its children`);
}

/**
 * The node and the descendants reached only through nodes `takenAlong` accepts (a page's areas and
 * components, not its subpages), level by level: one round trip per level, none below a subpage.
 */
async function takenAlong(c: Context, root: NodeRecord): Promise<NodeRecord[]> {
  const out = [root];
  let level = [root.path];
  while (level.length > 0) {
    // A hidden child is not taken along, nor anything below it: the caller publishes what it can see.
    const next = (await c.tx.childrenOf(c.ws, level)).filter((n) => c.r.takenAlong(n.type) && visible(c, n.path));
    next.sort((a, b) => compare(a.parentPath, b.parentPath) || a.position - b.position || compare(a.name, b.name));
    // One push per node: spreading a large level into one call exceeds the stack.
    for (const n of next) out.push(n);
    level = next.map((n) => n.path);
  }
  return out;
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The properties with `set` replacing (or added after) those of the same names. */
function withProperties(properties: readonly StoredProperty[], set: readonly StoredProperty[]): StoredProperty[] {
  const names = new Set(set.map(([name]) => name));
  return [...properties.filter(([name]) => !names.has(name)), ...set];
}

async function record(tx: WriteTx, change: NewChange | undefined, kind: NewChange['kind'], version?: string): Promise<void> {
  if (change !== undefined) await tx.recordChange({ ...change, kind, ...(version !== undefined ? { version } : {}) });
}

/**
 * The published subtrees a change deletes, listed before each deletion; a node copied again with the
 * same id is then `changed` (same path) or `moved` (from its old path), not removed and created.
 */
class Removals {
  readonly #nodes = new Map<string, ChangedNode>();
  /** Rows deleted, whether listed or not. */
  total = 0;
  #truncated = false;

  async subtree(c: Context, path: string): Promise<void> {
    const listed = this.#truncated ? undefined : await c.tx.subtreeNodes(c.published, path, CHANGE_NODE_LIMIT + 1);
    this.total += await c.tx.deleteSubtree(c.published, path);
    if (listed === undefined || listed.length > CHANGE_NODE_LIMIT) this.#truncated = true;
    else for (const n of listed) this.#nodes.set(n.id, n);
  }

  recreated(list: NodeChangeList, node: NodeRecord): void {
    const old = this.#nodes.get(node.id);
    this.#nodes.delete(node.id);
    if (old === undefined) list.created(node);
    else if (old.path === node.path) list.changed(node);
    else list.moved(node, old.path);
  }

  rest(list: NodeChangeList): void {
    if (this.#truncated) list.truncate(this.total);
    else if (this.#nodes.size > 0) list.removed([...this.#nodes.values()], this.#nodes.size);
  }
}

/**
 * The change event of a publish: the published node as `changed` (its live content is untouched; what
 * changed is the versions delivered for its path, which consumers key on the node's path).
 */
export function publishChange(v: VersionInfo, type: string): NewChange {
  return {
    workspace: v.workspace, kind: 'publish', by: v.createdBy, version: v.name,
    nodes: [{ op: 'changed', id: v.nodeId, path: v.path, type }], truncated: false, count: 1,
  };
}
