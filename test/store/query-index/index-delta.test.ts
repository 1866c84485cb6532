// Issue 16.4 on the store: the query index follows small changes in place (base + delta from the
// change events) and never reloads for them. After a base load, imports that create, change (same id
// re-imported), remove and move (UUID collision `replace`) nodes give the same answers as the SQL path
// (SQLite) or as a fresh load (PostgreSQL, whose queries always use the index), with `loads` unchanged;
// a truncated event reloads only its workspace; a delta past the threshold is rebuilt in the
// background; a second PostgreSQL instance applies the first one's import in place.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import type { StoreQuery } from '../../../src/query/ast.js';
import type { ContentStore } from '../../../src/store/content-store.js';
import { PostgresStore } from '../../../src/store/postgres/store.js';
import { SqliteStore } from '../../../src/store/sqlite/store.js';
import type { QueryIndexEvent } from '../../../src/store/query-index/live-workspaces.js';
import type { ImportDocument, NodeDraft } from '../../../src/repository/import-document.js';
import { answer, Model, random, WS } from './delta-fixture.js';
import { importDocuments } from '../../../src/repository/writes.js';

interface Backend {
  readonly name: string;
  /** The store under test (its queries use the query index). */
  store?: ContentStore;
  /** Answers to compare with: the SQL path, or a fresh load of the index. */
  reference?: (queries: readonly StoreQuery[]) => Promise<{ total: number; nodes: string[] }[]>;
  /** The store giving the reference answers, for property kinds (opened on demand, closed after). */
  referenceStore?: <T>(fn: (s: ContentStore) => Promise<T>) => Promise<T>;
  /** Another store on the same database, or undefined. */
  second?: () => Promise<ContentStore>;
  events: QueryIndexEvent[];
  dispose?: () => Promise<void>;
}

const BACKENDS: Backend[] = [{ name: 'SQLite', events: [] }];
if (process.env.PETAL_TEST_PG) BACKENDS.push({ name: 'PostgreSQL', events: [] });

beforeAll(async () => {
  for (const b of BACKENDS) {
    const onIndexEvent = (e: QueryIndexEvent) => { b.events.push(e); };
    if (b.name === 'SQLite') {
      const dir = mkdtempSync(join(tmpdir(), 'petal-delta-'));
      const file = join(dir, 'petal.db');
      b.store = new SqliteStore({ file, queryIndexThreshold: 0, onIndexEvent });
      const sql = new SqliteStore({ file, queryIndexThreshold: Infinity });
      await b.store.open();
      await sql.open();
      b.reference = async (queries) => Promise.all(queries.map((q) => answer(sql, q)));
      b.referenceStore = (fn) => fn(sql);
      let second: SqliteStore | undefined;
      b.second = async () => {
        second = new SqliteStore({ file, queryIndexThreshold: 0 });
        await second.open();
        return second;
      };
      b.dispose = async () => {
        await second?.close();
        await sql.close();
        rmSync(dir, { recursive: true, force: true });
      };
    } else {
      const url = process.env.PETAL_TEST_PG!;
      const schema = `petal_delta_${randomBytes(5).toString('hex')}`;
      b.store = new PostgresStore({ url, schema, onIndexEvent });
      await b.store.open();
      const opened: ContentStore[] = [];
      b.second = async () => {
        const s = new PostgresStore({ url, schema });
        await s.open();
        opened.push(s);
        return s;
      };
      b.referenceStore = async (fn) => {
        const fresh = new PostgresStore({ url, schema });
        await fresh.open();
        try {
          return await fn(fresh);
        } finally {
          await fresh.close();
        }
      };
      b.reference = (queries) => b.referenceStore!(async (fresh) => {
        const out = [];
        for (const q of queries) out.push(await answer(fresh, q));
        return out;
      });
      b.dispose = async () => {
        for (const s of opened) await s.close();
        const c = new pg.Client({ connectionString: url });
        await c.connect();
        await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).finally(() => c.end());
      };
    }
  }
}, 180_000);
afterAll(async () => {
  for (const b of BACKENDS) {
    await b.store?.close();
    await b.dispose?.();
  }
});

const stats = (s: ContentStore) => s.caches!.stats().queryIndex;

async function compare(b: Backend, queries: readonly StoreQuery[], store: ContentStore = b.store!): Promise<void> {
  const expected = await b.reference!(queries);
  for (let i = 0; i < queries.length; i++) {
    expect({ q: queries[i], a: await answer(store, queries[i]!) }).toEqual({ q: queries[i], a: expected[i] });
  }
}

