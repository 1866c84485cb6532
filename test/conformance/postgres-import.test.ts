// PostgreSQL store: what its batched import does beyond the conformance suites, seen in the database
// named by PETAL_TEST_PG (skipped without it): a few statements per batch, never a few per node;
// nodes replaced or removed leave no index or full-text rows behind (there is no foreign key to
// cascade them, see migration 2).
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { NEW, REPLACE, document, draft, uuid } from './drafts.js';
import { pgRows as sql } from './pg-sql.js';
import type { StoredProperty } from '../../src/repository/property-type.js';
import { indexRows } from '../../src/store/index-values.js';

const url = process.env.PETAL_TEST_PG ?? '';
if (url === '') console.warn('PostgreSQL import tests skipped: set PETAL_TEST_PG=postgres://user@host:5432/database to run them');


// Skipped without PETAL_TEST_PG: it needs a PostgreSQL server (.ci/run always sets it).
describe.skipIf(url === '')('postgres batched import', () => {
  let schema = '';
  let store: PostgresStore | undefined;
  async function fresh(): Promise<PostgresStore> {
    schema = `petal_t_${randomBytes(6).toString('hex')}`;
    store = new PostgresStore({ url, schema });
    await store.open();
    return store;
  }
  afterEach(async () => {
    vi.restoreAllMocks();
    await store?.close();
    if (schema !== '') await sql(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    store = undefined;
    schema = '';
  });

  it('writes thousands of nodes with a COPY per table and batch of 1,000', async () => {
    const s = await fresh();
    const labels: string[] = [];
    const original = pg.Client.prototype.query;
    vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (this: pg.Client, ...args: unknown[]) {
      const q = args[0] as string | { name?: string; text: string };
      labels.push(typeof q === 'string' ? q : (q.name ?? q.text));
      return (original as (...a: unknown[]) => unknown).apply(this, args);
    } as never);
    const children = Array.from({ length: 5_000 }, (_, i) => draft(`n${i}`, {
      id: uuid(i + 1), properties: [['title', 'String', `node ${i}`], ['rank', 'Long', i]],
    }));
    const docs = [0, 1, 2, 3, 4].map((d) => document('tours', '/', [draft(`f${d}`, {}, children.slice(d * 1_000, (d + 1) * 1_000))]));
    expect((await s.importDocuments(docs, NEW)).nodes).toBe(5_005);
    const count = (name: string) => labels.filter((l) => l === name).length;
    const copies = (table: string) => labels.filter((l) => l.startsWith(`COPY ${table} (`)).length;
    // 5,005 nodes: six batches (5 × 1,000 + 5), each one COPY per table.
    expect(copies('nodes')).toBe(6);
    expect(copies('props')).toBe(6);
    expect(copies('fts')).toBe(6);
    // One uuid check per root, not per node; nothing else per node.
    expect(count('petal_paths_of_ids')).toBe(5);
    expect(count('petal_path_of_id')).toBe(0);
    expect(labels.length).toBeLessThan(60);
    expect(await s.countNodes('tours')).toBe(5_005);
  }, 60_000);

  it('replaced and moved nodes leave no index or full-text rows behind', async () => {
    const s = await fresh();
    const tree = (title: string) => draft('r', { properties: [['title', 'String', title]] }, [
      draft('c', { id: uuid(1), properties: [['title', 'String', `${title} child`], ['tags', 'String', ['x', 'y']]] }),
    ]);
    await s.importDocuments([document('ws', '/', [tree('one')]), document('ws', '/', [tree('two')])], NEW);
    await s.importDocuments([document('ws', '/', [tree('three')])], NEW);
    // The uuid of /r/c moves to /m (policy replace): /r/c goes with its subtree.
    await s.importDocuments([document('ws', '/', [draft('m', { id: uuid(1), properties: [['title', 'String', 'moved']] })])], REPLACE);
    expect((await s.getSubtree('ws', '/', 2)).map((n) => n.path)).toEqual(['/r', '/m']);
    const orphans = await sql<{ props: number; fts: number }>(`
      SELECT (SELECT count(*)::int FROM ${schema}.props p WHERE NOT EXISTS (SELECT 1 FROM ${schema}.nodes n WHERE n.nid = p.nid)) AS props,
             (SELECT count(*)::int FROM ${schema}.fts f WHERE NOT EXISTS (SELECT 1 FROM ${schema}.nodes n WHERE n.nid = f.nid)) AS fts`);
    expect(orphans).toEqual([{ props: 0, fts: 0 }]);
    const kept = await sql<{ s: string }>(`SELECT s FROM ${schema}.props ORDER BY s`);
    expect(kept).toEqual([{ s: 'moved' }, { s: 'three' }]);
  });

  it('a COPY the server rejects midway (fifth batch) leaves nothing of the import, and the next import commits', async () => {
    const s = await fresh();
    await s.importDocuments([document('tours', '/', [draft('kept', { properties: [['title', 'String', 'kept']] })])], NEW);
    const tables = ['nodes', 'props', 'fts', 'prop_kinds', 'node_types', 'changes', 'change_nodes'];
    const counts = async () => Object.fromEntries(await Promise.all(tables.map(async (t) =>
      [t, (await sql<{ n: number }>(`SELECT count(*)::int AS n FROM ${schema}.${t}`))[0]!.n] as const)));
    const before = { rows: await counts(), generation: await s.generation() };
    // The server refuses one index row of the 4,501st node: in the props COPY of the fifth batch, after
    // that batch's nodes COPY and four whole batches were written in the same transaction.
    await sql(`ALTER TABLE ${schema}.props ADD CONSTRAINT no_boom CHECK (s <> 'boom')`);
    const children = (bad: number) => Array.from({ length: 5_000 }, (_, i) => draft(`n${i}`, {
      properties: [['title', 'String', i === bad ? 'boom' : `node ${i}`], ['size', 'Long', i], ['kind', 'String', `k${i % 3}`]],
    }));
    await expect(s.importDocuments([document('tours', '/', [draft('f', {}, children(4_499))])], NEW)).rejects.toThrow(/no_boom/);
    expect({ rows: await counts(), generation: await s.generation() }).toEqual(before);
    expect(await s.getNode('tours', '/f')).toBeUndefined();
    // The connection went back healthy (or was dropped): the same import without the bad value commits.
    await sql(`ALTER TABLE ${schema}.props DROP CONSTRAINT no_boom`);
    expect((await s.importDocuments([document('tours', '/', [draft('f', {}, children(-1))])], NEW)).nodes).toBe(5_001);
    expect(await s.countNodes('tours')).toBe(5_002);
    const rows = await counts();
    expect(rows.props).toBe(before.rows.props + 15_000);
    expect(rows.fts).toBe(before.rows.fts + 5_000);
    expect(await s.generation()).toBe(before.generation + 1);
  }, 60_000);

  it('deleted nodes take exactly their index rows with them, found by property name (U+0000 and "\\u0000" in names too)', async () => {
    const s = await fresh();
    const orphans = async () => (await sql<{ n: number }>(`SELECT count(*)::int AS n FROM ${schema}.props p
      WHERE NOT EXISTS (SELECT 1 FROM ${schema}.nodes n WHERE n.nid = p.nid)`))[0]!.n;
    const props = (i: number): StoredProperty[] => [
      ['title', 'String', `t${i}`], ['tags', 'String', ['a', 'b', 'c']], ['rank', 'Long', i],
      // Stored in the index as U+FFFD; and a name whose JSON holds the text \u0000 (an escaped backslash).
      ['odd\u0000name', 'String', 'x'], ['back\\u0000slash', 'String', 'y'],
    ];
    const tree = (i: number) => draft(`r${i}`, { properties: props(i) }, [draft('c', { properties: props(i + 100) })]);
    await s.importDocuments([document('ws', '/', [tree(1), tree(2), tree(3)])], NEW);
    const perNode = 7;
    const count = async () => (await sql<{ n: number }>(`SELECT count(*)::int AS n FROM ${schema}.props`))[0]!.n;
    expect(await count()).toBe(6 * perNode);
    // Re-import of /r1 (subtree delete), a Nodes API update of /r2 (node replaced) and delete of /r3/c.
    await s.importDocuments([document('ws', '/', [draft('r1', { properties: [['title', 'String', 'new']] })])], NEW);
    await s.writeNodes('ws', [
      { op: 'update', path: '/r2', node: { name: 'r2', properties: [['title', 'String', 'changed']], children: [], field: '' } },
      { op: 'delete', path: '/r3/c' },
    ], { by: 'test' });
    expect(await orphans()).toBe(0);
    // Every node left has exactly the index rows of its properties (the update added cms:lastModified…).
    const left = await s.getSubtree('ws', '/', 3);
    expect(left.map((n) => n.path).sort()).toEqual(['/r1', '/r2', '/r2/c', '/r3']);
    expect(await count()).toBe(left.reduce((sum, n) => sum + indexRows(n.properties).length, 0));
    expect(await count()).toBeGreaterThan(1 + 3 * perNode);
    const titles = await sql<{ s: string }>(`SELECT s FROM ${schema}.props WHERE name = 'title' ORDER BY s`);
    expect(titles.map((r) => r.s)).toEqual(['changed', 'new', 't102', 't3']);
  });

  it('a COPY rejected at its first row while megabytes of it are still being sent fails the import, nothing else', async () => {
    const s = await fresh();
    await sql(`ALTER TABLE ${schema}.nodes ADD CONSTRAINT no_boom CHECK (name <> 'boom')`);
    // About 8 MB of node rows in the first batch; its first row (the folder) is refused at once.
    const big = 'x'.repeat(8_000);
    const children = Array.from({ length: 999 }, (_, i) => draft(`n${i}`, { properties: [['body', 'Binary', big]] }));
    for (let round = 0; round < 3; round++) {
      await expect(s.importDocuments([document('tours', '/', [draft('boom', {}, children)])], NEW)).rejects.toThrow(/no_boom/);
    }
    expect(await s.countNodes()).toBe(0);
    await sql(`ALTER TABLE ${schema}.nodes DROP CONSTRAINT no_boom`);
    expect((await s.importDocuments([document('tours', '/', [draft('boom', {}, children)])], NEW)).nodes).toBe(1_000);
  }, 60_000);
});
