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

/** Most siblings whose children are read in one round trip. */
export const SIBLING_BATCH = 64;
/** Rows one read should bring back: the batch of siblings shrinks when their children are many. */
export const ROWS_PER_READ = 1_024;

/**
 * Opens and closes every node below `roots` (and the roots), in document order. What is held at once is,
 * per level of the current branch, the children of one batch of siblings: the batch grows while reads
 * bring back few rows and shrinks when they bring back many, learned per depth (siblings at one depth
 * tend to have alike numbers of children), so leaves are read 64 at a time and folders of thousands
 * one or two at a time. Only the children of a single node are read whole, however many they are.
 */
export function walkTree(source: ExportSource, workspace: string, roots: readonly NodeRecord[]): AsyncGenerator<TreeEvent> {
  return walkSiblings(source, workspace, roots, new Map());
}

async function* walkSiblings(
  source: ExportSource, workspace: string, siblings: readonly NodeRecord[], batchByDepth: Map<number, number>,
): AsyncGenerator<TreeEvent> {
  for (let i = 0; i < siblings.length;) {
    const depth = siblings[i]!.depth;
    const size = batchByDepth.get(depth) ?? 1;
    const batch = siblings.slice(i, i + size);
    i += batch.length;
    const below = await source.getSubtrees(workspace, batch.map((n) => n.path), 1);
    batchByDepth.set(depth, below.length > ROWS_PER_READ
      ? Math.max(1, Math.floor((size * ROWS_PER_READ) / below.length))
      : below.length < ROWS_PER_READ / 2 ? Math.min(SIBLING_BATCH, size * 2) : size);
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
        // Dropped before the descent, so a finished sibling's children are not kept while its next ones are read.
        children.delete(node.path);
        yield* walkSiblings(source, workspace, mine, batchByDepth);
      }
      yield { kind: 'close', node };
    }
  }
}
