// SQLite query compiler: the SQL text and bound parameters of compileCount/compilePage for typical
// StoreQuery shapes. Every value and every property name travels as a parameter, never as SQL text;
// the same shape always gives the same SQL (so hostile values cannot change it). Each shape is also
// run against the query fixture to check that the SQL means what it should.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import type { StoreQuery } from '../../src/query/ast.js';
import { compileCount, compilePage, NODE_COLUMNS } from '../../src/store/sqlite/compile-query.js';
import type { SqlParam } from '../../src/store/sql/sql-writer.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/query/', import.meta.url));

const BASE: StoreQuery = {
  workspace: 'tours', rootPath: '/', types: null, conditions: [], fullText: [], orderBy: [], offset: 0, limit: 100,
};
const SELECT = `SELECT ${NODE_COLUMNS} FROM nodes n`;
const COUNT = 'SELECT count(*) AS total FROM nodes n';

interface Case {
  readonly title: string;
  readonly query: StoreQuery;
  readonly where: string;
  readonly whereParams: readonly SqlParam[];
  /** Text between `FROM nodes n` and ` WHERE` of the page statement (order joins). */
  readonly joins?: string;
  readonly joinParams?: readonly SqlParam[];
  readonly orderBy: string;
  /** Values and names given by the caller: each must be a parameter and never appear in the SQL. */
  readonly userData: readonly (string | number)[];
  /** What the query finds in the fixture: total and the node names of the page, in order. */
  readonly total: number;
  readonly page: readonly string[];
  readonly sortPage?: boolean;
}

