// Delivery layer (pages): keeping variants out of what a personalized endpoint answers besides Read
// node and Get children. A variant is reached only through its original (where the visitor's traits
// choose it), so a query never answers a variants container or anything inside one, and no result or
// resolved reference embeds one: otherwise every variant's content would reach every visitor.
import type { Condition, QuerySpec } from '../../query/ast.js';
import type { Session } from '../../repository/session.js';
import type { NodeRecord } from '../../store/rows.js';
import { VARIANTS_CONTAINER_TYPE } from './personalization.js';

/** Containers are read a page at a time (a site holds a few dozen personalized components). */
const PAGE = 1000;

/**
 * The query without variants: no container among the results, no node below one. The containers are
 * found through the caller's session (a workspace without any costs one empty query).
 */
export async function withoutVariantResults(session: Session, spec: QuerySpec): Promise<{ spec: QuerySpec; extra: Condition[] }> {
  const allowed = spec.typeFilter;
  const narrowed: QuerySpec = {
    ...spec,
    typeFilter: (t) => t !== VARIANTS_CONTAINER_TYPE && (allowed === null || allowed(t)),
  };
  const paths: string[] = [];
  for (let offset = 0; ; offset += PAGE) {
    const { total, nodes } = await session.query({
      workspace: spec.workspace, rootPath: spec.rootPath, typeFilter: (t) => t === VARIANTS_CONTAINER_TYPE,
      filters: [], fullText: [], orderBy: [], offset, limit: PAGE,
    });
    for (const n of nodes) paths.push(n.path);
    if (nodes.length === 0 || offset + PAGE >= total) break;
  }
  return { spec: narrowed, extra: paths.length === 0 ? [] : [{ kind: 'descendantOf', paths, negate: true }] };
}

/** Rows (the subtrees of query results) without variants containers and what lies below them. */
export function withoutVariantRows(rows: NodeRecord[]): NodeRecord[] {
  const hidden: string[] = [];
  for (const r of rows) if (r.type === VARIANTS_CONTAINER_TYPE) hidden.push(`${r.path}/`);
  if (hidden.length === 0) return rows;
  return rows.filter((r) => r.type !== VARIANTS_CONTAINER_TYPE && !hidden.some((h) => r.path.startsWith(h)));
}
