// SQLite backend: the batched tree reads of the store (children pages of many parents, subtrees of
// many roots), each in one read transaction so that the rows come from one snapshot.
import type Database from 'better-sqlite3';
import { BEFORE_FIRST_CHILD, childPageLimit, distinctRequests, type ChildPageRequest } from '../child-pages.js';
import { toRecord, type NodeRow } from '../node-rows.js';
import type { NodeRecord } from '../rows.js';
import { descendantRange } from '../../model/paths.js';
import type { Statements } from './statements.js';

export function childrenPages(
  db: Database.Database, s: Statements, workspace: string, parents: readonly ChildPageRequest[], limit: number,
): NodeRecord[] {
  const wanted = distinctRequests(parents);
  if (wanted.length === 0) return [];
  const size = childPageLimit(limit);
  const rows: NodeRow[] = [];
  // In-process, a statement per parent costs what one statement would; the transaction makes it one snapshot.
  db.transaction(() => {
    for (const { parentPath, after = BEFORE_FIRST_CHILD } of wanted) {
      for (const r of s.childPage.all(workspace, parentPath, after.position, after.position, after.name, size) as NodeRow[]) rows.push(r);
    }
  })();
  return rows.map(toRecord);
}

export function subtrees(db: Database.Database, s: Statements, workspace: string, paths: readonly string[], depth: number): NodeRecord[] {
  if (depth <= 0 || paths.length === 0) return [];
  const rows: NodeRow[] = [];
  const seen = new Set<string>();
  db.transaction(() => {
    for (const path of paths) {
      const root = path === '/' ? 0 : (s.depthOf.get(workspace, path) as { depth: number } | undefined)?.depth;
      if (root === undefined) continue;
      const [lo, hi] = descendantRange(path);
      for (const r of s.subtree.all(workspace, lo, hi, root + depth) as NodeRow[]) {
        // Results nested in one another share descendants: keep each node once.
        if (seen.has(r.path)) continue;
        seen.add(r.path);
        rows.push(r);
      }
    }
  })();
  return rows.map(toRecord);
}
