// PostgreSQL store: the query index's columns, read from the nodes' properties JSON since migration 7,
// hold what the props table held (the rows index-values.ts derives, which the import wrote there), for
// tricky values and names; one scan for several columns gives the same columns. In the database named
// by PETAL_TEST_PG; skipped without it.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import type { StoredProperty } from '../../src/model/property-type.js';
import type { NodeRecord } from '../../src/store/rows.js';
import { indexRows } from '../../src/store/index-values.js';
import { toRecord } from '../../src/store/node-rows.js';
import { postgresColumnSource } from '../../src/store/postgres/column-source.js';
import { PostgresStore } from '../../src/store/postgres/store.js';
import { KIND_CODES, columnFromRows, type PropertyRow } from '../../src/store/query-index/column-source.js';
import { NEW, document, draft } from '../conformance/drafts.js';
import { pgRows as sql } from '../conformance/pg-sql.js';
import { importDocuments } from '../../src/repository/writes.js';

const url = process.env.PETAL_TEST_PG ?? '';

const NUL_TEXT = 'before\u0000after';
const ODD_NAMES = ['quote"d', 'back\\slash', 'back\\u0000slash', 'odd\u0000name', 'x],["title",', 'emoji 😀 ü', 'with space'];

/** Every kind of value the index derives, some of which it leaves out (invalid numbers and dates, binaries). */
function properties(i: number): StoredProperty[] {
  return [
    ['title', 'String', i % 3 === 0 ? NUL_TEXT : `Title ${i}`],
    ['tags', 'String', i % 4 === 0 ? [] : ['title', `t${i % 5}`, 'Mixed Case']],
    ['price', 'Decimal', i % 2 === 0 ? '12.50' : '-0.001'],
    ['count', 'Long', i],
    ['ratio', 'Double', i % 5 === 0 ? 'NaN-ish' : i / 7],
    ['when', 'Date', ['2024-03-01T10:00:00.000+05:30', '2024-03-01T00:00:00.000-08:00', 'not a date']],
    ['flag', 'Boolean', i % 2 === 0],
    ['flags', 'Boolean', [true, false]],
    ['ref', 'WeakReference', `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`],
    ['blob', 'Binary', 'abc123'],
    ...ODD_NAMES.map((name): StoredProperty => [name, 'String', `${name} ${i}`]),
  ];
}

// Skipped without PETAL_TEST_PG: it needs a PostgreSQL server (.ci/run always sets it).
describe.skipIf(url === '')('PostgreSQL columns from the nodes\' JSON', () => {
  let schema = '';
  let store: PostgresStore | undefined;
  let pool: pg.Pool | undefined;
  afterEach(async () => {
    await pool?.end();
    await store?.close();
    if (schema !== '') await sql(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    pool = undefined;
    store = undefined;
    schema = '';
  });

  it('hold the rows the props table held, per property and from one scan for several', async () => {
    schema = `petal_c_${randomBytes(6).toString('hex')}`;
    store = new PostgresStore({ url, schema });
    await store.open();
    const nodes = Array.from({ length: 40 }, (_, i) => draft(`n${i}`, { properties: properties(i) }));
    await importDocuments(store, [document('tours', '/', nodes)], NEW);
    // Another workspace with the same names: none of its values may show.
    await importDocuments(store, [document('other', '/', [draft('o', { properties: properties(99) })])], NEW);

    pool = new pg.Pool({ connectionString: url, options: `-c search_path=${schema}`, max: 2 });
    const db = pool;
    const source = postgresColumnSource((fn) => fn(db), async () => 0, toRecord as (row: never) => NodeRecord, () => {});
    // What an import wrote into props for a name: index-values.ts's rows of each node, by (nid, pos).
    const stored = await sql<{ nid: number; props: string }>(`SELECT nid::int4 AS nid, props FROM ${schema}.nodes WHERE workspace = 'tours' ORDER BY nid`);
    const expected = (name: string) => columnFromRows(stored.flatMap(({ nid, props }) =>
      indexRows(JSON.parse(props) as StoredProperty[]).filter((r) => r.name === name)
        .map((r): PropertyRow => [nid, r.pos, KIND_CODES[r.kind], r.s, r.f, r.n])));

    const names = ['title', 'tags', 'price', 'count', 'ratio', 'when', 'flag', 'flags', 'ref', 'blob', ...ODD_NAMES, 'missing'];
    const together = await source.propertyColumns('tours', names);
    for (const name of names) {
      const column = await source.propertyColumn('tours', name);
      expect(column, name).toEqual(expected(name));
      expect(together.get(name), name).toEqual(column);
    }
    // Spot checks that the comparison above covers what it claims.
    const title = await source.propertyColumn('tours', 'title');
    expect(title.nids.length).toBe(40);
    // Exact, U+0000 included (the props table held U+FFFD there: PostgreSQL text cannot hold U+0000).
    expect(title.dict).toContain(NUL_TEXT);
    const when = await source.propertyColumn('tours', 'when');
    expect([...when.nums.slice(0, 2)]).toEqual([Date.parse('2024-03-01T04:30:00Z'), Date.parse('2024-03-01T08:00:00Z')]);
    expect((await source.propertyColumn('tours', 'tags')).nids.length).toBe(30 * 3);
    expect((await source.propertyColumn('tours', 'ratio')).nids.length).toBe(32);
    expect((await source.propertyColumn('tours', 'blob')).nids.length).toBe(0);
    expect((await source.propertyColumn('tours', 'odd\u0000name')).dict).toContain('odd\u0000name 1');
  });
});
