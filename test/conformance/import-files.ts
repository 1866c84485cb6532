// Conformance suite import-files: real export files through importPaths into the store, checked node by node.
import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { ImportError } from '../../src/ingest/import-error.js';
import { listExportFiles, loadExport } from '../../src/ingest/load-export.js';
import { importPaths } from '../../src/ingest/run-import.js';
import type { ContentStore } from '../../src/store/content-store.js';
import type { ImportDocument, NodeDraft } from '../../src/repository/import-document.js';
import type { NodeRecord } from '../../src/store/rows.js';
import { conformanceTest, withFreshStore, type StoreFixture } from './fixture.js';
import { NEW } from './drafts.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures');
const RENDER = join(FIXTURES, 'render');
const TRAVEL = join(FIXTURES, 'travel-spa');
const BROKEN = join(FIXTURES, 'invalid', 'website.broken.yaml');

type Expected = Pick<NodeRecord, 'type' | 'mixins' | 'properties'> & { id?: string };

/** What the store should hold after importing `docs` in order: `workspace:path` → the node's fields. */
function expectedNodes(docs: readonly ImportDocument[]): Map<string, Expected> {
  const out = new Map<string, Expected>();
  const put = (ws: string, parent: string, d: NodeDraft): void => {
    const path = parent === '/' ? `/${d.name}` : `${parent}/${d.name}`;
    out.set(`${ws}:${path}`, { id: d.id, type: d.type ?? 'cms:contentNode', mixins: d.mixins, properties: d.properties });
    for (const c of d.children) put(ws, path, c);
  };
  for (const doc of docs) {
    for (const root of doc.roots) {
      const key = `${doc.workspace}:${doc.parentPath === '/' ? '' : doc.parentPath}/${root.name}`;
      for (const k of [...out.keys()]) if (k === key || k.startsWith(`${key}/`)) out.delete(k); // re-imported
      put(doc.workspace, doc.parentPath, root);
    }
  }
  return out;
}

async function expectStoreHolds(store: ContentStore, expected: Map<string, Expected>): Promise<void> {
  for (const [key, want] of expected) {
    const [ws, path] = [key.slice(0, key.indexOf(':')), key.slice(key.indexOf(':') + 1)];
    const got = await store.reads.getNode(ws, path);
    expect(got, key).toBeDefined();
    expect({ type: got?.type, mixins: got?.mixins, properties: got?.properties }, key)
      .toEqual({ type: want.type, mixins: want.mixins, properties: want.properties });
    if (want.id !== undefined) expect(got?.id, key).toBe(want.id);
  }
}

