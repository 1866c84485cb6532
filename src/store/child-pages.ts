// Store layer: pages of a node's children, so a reader of a folder of a million children holds one page
// at a time. Pages follow natural order (position, ties broken by name) with a keyset cursor, which the
// `nodes_by_parent (workspace, parent_path, position)` index serves at the cost of the page alone.
import type { NodeRecord } from './rows.js';

/** Where a page starts: after the child at this position and name. */
export interface ChildCursor {
  readonly position: number;
  readonly name: string;
}

/** One parent's page to read: from its first child, or after `after`. */
export interface ChildPageRequest {
  readonly parentPath: string;
  readonly after?: ChildCursor;
}

/** One parent's page as read for a caller. */
export interface ChildPage {
  readonly parentPath: string;
  /** The children on this page the caller may read (fewer than the limit when some were hidden). */
  readonly nodes: NodeRecord[];
  /** Where the next page starts; undefined when this page was the last. Kept apart from `nodes`, which may be filtered. */
  readonly next: ChildCursor | undefined;
}

/** Most children of one parent a single page may hold. */
export const MAX_CHILD_PAGE = 10_000;

/** The page size a store uses for `limit`: an integer in 1..MAX_CHILD_PAGE. */
export function childPageLimit(limit: number): number {
  if (!Number.isFinite(limit)) return limit > 0 ? MAX_CHILD_PAGE : 1;
  return Math.min(MAX_CHILD_PAGE, Math.max(1, Math.floor(limit)));
}

/**
 * The cursor before every child: positions are 32-bit integers on both stores and names are never empty,
 * so one statement serves first and later pages alike.
 */
export const BEFORE_FIRST_CHILD: ChildCursor = { position: -2_147_483_648, name: '' };

/** Each parent once, in the order first asked for (a parent asked twice would get its page twice). */
export function distinctRequests(parents: readonly ChildPageRequest[]): ChildPageRequest[] {
  const seen = new Set<string>();
  return parents.filter((p) => !seen.has(p.parentPath) && seen.add(p.parentPath) !== undefined);
}

/** What a store's `getChildrenPages` reads, as the callers of a session consume it. */
export interface ChildPagesReader {
  getChildrenPages(workspace: string, parents: readonly ChildPageRequest[], limit: number): Promise<NodeRecord[]>;
}

/**
 * Reads the pages and splits the rows per parent, one page per distinct parent in request order. The
 * cursor comes from the last row read, before `keep` filters, so hidden children never end a walk early.
 */
export async function readChildPages(
  store: ChildPagesReader, workspace: string, parents: readonly ChildPageRequest[], limit: number,
  keep: (row: NodeRecord) => boolean = () => true,
): Promise<ChildPage[]> {
  const wanted = distinctRequests(parents);
  const size = childPageLimit(limit);
  const rows = wanted.length === 0 ? [] : await store.getChildrenPages(workspace, wanted, size);
  const byParent = new Map<string, NodeRecord[]>();
  for (const row of rows) {
    const list = byParent.get(row.parentPath);
    if (list) list.push(row);
    else byParent.set(row.parentPath, [row]);
  }
  return wanted.map(({ parentPath }) => {
    const mine = byParent.get(parentPath) ?? [];
    const last = mine.at(-1);
    return {
      parentPath,
      nodes: mine.filter(keep),
      next: mine.length >= size && last !== undefined ? { position: last.position, name: last.name } : undefined,
    };
  });
}
