// Publishing (issue 17), store side: publish copies the working content into `<ws>@published`
// (non-recursively: a page with its areas and components, not its subpages), unpublish removes it,
// and both set the working nodes' activation properties. Each backend (PostgreSQL with PETAL_TEST_PG).
import { describe, expect, it } from 'vitest';
import type { ContentStore } from '../../src/store/content-store.js';
import { NodeWriteError } from '../../src/repository/node-write.js';
import { ACTIVATION_STATUS, LAST_ACTIVATED, LAST_ACTIVATED_BY, LAST_ACTIVATED_VERSION } from '../../src/repository/publishing.js';
import { uuid } from '../conformance/drafts.js';
import { BACKENDS, openForSuite } from './publish-backends.js';
import { MODIFIED, NOW, pathsIn, prop, request, seedSite } from './publish-site.js';
import { publishState, publishVersion, unpublishState, writeNodes } from '../../src/repository/writes.js';

const LATER = '2025-05-06T07:08:09.010+00:00';

async function refused(promise: Promise<unknown>, reason: NodeWriteError['reason']): Promise<NodeWriteError> {
  const err = await promise.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(NodeWriteError);
  expect((err as NodeWriteError).reason).toBe(reason);
  return err as NodeWriteError;
}

for (const backend of BACKENDS) {
  // Skipped for PostgreSQL when PETAL_TEST_PG is not set (backend.skip says so); CI sets it.
  describe.skipIf(backend.skip !== false)(`publish and unpublish (${backend.name})`, () => {
    let store: ContentStore;
    openForSuite(backend, (s) => { store = s; });

    it('a non-recursive publish copies the page with its areas and components, not its subpages', async () => {
      const { ws, pub } = await seedSite(store, 'flat');
      const result = await publishState(store, request(ws, '/home', { comment: 'first cut' }));
      expect(result).toMatchObject({ claimed: true, nodes: 3, version: { workspace: ws, path: '/home', name: '1.0', comment: 'first cut' } });
      expect(await pathsIn(store, pub)).toEqual(['/home', '/home/main', '/home/main/teaser']);
      const copies = await store.reads.getSubtree(pub, '/home', 9);
      expect(copies.map((n) => [n.id, n.type, n.position])).toEqual([[uuid(1), 'cms:page', 0], [uuid(2), 'cms:area', 0], [uuid(3), 'cms:component', 0]]);
      const [home, , teaser] = copies;
      expect(prop(home, 'title')).toBe('Home');
      for (const n of copies) {
        expect([prop(n, ACTIVATION_STATUS), prop(n, LAST_ACTIVATED), prop(n, LAST_ACTIVATED_BY)]).toEqual(['true', NOW, 'alice']);
      }
      expect(prop(home, LAST_ACTIVATED_VERSION)).toBe('1.0');
      expect(prop(teaser, LAST_ACTIVATED_VERSION)).toBeUndefined();
      expect(prop(teaser, 'text')).toBe('Hello');

      // The working nodes copied are marked published; their last modification stays what it was.
      const working = await store.reads.getSubtree(ws, '/home', 9);
      const byPath = new Map(working.map((n) => [n.path, n]));
      for (const path of ['/home', '/home/main', '/home/main/teaser']) {
        expect([prop(byPath.get(path), ACTIVATION_STATUS), prop(byPath.get(path), LAST_ACTIVATED)]).toEqual(['true', NOW]);
      }
      expect(prop(byPath.get('/home'), 'cms:lastModified')).toBe(MODIFIED[2]);
      expect(prop(byPath.get('/home/main'), 'cms:lastModified')).toBe(MODIFIED[2]);
      expect(prop(byPath.get('/home/about'), ACTIVATION_STATUS)).toBeUndefined();
      expect(prop(byPath.get('/home'), LAST_ACTIVATED_VERSION)).toBeUndefined();

      const versions = await store.versions.list(ws, '/home');
      expect(versions).toMatchObject([{ name: '1.0', comment: 'first cut', createdBy: 'alice', nodeId: uuid(1) }]);
      // Without a comment, a version has none.
      await publishState(store, request(ws, '/home'));
      expect((await store.versions.list(ws, '/home'))[1]).not.toHaveProperty('comment');
    });

    it('a version freezes what the publish made public: the copies as published, no subpage, no draft', async () => {
      const { ws } = await seedSite(store, 'frozen');
      await publishState(store, request(ws, '/home'));
      await publishState(store, request(ws, '/home/about'));
      const v = (await publishState(store, request(ws, '/home'))).version!;
      expect([v.name, v.nodes]).toEqual(['1.1', 3]);
      const frozen = (await store.versions.subtree(ws, '/home', '1.1', 9))!;
      expect(frozen.map((n) => n.path)).toEqual(['/home', '/home/main', '/home/main/teaser']);
      // As published: stamped with its activation, in the logical workspace.
      expect(frozen.map((n) => [n.workspace, prop(n, ACTIVATION_STATUS), prop(n, LAST_ACTIVATED_BY)]))
        .toEqual(Array(3).fill([ws, 'true', 'alice']));
      // A recursive publish freezes the whole subtree it copied.
      const r = (await publishState(store, request(ws, '/home', { recursive: true }))).version!;
      expect((await store.versions.subtree(ws, '/home', r.name, 9))!.map((n) => n.path).sort())
        .toEqual(['/home', '/home/about', '/home/about/main', '/home/main', '/home/main/teaser']);
      // ContentStore.publish (publishing off) still freezes the working subtree.
      const plain = (await publishVersion(store, ws, '/home', 'cli'))!;
      expect(plain.nodes).toBe(5);
    });

    it('a recursive publish copies the whole subtree', async () => {
      const { ws, pub } = await seedSite(store, 'deep');
      const result = await publishState(store, request(ws, '/home', { recursive: true }));
      expect(result.nodes).toBe(5);
      expect(await pathsIn(store, pub)).toEqual(['/home', '/home/about', '/home/about/main', '/home/main', '/home/main/teaser']);
      for (const n of await store.reads.getSubtree(ws, '/', 9)) expect(prop(n, ACTIVATION_STATUS)).toBe('true');
      const about = await store.reads.getNode(pub, '/home/about');
      expect([prop(about, ACTIVATION_STATUS), prop(about, LAST_ACTIVATED_VERSION)]).toEqual(['true', undefined]);
    });

    it('a child is refused until its parent is published; the root, a missing or hidden node are refused', async () => {
      const { ws, pub } = await seedSite(store, 'parent');
      const generation = await store.generation();
      const err = await refused(publishState(store, request(ws, '/home/about')), 'parentNotPublished');
      expect(err.message).toBe(`Parent content ${ws}:/home is not published yet; publish the parent before publishing its children`);
      await refused(publishState(store, request(ws, '/')), 'invalid');
      await refused(publishState(store, request(pub, '/home')), 'invalid');
      await refused(unpublishState(store, request(pub, '/home')), 'invalid');
      await refused(publishState(store, request(ws, '/nowhere')), 'missing');
      const hidden = { canRead: (_: string, p: string) => p !== '/home', mayWrite: () => true, mayReplaceSubtree: () => true };
      await refused(publishState(store, request(ws, '/home', { guard: hidden })), 'missing');
      expect(await store.reads.countNodes(pub)).toBe(0);
      expect(await store.versions.list(ws, '/home/about')).toEqual([]);
      expect(await store.generation()).toBe(generation);
      await publishState(store, request(ws, '/home'));
      await publishState(store, request(ws, '/home/about'));
      expect(await pathsIn(store, pub)).toContain('/home/about/main');
    });

    it('a non-recursive re-publish keeps the published subpages and drops content deleted in working', async () => {
      const { ws, pub } = await seedSite(store, 'again');
      await publishState(store, request(ws, '/home'));
      await publishState(store, request(ws, '/home/about'));
      await writeNodes(store, ws, [
        { op: 'delete', path: '/home/main/teaser' },
        { op: 'update', path: '/home', node: { name: 'home', properties: [['title', 'String', 'Home, again']], children: [], field: '' } },
      ], { by: 'carol' });
      const result = await publishState(store, request(ws, '/home', { by: 'bob', now: LATER }));
      expect(result).toMatchObject({ nodes: 2, version: { name: '1.1' } });
      expect(await pathsIn(store, pub)).toEqual(['/home', '/home/about', '/home/about/main', '/home/main']);
      const home = await store.reads.getNode(pub, '/home');
      expect([prop(home, 'title'), prop(home, LAST_ACTIVATED_BY), prop(home, LAST_ACTIVATED), prop(home, LAST_ACTIVATED_VERSION)])
        .toEqual(['Home, again', 'bob', LATER, '1.1']);
      // The subpage kept is the one published earlier, untouched.
      expect(prop(await store.reads.getNode(pub, '/home/about'), LAST_ACTIVATED)).toBe(NOW);
    });

    it('a node moved in working takes its id along: its old published copy goes', async () => {
      const { ws, pub } = await seedSite(store, 'moved');
      await publishState(store, request(ws, '/home', { recursive: true }));
      await writeNodes(store, ws, [{ op: 'move', path: '/home/about', to: '/about' }], { by: 'carol' });
      const before = await store.changes.latest();
      await publishState(store, request(ws, '/about'));
      expect(await pathsIn(store, pub)).toEqual(['/about', '/about/main', '/home', '/home/main', '/home/main/teaser']);
      expect((await store.reads.getNode(pub, '/about'))?.id).toBe(uuid(4));
      const [event] = (await store.changes.since(before, 10)).filter((e) => e.workspace === pub);
      expect(event).toMatchObject({ kind: 'publish', created: [], removed: [] });
      expect(event!.moved.map((n) => [n.path, n.from])).toEqual([['/about', '/home/about'], ['/about/main', '/home/about/main']]);
    });

    it('unpublish removes the published subtree and marks the working subtree unpublished', async () => {
      const { ws, pub } = await seedSite(store, 'unpub');
      await publishState(store, request(ws, '/home', { recursive: true }));
      const result = await unpublishState(store, request(ws, '/home/about', { by: 'bob', now: LATER }));
      expect(result).toEqual({ claimed: true, nodes: 2 });
      expect(await pathsIn(store, pub)).toEqual(['/home', '/home/main', '/home/main/teaser']);
      for (const path of ['/home/about', '/home/about/main']) {
        const n = await store.reads.getNode(ws, path);
        expect([prop(n, ACTIVATION_STATUS), prop(n, LAST_ACTIVATED), prop(n, LAST_ACTIVATED_BY)]).toEqual(['false', LATER, 'bob']);
      }
      expect(prop(await store.reads.getNode(ws, '/home/about'), 'cms:lastModified')).toBe(MODIFIED[2]);
      expect(prop(await store.reads.getNode(ws, '/home'), ACTIVATION_STATUS)).toBe('true');
      expect(await store.versions.list(ws, '/home/about')).toEqual([]); // an unpublish records no version
      expect(await store.versions.list(ws, '/home')).toHaveLength(1);

      // Gone from working, still published: unpublish removes it all the same.
      await writeNodes(store, ws, [{ op: 'delete', path: '/home/main' }], { by: 'carol' });
      expect(await unpublishState(store, request(ws, '/home/main'))).toEqual({ claimed: true, nodes: 2 });
      expect(await pathsIn(store, pub)).toEqual(['/home']);
      await refused(unpublishState(store, request(ws, '/home/main')), 'missing');
      await refused(unpublishState(store, request(ws, '/')), 'invalid');
      const denied = { canRead: () => true, mayWrite: () => true, mayReplaceSubtree: () => false };
      await refused(unpublishState(store, request(ws, '/home', { guard: denied })), 'denied');
      expect(await pathsIn(store, pub)).toEqual(['/home']);
    });
  });
}
