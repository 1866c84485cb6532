// The GraphQL `filter:` language (the original's `@title LIKE '%War%' OR ...`) read into Petal's
// FilterSpecs: operators, literals, precedence, the OR rule, errors with their offsets, bounds, and a
// fuzz run in which every input gives filters or a FilterExpressionError, never anything else.
import { describe, expect, it } from 'vitest';
import {
  FilterExpressionError, MAX_COMPARISONS, MAX_FILTER_LENGTH, MAX_NESTING, parseFilterExpression,
} from '../../src/graphql/filter-expression.js';
import type { FilterSpec, QuerySpec, Target, ValueKind } from '../../src/query/ast.js';
import { buildStoreQuery } from '../../src/repository/build-query.js';

const META: Readonly<Record<string, Target>> = {
  '_metadata.name': { kind: 'name' },
  '_metadata.path': { kind: 'path' },
  '_metadata.id': { kind: 'uuid' },
  '_metadata.nodeType': { kind: 'type' },
  '_metadata.created': { kind: 'property', name: 'cms:created' },
};
const FIELDS = new Set(['title', 'price', 'available', 'authors', 'x', 'a', 'b', 'c', 'stats.speed', 'publish_date']);

function targetOf(name: string): Target | undefined {
  return META[name] ?? (FIELDS.has(name) ? { kind: 'property', name } : undefined);
}

const parse = (text: string): FilterSpec[] => parseFilterExpression(text, targetOf);

/** The filters without their source text: target name (or kind), operator, values. */
function shape(text: string): [string, string, readonly string[]][] {
  return parse(text).map((f) => {
    if (f.kind !== 'filter') throw new Error('not a filter');
    return [f.target.kind === 'property' ? f.target.name : `:${f.target.kind}`, f.op, f.values];
  });
}

function errorOf(text: string): FilterExpressionError {
  try {
    parse(text);
  } catch (e) {
    if (e instanceof FilterExpressionError) return e;
    throw e;
  }
  throw new Error(`no error for ${text}`);
}

