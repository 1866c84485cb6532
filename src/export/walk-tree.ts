// Export layer: reads a subtree depth first in bounded batches, for writers that stream it in document order.
import type { NodeRecord } from '../store/rows.js';

/** What an export reads nodes through: a caller's Session (only what it may read) or a store. */
export interface ExportSource {
  getNode(workspace: string, path: string): Promise<NodeRecord | undefined>;
  /** The descendants of each path down to `depth` levels, ordered by depth then natural order. */
  getSubtrees(workspace: string, paths: readonly string[], depth: number): Promise<NodeRecord[]>;
}

export type TreeEvent =
  | { readonly kind: 'open'; readonly node: NodeRecord }
  | { readonly kind: 'close'; readonly node: NodeRecord };

/** Siblings whose children are read in one round trip. */
export const SIBLING_BATCH = 64;

/**
 * Opens and closes every node below `roots` (and the roots), in document order. What is held at once
 * is, per level of the current branch, the children of at most SIBLING_BATCH siblings: never the subtree.
 */
export async function* walkTree(source: ExportSource, workspace: string, roots: readonly NodeRecord[]): AsyncGenerator<TreeEvent> {
  for (let i = 0; i < roots.length; i += SIBLING_BATCH) {
    const batch = roots.slice(i, i + SIBLING_BATCH);
    const below = await source.getSubtrees(workspace, batch.map((n) => n.path), 1);
    const children = new Map<string, NodeRecord[]>();
    for (const child of below) {
      const list = children.get(child.parentPath);
      if (list) list.push(child);
      else children.set(child.parentPath, [child]);
    }
    for (const node of batch) {
      yield { kind: 'open', node };
      const mine = children.get(node.path);
      if (mine !== undefined) {
        children.delete(node.path);
        yield* walkTree(source, workspace, mine);
      }
      yield { kind: 'close', node };
    }
  }
}
