// GraphQL layer: the `filter:` argument of a list field (`@title LIKE '%War%' OR @title LIKE '%Struggle%'`,
// the original's small expression language) as Petal's query filters. A QuerySpec ANDs its filters and
// each ORs values of one field under one operator, so the expression is normalised to that shape and
// whatever does not fit (an OR across fields or operators) is refused with a message saying so.
import type { FilterSpec, Target } from '../query/ast.js';
import { FilterExpressionError } from './filter-expression-error.js';
import { groupKey, toClauses, type Clauses } from './filter-clauses.js';
import { parseSyntax, type Comparison } from './filter-syntax.js';
import { tokenize } from './filter-tokens.js';

export { FilterExpressionError } from './filter-expression-error.js';
export { MAX_COMPARISONS, MAX_NESTING } from './filter-syntax.js';

export const MAX_FILTER_LENGTH = 4096;
const EXAMPLE = "@title LIKE '%War%' OR @title LIKE '%Struggle%'";

/**
 * `target(name)` maps a filter name (after `@`, dots allowed: `_metadata.created`, `stats.speed`) to a
 * Target, or undefined when the type has no such field. A blank filter filters nothing.
 */
export function parseFilterExpression(text: string, target: (name: string) => Target | undefined): FilterSpec[] {
  if (text.length > MAX_FILTER_LENGTH) {
    throw new FilterExpressionError(`the filter is longer than ${MAX_FILTER_LENGTH} characters (at ${MAX_FILTER_LENGTH})`, MAX_FILTER_LENGTH);
  }
  if (text.trim() === '') return [];
  return toFilters(toClauses(parseSyntax(text, tokenize(text), target)));
}

function toFilters({ comparisons, clauses }: Clauses): FilterSpec[] {
  return clauses.map((clause) => {
    const parts = clause.map((n) => comparisons[n]!);
    const first = parts[0]!;
    const other = parts.find((c) => groupKey(c) !== groupKey(first));
    if (other !== undefined) throw mixedOr(first, other);
    if (first.op === 'ne' && parts.length > 1) {
      throw new FilterExpressionError(
        `Petal cannot join <> comparisons with OR (${first.text} OR ${parts[1]!.text}, at ${parts[1]!.pos}): `
        + 'one field can be ORed only with =, <, >, <=, >=, LIKE or ILIKE; join <> comparisons with AND', parts[1]!.pos);
    }
    return {
      kind: 'filter', param: parts.map((c) => c.text).join(' OR '), target: first.target, op: first.op, values: parts.map((c) => c.value),
    };
  });
}

function mixedOr(first: Comparison, other: Comparison): FilterExpressionError {
  const sameTarget = groupKey({ ...first, op: 'eq' }) === groupKey({ ...other, op: 'eq' });
  const what = sameTarget ? 'different operators' : 'different fields';
  return new FilterExpressionError(
    `Petal cannot combine comparisons on ${what} with OR (${first.text} OR ${other.text}, at ${other.pos}): `
    + `OR can join only comparisons of one field with one operator, such as ${EXAMPLE}; AND can join any comparisons`, other.pos);
}