describe('filter expressions: operators', () => {
  it.each([
    ['=', 'eq'], ['<>', 'ne'], ['>', 'gt'], ['<', 'lt'], ['>=', 'gte'], ['<=', 'lte'],
  ])('@price %s 10 → %s', (symbol, op) => {
    expect(shape(`@price ${symbol} 10`)).toEqual([['price', op, ['10']]]);
    expect(shape(`@price${symbol}10`)).toEqual([['price', op, ['10']]]);
  });

  it('LIKE and ILIKE, in any case', () => {
    expect(shape("@title LIKE '%War%'")).toEqual([['title', 'like', ['%War%']]]);
    expect(shape("@title like '%War%'")).toEqual([['title', 'like', ['%War%']]]);
    expect(shape("@title ILIKE '%war%'")).toEqual([['title', 'ilike', ['%war%']]]);
    expect(shape("@title iLike '%war%'")).toEqual([['title', 'ilike', ['%war%']]]);
  });

  it('= null is the property being absent, <> null its being present', () => {
    expect(shape('@x = null')).toEqual([['x', 'null', ['true']]]);
    expect(shape('@x = NULL')).toEqual([['x', 'null', ['true']]]);
    expect(shape('@x <> null')).toEqual([['x', 'null', ['false']]]);
  });

  it('refuses NOT LIKE, NOT and operators of other languages, saying what it accepts', () => {
    expect(errorOf("@title NOT LIKE '%a%'")).toMatchObject({ position: 7, message: expect.stringMatching(/NOT is not supported \(at 7\)/) });
    expect(errorOf('@x != 1')).toMatchObject({ position: 3, message: expect.stringMatching(/unknown operator "!=" at 3 \(use =, <>/) });
    expect(errorOf('@x == 1').position).toBe(3);
  });
});

describe('filter expressions: literals', () => {
  it('strings in single quotes, with \'\' for a quote', () => {
    expect(shape("@title = 'It''s'")).toEqual([['title', 'eq', ["It's"]]]);
    expect(shape("@title = ''")).toEqual([['title', 'eq', ['']]]);
    expect(shape("@title = 'a AND @b = 1 OR ('")).toEqual([['title', 'eq', ['a AND @b = 1 OR (']]]);
  });

  it('integers, decimals, doubles (f) and BigDecimals (D) keep their digits and lose the suffix', () => {
    expect(shape('@price = 123')).toEqual([['price', 'eq', ['123']]]);
    expect(shape('@price = 12.5')).toEqual([['price', 'eq', ['12.5']]]);
    expect(shape('@price = 123f')).toEqual([['price', 'eq', ['123']]]);
    expect(shape('@price = 123.0f')).toEqual([['price', 'eq', ['123.0']]]);
    expect(shape('@price = 123D')).toEqual([['price', 'eq', ['123']]]);
    expect(shape('@price = 123.0D')).toEqual([['price', 'eq', ['123.0']]]);
    expect(shape('@price > -4.5')).toEqual([['price', 'gt', ['-4.5']]]);
  });

  it('true and false in any case', () => {
    expect(shape('@available = true')).toEqual([['available', 'eq', ['true']]]);
    expect(shape('@available = FALSE')).toEqual([['available', 'eq', ['false']]]);
    expect(shape('@available <> True')).toEqual([['available', 'ne', ['true']]]);
  });

  it('dotted names reach submodels and metadata', () => {
    expect(shape('@stats.speed = 200')).toEqual([['stats.speed', 'eq', ['200']]]);
    expect(shape("@_metadata.created > '2018-10-04T11:47:44.408+02:00'")).toEqual([['cms:created', 'gt', ['2018-10-04T11:47:44.408+02:00']]]);
  });

  it('completes the original\'s short date-times to the form build-query reads, and leaves LIKE patterns alone', () => {
    expect(shape("@_metadata.created > '2018-10-02T12:57+02:00'")).toEqual([['cms:created', 'gt', ['2018-10-02T12:57:00.000+02:00']]]);
    expect(shape("@publish_date >= '2018-10-02T12:57:30Z'")).toEqual([['publish_date', 'gte', ['2018-10-02T12:57:30.000Z']]]);
    expect(shape("@publish_date < '2018-10-02T12:57:30.12345+0200'")).toEqual([['publish_date', 'lt', ['2018-10-02T12:57:30.123+02:00']]]);
    expect(shape("@publish_date = '1859-11-24'")).toEqual([['publish_date', 'eq', ['1859-11-24']]]);
    expect(shape("@title LIKE '2018-10-02T12:57Z'")).toEqual([['title', 'like', ['2018-10-02T12:57Z']]]);
  });

  it('gives values build-query accepts: a short date-time on a Date property, null as absence', () => {
    const spec: QuerySpec = {
      workspace: 'books', rootPath: '/', typeFilter: null, fullText: [], orderBy: [], offset: 0, limit: 20,
      filters: parse("@_metadata.created > '2018-10-02T12:57+02:00' AND @x = null AND @price >= 10f"),
    };
    const kinds: Record<string, ValueKind[]> = { 'cms:created': ['date'], price: ['number'] };
    const q = buildStoreQuery(spec, { kindsOf: (n) => kinds[n] ?? [], typesPresent: [] });
    expect(q.conditions).toEqual([
      { kind: 'ranges', target: { kind: 'property', name: 'cms:created' }, negate: false,
        ranges: [{ kind: 'date', lo: { value: Date.parse('2018-10-02T12:57:00.000+02:00'), inclusive: false } }] },
      { kind: 'exists', name: 'x', exists: false },
      { kind: 'ranges', target: { kind: 'property', name: 'price' }, negate: false, ranges: [{ kind: 'number', lo: { value: 10, inclusive: true } }] },
    ]);
  });

  it('refuses values that do not fit the operator', () => {
    expect(errorOf('@title LIKE 5')).toMatchObject({ position: 12, message: expect.stringMatching(/LIKE takes a quoted pattern/) });
    expect(errorOf('@x > null')).toMatchObject({ position: 5, message: expect.stringMatching(/null can be compared only with = or <>/) });
    expect(errorOf('@available > true')).toMatchObject({ position: 11, message: expect.stringMatching(/true and false can be compared only with = or <>/) });
    expect(errorOf('@x = "a"')).toMatchObject({ position: 5, message: expect.stringMatching(/single quotes/) });
    expect(errorOf("@x = 'abc")).toMatchObject({ position: 5, message: expect.stringMatching(/no closing quote/) });
    expect(errorOf('@x = 12abc')).toMatchObject({ position: 5, message: expect.stringMatching(/malformed number at 5/) });
    expect(errorOf('@x = 1.')).toMatchObject({ position: 5 });
    expect(errorOf('@x = -')).toMatchObject({ position: 5 });
    expect(errorOf('@x = abc')).toMatchObject({ position: 5, message: expect.stringMatching(/expected a value after @x = at 5 .*found "abc"/) });
  });
});

describe('filter expressions: node attributes behind metadata fields', () => {
  it('paths are normalised and must be absolute; types take the canonical prefix', () => {
    expect(shape("@_metadata.path = '/My-Good-Reads//Science/'")).toEqual([[':path', 'eq', ['/My-Good-Reads/Science']]]);
    expect(shape("@_metadata.nodeType = 'mgnl:page'")).toEqual([[':type', 'eq', ['cms:page']]]);
    expect(shape("@_metadata.id <> 'c2a5ea72'")).toEqual([[':uuid', 'ne', ['c2a5ea72']]]);
    expect(shape("@_metadata.name LIKE 'Darwin%'")).toEqual([[':name', 'like', ['Darwin%']]]);
    expect(errorOf("@_metadata.path = 'Science'")).toMatchObject({ position: 18, message: expect.stringMatching(/not an absolute path/) });
  });

  it('as in delivery URLs, path, id and type take only = and <>, and nothing is compared with null', () => {
    expect(errorOf("@_metadata.path LIKE '/a/%'")).toMatchObject({ position: 16, message: expect.stringMatching(/@_metadata.path can be compared only with = or <>/) });
    expect(errorOf("@_metadata.id > 'a'").position).toBe(14);
    expect(errorOf('@_metadata.name = null')).toMatchObject({ position: 18, message: expect.stringMatching(/every item has @_metadata.name/) });
  });
});

describe('filter expressions: AND, OR, parentheses', () => {
  it('ORs of one field and one operator become one filter, its param the comparisons as written', () => {
    expect(parse("@title LIKE '%War%' OR @title LIKE '%Struggle%'")).toEqual([{
      kind: 'filter', param: "@title LIKE '%War%' OR @title LIKE '%Struggle%'",
      target: { kind: 'property', name: 'title' }, op: 'like', values: ['%War%', '%Struggle%'],
    }]);
  });

  it('AND joins filters; and, or in any case', () => {
    expect(shape('@price >= 10 AND @available = true')).toEqual([['price', 'gte', ['10']], ['available', 'eq', ['true']]]);
    expect(shape('@price >= 10 and @price <= 20')).toEqual([['price', 'gte', ['10']], ['price', 'lte', ['20']]]);
    expect(shape('@a = 1 or @a = 2 Or @a = 3')).toEqual([['a', 'eq', ['1', '2', '3']]]);
  });

  it('AND binds tighter than OR', () => {
    // a=1 OR (a=2 AND b=3) is (a=1 OR a=2) AND (a=1 OR b=3): the second mixes fields.
    expect(errorOf('@a = 1 OR @a = 2 AND @b = 3').message).toMatch(/different fields/);
    expect(shape('(@a = 1 OR @a = 2) AND @b = 3')).toEqual([['a', 'eq', ['1', '2']], ['b', 'eq', ['3']]]);
    expect(shape('@b = 3 AND @a = 1 OR @a = 2 AND @b = 3')).toEqual([['b', 'eq', ['3']], ['a', 'eq', ['1', '2']]]);
  });

  it('parentheses group, and are multiplied out to an AND of ORs', () => {
    expect(shape('((@a = 1))')).toEqual([['a', 'eq', ['1']]]);
    expect(shape('(@a = 1 OR @a = 2) AND (@b = 1 OR (@b = 2 OR @b = 3))')).toEqual([['a', 'eq', ['1', '2']], ['b', 'eq', ['1', '2', '3']]]);
    expect(shape('(@a = 1 AND @b = 2) OR (@a = 1 AND @b = 3)')).toEqual([['a', 'eq', ['1']], ['b', 'eq', ['2', '3']]]);
    expect(shape('(@a = 1 AND @b = 2) OR (@a = 1 AND @b = 2)')).toEqual([['a', 'eq', ['1']], ['b', 'eq', ['2']]]);
    expect(shape('@a = 1 OR (@a = 1 AND @b = 2)')).toEqual([['a', 'eq', ['1']]]);
  });

  it('repeated comparisons count once; repeated clauses are harmless', () => {
    expect(shape("@a = 1 OR @a = 1 OR @a  =  '1'")).toEqual([['a', 'eq', ['1']]]);
    expect(shape('@a = 1 AND @a = 1')).toEqual([['a', 'eq', ['1']]]);
    expect(shape('@a <> 1 OR @a <> 1')).toEqual([['a', 'ne', ['1']]]);
  });

  it('refuses an OR across fields or operators, saying what Petal can do, at the comparison that differs', () => {
    const fields = errorOf('@a = 1 OR @b = 2');
    expect(fields.position).toBe(10);
    expect(fields.message).toMatch(/Petal cannot combine comparisons on different fields with OR \(@a = 1 OR @b = 2, at 10\)/);
    expect(fields.message).toMatch(/OR can join only comparisons of one field with one operator.*AND can join any/);
    expect(errorOf('@a = 1 OR @a > 2')).toMatchObject({ position: 10, message: expect.stringMatching(/different operators/) });
    expect(errorOf("@title LIKE 'a' OR @title ILIKE 'b'").message).toMatch(/different operators/);
    expect(errorOf('@x = null OR @x <> null')).toMatchObject({ position: 13, message: expect.stringMatching(/different operators/) });
    expect(errorOf('@x = null OR @x = 1').message).toMatch(/different operators/);
    expect(errorOf('@c = 1 AND (@a = 1 OR @b = 2)').position).toBe(22);
  });

  it('refuses <> ORed over several values, which one negated filter cannot say', () => {
    expect(errorOf('@a <> 1 OR @a <> 2')).toMatchObject({ position: 11, message: expect.stringMatching(/cannot join <> comparisons with OR.*join <> comparisons with AND/) });
  });
});

describe('filter expressions: errors name what was expected and where', () => {
  it.each([
    ['@title', 6, /expected an operator after @title at 6 .*found the end of the filter/],
    ['@title  foo', 8, /expected an operator after @title at 8 .*found "foo"/],
    ['@title =', 8, /expected a value after @title = at 8/],
    ['@nope = 1', 0, /unknown field @nope at 0/],
    ['@a = 1 AND', 10, /expected a comparison .* at 10, found the end of the filter/],
    ['@a = 1 @b = 2', 7, /expected AND, OR or the end of the filter at 7, found "@b"/],
    ['(@a = 1', 7, /expected AND, OR or \) to close the \( at 0, found the end of the filter at 7/],
    ['@a = 1)', 6, /unmatched \) at 6/],
    ['()', 1, /expected a comparison .* at 1, found "\)"/],
    ['@ = 1', 1, /expected a field name after @ at 1/],
    ['@a. = 1', 3, /expected a name after "@a\." at 3/],
    ['@1a = 1', 1, /expected a field name after @ at 1/],
    ['title = 1', 0, /expected a comparison .* at 0, found "title"/],
    ['@a = 1 AND # ', 11, /unexpected character "#" at 11/],
    ['@a = 1 XOR @a = 2', 7, /expected AND, OR or the end of the filter at 7, found "XOR"/],
  ])('%j → at %i', (text, position, message) => {
    const e = errorOf(text);
    expect(e.position).toBe(position);
    expect(e.message).toMatch(message);
    expect(e.name).toBe('FilterExpressionError');
  });

  it('a blank filter filters nothing', () => {
    expect(parse('')).toEqual([]);
    expect(parse('  \n\t')).toEqual([]);
  });
});

