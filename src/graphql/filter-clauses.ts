// GraphQL layer: a filter tree rewritten as an AND of ORs (conjunctive normal form), the only shape a
// QuerySpec holds: its filters are ANDed and each ORs the values of one field under one operator.
// A clause that is implied by a smaller one is dropped, so `(@a = 1 AND @b = 2) OR (@a = 1 AND @b = 3)`
// becomes `@a = 1 AND (@b = 2 OR @b = 3)` instead of being refused for its mixed clauses.
import { FilterExpressionError } from './filter-expression-error.js';
import type { Comparison, Expr } from './filter-syntax.js';

/** More clauses than this from one OR is no filter a person wrote: refused rather than multiplied out. */
export const MAX_CLAUSES = 256;

/** Comparisons numbered by first appearance (equal ones share a number); clauses are sorted number lists. */
export interface Clauses {
  readonly comparisons: readonly Comparison[];
  readonly clauses: readonly (readonly number[])[];
}

export function toClauses(tree: Expr): Clauses {
  const comparisons: Comparison[] = [];
  const numbers = new Map<string, number>();
  const numberOf = (c: Comparison): number => {
    const key = comparisonKey(c);
    let n = numbers.get(key);
    if (n === undefined) {
      n = comparisons.length;
      numbers.set(key, n);
      comparisons.push(c);
    }
    return n;
  };

  function cnf(e: Expr): number[][] {
    switch (e.kind) {
      case 'comparison': return [[numberOf(e.comparison)]];
      case 'and': return prune(e.parts.flatMap(cnf));
      case 'or': {
        let acc = cnf(e.parts[0]!);
        for (let k = 1; k < e.parts.length; k++) {
          const next = cnf(e.parts[k]!);
          if (acc.length * next.length > MAX_CLAUSES) {
            const at = e.orAt[k - 1]!;
            throw new FilterExpressionError(
              `the OR at ${at} multiplies out to more than ${MAX_CLAUSES} groups joined by AND: write the filter as an AND of ORs`, at);
          }
          acc = prune(acc.flatMap((a) => next.map((b) => union(a, b))));
        }
        return acc;
      }
    }
  }

  // Sorted, so that the filters come out in the order their first comparisons were written.
  const clauses = cnf(tree).sort(compareClauses);
  return { comparisons, clauses };
}

/** What makes two comparisons the same: target, operator and value (not spacing or quoting). */
export function comparisonKey(c: Comparison): string {
  return `${groupKey(c)}\u0000${c.value}`;
}

/** Comparisons with one group key can be ORed in one FilterSpec. `= null` and `<> null` are two groups. */
export function groupKey(c: Comparison): string {
  const t = c.target.kind === 'property' ? `property\u0000${c.target.name}` : c.target.kind;
  return `${t}\u0000${c.op}${c.op === 'null' ? `\u0000${c.value}` : ''}`;
}

function union(a: readonly number[], b: readonly number[]): number[] {
  const out: number[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (j >= b.length || (i < a.length && a[i]! < b[j]!)) out.push(a[i++]!);
    else if (i >= a.length || b[j]! < a[i]!) out.push(b[j++]!);
    else { out.push(a[i++]!); j++; }
  }
  return out;
}

function isSubset(small: readonly number[], big: readonly number[]): boolean {
  let j = 0;
  for (const n of small) {
    while (j < big.length && big[j]! < n) j++;
    if (j >= big.length || big[j] !== n) return false;
    j++;
  }
  return true;
}

/** Drops every clause that contains another (it is implied by it), and repeats. */
function prune(clauses: readonly number[][]): number[][] {
  const bySize = [...clauses].sort((a, b) => a.length - b.length);
  const kept: number[][] = [];
  for (const c of bySize) if (!kept.some((k) => isSubset(k, c))) kept.push(c);
  return kept;
}

function compareClauses(a: readonly number[], b: readonly number[]): number {
  for (let k = 0; k < Math.min(a.length, b.length); k++) if (a[k] !== b[k]) return a[k]! - b[k]!;
  return a.length - b.length;
}
