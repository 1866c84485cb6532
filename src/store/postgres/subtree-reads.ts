// PostgreSQL backend: the reads of several subtrees or child pages at once, as parameter arrays of
// one statement each (one round trip however many paths).
import type pg from 'pg';
import { BEFORE_FIRST_CHILD, childPageLimit, distinctRequests, type ChildPageRequest } from '../child-pages.js';
import { descendantRange } from '../../model/paths.js';
import type { NodeRow } from '../node-rows.js';
import { hasNul, withoutNul } from './nul-text.js';
import { SQL, run } from './statements.js';

type Queryable = pg.Pool | pg.PoolClient;

/** See ContentStore.getChildrenPages. */
export async function childPageRows(db: Queryable, workspace: string, parents: readonly ChildPageRequest[], limit: number): Promise<NodeRow[]> {
  // Text with U+0000 cannot be sent to PostgreSQL, and no stored path or name holds it.
  const wanted = distinctRequests(parents).filter((p) => !hasNul(p.parentPath) && !hasNul(p.after?.name ?? ''));
  if (wanted.length === 0) return [];
  const paths = wanted.map((p) => p.parentPath);
  const positions = wanted.map((p) => (p.after ?? BEFORE_FIRST_CHILD).position);
  const names = wanted.map((p) => (p.after ?? BEFORE_FIRST_CHILD).name);
  return run<NodeRow>(db, SQL.childPages, [workspace, paths, positions, names, childPageLimit(limit)]);
}

/** See ContentStore.getSubtrees. */
export async function subtreesRows(db: Queryable, workspace: string, roots: readonly string[], depth: number): Promise<NodeRow[]> {
  const paths = withoutNul(roots);
  if (depth <= 0 || paths.length === 0) return [];
  const los: string[] = [];
  const his: string[] = [];
  for (const p of paths) {
    const [lo, hi] = descendantRange(p);
    los.push(lo);
    his.push(hi);
  }
  return run<NodeRow>(db, SQL.subtrees, [workspace, paths, los, his, depth]);
}
