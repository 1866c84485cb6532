// Issue 16.4 on the store: a query's ordered prefix over the base is kept across writes (per base, not
// per delta version), so a page must never come from a stale one: a node re-ordered or removed by a
// write inside the kept prefix, a node moved into it from outside, more tombstones than the prefix
// holds, and a deep offset after them. Expected answers follow from the imported ranks alone.
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
import type { ImportDocument, NodeDraft } from '../../../src/repository/import-document.js';
import { importDocuments, writeNodes } from '../../../src/repository/writes.js';

const WS = 'op';
interface Backend { readonly name: string; store?: ContentStore; dispose?: () => Promise<void> }
const BACKENDS: Backend[] = [{ name: 'SQLite' }];
if (process.env.PETAL_TEST_PG) BACKENDS.push({ name: 'PostgreSQL' });

beforeAll(async () => {
  for (const b of BACKENDS) {
    if (b.name === 'SQLite') {
      const dir = mkdtempSync(join(tmpdir(), 'petal-prefix-'));
      b.store = new SqliteStore({ file: join(dir, 'petal.db'), queryIndexThreshold: 0 });
      b.dispose = async () => rmSync(dir, { recursive: true, force: true });
    } else {
      const url = process.env.PETAL_TEST_PG!;
      const schema = `petal_prefix_${randomBytes(5).toString('hex')}`;
      b.store = new PostgresStore({ url, schema });
      b.dispose = async () => {
        const c = new pg.Client({ connectionString: url });
        await c.connect();
        await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).finally(() => c.end());
      };
    }
    await b.store.open();
  }
}, 180_000);
afterAll(async () => {
  for (const b of BACKENDS) {
    await b.store?.close();
    await b.dispose?.();
  }
});

/** The pages as imported: name -> rank (names sort as their number, so path order is number order). */
const pages = new Map<string, number>();
const name = (i: number) => `p${String(i).padStart(4, '0')}`;
const id = (n: string) => `00000000-0000-4000-8000-${n.slice(1).padStart(12, '0')}`;
const draft = (n: string): NodeDraft => ({ name: n, id: id(n), type: 'cms:content', mixins: [], properties: [['rank', 'Long', pages.get(n)!]], children: [] });
const section = (): ImportDocument => ({
  source: 'test', workspace: WS, parentPath: '/', blobs: [],
  roots: [{ name: 's', id: '00000000-0000-4000-8000-ffffffffffff', type: 'cms:folder', mixins: [], properties: [], children: [...pages.keys()].sort().map(draft) }],
});
const one = (n: string): ImportDocument => ({ source: 'test', workspace: WS, parentPath: '/s', roots: [draft(n)], blobs: [] });

function query(offset: number, limit: number, ordered = true): StoreQuery {
  return {
    workspace: WS, rootPath: '/s', types: null, conditions: [], fullText: [], offset, limit,
    orderBy: ordered ? [{ target: { kind: 'property', name: 'rank' }, descending: false }] : [],
  };
}

/** What the query must answer: by rank, then path; or path order without `orderBy`. */
function expected(q: StoreQuery): { total: number; paths: string[] } {
  const names = [...pages.keys()].sort();
  if (q.orderBy.length > 0) names.sort((a, b) => pages.get(a)! - pages.get(b)! || (a < b ? -1 : 1));
  return { total: names.length, paths: names.slice(q.offset, q.offset + q.limit).map((n) => `/s/${n}`) };
}

async function check(store: ContentStore, q: StoreQuery): Promise<void> {
  const r = await store.reads.query(q);
  expect({ q: [q.offset, q.limit, q.orderBy.length], total: r.total, paths: r.nodes.map((n) => n.path) })
    .toEqual({ q: [q.offset, q.limit, q.orderBy.length], ...expected(q) });
}

describe.each(BACKENDS)('ordered prefix under writes on $name', (b) => {
  it('serves no page from a stale prefix: re-ordered, removed and new nodes, more tombstones than it holds, deep offsets', async () => {
    const store = b.store!;
    // Ranks descend with the name, so rank order is the reverse of path order.
    for (let i = 0; i < 300; i++) pages.set(name(i), 1000 - i);
    await importDocuments(store, [section()], { onUuidCollision: 'new' });
    const pages0 = [query(0, 5), query(20, 10), query(0, 5, false)];
    for (const q of pages0) await check(store, q); // the prefix is kept now
    const loads = store.caches!.stats().queryIndex.loads;

    // A node inside the kept prefix re-ordered to the end; one from outside to the front.
    pages.set(name(297), 5000);
    await importDocuments(store, [one(name(297))], { onUuidCollision: 'new' });
    pages.set(name(3), -1);
    await importDocuments(store, [one(name(3))], { onUuidCollision: 'new' });
    for (const q of pages0) await check(store, q);

    // More removals in the prefix than it holds: it must be computed again, not served short.
    // (Nodes API deletes: only tombstones; an import of the section would make every page a delta record.)
    const removed: string[] = [];
    for (let i = 299; i >= 200; i--) if (i !== 297) removed.push(name(i));
    for (const n of removed) pages.delete(n);
    await writeNodes(store, WS, removed.map((n) => ({ op: 'delete' as const, path: `/s/${n}` })), { by: 'test' });
    for (const q of [...pages0, query(150, 10), query(195, 10), query(190, 10, false)]) await check(store, q);

    // A node moved within the prefix by a write after it was computed again.
    pages.set(name(150), -148);
    await importDocuments(store, [one(name(150))], { onUuidCollision: 'new' });
    pages.set(name(199), 2000);
    await importDocuments(store, [one(name(199))], { onUuidCollision: 'new' });
    for (const q of [...pages0, query(0, 64), query(100, 100)]) await check(store, q);
    expect(store.caches!.stats().queryIndex.loads).toBe(loads); // all of it on the delta, no reload
  });
});