/** Queries of every order kind and filter kind, fixed. */
function fixedQueries(model: Model): StoreQuery[] {
  const base: StoreQuery = { workspace: WS, rootPath: '/', types: null, conditions: [], fullText: [], orderBy: [], offset: 0, limit: 400 };
  const orders = ['price', 'title', 'mix', 'date', 'tags', 'absent'].map((name) => ({ target: { kind: 'property' as const, name }, descending: false }));
  const out: StoreQuery[] = [base, { ...base, offset: 3, limit: 7 }];
  for (const o of [...orders, { target: { kind: 'name' as const }, descending: false }, { target: { kind: 'path' as const }, descending: false }, { target: { kind: 'type' as const }, descending: false }]) {
    out.push({ ...base, orderBy: [o] }, { ...base, orderBy: [{ ...o, descending: true }], offset: 2, limit: 9 });
  }
  out.push({ ...base, fullText: [{ word: 'alpha', prefix: false }] });
  out.push({ ...base, conditions: [{ kind: 'like', target: { kind: 'property', name: 'title' }, caseInsensitive: true, patterns: ['%ze%'] }] });
  out.push({ ...base, conditions: [{ kind: 'like', target: { kind: 'property', name: 'tags' }, caseInsensitive: false, patterns: ['Ze%'], negate: true }] });
  out.push({ ...base, conditions: [{ kind: 'ranges', target: { kind: 'property', name: 'price' }, negate: true, ranges: [{ kind: 'number', lo: { value: 5, inclusive: true } }] }] });
  out.push({ ...base, conditions: [{ kind: 'readable', rules: [{ pattern: '/s1*', read: false }, { pattern: '/*', read: true }] }], orderBy: [orders[0]!] });
  for (let i = 0; i < 30; i++) out.push(model.query());
  return out;
}

