// Nodes API: reads a node and its descendants down to a depth through the caller's session, level by
// level in pages, and stops as soon as the answer would pass its node budget (so a depth over a huge
// tree costs the budget, not the tree). Hidden nodes are never read below: the session leaves them out.
import type { Session } from '../repository/session.js';
import type { NodeRecord } from '../store/rows.js';
import { MAX_CHILD_PAGE, type ChildPageRequest } from '../store/child-pages.js';
import { ROOT_IDENTIFIER } from './repository-node.js';

export interface TreeRequest {
  readonly workspace: string;
  readonly path: string;
  /** Levels of descendants: 0 = the node alone. */
  readonly depth: number;
  /** Canonical node types (`cms:area`) left out of children, with their subtrees. */
  readonly excludeTypes: ReadonlySet<string>;
  /** Most nodes in one answer (the node itself included). */
  readonly maxNodes: number;
}

export type TreeRead =
  | { readonly ok: true; readonly root: NodeRecord; readonly children: ReadonlyMap<string, NodeRecord[]> }
  | { readonly ok: false; readonly problem: 'missing' | 'tooMany' };

/** Rows one store call may return at most: pages of several parents are read together up to this. */
const ROWS_PER_CALL = 20_000;

function rootRecord(workspace: string): NodeRecord {
  return { id: ROOT_IDENTIFIER, workspace, path: '/', parentPath: '', name: '', depth: 0, position: 0, type: 'rep:root', mixins: [], properties: [] };
}

/** `children` maps a parent path to its listed children in natural order (only down to the depth). */
export async function readNodeTree(session: Session, r: TreeRequest, workspaceExists: () => Promise<boolean>): Promise<TreeRead> {
  let root: NodeRecord | undefined;
  if (r.path === '/') root = (await workspaceExists()) ? rootRecord(r.workspace) : undefined;
  else root = await session.getNode(r.workspace, r.path);
  if (root === undefined) return { ok: false, problem: 'missing' };
  const children = new Map<string, NodeRecord[]>();
  let count = 1;
  let level: string[] = [root.path];
  for (let d = 0; d < r.depth && level.length > 0; d++) {
    const next: string[] = [];
    let pending: ChildPageRequest[] = level.map((parentPath) => ({ parentPath }));
    while (pending.length > 0) {
      // One more than the budget left is enough to tell "too many".
      const limit = Math.min(MAX_CHILD_PAGE, r.maxNodes - count + 1);
      const batch = pending.slice(0, Math.max(1, Math.floor(ROWS_PER_CALL / limit)));
      pending = pending.slice(batch.length);
      const pages = await session.getChildrenPages(r.workspace, batch, limit);
      const more: ChildPageRequest[] = [];
      for (const page of pages) {
        let list = children.get(page.parentPath);
        if (list === undefined) children.set(page.parentPath, list = []);
        for (const node of page.nodes) {
          if (r.excludeTypes.has(node.type)) continue;
          if (++count > r.maxNodes) return { ok: false, problem: 'tooMany' };
          list.push(node);
          next.push(node.path);
        }
        if (page.next !== undefined) more.push({ parentPath: page.parentPath, after: page.next });
      }
      pending = [...more, ...pending];
    }
    level = next;
  }
  return { ok: true, root, children };
}
