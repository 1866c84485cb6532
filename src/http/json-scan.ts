// HTTP layer: one linear pass over a JSON body's text that measures what JSON.parse would build
// (nesting depth, values and keys, characters of each string) and stops at the first limit passed,
// before JSON.parse allocates anything. JSON.parse of 3 million nested arrays took seconds on the main
// thread; the scan stops after the 65th `[`. Pure: no Fastify, no I/O.

/** What one JSON body may hold (JSON_BODY_LIMITS in limits.ts; routes may ask for others). */
export interface JsonBodyLimits {
  /** Arrays and objects nested in one another. */
  readonly maxDepth: number;
  /** Values and keys of the whole body: every array, object, string, number, literal and key counts one. */
  readonly maxItems: number;
  /** UTF-16 code units of one string (a key or a value), escapes decoded. */
  readonly maxStringChars: number;
}

export type JsonLimit = 'depth' | 'items' | 'string';

const OPEN_ARRAY = 0x5b, OPEN_OBJECT = 0x7b, CLOSE_ARRAY = 0x5d, CLOSE_OBJECT = 0x7d;
const COMMA = 0x2c, COLON = 0x3a, QUOTE = 0x22, U = 0x75;
const SPACE = 0x20, TAB = 0x09, LF = 0x0a, CR = 0x0d;

/**
 * Where a scan is inside the text's strings: the next `"` and `\` at or after the string being read,
 * kept between strings so that many strings, or a string of many escapes, never search the same text
 * twice; and the characters of the last string read.
 */
interface StringCursor { quote: number; backslash: number; chars: number }

/** The index of the `"` that ends the string whose text starts at `from` (-1: unterminated); sets `cursor.chars`. */
function stringEnd(text: string, from: number, cursor: StringCursor): number {
  let j = from;
  let chars = 0;
  for (;;) {
    if (cursor.quote < j) cursor.quote = text.indexOf('"', j);
    if (cursor.quote === -1) return -1;
    if (cursor.backslash !== -1 && cursor.backslash < j) cursor.backslash = text.indexOf('\\', j);
    if (cursor.backslash === -1 || cursor.backslash > cursor.quote) {
      cursor.chars = chars + cursor.quote - j;
      return cursor.quote;
    }
    chars += cursor.backslash - j + 1; // an escape is one character (`\uXXXX` one UTF-16 unit)
    j = cursor.backslash + (text.charCodeAt(cursor.backslash + 1) === U ? 6 : 2);
  }
}

/**
 * The first limit `text` passes, or undefined. Exact on valid JSON; on malformed text the counts are
 * exact up to the first error, which is as far as JSON.parse gets before it throws, so whatever the
 * scan lets through, JSON.parse builds no more than the limits allow.
 */
export function scanJson(text: string, limits: JsonBodyLimits): JsonLimit | undefined {
  const { maxDepth, maxItems, maxStringChars } = limits;
  const n = text.length;
  const cursor: StringCursor = { quote: -1, backslash: text.indexOf('\\'), chars: 0 };
  let depth = 0;
  let items = 0;
  let inToken = false; // inside a number or literal (counted at its first character)
  // A while loop whose index moves in one place: V8 (Node 20) miscompiled the first form of this
  // scan, a for loop whose index a string's end also set, into one that never ended.
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > maxDepth) return 'depth';
      if (++items > maxItems) return 'items';
      inToken = false;
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      if (depth > 0) depth--; // a stray close (malformed anyway) buys no depth back
      inToken = false;
    } else if (c === COMMA || c === COLON || c === SPACE || c === LF || c === CR || c === TAB) {
      inToken = false;
    } else if (c === QUOTE) {
      if (++items > maxItems) return 'items';
      const end = stringEnd(text, i + 1, cursor);
      if (end === -1) return undefined; // unterminated: JSON.parse refuses it
      if (cursor.chars > maxStringChars) return 'string';
      inToken = false;
      i = end;
    } else if (!inToken) {
      inToken = true;
      if (++items > maxItems) return 'items';
    }
    i++;
  }
  return undefined;
}

/** The message of a refusal, naming the limit. */
export function limitMessage(limit: JsonLimit, limits: JsonBodyLimits): string {
  switch (limit) {
    case 'depth': return `body: nesting deeper than ${limits.maxDepth} levels`;
    case 'items': return `body: more than ${limits.maxItems} values and keys`;
    case 'string': return `body: a string longer than ${limits.maxStringChars} characters`;
  }
}