describe.each(BACKENDS)('query index deltas on $name', (b) => {
  const model = new Model(random(0x5eed), 1);

  it('small imports that create, change, remove and move nodes answer as the SQL path, without a reload', async () => {
    const store = b.store!;
    await importDocuments(store, [model.initial(6, 25)], { onUuidCollision: 'new' });
    const queries = fixedQueries(model);
    await compare(b, queries);
    const loaded = stats(store).loads;
    expect(loaded).toBeGreaterThanOrEqual(1);
    const kinds = new Set<string>();
    for (let i = 0; kinds.size < 4 || i < 8; i++) kinds.add(await model.change(store));
    await compare(b, queries);
    const readable = { kind: 'readable' as const, rules: [{ pattern: '/s2*', read: false }, { pattern: '/*', read: true }] };
    const names = ['price', 'mix', 'title', 'flag', 'absent'];
    const sortKinds = (m: Map<string, string[]>) => [...m].map(([k, v]) => [k, [...v].sort()]).sort();
    const expectedKinds = await b.referenceStore!((s) => s.reads.propertyKinds(WS, names, readable));
    expect(sortKinds(await store.reads.propertyKinds(WS, names, readable))).toEqual(sortKinds(expectedKinds));
    expect(stats(store).loads).toBe(loaded);
    expect(stats(store).appliedChanges).toBeGreaterThanOrEqual(8);
    expect(stats(store).deltaNodes).toBeGreaterThan(0);
    expect(b.events.some((e) => e.kind === 'apply' && e.message.includes('in place'))).toBe(true);
  });

  it('random small changes, then random queries, answer as the SQL path (seeded)', async () => {
    const store = b.store!;
    const loaded = stats(store).loads;
    const r = random(0xd1ff);
    for (let round = 0; round < 25; round++) {
      const changes = 1 + Math.floor(r() * 3);
      for (let i = 0; i < changes; i++) await model.change(store);
      const queries = Array.from({ length: 12 }, () => model.query());
      await compare(b, queries);
    }
    expect(stats(store).loads).toBe(loaded);
  }, 180_000);

  it('a second instance on the same database applies the first one\'s import in place', async () => {
    const other = await b.second!();
    const queries = fixedQueries(model);
    for (const q of queries) await answer(other, q);
    const loaded = stats(other).loads;
    const seen = other instanceof PostgresStore
      ? new Promise<void>((resolve) => { const off = other.onChange(() => { off(); resolve(); }); })
      : undefined;
    await model.change(b.store!);
    // PostgreSQL: the notification arrived; SQLite (another process's write): the generation read again.
    await (seen ?? other.generation());
    await compare(b, queries, other);
    expect(stats(other).loads).toBe(loaded);
    expect(stats(other).appliedChanges).toBeGreaterThan(0);
  });

  it('property kinds among readable nodes follow changes (a kind no node has any more is gone)', async () => {
    const store = b.store!;
    const node = (name: string, id: string, kind: 'String' | 'Long', value: string | number): NodeDraft =>
      ({ name, id, type: 'cms:content', mixins: [], properties: [['k', kind, value]], children: [] });
    const doc = (roots: NodeDraft[]): ImportDocument => ({ source: 'kinds', workspace: 'kd', parentPath: '/', roots, blobs: [] });
    const a = '0000aaaa-0000-4000-8000-000000000001';
    await importDocuments(store, [doc([node('a', a, 'String', 'x'), node('b', '0000aaaa-0000-4000-8000-000000000002', 'Long', 1)])], { onUuidCollision: 'new' });
    const readable = { kind: 'readable' as const, rules: [{ pattern: '/*', read: true }] };
    expect([...(await store.reads.propertyKinds('kd', ['k'], readable)).get('k')!].sort()).toEqual(['number', 'string']);
    const loaded = stats(store).loads;
    await importDocuments(store, [doc([node('a', a, 'Long', 2)])], { onUuidCollision: 'new' });
    expect(await store.reads.propertyKinds('kd', ['k'], readable)).toEqual(new Map([['k', ['number']]]));
    await importDocuments(store, [doc([node('c', '0000aaaa-0000-4000-8000-000000000003', 'String', 'y')])], { onUuidCollision: 'new' });
    expect([...(await store.reads.propertyKinds('kd', ['k'], readable)).get('k')!].sort()).toEqual(['number', 'string']);
    expect(stats(store).loads).toBe(loaded);
  });

  it('a truncated event (a large import) reloads only its workspace', async () => {
    const store = b.store!;
    const small = (workspace: string, n: number, prefix = 'n'): ImportDocument => ({
      source: workspace, workspace, parentPath: '/', blobs: [],
      roots: Array.from({ length: n }, (_, i): NodeDraft => ({ name: `${prefix}${i}`, type: 'cms:content', mixins: [], properties: [['v', 'Long', i]], children: [] })),
    });
    await importDocuments(store, [small('ta', 5), small('tb', 5)], { onUuidCollision: 'new' });
    const all = (workspace: string): StoreQuery => ({ workspace, rootPath: '/', types: null, conditions: [], fullText: [], orderBy: [], offset: 0, limit: 3 });
    expect((await store.reads.query(all('ta'))).total).toBe(5);
    expect((await store.reads.query(all('tb'))).total).toBe(5);
    const loaded = stats(store).loads;
    const drops = stats(store).drops;
    await importDocuments(store, [small('ta', 10_001, 'big')], { onUuidCollision: 'new' });
    expect((await store.reads.query(all('tb'))).total).toBe(5);
    expect(stats(store).loads).toBe(loaded);
    expect(stats(store).drops).toBe(drops + 1);
    expect((await store.reads.query(all('ta'))).total).toBe(10_006);
    expect(stats(store).loads).toBe(loaded + 1);
  }, 180_000);

  it('a delta past the threshold is rebuilt in the background, answering meanwhile', async () => {
    const store = b.store!;
    const q: StoreQuery = { workspace: WS, rootPath: '/', types: null, conditions: [], fullText: [], orderBy: [{ target: { kind: 'property', name: 'price' }, descending: true }], offset: 0, limit: 20 };
    await store.reads.query(q);
    const { loads, rebuilds } = stats(store);
    const s = model.sections[0]!;
    for (let i = 0; i < 5_100; i++) s.pages.push(model.page(`bulk${i}`));
    await importDocuments(store, [{ source: 'bulk', workspace: WS, parentPath: '/', roots: [model.sectionDraft(s)], blobs: [] }], { onUuidCollision: 'new' });
    await compare(b, [q, { ...q, orderBy: [], offset: 5_000 }]);
    expect(stats(store).rebuilds).toBe(rebuilds + 1);
    for (let i = 0; i < 200 && stats(store).loads === loads; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(stats(store).loads).toBe(loads + 1);
    expect(stats(store).deltaNodes).toBeLessThan(100); // the new base holds the bulk import
    await compare(b, [q, { ...q, orderBy: [], offset: 5_000 }]);
  }, 180_000);
});
