// Issue 13.2 on the store: floods of request-chosen keys (orderBy and filter property names, filters,
// result pages, property-kind look-ups, query shapes) keep every store cache under its byte bound, on
// SQLite and (with PETAL_TEST_PG) PostgreSQL; a property that no node has costs nothing.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import type { StoreQuery } from '../../src/query/ast.js';
import type { ContentStore, StoreMemoryStats } from '../../src/store/content-store.js';
import { PostgresStore } from '../../src/store/postgres/store.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import type { ImportDocument, NodeDraft } from '../../src/repository/import-document.js';
import { importDocuments } from '../../src/repository/writes.js';

const NODES = 2_101;
const PROPS = 40;
const INDEX_BYTES = 2 * 1024 * 1024;

function content(nodes = NODES): ImportDocument {
  const roots: NodeDraft[] = [];
  for (let i = 0; i < nodes; i++) {
    roots.push({
      name: `n${i}`, type: 'cms:content', mixins: [],
      properties: [
        ['title', 'String', `Title ${i} ${'x'.repeat(i % 50)}`],
        ...Array.from({ length: PROPS }, (_, p) => [`p${p}`, 'Long', (i * (p + 7)) % 1000] as const),
      ],
      children: [],
    });
  }
  return { source: 'flood', workspace: 'flood', parentPath: '/', roots, blobs: [] };
}

const query = (over: Partial<StoreQuery>): StoreQuery => ({
  workspace: 'flood', rootPath: '/', types: null, conditions: [], fullText: [], orderBy: [], offset: 0, limit: 10, ...over,
});
const byProperty = (name: string, offset = 0): StoreQuery =>
  query({ orderBy: [{ target: { kind: 'property', name }, descending: false }], offset });

interface Backend { readonly name: string; store?: ContentStore; dispose?: () => Promise<void> }
const BACKENDS: Backend[] = [{ name: 'SQLite' }];
if (process.env.PETAL_TEST_PG) BACKENDS.push({ name: 'PostgreSQL' });

beforeAll(async () => {
  for (const b of BACKENDS) {
    if (b.name === 'SQLite') {
      b.store = new SqliteStore({ file: ':memory:', queryIndexThreshold: 0, queryIndexMaxBytes: INDEX_BYTES });
    } else {
      const url = process.env.PETAL_TEST_PG!;
      const schema = `petal_mem_${randomBytes(5).toString('hex')}`;
      b.store = new PostgresStore({ url, schema, queryIndexMaxBytes: INDEX_BYTES });
      b.dispose = async () => {
        const c = new pg.Client({ connectionString: url });
        await c.connect();
        await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).finally(() => c.end());
      };
    }
    await b.store.open();
    await importDocuments(b.store, [content()], { onUuidCollision: 'new' });
  }
}, 180_000);
afterAll(async () => {
  for (const b of BACKENDS) {
    await b.store?.close();
    await b.dispose?.();
  }
});

const stats = (b: Backend): StoreMemoryStats => b.store!.caches!.stats();

describe.each(BACKENDS)('store caches on $name', (b) => {
  it('2,000 orderBy names that no node has allocate nothing and keep nothing', async () => {
    for (let i = 0; i < 2_000; i++) {
      const r = await b.store!.reads.query(byProperty(`missing${i}_${randomBytes(4).toString('hex')}`));
      expect(r.total).toBe(NODES);
    }
    expect(stats(b).queryIndex.perName.entries).toBe(0);
    expect(stats(b).queryIndex.perName.bytes).toBe(0);
  });

  it('ordering and filtering by every property stays under the per-name share, evicting the oldest', async () => {
    const first = await b.store!.reads.query(byProperty('p0'));
    let peak = 0;
    for (let round = 0; round < 2; round++) {
      for (let p = 0; p < PROPS; p++) {
        await b.store!.reads.query(byProperty(`p${p}`));
        await b.store!.reads.query(query({ conditions: [{ kind: 'exists', name: `p${p}`, exists: true }] }));
        peak = Math.max(peak, stats(b).queryIndex.perName.bytes);
      }
    }
    const s = stats(b).queryIndex;
    expect(peak).toBeLessThanOrEqual(INDEX_BYTES / 2);
    expect(s.perName.evictions).toBeGreaterThan(0);
    // Evicted structures are rebuilt with the same answer.
    expect((await b.store!.reads.query(byProperty('p0'))).nodes.map((n) => n.path)).toEqual(first.nodes.map((n) => n.path));
  });

  it('random filters and every page of results stay under the results and rows shares', async () => {
    let peak = { results: 0, records: 0 };
    for (let i = 0; i < 800; i++) {
      await b.store!.reads.query(query({
        conditions: [{ kind: 'like', target: { kind: 'property', name: 'title' }, caseInsensitive: false, patterns: [`%${i}%${'y'.repeat(300)}`] }],
      }));
      peak.results = Math.max(peak.results, stats(b).queryIndex.results.bytes);
    }
    for (let offset = 0; offset < NODES; offset += 100) {
      await b.store!.reads.query(query({ offset, limit: 100 }));
      peak.records = Math.max(peak.records, stats(b).queryIndex.records.bytes);
    }
    const s = stats(b).queryIndex;
    expect(peak.results).toBeLessThanOrEqual(INDEX_BYTES / 4);
    expect(peak.records).toBeLessThanOrEqual(INDEX_BYTES / 4);
    expect(s.results.evictions).toBeGreaterThan(0);
    expect(s.records.evictions).toBeGreaterThan(0);
  });

  it('property-kind look-ups of random names stay under the memo bound', async () => {
    let peak = 0;
    for (let i = 0; i < 2_000; i++) {
      await b.store!.reads.propertyKinds('flood', [`name-${i}-${'k'.repeat(1_000)}`, 'p1']);
      peak = Math.max(peak, stats(b).memo.bytes);
    }
    expect(peak).toBeLessThanOrEqual(stats(b).memo.maxBytes);
    expect(stats(b).memo.evictions).toBeGreaterThan(0);
  });
});

describe('SQLite prepared statements', () => {
  it('queries of 200 shapes keep the statement cache under its bound', async () => {
    const store = new SqliteStore({ file: ':memory:', queryIndexThreshold: Infinity });
    await store.open();
    try {
      await importDocuments(store, [content(20)], { onUuidCollision: 'new' });
      let peak = 0;
      for (let n = 1; n <= 200; n++) {
        const ranges = Array.from({ length: n }, (_, i) => ({ kind: 'number' as const, lo: { value: i, inclusive: true }, hi: { value: i, inclusive: true } }));
        await store.reads.query(query({ conditions: [{ kind: 'ranges', target: { kind: 'property', name: 'p1' }, negate: false, ranges }] }));
        peak = Math.max(peak, store.caches.stats().statements!.bytes);
      }
      const s = store.caches.stats().statements!;
      expect(peak).toBeLessThanOrEqual(s.maxBytes);
      expect(s.evictions).toBeGreaterThan(0);
    } finally {
      await store.close();
    }
  });
});
