// What a rendered answer depends on, as short keys, and which keys a change event hits. The response
// cache indexes its entries by these keys; the same keys are meant to become CDN cache tags (one per
// rendered node, one per workspace for queries), so they are short, stable strings, equal on every
// instance. A key stands for one of:
//   n  the node at a path (read, or looked up and missing: its creation must drop the answer)
//   i  the node of an id (looked up by a reference or an asset, found or not)
//   c  the children of a path (listed, or a subtree read below it)
//   w  the whole workspace (a query, or an answer with too many keys to list): any change of it
//   t  something of the workspace was read: only a change that names no nodes (truncated) hits it
// Keys are hashes: two names sharing one only ever drop an answer too many, never too few.
import type { ChangeEvent, ChangedNode } from '../store/changes.js';
import { depthOf, parentOf } from '../model/paths.js';
import { stringBytes } from '../cache/byte-lru.js';

/** Keys one answer lists at most; beyond it the answer depends on its workspaces as a whole. */
export const MAX_DEPENDENCY_KEYS = 512;

/** 53-bit string hash (cyrb53): fast, well spread, and the same in every process. */
function hash(text: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
}

/**
 * Hashes of `${ws}\n${path}` of the rows read, per workspace: every answer recorded (the response
 * cache, cache tags) hashes each node it read twice (its path, its child list), and the same nodes
 * again and again. Only rows' paths (the content's, fresh strings of the store) are remembered:
 * a path a request names (looked up, maybe missing) is hashed every time, so a flood of random paths
 * never fills the memo, and no slice of a URL is kept. Bounded in bytes over all workspaces (names,
 * hashes, Map slots), emptied when full; paths longer than MEMO_LONGEST_PATH are not remembered.
 */
const MEMO_MAX_BYTES = 4 * 1024 * 1024;
const MEMO_LONGEST_PATH = 256;
/** A remembered path besides its own string: its Map slot, the hash string, room for the table to double. */
const MEMO_ENTRY_BYTES = 128 + 32;
const MEMO_WORKSPACE_BYTES = 512;
const memo = new Map<string, Map<string, string>>();
let memoBytes = 0;

function rowHash(ws: string, path: string): string {
  if (path.length > MEMO_LONGEST_PATH) return hash(`${ws}\n${path}`);
  let names = memo.get(ws);
  let h = names?.get(path);
  if (h !== undefined) return h;
  h = hash(`${ws}\n${path}`);
  const cost = MEMO_ENTRY_BYTES + stringBytes(path) + (names === undefined ? MEMO_WORKSPACE_BYTES + stringBytes(ws) : 0);
  if (memoBytes + cost > MEMO_MAX_BYTES) {
    memo.clear();
    memoBytes = 0;
    names = undefined;
  }
  if (names === undefined) {
    memo.set(ws, (names = new Map()));
    memoBytes += MEMO_WORKSPACE_BYTES + stringBytes(ws);
  }
  names.set(path, h);
  memoBytes += MEMO_ENTRY_BYTES + stringBytes(path);
  return h;
}

/** Estimated bytes of the memo of row hashes (for tests). */
export function rowHashMemoBytes(): number {
  return memoBytes;
}

export const nodeKey = (ws: string, path: string): string => `n${hash(`${ws}\n${path}`)}`;
export const idKey = (ws: string, id: string): string => `i${hash(`${ws}\n${id}`)}`;
export const childrenKey = (ws: string, path: string): string => `c${hash(`${ws}\n${path}`)}`;
/**
 * Hashes of workspace names and endpoint paths (few: configuration names them, not requests), at
 * most PLAIN_MAX of at most MEMO_LONGEST_PATH characters.
 */
const PLAIN_MAX = 256;
const plain = new Map<string, string>();
function plainHash(text: string): string {
  if (text.length > MEMO_LONGEST_PATH) return hash(text);
  let h = plain.get(text);
  if (h === undefined) {
    if (plain.size >= PLAIN_MAX) plain.clear();
    h = hash(text);
    plain.set(text, h);
  }
  return h;
}

export const workspaceKey = (ws: string): string => `w${plainHash(ws)}`;
export const touchedKey = (ws: string): string => `t${plainHash(ws)}`;
/** Every answer of one endpoint (a CDN tag: purge an endpoint whose definition changed). */
export const endpointKey = (endpointPath: string): string => `e${plainHash(endpointPath)}`;

/**
 * The dependencies of one answer, recorded while it renders (the repository's sessions call it for
 * every read). Bounded: past MAX_DEPENDENCY_KEYS keys it keeps only the workspaces it saw.
 */
