// PostgreSQL store: what its batched import does beyond the conformance suites, seen in the database
// named by PETAL_TEST_PG (skipped without it): a few statements per batch, never a few per node;
// nodes replaced or removed leave no full-text rows behind (there is no foreign key to cascade them,
// see migration 2), and queries see exactly the values of the nodes left (read from their JSON:
// there are no index rows since migration 7).
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PostgresStore } from '../../src/store/postgres/store.js';
import { NEW, REPLACE, document, draft, uuid } from './drafts.js';
import { pgRows as sql } from './pg-sql.js';
import type { StoredProperty } from '../../src/model/property-type.js';
import type { StoreQuery } from '../../src/query/ast.js';
import { importDocuments, writeNodes } from '../../src/repository/writes.js';

const url = process.env.PETAL_TEST_PG ?? '';

const all = (workspace: string): StoreQuery => ({
  workspace, rootPath: '/', types: null, conditions: [], fullText: [], orderBy: [{ target: { kind: 'path' }, descending: false }], offset: 0, limit: 100,
});
/** [path, title] of every node with a title, in path order (through the query index). */
async function titled(s: PostgresStore, workspace: string): Promise<[string, string][]> {
  const r = await s.reads.query({ ...all(workspace), conditions: [{ kind: 'exists', name: 'title', exists: true }] });
  return r.nodes.map((n) => [n.path, String(n.properties.find((p) => p[0] === 'title')?.[2])]);
}
/** Paths of the nodes with `value` among their tags. */
async function tagged(s: PostgresStore, workspace: string, value: string): Promise<string[]> {
  const r = await s.reads.query({ ...all(workspace), conditions: [{
    kind: 'ranges', target: { kind: 'property', name: 'tags' }, negate: false,
    ranges: [{ kind: 'string', lo: { value, inclusive: true }, hi: { value, inclusive: true } }],
  }] });
  return r.nodes.map((n) => n.path);
}
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

  it('writes thousands of nodes with a COPY per table and batch of 1,000, each batch one statement', async () => {
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
    expect((await importDocuments(s, docs, NEW)).nodes).toBe(5_005);
    const count = (name: string) => labels.filter((l) => l === name).length;
    // 5,005 nodes: six batches (5 × 1,000 + 5), each one statement sent with its rows: a COPY per table,
    // the kinds and types the transaction had not listed yet, the next batch's node ids.
    const batches = labels.filter((l) => l.startsWith('COPY nodes ('));
    expect(batches).toHaveLength(6);
    expect(batches.every((b) => b.includes('\nCOPY fts ('))).toBe(true);
    expect(labels.filter((l) => /\b(COPY|INTO) props\b/.test(l))).toEqual([]); // no index rows (migration 7)
    expect(batches.filter((b) => b.includes('INSERT INTO prop_kinds')).length).toBe(1);
    expect(batches.filter((b) => b.includes('INSERT INTO node_types')).length).toBe(1);
    // Node ids drawn ahead by each full batch: one round trip for the first batch only.
    expect(count('petal_allocate_nids')).toBe(1);
    // The workspace was empty: asked once, then no uuid or path is looked up.
    expect(count('petal_any_in_workspace')).toBe(1);
    expect(count('petal_paths_of_ids')).toBe(0);
    expect(count('petal_path_of_id')).toBe(0);
    expect(count('petal_position_of')).toBe(0);
    expect(labels.length).toBeLessThan(50);
    expect(await s.reads.countNodes('tours')).toBe(5_005);
    // Into a workspace holding nodes: one uuid check per root, not per node; nothing else per node.
    labels.length = 0;
    const more = [0, 1, 2, 3, 4].map((d) => document('tours', '/', [draft(`g${d}`, {}, children.slice(d * 1_000, (d + 1) * 1_000)
      .map((c, i) => ({ ...c, id: uuid(10_000 + d * 1_000 + i) })))]));
    expect((await importDocuments(s, more, NEW)).nodes).toBe(5_005);
    expect(count('petal_any_in_workspace')).toBe(1);
    expect(count('petal_paths_of_ids')).toBe(5);
    expect(count('petal_path_of_id')).toBe(0);
    expect(labels.length).toBeLessThan(60);
    expect(await s.reads.countNodes('tours')).toBe(10_010);
    // Every titled node's full text names its own node (ids filled in after the rows were built).
    expect(await sql(`SELECT count(*)::int AS n FROM ${schema}.fts f JOIN ${schema}.nodes n USING (nid)
      WHERE f.body = 'node ' || substr(n.name, 2)`)).toEqual([{ n: 10_000 }]);
    expect(await sql(`SELECT name, kind FROM ${schema}.prop_kinds ORDER BY name`)).toEqual([{ name: 'rank', kind: 2 }, { name: 'title', kind: 1 }]);
    expect(await sql(`SELECT type FROM ${schema}.node_types`)).toHaveLength(1);
  }, 180_000);

  it('draws node ids ahead only for a full batch: a small write leaves no gap, nodes keep the order they were written in', async () => {
    const s = await fresh();
    const nids = async () => (await sql(`SELECT nid::int AS nid, path FROM ${schema}.nodes ORDER BY nid`)) as { nid: number; path: string }[];
    await importDocuments(s, [document('tours', '/', [draft('a', {}, [draft('b'), draft('c')])])], NEW);
    await importDocuments(s, [document('tours', '/', [draft('d')])], NEW);
    expect((await nids()).map((r) => [r.nid, r.path])).toEqual([[1, '/a'], [2, '/a/b'], [3, '/a/c'], [4, '/d']]);
    // 2,500 nodes: two full batches (the second draws ids the third partly uses), then 500.
    const many = Array.from({ length: 2_499 }, (_, i) => draft(`n${String(i).padStart(4, '0')}`));
    await importDocuments(s, [document('tours', '/', [draft('e', {}, many)])], NEW);
    const after = (await nids()).slice(4);
    expect(after).toHaveLength(2_500);
    expect(after.map((r) => r.path)).toEqual(['/e', ...many.map((d) => `/e/${d.name}`)]);
    expect(after[0]!.nid).toBe(5);
    expect(after.at(-1)!.nid).toBe(2_504);
    await importDocuments(s, [document('tours', '/', [draft('f')])], NEW);
    // The block drawn by the last full batch and left unused by the import is a gap of at most 1,000.
    expect((await nids()).at(-1)!.nid).toBeLessThanOrEqual(2_504 + 1_000 + 1);
  }, 180_000);

  it('lists property names and types with quotes and backslashes as they are, U+0000 in names replaced (literals of the batch statement)', async () => {
    const s = await fresh();
    const odd = ["it's", 'back\\slash', "E'\\x41'", 'nul\u0000name', '); DROP TABLE nodes; --'];
    await importDocuments(s, [document('tours', '/', odd.map((name, i) => draft(`n${i}`, {
      type: `t:${name.replaceAll('\u0000', '')}`, properties: [[name, 'String', 'v']],
    })))], NEW);
    const stored = (name: string) => name.replaceAll('\u0000', '\ufffd'); // index text cannot hold U+0000 (nul-text.ts)
    expect((await sql<{ name: string }>(`SELECT name FROM ${schema}.prop_kinds ORDER BY name COLLATE "C"`)).map((r) => r.name))
      .toEqual(odd.map(stored).sort());
    expect((await sql<{ type: string }>(`SELECT type FROM ${schema}.node_types ORDER BY type COLLATE "C"`)).map((r) => r.type))
      .toEqual(odd.map((n) => `t:${n.replaceAll('\u0000', '')}`).sort());
    expect(await s.reads.countNodes('tours')).toBe(odd.length);
  }, 180_000);

  it('asks the last commit, on another connection, what it did not write while it only inserted; a pool of one asks its own', async () => {
    const run = async (max: number | undefined) => {
      schema = `petal_t_${randomBytes(6).toString('hex')}`;
      const s = new PostgresStore({ url, schema, ...(max !== undefined ? { max } : {}) });
      store = s;
      await s.open();
      await importDocuments(s, [document('tours', '/', [draft('a', { id: uuid(7) }), draft('b')])], NEW);
      let importClient: pg.Client | undefined;
      const lookups: boolean[] = [];
      const original = pg.Client.prototype.query;
      vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (this: pg.Client, ...args: unknown[]) {
        const q = args[0] as string | { name?: string; text: string };
        if (q === 'BEGIN') importClient = this;
        if (typeof q !== 'string' && q.name === 'petal_paths_of_ids') lookups.push(this === importClient);
        return (original as (...a: unknown[]) => unknown).apply(this, args);
      } as never);
      // A new root, and one whose child reuses the uuid of /a: it gets a new one (policy new).
      const result = await importDocuments(s, [document('tours', '/', [draft('c', {}, [draft('d', { id: uuid(7) })]), draft('e')])], NEW);
      vi.restoreAllMocks();
      const answer = {
        warnings: result.warnings.map((w) => w.replace(/new uuid \S+/, 'new uuid …')),
        order: (await s.reads.getSubtree('tours', '/', 1)).map((n) => n.path),
        ids: (await s.reads.getSubtree('tours', '/', 2)).filter((n) => n.id === uuid(7)).map((n) => n.path),
      };
      await s.close();
      store = undefined;
      await sql(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      schema = '';
      return { answer, lookups };
    };
    const pooled = await run(undefined);
    const single = await run(1);
    expect(pooled.lookups).toEqual([false]); // /c's ids (/e has none to check)
    expect(single.lookups).toEqual([true]);
    expect(pooled.answer).toEqual(single.answer);
    expect(pooled.answer.order).toEqual(['/a', '/b', '/c', '/e']);
    expect(pooled.answer.ids).toEqual(['/a']);
    expect(pooled.answer.warnings).toEqual([expect.stringContaining('already belongs to tours:/a; /c/d gets the new uuid …')]);
  }, 180_000);

  it('replaced and moved nodes leave no full-text rows behind, and queries see only their new values', async () => {
    const s = await fresh();
    const tree = (title: string) => draft('r', { properties: [['title', 'String', title]] }, [
      draft('c', { id: uuid(1), properties: [['title', 'String', `${title} child`], ['tags', 'String', ['x', 'y']]] }),
    ]);
    await importDocuments(s, [document('ws', '/', [tree('one')]), document('ws', '/', [tree('two')])], NEW);
    await importDocuments(s, [document('ws', '/', [tree('three')])], NEW);
    // The uuid of /r/c moves to /m (policy replace): /r/c goes with its subtree.
    await importDocuments(s, [document('ws', '/', [draft('m', { id: uuid(1), properties: [['title', 'String', 'moved']] })])], REPLACE);
    expect((await s.reads.getSubtree('ws', '/', 2)).map((n) => n.path)).toEqual(['/r', '/m']);
    const orphans = await sql<{ fts: number }>(`
      SELECT count(*)::int AS fts FROM ${schema}.fts f WHERE NOT EXISTS (SELECT 1 FROM ${schema}.nodes n WHERE n.nid = f.nid)`);
    expect(orphans).toEqual([{ fts: 0 }]);
    expect(await titled(s, 'ws')).toEqual([['/m', 'moved'], ['/r', 'three']]);
    expect(await tagged(s, 'ws', 'x')).toEqual([]);
  });

  it('a COPY the server rejects midway (fifth batch) leaves nothing of the import, and the next import commits', async () => {
    const s = await fresh();
    await importDocuments(s, [document('tours', '/', [draft('kept', { properties: [['title', 'String', 'kept']] })])], NEW);
    const tables = ['nodes', 'fts', 'prop_kinds', 'node_types', 'changes', 'change_nodes'];
    const counts = async () => Object.fromEntries(await Promise.all(tables.map(async (t) =>
      [t, (await sql<{ n: number }>(`SELECT count(*)::int AS n FROM ${schema}.${t}`))[0]!.n] as const)));
    const before = { rows: await counts(), generation: await s.generation() };
    // The server refuses the full-text row of the 4,501st node: in the fts COPY of the fifth batch,
    // after that batch's nodes COPY and four whole batches were written in the same transaction.
    await sql(`ALTER TABLE ${schema}.fts ADD CONSTRAINT no_boom CHECK (strpos(body, 'boom') = 0)`);
    const children = (bad: number) => Array.from({ length: 5_000 }, (_, i) => draft(`n${i}`, {
      properties: [['title', 'String', i === bad ? 'boom' : `node ${i}`], ['size', 'Long', i], ['kind', 'String', `k${i % 3}`]],
    }));
    await expect(importDocuments(s, [document('tours', '/', [draft('f', {}, children(4_499))])], NEW)).rejects.toThrow(/no_boom/);
    expect({ rows: await counts(), generation: await s.generation() }).toEqual(before);
    expect(await s.reads.getNode('tours', '/f')).toBeUndefined();
    // The connection went back healthy (or was dropped): the same import without the bad value commits.
    await sql(`ALTER TABLE ${schema}.fts DROP CONSTRAINT no_boom`);
    expect((await importDocuments(s, [document('tours', '/', [draft('f', {}, children(-1))])], NEW)).nodes).toBe(5_001);
    expect(await s.reads.countNodes('tours')).toBe(5_002);
    const rows = await counts();
    expect(rows.nodes).toBe(before.rows.nodes + 5_001);
    expect(rows.fts).toBe(before.rows.fts + 5_000);
    expect(await s.generation()).toBe(before.generation + 1);
  }, 180_000);

  it('after deletes, updates and re-imports, queries see exactly the values of the nodes left (U+0000 and "\\u0000" in names too)', async () => {
    const s = await fresh();
    const props = (i: number): StoredProperty[] => [
      ['title', 'String', `t${i}`], ['tags', 'String', ['a', 'b', `c${i}`]], ['rank', 'Long', i],
      // A name with U+0000 (escaped in the JSON), and one whose JSON holds the text \u0000 (an escaped backslash).
      ['odd\u0000name', 'String', 'x'], ['back\\u0000slash', 'String', `y${i}`],
    ];
    const tree = (i: number) => draft(`r${i}`, { properties: props(i) }, [draft('c', { properties: props(i + 100) })]);
    await importDocuments(s, [document('ws', '/', [tree(1), tree(2), tree(3)])], NEW);
    expect(await titled(s, 'ws')).toEqual([['/r1', 't1'], ['/r1/c', 't101'], ['/r2', 't2'], ['/r2/c', 't102'], ['/r3', 't3'], ['/r3/c', 't103']]);
    // Re-import of /r1 (subtree delete), a Nodes API update of /r2 (node replaced) and delete of /r3/c.
    await importDocuments(s, [document('ws', '/', [draft('r1', { properties: [['title', 'String', 'new']] })])], NEW);
    await writeNodes(s, 'ws', [
      { op: 'update', path: '/r2', node: { name: 'r2', properties: [['title', 'String', 'changed'], ['tags', 'String', ['z']]], children: [], field: '' } },
      { op: 'delete', path: '/r3/c' },
    ], { by: 'test' });
    expect(await titled(s, 'ws')).toEqual([['/r1', 'new'], ['/r2', 'changed'], ['/r2/c', 't102'], ['/r3', 't3']]);
    expect(await tagged(s, 'ws', 'a')).toEqual(['/r2/c', '/r3']);
    expect(await tagged(s, 'ws', 'z')).toEqual(['/r2']);
    expect(await tagged(s, 'ws', 'c101')).toEqual([]);
    const slashed = await s.reads.query({ ...all('ws'), conditions: [{ kind: 'exists', name: 'back\\u0000slash', exists: true }] });
    expect(slashed.nodes.map((n) => n.path)).toEqual(['/r2', '/r2/c', '/r3']);
    // No full-text row is left without its node.
    expect(await sql(`SELECT f.nid FROM ${schema}.fts f WHERE NOT EXISTS (SELECT 1 FROM ${schema}.nodes n WHERE n.nid = f.nid)`)).toEqual([]);
  });

  it('a COPY rejected at its first row while megabytes of it are still being sent fails the import, nothing else', async () => {
    const s = await fresh();
    await sql(`ALTER TABLE ${schema}.nodes ADD CONSTRAINT no_boom CHECK (name <> 'boom')`);
    // About 8 MB of node rows in the first batch; its first row (the folder) is refused at once.
    const big = 'x'.repeat(8_000);
    const children = Array.from({ length: 999 }, (_, i) => draft(`n${i}`, { properties: [['body', 'Binary', big]] }));
    for (let round = 0; round < 3; round++) {
      await expect(importDocuments(s, [document('tours', '/', [draft('boom', {}, children)])], NEW)).rejects.toThrow(/no_boom/);
    }
    expect(await s.reads.countNodes()).toBe(0);
    await sql(`ALTER TABLE ${schema}.nodes DROP CONSTRAINT no_boom`);
    expect((await importDocuments(s, [document('tours', '/', [draft('boom', {}, children)])], NEW)).nodes).toBe(1_000);
  }, 180_000);
});
