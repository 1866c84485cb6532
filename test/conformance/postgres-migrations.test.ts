// PostgreSQL store: the schema is created and migrated by Petal on open, safely when several instances
// start together on one empty database (in the database named by PETAL_TEST_PG; skipped without it).
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { MIGRATIONS } from '../../src/store/postgres/migrations.js';
import { NEW, document, draft } from './drafts.js';
import { pgRows as sql } from './pg-sql.js';

const url = process.env.PETAL_TEST_PG ?? '';
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
    await stores[0]!.importDocuments([document('website', '/', [draft('home')])], NEW);
    for (const s of stores) expect((await s.getNode('website', '/home'))?.name).toBe('home');
  });

  it('reopening a migrated schema applies nothing and keeps the content', async () => {
    schema = `petal_m_${randomBytes(6).toString('hex')}`;
    const first = new PostgresStore({ url, schema });
    opened.push(first);
    await first.open();
    await first.importDocuments([document('website', '/', [draft('kept')])], NEW);
    const before = await sql(`SELECT version, applied_at FROM ${schema}.schema_migrations ORDER BY version`);

    const again = new PostgresStore({ url, schema });
    opened.push(again);
    await again.open();
    const after = await sql(`SELECT version, applied_at FROM ${schema}.schema_migrations ORDER BY version`);
    expect(after).toEqual(before);
    expect((await again.getNode('website', '/kept'))?.name).toBe('kept');
  });

  it('migration 5 upgrades a schema of version 4 with content: one index of paths, none of props by node', async () => {
    schema = `petal_m_${randomBytes(6).toString('hex')}`;
    const first = new PostgresStore({ url, schema });
    opened.push(first);
    await first.open();
    await first.importDocuments([document('website', '/', [draft('kept', { properties: [['title', 'String', 'Kept']] })])], NEW);
    await first.close();
    opened.pop();
    // Back to version 4: the indexes migration 5 replaces.
    await sql(`SET search_path = ${schema};
      DELETE FROM schema_migrations WHERE version = 5;
      CREATE INDEX props_by_node ON props (nid);
      DROP INDEX nodes_by_path;
      CREATE UNIQUE INDEX nodes_by_path ON nodes (workspace, path);
      CREATE INDEX nodes_by_path_type ON nodes (workspace, path) INCLUDE (nid, type);`);

    const again = new PostgresStore({ url, schema });
    opened.push(again);
    await again.open();
    const indexes = await sql<{ indexname: string; indexdef: string }>(
      'SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = $1 AND tablename IN ($2, $3) ORDER BY indexname', [schema, 'nodes', 'props']);
    expect(indexes.map((i) => i.indexname)).toEqual(['nodes_by_id', 'nodes_by_parent', 'nodes_by_path', 'nodes_pkey', 'props_pkey']);
    expect(indexes.find((i) => i.indexname === 'nodes_by_path')?.indexdef).toMatch(/UNIQUE INDEX .* \(workspace, path\) INCLUDE \(nid, type\)/);
    expect((await again.getNode('website', '/kept'))?.properties).toEqual([['title', 'String', 'Kept']]);
    // The unique index still refuses a second node at a path.
    await expect(sql(`INSERT INTO ${schema}.nodes (workspace, id, path, parent_path, name, depth, position, type, mixins, props)
      VALUES ('website', 'x', '/kept', '/', 'kept', 1, 9, 't', '[]', '[]')`)).rejects.toThrow(/nodes_by_path/);
  });
});