export class Dependencies {
  #keys: Set<string> | undefined = new Set();
  readonly #workspaces = new Set<string>();

  #add(ws: string, key: string): void {
    this.#workspaces.add(ws);
    const keys = this.#keys;
    if (keys === undefined) return;
    keys.add(key);
    if (keys.size > MAX_DEPENDENCY_KEYS) this.#keys = undefined;
  }

  /** A node read at `path`, or looked up there and missing (or hidden from the caller). */
  node(ws: string, path: string): void {
    this.#add(ws, nodeKey(ws, path));
  }

  /** A node looked up by id, found or not. */
  id(ws: string, id: string): void {
    this.#add(ws, idKey(ws, id));
  }

  /** The children of `path` were listed (which children exist and their order). */
  children(ws: string, path: string): void {
    this.#add(ws, childrenKey(ws, path));
  }

  /** Rows read (their paths are the store's): remembered hashes, see rowHash. */
  nodes(ws: string, rows: readonly { readonly path: string }[]): void {
    for (const r of rows) this.#add(ws, `n${rowHash(ws, r.path)}`);
  }

  #row(ws: string, path: string, children: boolean): void {
    const h = rowHash(ws, path);
    this.#add(ws, `n${h}`);
    if (children) this.#add(ws, `c${h}`);
  }

  /** Rows of a subtree read below `root` down to `depth` levels: each row, and the child lists read. */
  subtree(ws: string, root: string, depth: number, rows: readonly { readonly path: string }[]): void {
    if (depth >= 1) this.children(ws, root);
    const limit = depthOf(root) + depth;
    for (const r of rows) this.#row(ws, r.path, depthOf(r.path) < limit);
  }

  /**
   * Rows of a read of the descendants of several roots (not the roots themselves): each root's child
   * list, each row, and the child lists of rows above the depth limit of their nearest root.
   */
  descendants(ws: string, roots: readonly string[], depth: number, rows: readonly { readonly path: string }[]): void {
    if (depth < 1) return;
    const rootSet = new Set(roots);
    for (const root of rootSet) this.children(ws, root);
    for (const r of rows) {
      const root = nearestRoot(r.path, rootSet);
      this.#row(ws, r.path, root === undefined || depthOf(r.path) < depthOf(root) + depth);
    }
  }

  /** Anything in the workspace (a query: any node may enter or leave its results). */
  workspace(ws: string): void {
    this.#add(ws, workspaceKey(ws));
  }

  /** The keys of the workspaces read, alone: what an answer with too many keys to list is tagged by. */
  workspaceKeys(): string[] {
    const out: string[] = [];
    for (const ws of this.#workspaces) out.push(touchedKey(ws), workspaceKey(ws));
    return out;
  }

  /** The keys to store with the answer. */
  keys(): string[] {
    const out = [...this.#workspaces].map(touchedKey);
    const keys = this.#keys;
    if (keys === undefined) for (const ws of this.#workspaces) out.push(workspaceKey(ws));
    else for (const k of keys) out.push(k);
    return out;
  }
}

/** The nearest proper ancestor of `path` in `roots` (the root `/` included). */
function nearestRoot(path: string, roots: ReadonlySet<string>): string | undefined {
  for (let i = path.lastIndexOf('/'); i > 0; i = path.lastIndexOf('/', i - 1)) {
    const up = path.slice(0, i);
    if (roots.has(up)) return up;
  }
  return roots.has('/') ? '/' : undefined;
}

function addNode(keys: Set<string>, ws: string, path: string, id: string | undefined): void {
  keys.add(nodeKey(ws, path));
  if (id !== undefined) keys.add(idKey(ws, id));
  // The parent's child list changed (a child came, went or moved; an import rewrites positions).
  if (path !== '/') keys.add(childrenKey(ws, parentOf(path)));
}

/**
 * The keys an event hits: for each node its path, id and parent's child list (for a move also the
 * old path and its parent's list), and the workspace key (its queries). A truncated event names no
 * nodes: everything that read the workspace goes.
 */
export function changeKeys(event: ChangeEvent): Set<string> {
  const ws = event.workspace;
  const keys = new Set<string>([workspaceKey(ws)]);
  if (event.truncated) return keys.add(touchedKey(ws));
  const lists: readonly (readonly ChangedNode[])[] = [event.created, event.changed, event.moved, event.removed];
  for (const list of lists) {
    for (const n of list) {
      addNode(keys, ws, n.path, n.id);
      if (n.from !== undefined) addNode(keys, ws, n.from, undefined);
    }
  }
  return keys;
}
