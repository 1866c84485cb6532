// PostgreSQL store: the schema is created and migrated by Petal on open, safely when several instances
// start together on one empty database (in the database named by PETAL_TEST_PG; skipped without it).
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { PostgresStore } from '../../src/store/postgres/store.js';
import { MIGRATIONS } from '../../src/store/postgres/migrations.js';
import { KIND_CODES as KIND_CODE } from '../../src/store/query-index/column-source.js';
import { indexRows } from '../../src/store/index-values.js';
import type { StoredProperty } from '../../src/model/property-type.js';
import type { Condition, StoreOrder } from '../../src/query/ast.js';
import { NEW, document, draft } from './drafts.js';
import { pgRows as sql } from './pg-sql.js';
import { importDocuments } from '../../src/repository/writes.js';

const url = process.env.PETAL_TEST_PG ?? '';

/** The props table as migrations 1 to 6 left it. */
const PROPS_TABLE = `CREATE TABLE props (
  ws text NOT NULL COLLATE "C", name text NOT NULL COLLATE "C", nid bigint NOT NULL, pos integer NOT NULL,
  kind smallint NOT NULL, s text NOT NULL COLLATE "C", f text NOT NULL COLLATE "C", n double precision,
  PRIMARY KEY (ws, name, nid, pos));`;
if (url === '') console.warn('PostgreSQL migration tests skipped: set PETAL_TEST_PG=postgres://user@host:5432/database to run them');


