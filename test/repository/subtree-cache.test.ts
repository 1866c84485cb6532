// The repository's subtree cache: repeated reads of one generation cost no store read, a write
// drops at once the entries it reached (and only those), each caller still sees only what it may read, and a store without a
// generation hint is never cached.
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import type { ContentStore, NodeReads } from '../../src/store/content-store.js';
import { Repository, type ReadAccess } from '../../src/repository/session.js';
import { NodeTypeRegistry } from '../../src/repository/node-types.js';
import type { ImportDocument, NodeDraft } from '../../src/repository/import-document.js';
import { importDocuments } from '../../src/repository/writes.js';

function page(name: string, title: string, kids: string[] = []): NodeDraft {
  return {
    name, type: 'cms:page', mixins: [], properties: [['title', 'String', title]],
    children: kids.map((k) => ({ name: k, type: 'cms:area', mixins: [], properties: [], children: [] })),
  };
}
function doc(roots: NodeDraft[]): ImportDocument {
  return { source: 'test', workspace: 'website', parentPath: '/', roots, blobs: [] };
}

/** The store, counting getSubtree calls that reach it. */
function counting(store: ContentStore): { store: ContentStore; calls: () => number } {
  let calls = 0;
  const reads = new Proxy(store.reads, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver);
      if (prop === 'getSubtree') return (...a: Parameters<NodeReads['getSubtree']>) => { calls++; return target.getSubtree(...a); };
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  const proxy = new Proxy(store, {
    get(target, prop, receiver) {
      if (prop === 'reads') return reads;
      const v = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  return { store: proxy, calls: () => calls };
}

const stores: SqliteStore[] = [];
async function open(): Promise<SqliteStore> {
  const s = new SqliteStore({ file: ':memory:' });
  await s.open();
  stores.push(s);
  await importDocuments(s, [doc([page('a', 'A1', ['main']), page('b', 'B1')])], { onUuidCollision: 'new' });
  return s;
}
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
});

describe('subtree cache', () => {
  it('a second read of the same subtree does not reach the store, and gives equal rows', async () => {
    const { store, calls } = counting(await open());
    const repo = new Repository(store, new NodeTypeRegistry());
    const s = repo.systemSession();
    const first = await s.getSubtree('website', '/a', 1);
    const second = await s.getSubtree('website', '/a', 1);
    expect(calls()).toBe(1);
    expect(second).toEqual(first);
    expect(second).not.toBe(first); // callers get their own array
    await s.getSubtree('website', '/a', 0);
    expect(calls()).toBe(2); // another depth is another entry
  });

  it('an import drops every entry: the next read sees the new content', async () => {
    const raw = await open();
    const { store, calls } = counting(raw);
    const s = new Repository(store, new NodeTypeRegistry()).systemSession();
    expect((await s.getSubtree('website', '/a', 1))[0]!.properties).toEqual([['title', 'String', 'A1']]);
    await importDocuments(raw, [doc([page('a', 'A2', ['main'])])], { onUuidCollision: 'replace' });
    expect((await s.getSubtree('website', '/a', 1))[0]!.properties).toEqual([['title', 'String', 'A2']]);
    expect(calls()).toBe(2);
  });

  it('an import drops only the entries whose subtree it reached (root, or an ancestor within the depth)', async () => {
    const raw = await open();
    const { store, calls } = counting(raw);
    const s = new Repository(store, new NodeTypeRegistry()).systemSession();
    await s.getSubtree('website', '/a', 1);
    await s.getSubtree('website', '/a', 0);
    await s.getSubtree('website', '/b', 1);
    await s.getSubtree('website', '/', 1);
    await s.getSubtree('website', '/', 2);
    expect(calls()).toBe(5);
    // /a/main changes: /a at depth 1 and / at depth 2 held it; /a at depth 0, /b and / at depth 1 did not.
    await importDocuments(raw, [{ ...doc([]), parentPath: '/a', roots: [{ name: 'main', type: 'cms:area', mixins: [], properties: [['x', 'String', '1']], children: [] }] }], { onUuidCollision: 'replace' });
    await s.getSubtree('website', '/a', 0);
    await s.getSubtree('website', '/b', 1);
    await s.getSubtree('website', '/', 1);
    expect(calls()).toBe(5);
    expect((await s.getSubtree('website', '/a', 1))[1]!.properties).toEqual([['x', 'String', '1']]);
    expect((await s.getSubtree('website', '/', 2)).find((r) => r.path === '/a/main')!.properties).toEqual([['x', 'String', '1']]);
    expect(calls()).toBe(7);
  });

  it('cached rows are filtered per caller', async () => {
    const repo = new Repository(await open(), new NodeTypeRegistry());
    const denyMain: ReadAccess = { rulesFor: () => [], canRead: (_ws, path) => !path.startsWith('/a/main') };
    expect((await repo.systemSession().getSubtree('website', '/a', 1)).map((r) => r.path)).toEqual(['/a', '/a/main']);
    expect((await repo.session(denyMain).getSubtree('website', '/a', 1)).map((r) => r.path)).toEqual(['/a']);
    expect((await repo.systemSession().getSubtree('website', '/a', 1)).map((r) => r.path)).toEqual(['/a', '/a/main']);
  });

  it('a store whose writes are announced but has no live hint (listener down) is read every time', async () => {
    const raw = await open();
    const { store, calls } = counting(raw);
    const capabilities = { ...raw.capabilities, notifyOnWrite: true };
    const noHint = new Proxy(store, {
      get: (t, p, r) => (p === 'generationHint' ? () => undefined : p === 'capabilities' ? capabilities : Reflect.get(t, p, r)),
    });
    const s = new Repository(noHint, new NodeTypeRegistry()).systemSession();
    await s.getSubtree('website', '/a', 1);
    await s.getSubtree('website', '/a', 1);
    expect(calls()).toBe(2);
  });

  it('stays within its byte budget, evicting the least recently used', async () => {
    const { store, calls } = counting(await open());
    const repo = new Repository(store, new NodeTypeRegistry(), { maxBytes: 1_500 });
    const s = repo.systemSession();
    await s.getSubtree('website', '/a', 1); // 2 rows
    await s.getSubtree('website', '/b', 1); // 1 row: /a no longer fits beside it
    await s.getSubtree('website', '/b', 1);
    expect(calls()).toBe(2);
    await s.getSubtree('website', '/a', 1);
    expect(calls()).toBe(3);
    expect(repo.subtreeCacheStats().bytes).toBeLessThanOrEqual(1_500);
  });

  it('a flood of reads of random missing paths stays within the budget (misses cost bytes)', async () => {
    const repo = new Repository(await open(), new NodeTypeRegistry(), { maxBytes: 64 * 1024 });
    const s = repo.systemSession();
    let peak = 0;
    for (let i = 0; i < 5_000; i++) {
      expect(await s.getSubtree('website', `/missing-${i}-${'x'.repeat(i % 200)}`, 1)).toEqual([]);
      peak = Math.max(peak, repo.subtreeCacheStats().bytes);
    }
    const stats = repo.subtreeCacheStats();
    expect(peak).toBeLessThanOrEqual(64 * 1024);
    expect(stats.entries).toBeGreaterThan(0); // misses are cached, not free
    expect(stats.entries).toBeLessThan(5_000);
  });
});
