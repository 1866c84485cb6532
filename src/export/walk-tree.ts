// Export layer: reads a subtree depth first in bounded pages, for writers that stream it in document order.
import type { NodeReads } from '../store/content-store.js';
import type { NodeRecord } from '../store/rows.js';
import { readChildPages, type ChildPage, type ChildPageRequest } from '../store/child-pages.js';

/** What an export reads nodes through: a caller's Session (only what it may read) or a store (`storeSource`). */
export interface ExportSource {
  getNode(workspace: string, path: string): Promise<NodeRecord | undefined>;
  /** A page of each parent's children, one page per parent in the order asked (Session.getChildrenPages). */
  getChildrenPages(workspace: string, parents: readonly ChildPageRequest[], limit: number): Promise<ChildPage[]>;
}

/** A store read whole, as the CLI exports it. */
export function storeSource(store: Pick<NodeReads, 'getNode' | 'getChildrenPages'>): ExportSource {
  return {
    getNode: (ws, path) => store.getNode(ws, path),
    getChildrenPages: (ws, parents, limit) => readChildPages(store, ws, parents, limit),
  };
}

export type TreeEvent =
  | { readonly kind: 'open'; readonly node: NodeRecord }
  | { readonly kind: 'close'; readonly node: NodeRecord };

/** Most siblings whose children are read in one round trip. */
export const SIBLING_BATCH = 64;
/** Most rows one read brings back, whatever the fan-out: a batch of k siblings reads ROWS_PER_READ / k children each. */
export const ROWS_PER_READ = 1_024;

interface Walk {
  readonly source: ExportSource;
  readonly workspace: string;
  /** Siblings per read, learned per depth (siblings at one depth tend to have alike numbers of children). */
  readonly batchByDepth: Map<number, number>;
}

/**
 * Opens and closes every node of the subtree of `top` (`null`: the whole workspace, whose root has no node
 * of its own), in document order. Every read returns at most ROWS_PER_READ rows, so what is held at once is,
 * per level of the current branch, one page of siblings and the first pages of one batch of their children:
 * leaves are read 64 at a time, a folder of a million children a page at a time.
 */
export async function* walkTree(source: ExportSource, workspace: string, top: NodeRecord | null): AsyncGenerator<TreeEvent> {
  const walk: Walk = { source, workspace, batchByDepth: new Map() };
  if (top === null) {
    yield* walkChildren(walk, '/', await readOne(walk, { parentPath: '/' }));
    return;
  }
  yield { kind: 'open', node: top };
  yield* walkSiblings(walk, [top], true);
  yield { kind: 'close', node: top };
}

async function readOne(walk: Walk, request: ChildPageRequest): Promise<ChildPage> {
  const [page] = await walk.source.getChildrenPages(walk.workspace, [request], ROWS_PER_READ);
  return page ?? { parentPath: request.parentPath, nodes: [], next: undefined };
}

/** The children of `parentPath`, from their first page (read with its siblings' pages) on, one page at a time. */
async function* walkChildren(walk: Walk, parentPath: string, first: ChildPage): AsyncGenerator<TreeEvent> {
  let page = first;
  for (;;) {
    yield* walkSiblings(walk, page.nodes, false);
    if (page.next === undefined) return;
    page = await readOne(walk, { parentPath, after: page.next });
  }
}

/** Every node of `siblings` with its subtree; with `opened`, the nodes' own open and close are the caller's. */
async function* walkSiblings(walk: Walk, siblings: readonly NodeRecord[], opened: boolean): AsyncGenerator<TreeEvent> {
  for (let i = 0; i < siblings.length;) {
    const depth = siblings[i]!.depth;
    const size = walk.batchByDepth.get(depth) ?? 1;
    const batch = siblings.slice(i, i + size);
    i += batch.length;
    const pages: (ChildPage | undefined)[] = await walk.source.getChildrenPages(
      walk.workspace, batch.map((n) => ({ parentPath: n.path })), Math.floor(ROWS_PER_READ / batch.length),
    );
    const rows = pages.reduce((sum, p) => sum + (p?.nodes.length ?? 0), 0);
    // A parent cut short wanted a bigger share of the read: fewer siblings next time. Few rows: more.
    walk.batchByDepth.set(depth, pages.some((p) => p?.next !== undefined)
      ? Math.max(1, Math.floor(size / 2))
      : rows < ROWS_PER_READ / 2 ? Math.min(SIBLING_BATCH, size * 2) : size);
    for (let j = 0; j < batch.length; j++) {
      const node = batch[j]!;
      if (!opened) yield { kind: 'open', node };
      const page = pages[j];
      // Dropped before the descent, so a finished sibling's children are not kept while its next ones are read.
      pages[j] = undefined;
      if (page !== undefined && (page.nodes.length > 0 || page.next !== undefined)) yield* walkChildren(walk, node.path, page);
      if (!opened) yield { kind: 'close', node };
    }
  }
}
