// Conformance suite store-crud: lifecycle, point reads, batched reads, counts, workspaces and the generation.
import { describe, expect } from 'vitest';
import { conformanceTest, useStore, withFreshStore, type StoreFixture } from './fixture.js';
import { NEW, byPath, document, draft, freshWorkspace, uuid } from './drafts.js';
import { importDocuments } from '../../src/repository/writes.js';

const UUID_TEXT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function storeCrudSuite(fixture: StoreFixture): void {
  describe('store-crud', () => {
    const test = conformanceTest(fixture);
    const ws = freshWorkspace('crud');
    const store = useStore(fixture, async (s) => {
      await importDocuments(s, [
        document(ws, '/', [
          draft('page', {
            id: uuid(1), type: 'cms:page', mixins: ['cms:hasVersion'],
            properties: [['title', 'String', 'Home'], ['count', 'Long', 3]],
          }, [draft('main', { type: 'cms:area' }), draft('footer', { id: uuid(3), type: 'cms:area' })]),
          draft('other', { id: uuid(2) }),
        ]),
        // The same paths and one same id in a second workspace: reads must never cross workspaces.
        document(`${ws}-twin`, '/', [draft('page', { id: uuid(1) })]),
      ], NEW);
    });

    test('open on an open store is a no-op, and ping answers true', async () => {
      await store().open();
      expect(await store().reads.ping()).toBe(true);
      expect(await store().reads.countNodes(ws)).toBe(4);
    });

    test('close then open again keeps the content', () => withFreshStore(fixture, async (s) => {
      await importDocuments(s, [document('keep', '/', [draft('a', { id: uuid(10) }, [draft('b')])])], NEW);
      const generation = await s.generation();
      await s.close();
      await s.open();
      expect(await s.reads.ping()).toBe(true);
      expect(await s.reads.countNodes('keep')).toBe(2);
      expect((await s.reads.getNodeById('keep', uuid(10)))?.path).toBe('/a');
      expect(await s.generation()).toBe(generation);
    }));

    test('getNode returns every field of the record', async () => {
      expect(await store().reads.getNode(ws, '/page')).toEqual({
        id: uuid(1), workspace: ws, path: '/page', parentPath: '/', name: 'page', depth: 1, position: 0,
        type: 'cms:page', mixins: ['cms:hasVersion'], properties: [['title', 'String', 'Home'], ['count', 'Long', 3]],
      });
      const main = await store().reads.getNode(ws, '/page/main');
      expect(main).toMatchObject({
        workspace: ws, path: '/page/main', parentPath: '/page', name: 'main', depth: 2, position: 0,
        type: 'cms:area', mixins: [], properties: [],
      });
      expect(main?.id).toMatch(UUID_TEXT);
      expect(await store().reads.getNode(ws, '/page/footer')).toMatchObject({ id: uuid(3), position: 1 });
      expect(await store().reads.getNode(ws, '/other')).toMatchObject({ position: 1, type: 'cms:contentNode' });
    });

    test('getNode of an unknown path, of the root or in another workspace is undefined', async () => {
      expect(await store().reads.getNode(ws, '/missing')).toBeUndefined();
      expect(await store().reads.getNode(ws, '/page/main/missing')).toBeUndefined();
      expect(await store().reads.getNode(ws, '/')).toBeUndefined();
      expect(await store().reads.getNode(ws, '/pag')).toBeUndefined();
      expect(await store().reads.getNode(`${ws}-unknown`, '/page')).toBeUndefined();
      expect(await store().reads.getNode(`${ws}-twin`, '/page/main')).toBeUndefined();
    });

    test('getNodeById finds a node by uuid within its workspace only', async () => {
      expect((await store().reads.getNodeById(ws, uuid(1)))?.path).toBe('/page');
      expect((await store().reads.getNodeById(ws, uuid(3)))?.path).toBe('/page/footer');
      const twin = await store().reads.getNodeById(`${ws}-twin`, uuid(1));
      expect(twin).toMatchObject({ workspace: `${ws}-twin`, path: '/page', properties: [] });
      expect(await store().reads.getNodeById(ws, uuid(999))).toBeUndefined();
      expect(await store().reads.getNodeById(`${ws}-twin`, uuid(2))).toBeUndefined();
    });

    test('getNodesByIds returns the nodes that exist, ignoring unknown ids', async () => {
      const found = await store().reads.getNodesByIds(ws, [uuid(3), uuid(999), uuid(1), uuid(2)]);
      expect(found.sort(byPath).map((r) => [r.path, r.id])).toEqual([
        ['/other', uuid(2)], ['/page', uuid(1)], ['/page/footer', uuid(3)],
      ]);
      expect(found.every((r) => r.workspace === ws)).toBe(true);
      expect(await store().reads.getNodesByIds(ws, [uuid(998), uuid(999)])).toEqual([]);
      expect((await store().reads.getNodesByIds(`${ws}-twin`, [uuid(1), uuid(2)])).map((r) => r.path)).toEqual(['/page']);
    });

    test('getNodesByIds of an empty list is empty, and a repeated id yields its node once', async () => {
      expect(await store().reads.getNodesByIds(ws, [])).toEqual([]);
      expect((await store().reads.getNodesByIds(ws, [uuid(2), uuid(2)])).map((r) => r.path)).toEqual(['/other']);
    });

    test('countNodes counts one workspace, or all of them', () => withFreshStore(fixture, async (s) => {
      expect(await s.reads.countNodes()).toBe(0);
      expect(await s.reads.countNodes('website')).toBe(0);
      await importDocuments(s, [
        document('website', '/', [draft('a', {}, [draft('b'), draft('c')])]),
        document('dam', '/', [draft('x')]),
      ], NEW);
      expect(await s.reads.countNodes('website')).toBe(3);
      expect(await s.reads.countNodes('dam')).toBe(1);
      expect(await s.reads.countNodes('unknown')).toBe(0);
      expect(await s.reads.countNodes()).toBe(4);
    }));

    test('listWorkspaces lists each workspace that holds nodes, once', () => withFreshStore(fixture, async (s) => {
      expect(await s.reads.listWorkspaces()).toEqual([]);
      await importDocuments(s, [
        document('website', '/', [draft('a'), draft('b')]),
        document('dam', '/x', [draft('y')]),
        document('website', '/a', [draft('c')]),
      ], NEW);
      expect((await s.reads.listWorkspaces()).sort()).toEqual(['dam', 'website']);
    }));

    test('generation increases on every import', () => withFreshStore(fixture, async (s) => {
      const seen = [await s.generation()];
      await importDocuments(s, [document('website', '/', [draft('a')])], NEW);
      seen.push(await s.generation());
      await importDocuments(s, [document('website', '/', [draft('a')])], NEW); // the same content again
      seen.push(await s.generation());
      await importDocuments(s, [document('dam', '/', [draft('b')]), document('website', '/', [draft('c')])], NEW);
      seen.push(await s.generation());
      expect(seen.every((g) => Number.isInteger(g))).toBe(true);
      for (let i = 1; i < seen.length; i++) expect(seen[i]).toBeGreaterThan(seen[i - 1]);
      expect(await s.generation()).toBe(seen[seen.length - 1]); // reading does not bump it
    }));
  });
}
