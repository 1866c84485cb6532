// Publishing (issue 17), store side: what a publish or unpublish commits besides the nodes: the change
// events of both workspaces and ONE generation bump, readers of `<ws>@published` (the query index
// included) up to date, nothing at all when refused or failing midway, a schedule run exactly once.
import { describe, expect, it } from 'vitest';
import type { StoreQuery } from '../../src/query/ast.js';
import type { ContentStore } from '../../src/store/content-store.js';
import type { NodeWriteGuard } from '../../src/repository/node-write.js';
import { ACTIVATION_STATUS } from '../../src/repository/publishing.js';
import { BACKENDS, openForSuite } from './publish-backends.js';
import { pathsIn, prop, request, seedSite } from './publish-site.js';
import { publishState, unpublishState } from '../../src/repository/writes.js';

const allowAll: NodeWriteGuard = { canRead: () => true, mayWrite: () => true, mayReplaceSubtree: () => true };

const everything = (workspace: string, more: Partial<StoreQuery> = {}): StoreQuery => ({
  workspace, rootPath: '/', types: null, conditions: [], fullText: [], orderBy: [], offset: 0, limit: 50, ...more,
});

/** Nothing of a publish of /home is visible: no published node, no version, no mark, no event, no bump. */
async function nothingWritten(store: ContentStore, ws: string, pub: string, generation: number, sequence: number): Promise<void> {
  expect(await store.reads.countNodes(pub)).toBe(0);
  expect(await store.versions.list(ws, '/home')).toEqual([]);
  for (const n of await store.reads.getSubtree(ws, '/', 9)) expect(prop(n, ACTIVATION_STATUS)).toBeUndefined();
  expect(await store.changes.since(sequence, 10)).toEqual([]);
  expect(await store.generation()).toBe(generation);
}

