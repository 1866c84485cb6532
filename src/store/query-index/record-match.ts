// Store layer (query index): a query evaluated on one delta record (a node created, changed or moved
// since its workspace's base was loaded), with exactly the rules conditions.ts applies to the base:
// the same value conversion (the record's property-index rows), the same range and `like` tests,
// the same negations. Pure.
import type { Condition, StoreQuery, Target } from '../../query/ast.js';
import { compileLike, likeMatchAny } from '../../query/like.js';
import { readableBy } from '../../query/glob.js';
import { descendantRange } from '../../model/paths.js';
import { inRange, uuidEqualities } from './column-scan.js';
import { compareCodePoints } from './compare.js';
import type { Delta, Extra } from './delta.js';

type Test = (x: Extra) => boolean;

function nameOf(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** True when `path` is a strict descendant of `ancestor` (the base's path range, by code point). */
export function below(path: string, ancestor: string): boolean {
  const [lo, hi] = descendantRange(ancestor);
  return compareCodePoints(path, lo) >= 0 && compareCodePoints(path, hi) < 0;
}

/** The values of `target` on a record, as the base's columns hold them: [kind, num, str]. */
function valuesOf(x: Extra, target: Target, folded: boolean): [kind: string, num: number, str: string][] {
  const r = x.record;
  switch (target.kind) {
    case 'property':
      return x.rows.filter((row) => row.name === target.name).map((row) => [row.kind, row.n ?? NaN, folded ? row.f : row.s]);
    case 'name': {
      const name = nameOf(r.path);
      return [['string', NaN, folded ? name.toLowerCase() : name]];
    }
    case 'path':
      return [['string', NaN, folded ? r.path.toLowerCase() : r.path]];
    case 'type':
      return [['string', NaN, folded ? r.type.toLowerCase() : r.type]];
    case 'uuid':
      throw new Error('uuid conditions are served by SQL');
  }
}

function compile(c: Condition): Test {
  switch (c.kind) {
    case 'never':
      return () => false;
    case 'readable':
      return (x) => readableBy(c.rules, x.record.path);
    case 'childOf':
      return (x) => x.record.parentPath === c.path;
    case 'descendantOf': {
      const test: Test = (x) => c.paths.some((p) => below(x.record.path, p));
      return c.negate ? (x) => !test(x) : test;
    }
    case 'exists':
      return (x) => x.rows.some((row) => row.name === c.name) === c.exists;
    case 'like': {
      const patterns = c.patterns.map(compileLike);
      const test: Test = (x) => valuesOf(x, c.target, c.caseInsensitive).some(([, , s]) => likeMatchAny(patterns, s));
      return c.negate ? (x) => !test(x) : test;
    }
    case 'ranges': {
      if (c.target.kind === 'uuid') {
        const ids = uuidEqualities(c.ranges);
        if (ids === undefined) throw new Error('uuid conditions other than eq and ne are served by SQL');
        return c.negate ? (x) => !ids.includes(x.record.id) : (x) => ids.includes(x.record.id);
      }
      const target = c.target;
      const test: Test = (x) => valuesOf(x, target, false)
        .some(([kind, num, str]) => c.ranges.some((r) => inRange(r, kind as never, num, str)));
      if (!c.negate) return test;
      // As on the base: a negated property condition needs the property; other targets always exist.
      if (target.kind === 'property') return (x) => x.rows.some((row) => row.name === target.name) && !test(x);
      return (x) => !test(x);
    }
  }
}

/**
 * The delta's records that answer the query (scope, node types, conditions, and full text when
 * `fullTextNids` is given: the row ids the source's full-text search returned).
 */
export function matchingExtras(delta: Delta, q: StoreQuery, fullTextNids: ReadonlySet<number> | undefined): Extra[] {
  if (delta.extras.size === 0) return [];
  const tests: Test[] = [];
  if (q.rootPath !== '/') tests.push((x) => below(x.record.path, q.rootPath));
  if (q.types !== null) tests.push((x) => q.types!.includes(x.record.type));
  for (const c of q.conditions) tests.push(compile(c));
  if (q.fullText.length > 0) tests.push((x) => fullTextNids?.has(x.nid) === true);
  const out: Extra[] = [];
  for (const x of delta.extras.values()) if (tests.every((t) => t(x))) out.push(x);
  return out;
}
