// SQLite backend: Query nodes and property kinds answered by SQL (compile-query.ts), for what the
// in-memory query index does not serve (uuid `like`, order by uuid) and for workspaces below an
// operator's `cache.queryIndexThreshold`.
import type Database from 'better-sqlite3';
import type { QueryResult, ReadableCondition } from '../content-store.js';
import type { StoreQuery, ValueKind } from '../../query/ast.js';
import { kindsFromRows } from '../query-index/column-source.js';
import { toRecord, type NodeRow } from '../node-rows.js';
import { compileCount, compileKinds, compilePage } from './compile-query.js';
import type { StatementCache } from './statement-cache.js';
import type { Statements } from './statements.js';

/** The total and the page of a query, from one read transaction (one snapshot). */
export function sqlQuery(db: Database.Database, cache: StatementCache, q: StoreQuery): QueryResult {
  const count = compileCount(q);
  const page = compilePage(q);
  const countStmt = cache.get(db, count.sql);
  const pageStmt = cache.get(db, page.sql);
  return db.transaction((): QueryResult => {
    const total = (countStmt.get(...count.params) as { total: number }).total;
    const nodes = total === 0 || q.offset >= total ? [] : (pageStmt.all(...page.params) as NodeRow[]).map(toRecord);
    return { total, nodes };
  })();
}

/** The kinds of these properties in the workspace, among the nodes the rules let the caller read when given. */
export function sqlKinds(
  db: Database.Database, cache: StatementCache, s: Statements, workspace: string, names: readonly string[], readable?: ReadableCondition,
): Map<string, ValueKind[]> {
  if (readable === undefined) return kindsFromRows(s.kinds.all(workspace, JSON.stringify(names)) as { name: string; kind: number }[]);
  const c = compileKinds(workspace, names, readable);
  return kindsFromRows(cache.get(db, c.sql).all(...c.params) as { name: string; kind: number }[]);
}