describe('filter expressions: bounds', () => {
  it(`at most ${MAX_FILTER_LENGTH} characters`, () => {
    const fits = `@title = '${'x'.repeat(MAX_FILTER_LENGTH - 11)}'`;
    expect(fits).toHaveLength(MAX_FILTER_LENGTH);
    expect(parse(fits)).toHaveLength(1);
    expect(errorOf(`${fits} `)).toMatchObject({ position: MAX_FILTER_LENGTH, message: expect.stringMatching(/longer than 4096 characters/) });
  });

  it(`at most ${MAX_COMPARISONS} comparisons`, () => {
    const some = (n: number) => Array.from({ length: n }, (_, i) => `@a = ${i}`).join(' OR ');
    expect(shape(some(MAX_COMPARISONS))[0]![2]).toHaveLength(MAX_COMPARISONS);
    const e = errorOf(some(MAX_COMPARISONS + 1));
    expect(e.message).toMatch(/more than 64 comparisons/);
    expect(e.position).toBe(some(MAX_COMPARISONS).length + ' OR '.length);
  });

  it(`parentheses nest at most ${MAX_NESTING} deep`, () => {
    const nest = (n: number) => `${'('.repeat(n)}@a = 1${')'.repeat(n)}`;
    expect(shape(nest(MAX_NESTING))).toEqual([['a', 'eq', ['1']]]);
    expect(errorOf(nest(MAX_NESTING + 1))).toMatchObject({ position: MAX_NESTING, message: expect.stringMatching(/nest deeper than 32/) });
    expect(errorOf('('.repeat(4000)).position).toBe(MAX_NESTING);
  });

  it('refuses an OR of ANDs that would multiply out past the clause limit, at that OR', () => {
    // (a=0 AND b=0) OR (a=1 AND b=1) OR ... with k pairs is 2^k clauses before any could be dropped: 2^9 > 256.
    const pairs = Array.from({ length: 11 }, (_, i) => `(@a = ${i} AND @b = ${i})`);
    const text = pairs.join(' OR ');
    const e = errorOf(text);
    expect(e.message).toMatch(/multiplies out to more than 256 groups/);
    expect(e.position).toBe(text.indexOf('(@a = 8') - 3);
    expect(text.slice(e.position, e.position + 2)).toBe('OR');
    // Fewer pairs multiply out and are refused for what they are: ORs across fields.
    expect(errorOf(pairs.slice(0, 3).join(' OR ')).message).toMatch(/different fields/);
  });
});

