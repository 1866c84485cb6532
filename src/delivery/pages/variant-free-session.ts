// Delivery layer (pages): a view of a session without variants, for what a personalized endpoint reads
// besides the answer's own rows (the targets of references). Only the original of a personalized
// component is reachable there: a variant, its container and its rule sets are absent, as if not
// stored, so no visitor sees a variant their traits did not choose.
import type { Session } from '../../repository/session.js';
import type { NodeRecord } from '../../store/rows.js';
import { isInsideVariants } from './page-features.js';
import { withoutVariantRows } from './hide-variants.js';

export function variantFreeSession(session: Session): Session {
  const outside = async (ws: string, nodes: NodeRecord[]): Promise<NodeRecord[]> => {
    const inside = await Promise.all(nodes.map((n) => (n.path.includes('/variants') ? isInsideVariants(session, ws, n.path) : false)));
    return nodes.filter((_, i) => !inside[i]);
  };
  return {
    ...session,
    getNode: async (ws, path) => {
      const n = await session.getNode(ws, path);
      return n === undefined ? undefined : (await outside(ws, [n]))[0];
    },
    getNodesByIds: async (ws, ids) => outside(ws, await session.getNodesByIds(ws, ids)),
    getSubtree: async (ws, path, depth) =>
      (await isInsideVariants(session, ws, path) ? [] : withoutVariantRows(await session.getSubtree(ws, path, depth))),
    getSubtrees: async (ws, paths, depth) => withoutVariantRows(await session.getSubtrees(ws, paths, depth)),
    getChildrenPages: async (ws, parents, limit) => Promise.all((await session.getChildrenPages(ws, parents, limit)).map(async (page) =>
      (await isInsideVariants(session, ws, page.parentPath)
        ? { parentPath: page.parentPath, nodes: [], next: undefined }
        : { ...page, nodes: withoutVariantRows(page.nodes) }))),
  };
}