const CASES: readonly Case[] = [
  {
    title: 'equality on a string property',
    query: {
      ...BASE,
      conditions: [{
        kind: 'ranges', target: { kind: 'property', name: 'color' }, negate: false,
        ranges: [{ kind: 'string', lo: { value: 'red', inclusive: true }, hi: { value: 'red', inclusive: true } }],
      }],
    },
    where: ' WHERE n.workspace = ? AND EXISTS (SELECT 1 FROM index_rows(n.props) p WHERE p.name = ? AND ((p.kind = 1 AND p.s = ?)))',
    whereParams: ['tours', 'color', 'red'],
    orderBy: ' ORDER BY n.path LIMIT ? OFFSET ?',
    userData: ['tours', 'color', 'red'],
    total: 2,
    page: ['japan-spring', 'rome'],
  },
  {
    title: 'a number range below rootPath, restricted to types',
    query: {
      ...BASE,
      rootPath: '/catalog/europe',
      types: ['cms:content'],
      conditions: [{
        kind: 'ranges', target: { kind: 'property', name: 'price' }, negate: false,
        ranges: [{ kind: 'number', lo: { value: 100, inclusive: true }, hi: { value: 150.5, inclusive: false } }],
      }],
    },
    where: ' WHERE n.workspace = ? AND n.path >= ? AND n.path < ? AND n.type IN (?)'
      + ' AND EXISTS (SELECT 1 FROM index_rows(n.props) p WHERE p.name = ? AND ((p.kind = 2 AND p.n >= ? AND p.n < ?)))',
    whereParams: ['tours', '/catalog/europe/', '/catalog/europe0', 'cms:content', 'price', 100, 150.5],
    orderBy: ' ORDER BY n.path LIMIT ? OFFSET ?',
    userData: ['tours', 'price', '/catalog/europe', 'cms:content', 150.5],
    total: 2,
    page: ['alps', 'berlin'],
  },
  {
    title: 'a negated range (ne / not-in): the property must exist',
    query: {
      ...BASE,
      types: ['cms:content'],
      conditions: [{
        kind: 'ranges', target: { kind: 'property', name: 'tags' }, negate: true,
        ranges: [{ kind: 'string', lo: { value: 'culture', inclusive: true }, hi: { value: 'culture', inclusive: true } }],
      }],
    },
    where: ' WHERE n.workspace = ? AND n.type IN (?)'
      + ' AND EXISTS (SELECT 1 FROM index_rows(n.props) p WHERE p.name = ?)'
      + ' AND NOT EXISTS (SELECT 1 FROM index_rows(n.props) p WHERE p.name = ? AND ((p.kind = 1 AND p.s = ?)))',
    whereParams: ['tours', 'cms:content', 'tags', 'tags', 'culture'],
    orderBy: ' ORDER BY n.path LIMIT ? OFFSET ?',
    userData: ['tours', 'tags', 'culture', 'cms:content'],
    total: 5,
    page: ['Kyoto-Gardens', 'alps', 'finland', 'fjords', 'iceland'],
    sortPage: true,
  },
  {
    title: 'an ilike on a property and a negated like on the name',
    query: {
      ...BASE,
      conditions: [
        { kind: 'like', target: { kind: 'property', name: 'description' }, caseInsensitive: true, patterns: ['%japan%'] },
        { kind: 'like', target: { kind: 'name' }, caseInsensitive: false, negate: true, patterns: ['%\\_de'] },
      ],
    },
    where: ' WHERE n.workspace = ? AND EXISTS (SELECT 1 FROM index_rows(n.props) p WHERE p.name = ? AND (like_match(p.f, ?)))'
      + ' AND NOT (like_match(n.name, ?))',
    whereParams: ['tours', 'description', '%japan%', '%\\_de'],
    orderBy: ' ORDER BY n.path LIMIT ? OFFSET ?',
    userData: ['tours', 'description', 'japan', '_de'],
    total: 2,
    page: ['Kyoto-Gardens', 'japan-spring'],
  },
  {
    title: 'a like with escaped wildcards and (formerly GLOB) metacharacters',
    query: {
      ...BASE,
      conditions: [{ kind: 'like', target: { kind: 'property', name: 'name' }, caseInsensitive: false, patterns: ['100\\%%', '*?[x'] }],
    },
    where: ' WHERE n.workspace = ? AND EXISTS (SELECT 1 FROM index_rows(n.props) p WHERE p.name = ? AND (like_match(p.s, ?) OR like_match(p.s, ?)))',
    whereParams: ['tours', 'name', '100\\%%', '*?[x'],
    orderBy: ' ORDER BY n.path LIMIT ? OFFSET ?',
    userData: ['tours', '100'],
    total: 1,
    page: ['iceland'],
  },
  {
    title: 'exists=false and descendantOf with two paths',
    query: {
      ...BASE,
      conditions: [
        { kind: 'exists', name: 'price', exists: false },
        { kind: 'descendantOf', paths: ['/catalog/north', '/catalog/fruit'] },
      ],
    },
    where: ' WHERE n.workspace = ? AND NOT EXISTS (SELECT 1 FROM index_rows(n.props) p WHERE p.name = ?)'
      + ' AND ((n.path >= ? AND n.path < ?) OR (n.path >= ? AND n.path < ?))',
    whereParams: ['tours', 'price', '/catalog/north/', '/catalog/north0', '/catalog/fruit/', '/catalog/fruit0'],
    orderBy: ' ORDER BY n.path LIMIT ? OFFSET ?',
    userData: ['tours', 'price', '/catalog/north', '/catalog/fruit'],
    total: 5,
    page: ['a', 'b', 'c', 'd', 'iceland'],
  },
  {
    title: 'a negated descendantOf: nodes below none of the paths (the paths themselves stay)',
    query: {
      ...BASE,
      rootPath: '/catalog',
      conditions: [{ kind: 'descendantOf', paths: ['/catalog/asia', '/catalog/europe', '/catalog/fruit'], negate: true }],
    },
    where: ' WHERE n.workspace = ? AND n.path >= ? AND n.path < ?'
      + ' AND NOT ((n.path >= ? AND n.path < ?) OR (n.path >= ? AND n.path < ?) OR (n.path >= ? AND n.path < ?))',
    whereParams: ['tours', '/catalog/', '/catalog0', '/catalog/asia/', '/catalog/asia0', '/catalog/europe/', '/catalog/europe0', '/catalog/fruit/', '/catalog/fruit0'],
    orderBy: ' ORDER BY n.path LIMIT ? OFFSET ?',
    userData: ['tours', '/catalog/asia', '/catalog/europe', '/catalog/fruit'],
    total: 8,
    page: ['asia', 'europe', 'fruit', 'north', 'finland', 'fjords', 'iceland', 'odd'],
  },
  {
    title: 'exists=true on a system property',
    query: { ...BASE, conditions: [{ kind: 'exists', name: 'cms:created', exists: true }] },
    where: ' WHERE n.workspace = ? AND EXISTS (SELECT 1 FROM index_rows(n.props) p WHERE p.name = ?)',
    whereParams: ['tours', 'cms:created'],
    orderBy: ' ORDER BY n.path LIMIT ? OFFSET ?',
    userData: ['tours', 'cms:created'],
    total: 3,
    page: ['Kyoto-Gardens', 'japan-spring', 'vietnam'],
  },
  {
    title: 'full text: whole words and prefixes, ANDed',
    query: { ...BASE, fullText: [{ word: 'cherry', prefix: false }, { word: 'bloss', prefix: true }] },
    where: ' WHERE n.workspace = ? AND n.nid IN (SELECT rowid FROM fts WHERE fts MATCH ?)',
    whereParams: ['tours', '"cherry" "bloss"*'],
    orderBy: ' ORDER BY n.path LIMIT ? OFFSET ?',
    userData: ['tours', 'cherry', 'bloss'],
    total: 1,
    page: ['japan-spring'],
  },
  {
    title: 'orderBy a property descending, then @name, with offset',
    query: {
      ...BASE,
      types: ['cms:content'],
      orderBy: [{ target: { kind: 'property', name: 'price' }, descending: true }, { target: { kind: 'name' }, descending: false }],
      offset: 1,
      limit: 3,
    },
    joins: ' LEFT JOIN index_rows(n.props) o0 ON o0.name = ? AND o0.pos = 0',
    joinParams: ['price'],
    where: ' WHERE n.workspace = ? AND n.type IN (?)',
    whereParams: ['tours', 'cms:content'],
    orderBy: ' ORDER BY (o0.name IS NULL), o0.n DESC, o0.f DESC, fold(n.name), n.name, n.path LIMIT ? OFFSET ?',
    userData: ['tours', 'price', 'cms:content'],
    total: 16,
    page: ['japan-spring', 'fjords', 'paris'],
  },
  {
    title: 'orderBy @path descending and a uuid condition',
    query: {
      ...BASE,
      conditions: [{
        kind: 'ranges', target: { kind: 'uuid' }, negate: false,
        ranges: [
          { kind: 'string', lo: { value: '10000000-0000-4000-8000-00000000000b', inclusive: true }, hi: { value: '10000000-0000-4000-8000-00000000000b', inclusive: true } },
          { kind: 'string', lo: { value: '10000000-0000-4000-8000-00000000000c', inclusive: true }, hi: { value: '10000000-0000-4000-8000-00000000000c', inclusive: true } },
        ],
      }],
      orderBy: [{ target: { kind: 'path' }, descending: true }],
    },
    where: ' WHERE n.workspace = ? AND ((n.id = ?) OR (n.id = ?))',
    whereParams: ['tours', '10000000-0000-4000-8000-00000000000b', '10000000-0000-4000-8000-00000000000c'],
    orderBy: ' ORDER BY fold(n.path) DESC, n.path DESC, n.path LIMIT ? OFFSET ?',
    userData: ['tours', '10000000-0000-4000-8000-00000000000b', '10000000-0000-4000-8000-00000000000c'],
    total: 2,
    page: ['rome', 'paris'],
  },
];