describe('filter expressions: fuzz', () => {
  // A small deterministic generator (mulberry32), so a failure replays.
  function random(seed: number): () => number {
    let s = seed >>> 0;
    return () => {
      s = (s + 0x6d2b79f5) >>> 0;
      let t = s;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }
  const PIECES = [
    '@title', '@a', '@b', '@x', '@_metadata.path', '@_metadata.name', '@_metadata.id', '@nope', '@', '@a.', '@stats.speed',
    '=', '<>', '>', '<', '>=', '<=', '!=', 'LIKE', 'ilike', 'NOT', 'AND', 'or', 'OR', '(', ')', '((', '))',
    "'War'", "'%a%'", "'/p/q'", "''", "'it''s'", "'", '"x"', '1', '-2.5', '3f', '4.0D', '12abc', '1.', 'true', 'FALSE', 'null', 'xyz',
    ' ', ' ', ' ', '\n', '#', '.', ',', '\u0000', 'é', '😀',
  ];
  const CHARS = "@'()=<>!-. _aZ09fD%\"\\";

  function garble(next: () => number): string {
    const n = Math.floor(next() * 24);
    let s = '';
    for (let k = 0; k < n; k++) {
      s += next() < 0.8 ? PIECES[Math.floor(next() * PIECES.length)]! + (next() < 0.7 ? ' ' : '') : CHARS[Math.floor(next() * CHARS.length)]!;
    }
    return s;
  }

  it('gives filters or a FilterExpressionError with a position inside the text, for every input', () => {
    const next = random(20240611);
    let parsed = 0;
    let refused = 0;
    for (let k = 0; k < 4000; k++) {
      const text = garble(next);
      let result: FilterSpec[];
      try {
        result = parse(text);
      } catch (e) {
        if (!(e instanceof FilterExpressionError)) throw new Error(`${JSON.stringify(text)} threw ${String(e)}`);
        expect(Number.isInteger(e.position) && e.position >= 0 && e.position <= text.length, JSON.stringify(text)).toBe(true);
        expect(e.message).toMatch(/\bat \d+/);
        refused++;
        continue;
      }
      for (const f of result) {
        expect(f.kind).toBe('filter');
        if (f.kind === 'filter') {
          expect(f.values.length, JSON.stringify(text)).toBeGreaterThan(0);
          expect(f.param.startsWith('@'), JSON.stringify(text)).toBe(true);
          if (f.op === 'null' || f.op === 'ne') expect(f.values).toHaveLength(1);
        }
      }
      parsed++;
    }
    // The generator must reach both outcomes, or the run proves little.
    expect(parsed).toBeGreaterThan(50);
    expect(refused).toBeGreaterThan(1000);
  });

  it('gives the same filters for well-formed expressions whatever the spacing and keyword case', () => {
    const next = random(7);
    const atoms = ['@a = 1', "@a = 'x'", '@b > 2', '@b > 3', "@title LIKE '%q%'", '@x = null'];
    for (let k = 0; k < 300; k++) {
      const n = 1 + Math.floor(next() * 5);
      const parts = Array.from({ length: n }, () => atoms[Math.floor(next() * atoms.length)]!);
      const text = parts.join(' AND ');
      const spaced = parts.map((p) => p.replace(/ /g, next() < 0.5 ? '  ' : '\t')).join(next() < 0.5 ? ' and\n' : ' And ');
      expect(shape(spaced)).toEqual(shape(text));
    }
  });
});
