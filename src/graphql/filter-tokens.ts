// GraphQL layer: the words of a `filter:` expression (`@title LIKE '%War%' OR @price >= 10`), each with
// its offset, so that every later error can say where it is.
import { FilterExpressionError } from './filter-expression-error.js';

export type ComparisonSymbol = '=' | '<>' | '>' | '<' | '>=' | '<=';

export type Token =
  | { readonly kind: 'property'; readonly name: string; readonly pos: number; readonly end: number }
  | { readonly kind: 'symbol'; readonly symbol: ComparisonSymbol; readonly pos: number; readonly end: number }
  /** A bare word (AND, or, Like, TRUE, null, or anything else); `upper` is how keywords are compared. */
  | { readonly kind: 'word'; readonly upper: string; readonly pos: number; readonly end: number }
  | { readonly kind: 'string'; readonly value: string; readonly pos: number; readonly end: number }
  /** A number without its `f`/`D` suffix: the stored kind, not the literal, decides how it compares. */
  | { readonly kind: 'number'; readonly value: string; readonly pos: number; readonly end: number }
  | { readonly kind: '(' | ')'; readonly pos: number; readonly end: number }
  | { readonly kind: 'end'; readonly pos: number; readonly end: number };

const NAME_PART = /[_A-Za-z][_0-9A-Za-z]*/y;
const WORD = /[_A-Za-z][_0-9A-Za-z]*/y;
// Digits, then an optional fraction, then an optional f (double) or D (decimal) suffix.
const NUMBER = /-?[0-9]+(?:\.[0-9]+)?([fFdD])?/y;
const WORD_CHAR = /[_0-9A-Za-z.]/;
const SPACE = /\s/;

function match(re: RegExp, text: string, at: number): string | undefined {
  re.lastIndex = at;
  const m = re.exec(text);
  return m === null ? undefined : m[0];
}

export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (SPACE.test(c)) { i++; continue; }
    const pos = i;
    if (c === '(' || c === ')') { tokens.push({ kind: c, pos, end: ++i }); continue; }
    if (c === '@') { i = readProperty(text, pos, tokens); continue; }
    if (c === "'") { i = readString(text, pos, tokens); continue; }
    if (c === '"') throw new FilterExpressionError(`strings are written in single quotes ('text'), not double quotes, at ${pos}`, pos);
    if (c === '<' || c === '>' || c === '=' || c === '!') { i = readSymbol(text, pos, tokens); continue; }
    if (c === '-' || (c >= '0' && c <= '9')) { i = readNumber(text, pos, tokens); continue; }
    const word = match(WORD, text, pos);
    if (word !== undefined) {
      tokens.push({ kind: 'word', upper: word.toUpperCase(), pos, end: pos + word.length });
      i = pos + word.length;
      continue;
    }
    throw new FilterExpressionError(`unexpected character ${JSON.stringify(c)} at ${pos}`, pos);
  }
  tokens.push({ kind: 'end', pos: text.length, end: text.length });
  return tokens;
}

function readProperty(text: string, pos: number, tokens: Token[]): number {
  let i = pos + 1;
  const parts: string[] = [];
  for (;;) {
    const part = match(NAME_PART, text, i);
    if (part === undefined) {
      const what = parts.length === 0 ? 'a field name after @' : `a name after "@${parts.join('.')}."`;
      throw new FilterExpressionError(`expected ${what} at ${i} (names start with a letter or _)`, i);
    }
    parts.push(part);
    i += part.length;
    if (text[i] !== '.') break;
    i++;
  }
  tokens.push({ kind: 'property', name: parts.join('.'), pos, end: i });
  return i;
}

function readString(text: string, pos: number, tokens: Token[]): number {
  let value = '';
  let i = pos + 1;
  for (;;) {
    const q = text.indexOf("'", i);
    if (q < 0) throw new FilterExpressionError(`the string starting at ${pos} has no closing quote`, pos);
    value += text.slice(i, q);
    if (text[q + 1] === "'") { value += "'"; i = q + 2; continue; } // '' is a quote inside the string
    tokens.push({ kind: 'string', value, pos, end: q + 1 });
    return q + 1;
  }
}

function readSymbol(text: string, pos: number, tokens: Token[]): number {
  const two = text.slice(pos, pos + 2);
  if (two === '<>' || two === '>=' || two === '<=') {
    tokens.push({ kind: 'symbol', symbol: two, pos, end: pos + 2 });
    return pos + 2;
  }
  const c = text[pos]!;
  if (two === '!=' || two === '==' || c === '!') {
    throw new FilterExpressionError(`unknown operator "${two === '!=' || two === '==' ? two : c}" at ${pos} (use =, <>, <, >, <=, >=, LIKE or ILIKE)`, pos);
  }
  tokens.push({ kind: 'symbol', symbol: c as ComparisonSymbol, pos, end: pos + 1 });
  return pos + 1;
}

function readNumber(text: string, pos: number, tokens: Token[]): number {
  NUMBER.lastIndex = pos;
  const m = NUMBER.exec(text);
  const end = m === null ? pos : pos + m[0].length;
  if (m === null || (end < text.length && WORD_CHAR.test(text[end]!))) {
    const stop = m === null ? pos + 1 : end;
    throw new FilterExpressionError(`malformed number at ${pos} (write 123, 12.5, 123f or 123D), near ${JSON.stringify(text.slice(pos, stop + 1))}`, pos);
  }
  const value = m[1] === undefined ? m[0] : m[0].slice(0, -1);
  tokens.push({ kind: 'number', value, pos, end });
  return end;
}