let t: TestApp;
// The statements pinned below answer the fixture: the SQL path, whatever the default path is.
const sql = new SqliteStore({ file: ':memory:', queryIndexThreshold: Infinity });

beforeAll(async () => {
  await sql.open();
  t = await createTestApp({ contentPaths: [FIXTURES], store: sql });
});
afterAll(async () => {
  await t?.close();
  await sql.close();
});

function placeholders(sql: string): number {
  return (sql.match(/\?/g) ?? []).length;
}

describe('compileCount / compilePage (SQLite)', () => {
  describe.each(CASES)('$title', (c) => {
    it('pins the count statement', () => {
      const { sql, params } = compileCount(c.query);
      expect(sql).toBe(COUNT + c.where);
      expect(params).toEqual(c.whereParams);
      expect(placeholders(sql)).toBe(params.length);
    });

    it('pins the page statement', () => {
      const { sql, params } = compilePage(c.query);
      expect(sql).toBe(SELECT + (c.joins ?? '') + c.where + c.orderBy);
      expect(params).toEqual([...(c.joinParams ?? []), ...c.whereParams, c.query.limit, c.query.offset]);
      expect(placeholders(sql)).toBe(params.length);
    });

    it('keeps every caller value and name out of the SQL text', () => {
      const page = compilePage(c.query);
      for (const compiled of [compileCount(c.query), page]) {
        for (const v of c.userData) expect(compiled.sql, String(v)).not.toContain(String(v));
        expect(compiled.sql).not.toMatch(/'/);
      }
      // The page statement binds everything the count statement does, plus order joins and paging.
      for (const v of c.userData) {
        expect(page.params.some((p) => p === v || (typeof p === 'string' && p.includes(String(v)))), String(v)).toBe(true);
      }
    });

    it('finds what it should in the fixture', async () => {
      const { total, nodes } = await t.store.reads.query(c.query);
      expect(total).toBe(c.total);
      const page = nodes.map((n) => n.name);
      expect(c.sortPage ? [...page].sort() : page).toEqual(c.sortPage ? [...c.page].sort() : c.page);
    });
  });

  it('gives the same SQL for the same shape whatever the values and names', () => {
    const hostile: StoreQuery = {
      ...BASE,
      workspace: "tours'; DROP TABLE nodes; --",
      rootPath: "/x') OR 1=1 --",
      types: ['cms:content" OR "1"="1'],
      conditions: [
        {
          kind: 'ranges', target: { kind: 'property', name: "color' OR '1'='1" }, negate: false,
          ranges: [{ kind: 'string', lo: { value: "'; DROP TABLE nodes; --", inclusive: true }, hi: { value: "'; DROP TABLE nodes; --", inclusive: true } }],
        },
        { kind: 'like', target: { kind: 'property', name: 'a]b[c' }, caseInsensitive: true, patterns: ["%' OR 1=1 --%"] },
        { kind: 'exists', name: 'x"); DELETE FROM props; --', exists: false },
        { kind: 'descendantOf', paths: ["/a' OR 'b"] },
      ],
      orderBy: [{ target: { kind: 'property', name: 'price DESC; DROP TABLE nodes' }, descending: true }],
    };
    const benign: StoreQuery = {
      ...BASE,
      rootPath: '/catalog',
      types: ['cms:content'],
      conditions: [
        {
          kind: 'ranges', target: { kind: 'property', name: 'color' }, negate: false,
          ranges: [{ kind: 'string', lo: { value: 'red', inclusive: true }, hi: { value: 'red', inclusive: true } }],
        },
        { kind: 'like', target: { kind: 'property', name: 'name' }, caseInsensitive: true, patterns: ['%x%'] },
        { kind: 'exists', name: 'price', exists: false },
        { kind: 'descendantOf', paths: ['/catalog/asia'] },
      ],
      orderBy: [{ target: { kind: 'property', name: 'price' }, descending: true }],
    };
    expect(compileCount(hostile).sql).toBe(compileCount(benign).sql);
    expect(compilePage(hostile).sql).toBe(compilePage(benign).sql);
    for (const s of [compileCount(hostile).sql, compilePage(hostile).sql]) {
      expect(s).not.toMatch(/DROP|DELETE|OR 1=1|'/);
    }
    expect(compilePage(hostile).params).toContain("'; DROP TABLE nodes; --");
    expect(compilePage(hostile).params).toContain('price DESC; DROP TABLE nodes');
  });

  it('writes an impossible condition for an empty type list and a never condition', () => {
    expect(compileCount({ ...BASE, types: [] }).sql).toBe(`${COUNT} WHERE n.workspace = ? AND 0`);
    expect(compileCount({ ...BASE, conditions: [{ kind: 'never' }] }).sql).toBe(`${COUNT} WHERE n.workspace = ? AND 0`);
  });
});
