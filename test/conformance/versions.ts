// Conformance suite versions: publish (numbering, who and when, atomic, generation), list, and reading
// a frozen copy in getSubtree's shape that later imports never change.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import type { ContentStore } from '../../src/store/content-store.js';
import { conformanceTest, useStore, type StoreFixture } from './fixture.js';
import { NEW, document, draft, freshWorkspace, pathsOf, spoolBytes, uuid } from './drafts.js';
import { importDocuments, publishVersion } from '../../src/repository/writes.js';

const ISO_INSTANT = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

/** `/page` with a title, two areas and a component; `title` and the component's text tell imports apart. */
function page(title: string, text: string) {
  return draft('page', { id: uuid(1), type: 'cms:page', properties: [['title', 'String', title]] }, [
    draft('main', { type: 'cms:area' }, [draft('0', { type: 'cms:component', properties: [['text', 'String', text]] })]),
    draft('footer', { type: 'cms:area' }),
  ]);
}

async function importPage(store: ContentStore, ws: string, title: string, text: string): Promise<void> {
  await importDocuments(store, [document(ws, '/', [page(title, text), draft('pagex', { properties: [['title', 'String', 'Sibling']] })])], NEW);
}

export function versionsSuite(fixture: StoreFixture): void {
  describe('versions', () => {
    const test = conformanceTest(fixture);
    const store = useStore(fixture);
    let dir = '';
    beforeAll(async () => { dir = await mkdtemp(join(tmpdir(), 'petal-versions-')); });
    afterAll(async () => { await rm(dir, { recursive: true, force: true }); });

    test('publish names versions 1.0, 1.1, … per path and records who, when and how many nodes', async () => {
      const ws = freshWorkspace('ver-names');
      await importPage(store(), ws, 'One', 'first');
      const before = Date.now();
      const v0 = await publishVersion(store(), ws, '/page', 'alice');
      const v1 = await publishVersion(store(), ws, '/page', 'bob');
      const other = await publishVersion(store(), ws, '/pagex', 'carol');
      expect(v0).toMatchObject({ workspace: ws, path: '/page', name: '1.0', nodeId: uuid(1), createdBy: 'alice', nodes: 4 });
      expect(v1).toMatchObject({ name: '1.1', createdBy: 'bob', nodes: 4 });
      expect(other).toMatchObject({ path: '/pagex', name: '1.0', nodes: 1 }); // numbering is per path
      expect(v0!.created).toMatch(ISO_INSTANT);
      // The store's clock (PostgreSQL's) may differ a little from ours.
      expect(Math.abs(Date.parse(v0!.created) - before)).toBeLessThan(60_000);
      expect(Date.parse(v1!.created)).toBeGreaterThanOrEqual(Date.parse(v0!.created));
      expect(await store().versions.list(ws, '/page')).toEqual([v0, v1]);
      expect(await store().versions.list(ws, '/pagex')).toEqual([other]);
    });

    test('1.9 is followed by 1.10, and names stay distinct under concurrent publishes', async () => {
      const ws = freshWorkspace('ver-concurrent');
      await importPage(store(), ws, 'One', 'first');
      const all = await Promise.all(Array.from({ length: 12 }, (_, i) => publishVersion(store(), ws, '/page', `u${i}`)));
      const names = all.map((v) => v!.name);
      expect(new Set(names).size).toBe(12);
      expect((await store().versions.list(ws, '/page')).map((v) => v.name))
        .toEqual(['1.0', '1.1', '1.2', '1.3', '1.4', '1.5', '1.6', '1.7', '1.8', '1.9', '1.10', '1.11']);
    });

    test('publishing a missing node, or the root, writes nothing and leaves the generation', async () => {
      const ws = freshWorkspace('ver-missing');
      await importPage(store(), ws, 'One', 'first');
      const generation = await store().generation();
      expect(await publishVersion(store(), ws, '/nothing', 'alice')).toBeUndefined();
      expect(await publishVersion(store(), ws, '/', 'alice')).toBeUndefined();
      expect(await publishVersion(store(), `${ws}-other`, '/page', 'alice')).toBeUndefined();
      expect(await store().versions.list(ws, '/nothing')).toEqual([]);
      expect(await store().versions.list(ws, '/')).toEqual([]);
      expect(await store().generation()).toBe(generation);
    });

    test('publishing bumps the generation', async () => {
      const ws = freshWorkspace('ver-generation');
      await importPage(store(), ws, 'One', 'first');
      const generation = await store().generation();
      await publishVersion(store(), ws, '/page', 'alice');
      expect(await store().generation()).toBeGreaterThan(generation);
    });

    test('a version reads as getSubtree read the node when it was published, at every depth', async () => {
      const ws = freshWorkspace('ver-shape');
      await importPage(store(), ws, 'One', 'first');
      const live = await store().reads.getSubtree(ws, '/page', 5);
      await publishVersion(store(), ws, '/page', 'alice');
      for (const depth of [0, 1, 2, 5]) {
        expect(await store().versions.subtree(ws, '/page', '1.0', depth), `depth ${depth}`)
          .toEqual(await store().reads.getSubtree(ws, '/page', depth));
      }
      expect(pathsOf((await store().versions.subtree(ws, '/page', '1.0', 5))!))
        .toEqual(['/page', '/page/main', '/page/footer', '/page/main/0']);
      expect(await store().versions.subtree(ws, '/page', '1.0', 5)).toEqual(live);
      // A nested node's version holds its own subtree only; a sibling sharing the prefix is not in it.
      await publishVersion(store(), ws, '/page/main', 'alice');
      expect(pathsOf((await store().versions.subtree(ws, '/page/main', '1.0', 5))!)).toEqual(['/page/main', '/page/main/0']);
      expect(pathsOf((await store().versions.subtree(ws, '/page', '1.0', 5))!)).not.toContain('/pagex');
    });

    test('a version is frozen: later imports change the live node, never the copy', async () => {
      const ws = freshWorkspace('ver-frozen');
      await importPage(store(), ws, 'One', 'first');
      await publishVersion(store(), ws, '/page', 'alice');
      const frozen = await store().versions.subtree(ws, '/page', '1.0', 5);
      // Re-import: new title and text, the footer gone, a new area.
      await importDocuments(store(), [document(ws, '/', [draft('page', { id: uuid(1), type: 'cms:page', properties: [['title', 'String', 'Two']] }, [
        draft('main', { type: 'cms:area' }, [draft('0', { type: 'cms:component', properties: [['text', 'String', 'second']] })]),
        draft('aside', { type: 'cms:area' }),
      ])])], NEW);
      expect((await store().reads.getNode(ws, '/page'))!.properties).toEqual([['title', 'String', 'Two']]);
      expect(await store().versions.subtree(ws, '/page', '1.0', 5)).toEqual(frozen);
      expect(frozen![0]!.properties).toEqual([['title', 'String', 'One']]);
      // The next publish copies the new content; 1.0 keeps the old.
      await publishVersion(store(), ws, '/page', 'bob');
      const next = await store().versions.subtree(ws, '/page', '1.1', 5);
      expect(pathsOf(next!)).toEqual(['/page', '/page/main', '/page/aside', '/page/main/0']);
      expect(next!.find((r) => r.path === '/page/main/0')!.properties).toEqual([['text', 'String', 'second']]);
      expect(await store().versions.subtree(ws, '/page', '1.0', 5)).toEqual(frozen);
    });

    test('versions outlive their node: deleting the live node keeps its versions', async () => {
      const ws = freshWorkspace('ver-deleted');
      await importPage(store(), ws, 'One', 'first');
      await publishVersion(store(), ws, '/page/main', 'alice');
      // Re-importing /page without main removes /page/main.
      await importDocuments(store(), [document(ws, '/', [draft('page', { id: uuid(1), type: 'cms:page' })])], NEW);
      expect(await store().reads.getNode(ws, '/page/main')).toBeUndefined();
      expect((await store().versions.list(ws, '/page/main')).map((v) => v.name)).toEqual(['1.0']);
      expect(pathsOf((await store().versions.subtree(ws, '/page/main', '1.0', 1))!)).toEqual(['/page/main', '/page/main/0']);
    });

    test('an unknown version, path or workspace reads as undefined', async () => {
      const ws = freshWorkspace('ver-unknown');
      await importPage(store(), ws, 'One', 'first');
      await publishVersion(store(), ws, '/page', 'alice');
      expect(await store().versions.subtree(ws, '/page', '1.1', 1)).toBeUndefined();
      expect(await store().versions.subtree(ws, '/page', '2.0', 1)).toBeUndefined();
      expect(await store().versions.subtree(ws, '/page', '1.00', 1)).toBeUndefined();
      expect(await store().versions.subtree(ws, '/pagex', '1.0', 1)).toBeUndefined();
      expect(await store().versions.subtree(ws, '/page/main', '1.0', 1)).toBeUndefined();
      expect(await store().versions.subtree(`${ws}-twin`, '/page', '1.0', 1)).toBeUndefined();
      expect(await store().versions.list(`${ws}-twin`, '/page')).toEqual([]);
      expect(await store().versions.subtree(ws, '/page\u0000', '1.0', 1)).toBeUndefined();
    });

    test('blobs a version references stay readable after the live node drops them', async () => {
      const ws = freshWorkspace('ver-blob');
      const bytes = randomBytes(5000);
      const blob = await spoolBytes(dir, bytes);
      await importDocuments(store(), [document(ws, '/', [draft('file', { properties: [['data', 'Binary', blob.hash]] })], { blobs: [blob] })], NEW);
      await publishVersion(store(), ws, '/file', 'alice');
      await importDocuments(store(), [document(ws, '/', [draft('file', { properties: [['title', 'String', 'no binary']] })])], NEW);
      const [copy] = (await store().versions.subtree(ws, '/file', '1.0', 0))!;
      expect(copy!.properties).toEqual([['data', 'Binary', blob.hash]]);
      expect(await store().blobs.info(blob.hash)).toEqual({ hash: blob.hash, size: 5000 });
      expect(Buffer.compare(await store().blobs.read(blob.hash, 0, 5000), bytes)).toBe(0);
    });

    test('versions survive closing and opening the store', async () => {
      const ws = freshWorkspace('ver-reopen');
      await importPage(store(), ws, 'One', 'first');
      const v = await publishVersion(store(), ws, '/page', 'alice');
      await store().close();
      await store().open();
      expect(await store().versions.list(ws, '/page')).toEqual([v]);
      expect(await store().versions.subtree(ws, '/page', '1.0', 0)).toHaveLength(1);
    });
  });
}