export function importFilesSuite(fixture: StoreFixture): void {
  describe('import-files', () => {
    const test = conformanceTest(fixture);
    let dir: string;
    /** The fixture files as the importers parse them, with the binaries spooled into `dir` to compare against. */
    const parse = async (paths: string[]) => {
      const docs: ImportDocument[] = [];
      for (const file of await listExportFiles(paths)) docs.push(await loadExport(file, { spoolDir: join(dir, 'spool') }));
      return docs;
    };
    beforeAll(async () => { dir = await mkdtemp(join(tmpdir(), 'petal-conformance-files-')); });
    afterAll(async () => { await rm(dir, { recursive: true, force: true }); });

    test('the render fixtures are stored node by node as parsed', () => withFreshStore(fixture, async (store) => {
      const docs = await parse([RENDER]);
      const expected = expectedNodes(docs);
      const result = await importPaths(store, [RENDER], NEW);
      expect(result).toMatchObject({ files: 3, nodes: expected.size, warnings: [] });
      expect((await store.reads.listWorkspaces()).sort()).toEqual(['plants', 'website']);
      expect(await store.reads.countNodes('website')).toBe(13);
      expect(await store.reads.countNodes('plants')).toBe(3);
      expect(await store.reads.countNodes()).toBe(expected.size);
      await expectStoreHolds(store, expected);
      expect(await store.reads.getNode('website', '/site/weird name ü')).toMatchObject({ type: 'cms:page', depth: 2 });
    }));

    test('website.site.yaml is imported before website.site.about.history.yaml whatever the argument order', async () => {
      const site = join(RENDER, 'website.site.yaml');
      const history = join(RENDER, 'website.site.about.history.yaml');
      const rows: string[][] = [];
      for (const order of [[history, site], [site, history]]) {
        await withFreshStore(fixture, async (store) => {
          expect((await importPaths(store, order, NEW)).warnings).toEqual([]);
          expect(await store.reads.getNode('website', '/site')).toMatchObject({ type: 'cms:page', position: 0 });
          expect(await store.reads.getNode('website', '/site/about')).toMatchObject({ type: 'cms:page' });
          expect(await store.reads.getNode('website', '/site/about/history')).toMatchObject({
            id: '00000000-0000-4000-8000-00000000000d', type: 'cms:page', position: 1,
          });
          const about = await store.reads.getSubtree('website', '/site/about', 1);
          expect(about.map((r) => r.name)).toEqual(['about', 'team', 'history']);
          expect(await store.reads.countNodes('website')).toBe(13);
          rows.push((await store.reads.getSubtree('website', '/', 10)).map((r) => `${r.path} ${r.id} ${r.position}`));
        });
      }
      expect(rows[0]).toEqual(rows[1]);
    });

    test('the travel-spa fixtures are stored node by node, binaries byte for byte', () => withFreshStore(fixture, async (store) => {
      const docs = await parse([TRAVEL]);
      const expected = expectedNodes(docs);
      const result = await importPaths(store, [TRAVEL], NEW);
      expect(result).toMatchObject({ files: 5, warnings: [] });
      expect(await store.reads.countNodes()).toBe(expected.size);
      expect((await store.reads.listWorkspaces()).sort()).toEqual([...new Set(docs.map((d) => d.workspace))].sort());
      await expectStoreHolds(store, expected);
      const blobs = docs.flatMap((d) => d.blobs);
      expect(blobs.length).toBeGreaterThan(0);
      for (const blob of blobs) {
        expect(await store.blobs.info(blob.hash)).toEqual({ hash: blob.hash, size: blob.size });
        expect((await store.blobs.read(blob.hash, 0, blob.size)).equals(await readFile(blob.file)), blob.hash).toBe(true);
      }
    }));

    test('a folder with one broken YAML file throws an ImportError naming file and line, and stores nothing', () =>
      withFreshStore(fixture, async (store) => {
        const folder = await mkdtemp(join(dir, 'broken-'));
        await copyFile(join(RENDER, 'website.site.yaml'), join(folder, 'website.site.yaml'));
        await copyFile(BROKEN, join(folder, basename(BROKEN)));
        const generation = await store.generation();
        const error = await importPaths(store, [folder], NEW).then(() => undefined, (err: unknown) => err);
        expect(error).toBeInstanceOf(ImportError);
        const importError = error as ImportError;
        expect(importError.file).toBe(join(folder, 'website.broken.yaml'));
        expect(importError.line).toBe(6); // the misindented key
        expect(importError.message).toContain('website.broken.yaml:6');
        expect(await store.reads.countNodes()).toBe(0);
        expect(await store.reads.listWorkspaces()).toEqual([]);
        expect(await store.generation()).toBe(generation);
      }));

    test('importing the same folders twice gives the same nodes', () => withFreshStore(fixture, async (store) => {
      const read = async () => (await Promise.all((await store.reads.listWorkspaces()).sort().map((ws) => store.reads.getSubtree(ws, '/', 100))))
        .flat().map((r) => `${r.workspace}:${r.path} ${r.type} ${r.position} ${JSON.stringify(r.properties)}`);
      const first = await importPaths(store, [RENDER, TRAVEL], NEW);
      const count = await store.reads.countNodes();
      const rows = await read();
      const generation = await store.generation();
      const second = await importPaths(store, [TRAVEL, RENDER], NEW);
      expect(second.nodes).toBe(first.nodes);
      expect(second.warnings).toEqual([]);
      expect(await store.reads.countNodes()).toBe(count);
      expect(await read()).toEqual(rows);
      expect(await store.generation()).toBeGreaterThan(generation);
    }));
  });
}
