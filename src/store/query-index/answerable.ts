// Store layer, query index: which queries the index answers (the rest goes to SQL on SQLite; on
// PostgreSQL the delivery layer builds only these), and the properties a query reads.
import type { StoreQuery, Target } from '../../query/ast.js';
import { uuidEqualities } from './column-scan.js';

/** True when the index can answer the query without uuid conditions or order (otherwise the store uses SQL). */
export function indexSupports(q: StoreQuery): boolean {
  const usesUuid = (t: Target) => t.kind === 'uuid';
  return !q.orderBy.some((o) => usesUuid(o.target))
    && !q.conditions.some((c) => (c.kind === 'ranges' || c.kind === 'like') && usesUuid(c.target));
}

/**
 * True when the index can answer the query: what `indexSupports` allows, plus `eq` / `ne` on the UUID
 * (through `nidsOfIds`) and, when the source has an id column, ordering by UUID.
 */
export function indexRuns(q: StoreQuery, hasIds: boolean): boolean {
  return q.conditions.every((c) => c.kind !== 'like' || c.target.kind !== 'uuid')
    && q.conditions.every((c) => c.kind !== 'ranges' || c.target.kind !== 'uuid' || uuidEqualities(c.ranges) !== undefined)
    && (hasIds || !q.orderBy.some((o) => o.target.kind === 'uuid'));
}

/** The properties a query's filters and orders read. */
export function propertiesOf(q: StoreQuery): Set<string> {
  const names = new Set<string>();
  for (const c of q.conditions) {
    if (c.kind === 'exists') names.add(c.name);
    else if ((c.kind === 'ranges' || c.kind === 'like') && c.target.kind === 'property') names.add(c.target.name);
  }
  for (const o of q.orderBy) if (o.target.kind === 'property') names.add(o.target.name);
  return names;
}