for (const backend of BACKENDS) {
  // Skipped for PostgreSQL when PETAL_TEST_PG is not set (backend.skip says so); CI sets it.
  describe.skipIf(backend.skip !== false)(`publish and unpublish: what they commit (${backend.name})`, () => {
    let store: ContentStore;
    const open = openForSuite(backend, (s) => { store = s; });

    it('one generation bump, and the change events of both workspaces', async () => {
      const { ws, pub } = await seedSite(store, 'events');
      let generation = await store.generation();
      let sequence = await store.changes.latest();
      await publishState(store, request(ws, '/home', { comment: 'go' }));
      expect(await store.generation()).toBe(generation + 1);
      const published = await store.changes.since(sequence, 10);
      expect(published.map((e) => [e.workspace, e.kind, e.by, e.version])).toEqual([
        [pub, 'publish', 'alice', '1.0'], [ws, 'publish', 'alice', undefined], [ws, 'publish', 'alice', '1.0'],
      ]);
      expect(published[0]!.created.map((n) => n.path)).toEqual(['/home', '/home/main', '/home/main/teaser']);
      expect(published[1]!.changed.map((n) => n.path)).toEqual(['/home', '/home/main', '/home/main/teaser']);
      expect(published[2]!.changed.map((n) => n.path)).toEqual(['/home']);

      // A re-publish replaces the copies: the same ids at the same paths are changed, not created.
      sequence = published[2]!.sequence;
      await publishState(store, request(ws, '/home'));
      const again = (await store.changes.since(sequence, 10))[0]!;
      expect([again.created, again.removed, again.changed.map((n) => n.path)]).toEqual([[], [], ['/home', '/home/main', '/home/main/teaser']]);

      generation = await store.generation();
      sequence = await store.changes.latest();
      await unpublishState(store, request(ws, '/home/main', { by: 'bob' }));
      expect(await store.generation()).toBe(generation + 1);
      const unpublished = await store.changes.since(sequence, 10);
      expect(unpublished.map((e) => [e.workspace, e.kind, e.by])).toEqual([[pub, 'unpublish', 'bob'], [ws, 'unpublish', 'bob']]);
      expect(unpublished[0]!.removed.map((n) => n.path).sort()).toEqual(['/home/main', '/home/main/teaser']);
      expect(unpublished[1]!.changed.map((n) => n.path)).toEqual(['/home/main', '/home/main/teaser']);
    });

    it('the query index, getSubtree and query of the published workspace follow publish and unpublish', async () => {
      const { ws, pub } = await seedSite(store, 'readers');
      const titled = everything(pub, { conditions: [{ kind: 'exists', name: 'title', exists: true }] });
      // Loaded before: the index applies the events in place rather than loading the workspace again.
      expect((await store.reads.query(everything(pub))).total).toBe(0);
      expect((await store.reads.query(titled)).total).toBe(0);
      expect(await store.reads.getSubtree(pub, '/home', 9)).toEqual([]);

      await publishState(store, request(ws, '/home', { recursive: true }));
      const all = await store.reads.query(everything(pub));
      expect(all.nodes.map((n) => n.path).sort()).toEqual(['/home', '/home/about', '/home/about/main', '/home/main', '/home/main/teaser']);
      expect(all.nodes.every((n) => n.workspace === pub)).toBe(true);
      expect((await store.reads.query(titled)).nodes.map((n) => n.path).sort()).toEqual(['/home', '/home/about']);
      const marked = everything(pub, { conditions: [{ kind: 'ranges', target: { kind: 'property', name: ACTIVATION_STATUS }, negate: false, ranges: [{ kind: 'string', lo: { value: 'true', inclusive: true }, hi: { value: 'true', inclusive: true } }] }] });
      expect((await store.reads.query(marked)).total).toBe(5);
      expect((await store.reads.getSubtree(pub, '/home', 1)).map((n) => n.path)).toEqual(['/home', '/home/main', '/home/about']);

      await unpublishState(store, request(ws, '/home/about'));
      expect((await store.reads.query(titled)).nodes.map((n) => n.path)).toEqual(['/home']);
      await unpublishState(store, request(ws, '/home'));
      expect((await store.reads.query(everything(pub))).total).toBe(0);
      expect(await store.reads.getSubtree(pub, '/home', 9)).toEqual([]);
      // The working state is its own workspace: all of it is still there.
      expect((await store.reads.query(everything(ws))).total).toBe(5);
    });

    it('a refused publish writes nothing', async () => {
      const { ws, pub } = await seedSite(store, 'denied');
      const generation = await store.generation();
      const sequence = await store.changes.latest();
      const notTeaser = { ...allowAll, mayWrite: (_: string, p: string) => p !== '/home/main/teaser' };
      await expect(publishState(store, request(ws, '/home', { guard: notTeaser }))).rejects.toMatchObject({ reason: 'denied' });
      // Recursive: the whole subtree must be the caller's, whatever may be added below it.
      const noSubtree = { ...allowAll, mayReplaceSubtree: () => false };
      await expect(publishState(store, request(ws, '/home', { recursive: true, guard: noSubtree }))).rejects.toMatchObject({ reason: 'denied' });
      // Not recursive: the content taken along is replaced with its subtree, which must be the caller's.
      await expect(publishState(store, request(ws, '/home', { guard: noSubtree }))).rejects.toMatchObject({ reason: 'denied' });
      await nothingWritten(store, ws, pub, generation, sequence);
      const notBelowPage = { ...allowAll, mayReplaceSubtree: (_: string, p: string) => p !== '/home' };
      expect(await publishState(store, request(ws, '/home', { guard: notBelowPage }))).toMatchObject({ nodes: 3 });
    });

    it('a failure midway writes nothing: a guard that throws on the last node, a generation bump that fails', async () => {
      const { ws, pub } = await seedSite(store, 'atomic');
      const generation = await store.generation();
      const sequence = await store.changes.latest();
      const throwing = { ...allowAll, mayWrite: (_: string, p: string) => { if (p === '/home/about/main') throw new Error('guard broke'); return true; } };
      await expect(publishState(store, request(ws, '/home', { recursive: true, guard: throwing }))).rejects.toThrow(/guard broke/);
      await open().failBump(true);
      try {
        // The bump is the last statement: everything else was written before it failed.
        await expect(publishState(store, request(ws, '/home', { recursive: true }))).rejects.toThrow(/injected/);
      } finally {
        await open().failBump(false);
      }
      await nothingWritten(store, ws, pub, generation, sequence);

      await publishState(store, request(ws, '/home', { recursive: true }));
      const published = await pathsIn(store, pub);
      const before = await store.generation();
      await open().failBump(true);
      try {
        await expect(unpublishState(store, request(ws, '/home'))).rejects.toThrow(/injected/);
      } finally {
        await open().failBump(false);
      }
      expect(await pathsIn(store, pub)).toEqual(published);
      for (const n of await store.reads.getSubtree(ws, '/', 9)) expect(prop(n, ACTIVATION_STATUS)).toBe('true');
      expect(await store.generation()).toBe(before);
    });

    it('a request carrying a schedule claims it: of two at once, one runs; a gone schedule writes nothing', async () => {
      const { ws, pub } = await seedSite(store, 'claim');
      const other = await open().another();
      const schedule = await store.schedules.add({ action: 'publish', workspace: ws, path: '/home', recursive: false, by: 'alice', runAs: 'operator', due: '2025-01-01T00:00:00Z' });
      const generation = await store.generation();
      const results = await Promise.all([store, other].map((s) => publishState(s, request(ws, '/home', { schedule: schedule.id }))));
      expect(results.filter((r) => r.claimed)).toHaveLength(1);
      expect(results.find((r) => !r.claimed)).toEqual({ claimed: false, nodes: 0 });
      expect(await store.versions.list(ws, '/home')).toHaveLength(1);
      expect(await store.generation()).toBe(generation + 1);
      expect(await store.schedules.list()).not.toContainEqual(expect.objectContaining({ id: schedule.id }));

      const unpublish = await store.schedules.add({ action: 'unpublish', workspace: ws, path: '/home', recursive: true, by: 'bob', runAs: 'operator', due: '2025-01-01T00:00:00Z' });
      expect(await store.schedules.cancel(unpublish.id)).toMatchObject({ id: unpublish.id });
      const sequence = await store.changes.latest();
      expect(await unpublishState(store, request(ws, '/home', { schedule: unpublish.id }))).toEqual({ claimed: false, nodes: 0 });
      expect(await pathsIn(store, pub)).toEqual(['/home', '/home/main', '/home/main/teaser']);
      expect(await store.changes.since(sequence, 10)).toEqual([]);
      expect(await store.generation()).toBe(generation + 1);
    });
  });
}
