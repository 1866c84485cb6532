// GraphQL layer: the grammar of a `filter:` expression, read into a tree of AND and OR over
// comparisons. AND binds tighter than OR, as in the JCR query the original translates it to. Each
// comparison is checked here (field, operator, value) and its value written as build-query reads values.
import { toCanonicalName } from '../model/names.js';
import { normalizePath } from '../model/paths.js';
import type { RawOperator, Target } from '../query/ast.js';
import { FilterExpressionError } from './filter-expression-error.js';
import type { ComparisonSymbol, Token } from './filter-tokens.js';

export const MAX_COMPARISONS = 64;
export const MAX_NESTING = 32;

export interface Comparison {
  /** The comparison as written (`@title LIKE '%War%'`), for messages and a FilterSpec's `param`. */
  readonly text: string;
  readonly pos: number;
  readonly target: Target;
  readonly op: RawOperator;
  readonly value: string;
}

export type Expr =
  | { readonly kind: 'comparison'; readonly comparison: Comparison }
  | { readonly kind: 'and'; readonly parts: readonly Expr[] }
  /** `orAt[k]` is the offset of the OR between parts k and k + 1. */
  | { readonly kind: 'or'; readonly parts: readonly Expr[]; readonly orAt: readonly number[] };

const SYMBOL_OPS: Readonly<Record<ComparisonSymbol, RawOperator>> = { '=': 'eq', '<>': 'ne', '>': 'gt', '<': 'lt', '>=': 'gte', '<=': 'lte' };
const OPERATOR_LIST = '=, <>, <, >, <=, >=, LIKE or ILIKE';
const VALUE_LIST = "'text', a number, true, false or null";

type Literal =
  | { readonly kind: 'string' | 'number'; readonly value: string; readonly pos: number }
  | { readonly kind: 'boolean'; readonly value: 'true' | 'false'; readonly pos: number }
  | { readonly kind: 'null'; readonly pos: number };

export function parseSyntax(text: string, tokens: readonly Token[], targetOf: (name: string) => Target | undefined): Expr {
  let i = 0;
  let depth = 0;
  let comparisons = 0;
  const peek = (): Token => tokens[i]!;
  const isWord = (t: Token, w: string): boolean => t.kind === 'word' && t.upper === w;
  const found = (t: Token): string => (t.kind === 'end' ? 'the end of the filter' : JSON.stringify(clip(text.slice(t.pos, t.end))));
  const fail = (message: string, pos: number): never => { throw new FilterExpressionError(message, pos); };

  function orExpr(): Expr {
    const parts = [andExpr()];
    const orAt: number[] = [];
    while (isWord(peek(), 'OR')) {
      orAt.push(tokens[i++]!.pos);
      parts.push(andExpr());
    }
    return parts.length === 1 ? parts[0]! : { kind: 'or', parts, orAt };
  }

  function andExpr(): Expr {
    const parts = [factor()];
    while (isWord(peek(), 'AND')) {
      i++;
      parts.push(factor());
    }
    return parts.length === 1 ? parts[0]! : { kind: 'and', parts };
  }

  function factor(): Expr {
    const t = peek();
    if (t.kind === '(') {
      if (++depth > MAX_NESTING) fail(`parentheses nest deeper than ${MAX_NESTING} levels at ${t.pos}`, t.pos);
      i++;
      const inner = orExpr();
      const close = peek();
      if (close.kind !== ')') fail(`expected AND, OR or ) to close the ( at ${t.pos}, found ${found(close)} at ${close.pos}`, close.pos);
      i++;
      depth--;
      return inner;
    }
    if (t.kind === 'property') return { kind: 'comparison', comparison: comparison(t) };
    return fail(`expected a comparison such as @title = 'text', or (, at ${t.pos}, found ${found(t)}`, t.pos);
  }

  function comparison(field: Extract<Token, { kind: 'property' }>): Comparison {
    const label = `@${field.name}`;
    if (++comparisons > MAX_COMPARISONS) fail(`more than ${MAX_COMPARISONS} comparisons: the one at ${field.pos} is one too many`, field.pos);
    const target = targetOf(field.name);
    if (target === undefined) fail(`unknown field ${label} at ${field.pos}: this type has no field of that name to filter on`, field.pos);
    i++;
    const opToken = peek();
    const op = operatorOf(opToken);
    if (op === undefined) {
      if (isWord(opToken, 'NOT')) fail(`NOT is not supported (at ${opToken.pos}): write the opposite comparison, e.g. <> for =`, opToken.pos);
      fail(`expected an operator after ${label} at ${opToken.pos} (use ${OPERATOR_LIST}), found ${found(opToken)}`, opToken.pos);
    }
    i++;
    const literal = literalOf(peek());
    if (literal === undefined) {
      fail(`expected a value after ${label} ${text.slice(opToken.pos, opToken.end)} at ${peek().pos} (${VALUE_LIST}), found ${found(peek())}`, peek().pos);
    }
    const end = tokens[i++]!.end;
    const written = text.slice(field.pos, end);
    const checked = checkValue(label, target!, op!, opToken.pos, literal!);
    return { text: written, pos: field.pos, target: target!, op: checked.op, value: checked.value };
  }

  function operatorOf(t: Token): RawOperator | undefined {
    if (t.kind === 'symbol') return SYMBOL_OPS[t.symbol];
    if (isWord(t, 'LIKE')) return 'like';
    if (isWord(t, 'ILIKE')) return 'ilike';
    return undefined;
  }

  const tree = orExpr();
  const last = peek();
  if (last.kind === ')') fail(`unmatched ) at ${last.pos}`, last.pos);
  if (last.kind !== 'end') fail(`expected AND, OR or the end of the filter at ${last.pos}, found ${found(last)}`, last.pos);
  return tree;
}