// Skipped without PETAL_TEST_PG: it needs a PostgreSQL server (.ci/run always sets it).
describe.skipIf(url === '')('postgres migrations', () => {
  const opened: PostgresStore[] = [];
  let schema = '';
  afterEach(async () => {
    for (const s of opened.splice(0)) await s.close();
    if (schema !== '') await sql(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  });

  it('four instances opening one empty schema at once apply each migration exactly once, and all serve', async () => {
    schema = `petal_m_${randomBytes(6).toString('hex')}`;
    const stores = [0, 1, 2, 3].map(() => new PostgresStore({ url, schema }));
    opened.push(...stores);
    await Promise.all(stores.map((s) => s.open()));

    const applied = await sql(`SELECT version, name FROM ${schema}.schema_migrations ORDER BY version`);
    expect(applied).toEqual(MIGRATIONS.map((m) => ({ version: m.version, name: m.name })));

    // Every instance works on the migrated schema: a write through one is read through the others.
    await importDocuments(stores[0]!, [document('website', '/', [draft('home')])], NEW);
    for (const s of stores) expect((await s.reads.getNode('website', '/home'))?.name).toBe('home');
  });

  it('reopening a migrated schema applies nothing and keeps the content', async () => {
    schema = `petal_m_${randomBytes(6).toString('hex')}`;
    const first = new PostgresStore({ url, schema });
    opened.push(first);
    await first.open();
    await importDocuments(first, [document('website', '/', [draft('kept')])], NEW);
    const before = await sql(`SELECT version, applied_at FROM ${schema}.schema_migrations ORDER BY version`);

    const again = new PostgresStore({ url, schema });
    opened.push(again);
    await again.open();
    const after = await sql(`SELECT version, applied_at FROM ${schema}.schema_migrations ORDER BY version`);
    expect(after).toEqual(before);
    expect((await again.reads.getNode('website', '/kept'))?.name).toBe('kept');
  });

  it('migration 5 upgrades a schema of version 4 with content: one index of paths, none of props by node', async () => {
    schema = `petal_m_${randomBytes(6).toString('hex')}`;
    const first = new PostgresStore({ url, schema });
    opened.push(first);
    await first.open();
    await importDocuments(first, [document('website', '/', [draft('kept', { properties: [['title', 'String', 'Kept']] })])], NEW);
    await first.close();
    opened.pop();
    // Back to version 4: the indexes migration 5 replaces (and the props table migration 7 drops).
    await sql(`SET search_path = ${schema};
      DELETE FROM schema_migrations WHERE version IN (5, 7);
      ${PROPS_TABLE}
      CREATE INDEX props_by_node ON props (nid);
      DROP INDEX nodes_by_path;
      CREATE UNIQUE INDEX nodes_by_path ON nodes (workspace, path);
      CREATE INDEX nodes_by_path_type ON nodes (workspace, path) INCLUDE (nid, type);`);

    const again = new PostgresStore({ url, schema });
    opened.push(again);
    await again.open();
    const indexes = await sql<{ indexname: string; indexdef: string }>(
      'SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = $1 AND tablename IN ($2, $3) ORDER BY indexname', [schema, 'nodes', 'props']);
    expect(indexes.map((i) => i.indexname)).toEqual(['nodes_by_id', 'nodes_by_parent', 'nodes_by_path', 'nodes_pkey']);
    expect(indexes.find((i) => i.indexname === 'nodes_by_path')?.indexdef).toMatch(/UNIQUE INDEX .* \(workspace, path\) INCLUDE \(nid, type\)/);
    expect((await again.reads.getNode('website', '/kept'))?.properties).toEqual([['title', 'String', 'Kept']]);
    // The unique index still refuses a second node at a path.
    await expect(sql(`INSERT INTO ${schema}.nodes (workspace, id, path, parent_path, name, depth, position, type, mixins, props)
      VALUES ('website', 'x', '/kept', '/', 'kept', 1, 9, 't', '[]', '[]')`)).rejects.toThrow(/nodes_by_path/);
  });

  it('migration 10 upgrades schedules of version 9: each runs as the user its `by` names, checked when it runs', async () => {
    schema = `petal_m_${randomBytes(6).toString('hex')}`;
    const first = new PostgresStore({ url, schema });
    opened.push(first);
    await first.open();
    const stored = await first.schedules.add({ action: 'publish', workspace: 'website', path: '/shop', recursive: false, by: 'ed', runAs: 'operator', due: '2030-01-01T00:00:00Z' });
    await first.close();
    opened.pop();
    // Back to version 9: no run_as, so the row cannot tell the Commands API's schedule from the CLI's.
    await sql(`SET search_path = ${schema}; ALTER TABLE schedules DROP COLUMN run_as; DELETE FROM schema_migrations WHERE version = 10`);
    const again = new PostgresStore({ url, schema });
    opened.push(again);
    await again.open();
    expect(await again.schedules.list()).toEqual([{ ...stored, runAs: 'user:ed' }]);
    const added = await again.schedules.add({ action: 'unpublish', workspace: 'website', path: '/shop', recursive: true, by: 'root', runAs: 'operator', due: '2030-01-02T00:00:00Z' });
    expect(added.runAs).toBe('operator');
    expect(await sql(`SELECT is_nullable FROM information_schema.columns WHERE table_schema = '${schema}' AND table_name = 'schedules' AND column_name = 'run_as'`))
      .toEqual([{ is_nullable: 'NO' }]);
  });

  it('migration 7 upgrades a schema of version 6 with index rows: the props table dropped, the same answers from the nodes', async () => {
    schema = `petal_m_${randomBytes(6).toString('hex')}`;
    const first = new PostgresStore({ url, schema });
    opened.push(first);
    await first.open();
    const tour = (name: string, title: string, price: number, tags: string[]) =>
      draft(name, { properties: [['title', 'String', title], ['price', 'Double', price], ['tags', 'String', tags]] });
    await importDocuments(first, [document('tours', '/', [
      tour('a', 'Alpine', 120.5, ['snow', 'hike']), tour('b', 'Beach', 80, ['sun']), tour('c', 'City', 300, ['hike']),
    ])], NEW);
    await first.close();
    opened.pop();
    // Back to version 6: the props table with the index rows an import of then wrote (index-values.ts).
    await sql(`SET search_path = ${schema}; DELETE FROM schema_migrations WHERE version = 7; ${PROPS_TABLE}`);
    const nodes = await sql<{ nid: string; workspace: string; props: string }>(`SELECT nid, workspace, props FROM ${schema}.nodes`);
    for (const n of nodes) {
      for (const r of indexRows(JSON.parse(n.props) as StoredProperty[])) {
        await sql(`INSERT INTO ${schema}.props (ws, name, nid, pos, kind, s, f, n) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
          [n.workspace, r.name, n.nid, r.pos, KIND_CODE[r.kind], r.s, r.f, r.n]);
      }
    }
    expect((await sql<{ n: number }>(`SELECT count(*)::int AS n FROM ${schema}.props`))[0]!.n).toBe(10);

    const again = new PostgresStore({ url, schema });
    opened.push(again);
    await again.open();
    expect((await sql(`SELECT version FROM ${schema}.schema_migrations ORDER BY version`)).map((r) => r.version))
      .toEqual(MIGRATIONS.map((m) => m.version));
    expect(await sql(`SELECT to_regclass('${schema}.props') AS t`)).toEqual([{ t: null }]);
    const paths = async (conditions: Condition[], orderBy: StoreOrder[] = []) => (await again.reads.query({
      workspace: 'tours', rootPath: '/', types: null, conditions, fullText: [], orderBy, offset: 0, limit: 10,
    })).nodes.map((n) => n.name);
    const property = (name: string) => ({ kind: 'property', name }) as const;
    expect(await paths([{ kind: 'ranges', target: property('price'), negate: false, ranges: [{ kind: 'number', lo: { value: 100, inclusive: false } }] }],
      [{ target: property('title'), descending: true }])).toEqual(['c', 'a']);
    expect(await paths([{ kind: 'ranges', target: property('tags'), negate: false, ranges: [{ kind: 'string', lo: { value: 'hike', inclusive: true }, hi: { value: 'hike', inclusive: true } }] }]))
      .toEqual(['a', 'c']);
    expect(await paths([{ kind: 'like', target: property('title'), caseInsensitive: true, patterns: ['%a%'] }], [{ target: property('price'), descending: false }]))
      .toEqual(['b', 'a']);
    const kinds = await again.reads.propertyKinds('tours', ['title', 'price', 'tags']);
    expect(Object.fromEntries(kinds)).toEqual({ title: ['string'], price: ['number'], tags: ['string'] });
  });
});
