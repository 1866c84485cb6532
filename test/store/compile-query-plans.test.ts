// SQLite query compiler without value indexes (migration 6) or a props table (migration 7): every
// statement of compileCount/compilePage/compileKinds reads the nodes of its workspace through an index
// range (never a scan of every workspace's nodes) and derives property rows from each node's own
// document (index_rows). The store runs no ANALYZE, so the plans of the migrated empty schema are the
// plans of a full store.
import { afterAll, describe, expect, it } from 'vitest';
import type { Condition, StoreQuery, TypedRange } from '../../src/query/ast.js';
import { compileCount, compileKinds, compilePage } from '../../src/store/sqlite/compile-query.js';
import type { CompiledSql } from '../../src/store/sql/sql-writer.js';
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

/** The plan's lines that read nodes (alias n) and property rows (aliases p and o0, o1, …). */
function steps(c: CompiledSql): { nodes: string[]; props: string[] } {
  const rows = db.prepare(`EXPLAIN QUERY PLAN ${c.sql}`).all(...c.params) as { detail: string }[];
  const details = rows.map((r) => r.detail);
  return {
    nodes: details.filter((d) => /^(SCAN|SEARCH) n\b/.test(d)),
    props: details.filter((d) => /^(SCAN|SEARCH) (p|o\d+)\b/.test(d)),
  };
}

describe('SQL query plans without value indexes or a props table (SQLite)', () => {
  it('the schema holds no value index and no props table', () => {
    const names = (db.prepare("SELECT name FROM sqlite_master WHERE type IN ('index', 'table') AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as { name: string }[])
      .map((r) => r.name);
    for (const dropped of ['props', 'props_by_node', 'props_by_text', 'props_by_folded', 'props_by_number', 'nodes_by_name', 'nodes_by_type']) expect(names).not.toContain(dropped);
    expect(names).toContain('nodes_by_path_type');
    expect(names).toContain('prop_kinds');
  });

  describe.each(SHAPES)('$title', ({ query }) => {
    it("reads the workspace's nodes through an index range and their values from their own documents", () => {
      // Every shape reads property rows in its page (filter or order join); a count has no order joins.
      expect(steps(compilePage(query)).props.length).toBeGreaterThan(0);
      for (const c of [compileCount(query), compilePage(query)]) {
        const { nodes, props } = steps(c);
        expect(nodes).toEqual([expect.stringMatching(/^SEARCH n USING (COVERING )?INDEX nodes_by_\w+ \(workspace=\?/)]);
        for (const s of props) expect(s).toMatch(/^SCAN (p|o\d+) (EXISTS )?VIRTUAL TABLE/);
      }
    });
  });

  it('finds kinds of readable nodes within the workspace too', () => {
    const { nodes, props } = steps(compileKinds('tours', ['price', 'title'], { kind: 'readable', rules: [{ pattern: '/*', read: true }] }));
    expect(nodes).toEqual([expect.stringMatching(/^SEARCH n USING (COVERING )?INDEX nodes_by_\w+ \(workspace=\?\)/)]);
    expect(props).toEqual([expect.stringMatching(/^SCAN p VIRTUAL TABLE/)]);
  });
});
