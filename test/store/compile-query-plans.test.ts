// SQLite query compiler without value indexes (migration 6): every property filter, order key and kind
// lookup of compileCount/compilePage/compileKinds must search the props primary key range of its
// property (ws, name), never scan the whole props table. The store runs no ANALYZE, so the plans of
// the migrated empty schema are the plans of a full store.
import { afterAll, describe, expect, it } from 'vitest';
import type { Condition, StoreQuery, TypedRange } from '../../src/query/ast.js';
import { compileCount, compileKinds, compilePage } from '../../src/store/sqlite/compile-query.js';
import type { CompiledSql } from '../../src/store/sql/sql-writer.js';
import { MIGRATIONS } from '../../src/store/sqlite/migrations.js';
import { migrate } from '../../src/store/sqlite/schema.js';
import { connect } from '../../src/store/sqlite/statements.js';

const db = connect(':memory:');
migrate(db);
afterAll(() => db.close());

const BASE: StoreQuery = {
  workspace: 'tours', rootPath: '/', types: null, conditions: [], fullText: [], orderBy: [], offset: 0, limit: 10,
};
const range = (name: string, r: TypedRange, negate = false): Condition => ({ kind: 'ranges', target: { kind: 'property', name }, negate, ranges: [r] });
const TEXT: TypedRange = { kind: 'string', lo: { value: 'c01', inclusive: true }, hi: { value: 'c01', inclusive: true } };
const NUMBER: TypedRange = { kind: 'number', lo: { value: 10, inclusive: true }, hi: { value: 100, inclusive: false } };

const SHAPES: readonly { readonly title: string; readonly query: StoreQuery }[] = [
  { title: 'string equality', query: { ...BASE, conditions: [range('category', TEXT)] } },
  { title: 'number range below a path, of a type', query: { ...BASE, rootPath: '/f001', types: ['cms:content'], conditions: [range('price', NUMBER)] } },
  { title: 'negated range', query: { ...BASE, conditions: [range('category', TEXT, true)] } },
  { title: 'case-insensitive like', query: { ...BASE, conditions: [{ kind: 'like', target: { kind: 'property', name: 'title' }, caseInsensitive: true, patterns: ['%river%'] }] } },
  { title: 'missing property', query: { ...BASE, conditions: [{ kind: 'exists', name: 'price', exists: false }] } },
  { title: 'order by two properties', query: { ...BASE, orderBy: [{ target: { kind: 'property', name: 'price' }, descending: true }, { target: { kind: 'property', name: 'title' }, descending: false }] } },
];

/** The plan's lines that read props (aliases p and o0, o1, …). */
function propsSteps(c: CompiledSql): string[] {
  const rows = db.prepare(`EXPLAIN QUERY PLAN ${c.sql}`).all(...c.params) as { detail: string }[];
  return rows.map((r) => r.detail).filter((d) => /^(SCAN|SEARCH) (p|o\d+)\b/.test(d));
}

describe('SQL query plans without value indexes (SQLite)', () => {
  it('the schema holds no value index of props or nodes', () => {
    const names = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as { name: string }[])
      .map((r) => r.name);
    for (const dropped of ['props_by_text', 'props_by_folded', 'props_by_number', 'nodes_by_name', 'nodes_by_type']) expect(names).not.toContain(dropped);
    expect(names).toContain('nodes_by_path_type');
    expect(MIGRATIONS.some((m) => m.sql.includes('DROP INDEX IF EXISTS props_by_text'))).toBe(true);
  });

  describe.each(SHAPES)('$title', ({ query }) => {
    it('reads props by the primary key range of the property, in the count and the page', () => {
      // Every shape reads props in its page (filter or order join); a count has no order joins.
      expect(propsSteps(compilePage(query)).length).toBeGreaterThan(0);
      for (const c of [compileCount(query), compilePage(query)]) {
        for (const s of propsSteps(c)) expect(s).toMatch(/^SEARCH (p|o\d+) USING PRIMARY KEY \(ws=\? AND name=\?/);
      }
    });
  });

  it('finds kinds of readable nodes through the primary key range too', () => {
    const steps = propsSteps(compileKinds('tours', ['price', 'title'], { kind: 'readable', rules: [{ pattern: '/*', read: true }] }));
    expect(steps).toEqual([expect.stringMatching(/^SEARCH p USING PRIMARY KEY \(ws=\? AND name=\?\)/)]);
  });
});