function literalOf(t: Token): Literal | undefined {
  if (t.kind === 'string' || t.kind === 'number') return { kind: t.kind, value: t.value, pos: t.pos };
  if (t.kind !== 'word') return undefined;
  if (t.upper === 'TRUE' || t.upper === 'FALSE') return { kind: 'boolean', value: t.upper === 'TRUE' ? 'true' : 'false', pos: t.pos };
  if (t.upper === 'NULL') return { kind: 'null', pos: t.pos };
  return undefined;
}

/** The operator and value as a FilterSpec carries them, or an error saying why they do not fit. */
function checkValue(label: string, target: Target, op: RawOperator, opPos: number, literal: Literal): { op: RawOperator; value: string } {
  const fail = (message: string, pos: number): never => { throw new FilterExpressionError(message, pos); };
  if (literal.kind === 'null') {
    if (op !== 'eq' && op !== 'ne') fail(`null can be compared only with = or <> (at ${literal.pos})`, literal.pos);
    if (target.kind !== 'property') fail(`every item has ${label}: compare it with a value, not null (at ${literal.pos})`, literal.pos);
    // `= null` holds where the property is absent, as in JCR, where null tests existence.
    return { op: 'null', value: op === 'eq' ? 'true' : 'false' };
  }
  if ((op === 'like' || op === 'ilike') && literal.kind !== 'string') {
    fail(`${op.toUpperCase()} takes a quoted pattern such as '%War%' (at ${literal.pos})`, literal.pos);
  }
  if (literal.kind === 'boolean' && op !== 'eq' && op !== 'ne') fail(`true and false can be compared only with = or <> (at ${opPos})`, opPos);
  if ((target.kind === 'path' || target.kind === 'uuid' || target.kind === 'type') && op !== 'eq' && op !== 'ne') {
    fail(`${label} can be compared only with = or <> (at ${opPos})`, opPos);
  }
  const value = literal.value;
  switch (target.kind) {
    case 'path': {
      const path = normalizePath(value);
      if (path === undefined || !value.startsWith('/')) fail(`${label}: ${JSON.stringify(clip(value))} is not an absolute path (at ${literal.pos})`, literal.pos);
      return { op, value: path! };
    }
    case 'type': return { op, value: toCanonicalName(value) };
    case 'property':
      return { op, value: literal.kind === 'string' && op !== 'like' && op !== 'ilike' ? fullDateTime(value) : value };
    default: return { op, value };
  }
}

const SHORT_DATE_TIME = /^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}:?\d{2})$/;

/**
 * The original accepts ISO-8601 date-times without seconds (`'2018-10-02T12:57+02:00'`, its own example);
 * build-query reads only the full `yyyy-MM-dd'T'HH:mm:ss.SSSXXX`, so shorter forms are completed
 * (JCR keeps milliseconds, so further digits are dropped). Any other text is left as written.
 */
export function fullDateTime(value: string): string {
  const m = SHORT_DATE_TIME.exec(value);
  if (m === null) return value;
  const zone = m[6]!.length === 5 ? `${m[6]!.slice(0, 3)}:${m[6]!.slice(3)}` : m[6]!;
  return `${m[1]}T${m[2]}:${m[3]}:${m[4] ?? '00'}.${(m[5] ?? '').padEnd(3, '0').slice(0, 3)}${zone}`;
}

function clip(s: string): string {
  return s.length > 40 ? `${s.slice(0, 40)}…` : s;
}
