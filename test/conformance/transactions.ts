// Conformance suite transactions: importDocuments' write rules, its all-or-nothing rule, value round trips, blobs.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import type { StoredProperty } from '../../src/model/property-type.js';
import type { ContentStore } from '../../src/store/content-store.js';
import type { BlobSpool } from '../../src/store/rows.js';
import type { ImportDocument } from '../../src/repository/import-document.js';
import { conformanceTest, useStore, type StoreFixture } from './fixture.js';
import { FAIL, NEW, REPLACE, document, draft, freshWorkspace, leaves, pathsOf, spoolBytes, uuid } from './drafts.js';
import { importDocuments } from '../../src/repository/writes.js';

const MiB = 1 << 20;

/** Everything a failed import must leave untouched. */
async function snapshot(store: ContentStore, ws: string) {
  return {
    total: await store.reads.countNodes(),
    inWorkspace: await store.reads.countNodes(ws),
    generation: await store.generation(),
    workspaces: (await store.reads.listWorkspaces()).sort(),
    rows: await store.reads.getSubtree(ws, '/', 100),
  };
}

export function transactionsSuite(fixture: StoreFixture): void {
  describe('transactions', () => {
    const test = conformanceTest(fixture);
    const store = useStore(fixture);
    let dir: string;
    beforeAll(async () => { dir = await mkdtemp(join(tmpdir(), 'petal-conformance-blobs-')); });
    afterAll(async () => { await rm(dir, { recursive: true, force: true }); });

    describe('writing documents', () => {
      test('a document under a missing parent creates the ancestors as cms:folder', async () => {
        const ws = freshWorkspace('folders');
        const result = await importDocuments(store(), [document(ws, '/x/y', [draft('page', { type: 'cms:page' })])], NEW);
        expect(result.nodes).toBe(3);
        expect(await store().reads.getNode(ws, '/x')).toMatchObject({ type: 'cms:folder', parentPath: '/', depth: 1, properties: [] });
        expect(await store().reads.getNode(ws, '/x/y')).toMatchObject({ type: 'cms:folder', parentPath: '/x', depth: 2 });
        expect(await store().reads.getNode(ws, '/x/y/page')).toMatchObject({ type: 'cms:page', parentPath: '/x/y', depth: 3 });
        // An existing ancestor is kept as it is; only the missing ones are created.
        const again = await importDocuments(store(), [document(ws, '/x/z', leaves('leaf'))], NEW);
        expect(again.nodes).toBe(2);
        expect(pathsOf(await store().reads.getSubtree(ws, '/x', 1))).toEqual(['/x', '/x/y', '/x/z']);
        expect(await store().reads.countNodes(ws)).toBe(5);
      });

      test('re-importing a document replaces its nodes in place', async () => {
        const ws = freshWorkspace('reimport');
        const middle = (title: string) => draft('b', { id: uuid(20), properties: [['title', 'String', title]] }, [
          draft('b1', { id: uuid(21) }), draft('b2', { id: uuid(22) }),
        ]);
        await importDocuments(store(), [
          document(ws, '/p', leaves('a')), document(ws, '/p', [middle('first')]), document(ws, '/p', leaves('c')),
        ], NEW);
        const count = await store().reads.countNodes(ws);
        const result = await importDocuments(store(), [document(ws, '/p', [middle('second')])], NEW);
        expect(result.warnings).toEqual([]);
        expect(await store().reads.countNodes(ws)).toBe(count);
        expect(pathsOf(await store().reads.getSubtree(ws, '/p', 1))).toEqual(['/p', '/p/a', '/p/b', '/p/c']);
        expect(await store().reads.getNode(ws, '/p/b')).toMatchObject({ id: uuid(20), position: 1, properties: [['title', 'String', 'second']] });
        expect((await store().reads.getNodeById(ws, uuid(22)))?.path).toBe('/p/b/b2');
        // Children missing from the new version are gone with the old one.
        await importDocuments(store(), [document(ws, '/p', [draft('b', { id: uuid(20) }, [draft('b3')])])], NEW);
        expect(pathsOf(await store().reads.getSubtree(ws, '/p/b', 1))).toEqual(['/p/b', '/p/b/b3']);
        expect(await store().reads.getNodeById(ws, uuid(21))).toBeUndefined();
      });

      test('a new sibling imported later goes after the existing ones', async () => {
        const ws = freshWorkspace('append');
        await importDocuments(store(), [document(ws, '/p', leaves('m', 'c', 'x'))], NEW);
        await importDocuments(store(), [document(ws, '/p', leaves('a'))], NEW);
        await importDocuments(store(), [document(ws, '/p', leaves('c'))], NEW); // re-import keeps c's place
        await importDocuments(store(), [document(ws, '/', leaves('q'))], NEW);
        const rows = await store().reads.getSubtree(ws, '/p', 1);
        expect(pathsOf(rows)).toEqual(['/p', '/p/m', '/p/c', '/p/x', '/p/a']);
        expect(pathsOf(await store().reads.getSubtree(ws, '/', 1))).toEqual(['/p', '/q']);
      });

      test('nodes without a type get cms:contentNode, and mixins round-trip in order', async () => {
        const ws = freshWorkspace('types');
        await importDocuments(store(), [document(ws, '/', [
          draft('plain', {}, [draft('child')]),
          draft('mixed', { type: 'cms:page', mixins: ['mix:versionable', 'cms:hasVersion', 'cms:variant'] }),
        ])], NEW);
        expect(await store().reads.getNode(ws, '/plain')).toMatchObject({ type: 'cms:contentNode', mixins: [] });
        expect(await store().reads.getNode(ws, '/plain/child')).toMatchObject({ type: 'cms:contentNode', mixins: [] });
        expect(await store().reads.getNode(ws, '/mixed')).toMatchObject({
          type: 'cms:page', mixins: ['mix:versionable', 'cms:hasVersion', 'cms:variant'],
        });
      });

      test('typed properties round-trip exactly, in order', async () => {
        const ws = freshWorkspace('props');
        const hash = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
        const properties: StoredProperty[] = [
          ['text', 'String', 'Grüße "quoted" \\ back\nslash 🌷 <p>&amp;</p>'],
          ['blank', 'String', ''],
          ['count', 'Long', 42],
          ['negative', 'Long', -9007199254740991],
          ['zero', 'Long', 0],
          ['ratio', 'Double', 0.1],
          ['tiny', 'Double', 1e-300],
          ['huge', 'Double', -1.7976931348623157e308],
          ['whole', 'Double', 3],
          ['yes', 'Boolean', true],
          ['no', 'Boolean', false],
          ['when', 'Date', '2024-05-02T08:30:15.123+07:00'],
          ['utc', 'Date', '2020-02-01T00:00:00.000+00:00'],
          ['link', 'WeakReference', uuid(7)],
          ['hard', 'Reference', uuid(8)],
          ['price', 'Decimal', '19.9900'],
          ['kind', 'Name', 'cms:page'],
          ['where', 'Path', '/a/b c'],
          ['site', 'URI', 'https://example.org/?a=1&b=%20'],
          ['tags', 'String', ['a', 'b', 'a']],
          ['numbers', 'Long', [1, 2, 3]],
          ['weights', 'Double', [0.5, 1.25]],
          ['flags', 'Boolean', [true, false]],
          ['dates', 'Date', ['2024-01-01T00:00:00.000+01:00']],
          ['links', 'WeakReference', [uuid(7), uuid(8)]],
          ['empty', 'String', []],
          ['emptyLongs', 'Long', []],
          ['one', 'String', ['only']],
          ['image', 'Binary', hash],
          ['cms:template', 'String', 'test:pages/home'],
        ];
        await importDocuments(store(), [document(ws, '/', [draft('typed', { properties })])], NEW);
        const record = await store().reads.getNode(ws, '/typed');
        expect(record?.properties).toEqual(properties);
        // toEqual would accept 42 for '42' in no case, but make the scalar/array distinction explicit too.
        const read = new Map(record?.properties.map(([name, type, value]) => [name, { type, value }]));
        expect(typeof read.get('count')?.value).toBe('number');
        expect(typeof read.get('yes')?.value).toBe('boolean');
        expect(Array.isArray(read.get('one')?.value)).toBe(true);
        expect(read.get('empty')).toEqual({ type: 'String', value: [] });
        expect(read.get('emptyLongs')).toEqual({ type: 'Long', value: [] });
      });

      test('non-finite Double values (NaN, Infinity, -Infinity) are kept as their text', async () => {
        const ws = freshWorkspace('nonfinite');
        const properties: StoredProperty[] = [
          ['nan', 'Double', NaN], ['inf', 'Double', Infinity], ['ninf', 'Double', -Infinity], ['list', 'Double', [1, NaN]],
        ];
        await importDocuments(store(), [document(ws, '/', [draft('n', { properties })])], NEW);
        // JSON (and so every store's property document) has no NaN or Infinity: they are kept as text.
        expect((await store().reads.getNode(ws, '/n'))?.properties).toEqual([
          ['nan', 'Double', 'NaN'], ['inf', 'Double', 'Infinity'], ['ninf', 'Double', '-Infinity'], ['list', 'Double', [1, 'NaN']],
        ]);
      });
    });

    describe('uuid collisions', () => {
      const seed = (ws: string): ImportDocument =>
        document(ws, '/', [draft('old', { id: uuid(1) }, [draft('kid', { id: uuid(2) })]), draft('keep', { id: uuid(3) })]);

      test('policy new: the newcomer gets a fresh uuid, with a warning naming both paths', async () => {
        const ws = freshWorkspace('uuid-new');
        await importDocuments(store(), [seed(ws)], NEW);
        const result = await importDocuments(store(), [document(ws, '/', [draft('newcomer', { id: uuid(1) })])], NEW);
        expect(result.warnings).toHaveLength(1);
        expect(result.warnings[0]).toContain(uuid(1));
        expect(result.warnings[0]).toContain('/old');
        expect(result.warnings[0]).toContain('/newcomer');
        const newcomer = await store().reads.getNode(ws, '/newcomer');
        expect(newcomer?.id).not.toBe(uuid(1));
        expect(newcomer?.id).toMatch(/^[0-9a-f-]{36}$/);
        expect(result.warnings[0]).toContain(newcomer?.id);
        expect((await store().reads.getNodeById(ws, uuid(1)))?.path).toBe('/old');
        expect(await store().reads.countNodes(ws)).toBe(4);
      });

      test('policy replace: the old holder is removed with its subtree', async () => {
        const ws = freshWorkspace('uuid-replace');
        await importDocuments(store(), [seed(ws)], NEW);
        const result = await importDocuments(store(), [document(ws, '/other', [draft('moved', { id: uuid(1) })])], REPLACE);
        expect(result.warnings).toHaveLength(1);
        expect(result.warnings[0]).toContain('/old');
        expect(result.warnings[0]).toContain('/other/moved');
        expect(await store().reads.getNode(ws, '/old')).toBeUndefined();
        expect(await store().reads.getNode(ws, '/old/kid')).toBeUndefined();
        expect(await store().reads.getNodeById(ws, uuid(2))).toBeUndefined();
        expect((await store().reads.getNodeById(ws, uuid(1)))?.path).toBe('/other/moved');
        expect(pathsOf(await store().reads.getSubtree(ws, '/', 2))).toEqual(['/keep', '/other', '/other/moved']);
      });

      test('policy replace never leaves a node without its parent (holder is an ancestor)', async () => {
        const ws = freshWorkspace('uuid-ancestor');
        await importDocuments(store(), [document(ws, '/', [draft('x', { id: uuid(1) }, leaves('sibling'))])], NEW);
        // The newcomer's uuid belongs to the very node it is imported under: refusing is as good as any
        // other outcome, but every stored node must keep a parent.
        await importDocuments(store(), [document(ws, '/x', [draft('y', { id: uuid(1) })])], REPLACE).catch(() => undefined);
        const rows = await store().reads.getSubtree(ws, '/', 10);
        const paths = new Set(['/', ...pathsOf(rows)]);
        expect(rows.filter((r) => !paths.has(r.parentPath)).map((r) => r.path)).toEqual([]);
      });

      test('policy fail: the import throws and nothing of it is visible', async () => {
        const ws = freshWorkspace('uuid-fail');
        await importDocuments(store(), [seed(ws)], NEW);
        const before = await snapshot(store(), ws);
        await expect(importDocuments(store(), [
          document(ws, '/', [draft('first', {}, leaves('x', 'y'))]), // valid, and written before the clash
          document(`${ws}-elsewhere`, '/deep/er', leaves('z')),
          document(ws, '/', [draft('clash', { id: uuid(2) })]),
        ], FAIL)).rejects.toThrow(uuid(2));
        expect(await snapshot(store(), ws)).toEqual(before);
        expect(await store().reads.countNodes(`${ws}-elsewhere`)).toBe(0);
      });

      test('a uuid repeated inside one import is a collision too', async () => {
        const ws = freshWorkspace('uuid-twice');
        const result = await importDocuments(store(), [document(ws, '/', [draft('a', { id: uuid(5) }), draft('b', { id: uuid(5) })])], NEW);
        expect(result.warnings).toHaveLength(1);
        expect((await store().reads.getNodeById(ws, uuid(5)))?.path).toBe('/a');
        expect((await store().reads.getNode(ws, '/b'))?.id).not.toBe(uuid(5));
        await expect(importDocuments(store(), [document(`${ws}-f`, '/', [draft('a', { id: uuid(6) }), draft('b', { id: uuid(6) })])], FAIL))
          .rejects.toThrow();
        expect(await store().reads.countNodes(`${ws}-f`)).toBe(0);
      });
    });

    describe('all or nothing', () => {
      test('an invalid root name mid-import leaves the store exactly as before', async () => {
        const ws = freshWorkspace('bad-root');
        await importDocuments(store(), [document(ws, '/', [draft('existing', {}, leaves('kid'))])], NEW);
        const before = await snapshot(store(), ws);
        await expect(importDocuments(store(), [
          document(ws, '/', [draft('existing', { type: 'cms:page' })]), // would replace /existing and drop /existing/kid
          document(ws, '/new/folder', leaves('ok')),
          document(ws, '/', [draft('a/b')]),
        ], NEW)).rejects.toThrow(/a\/b/);
        expect(await snapshot(store(), ws)).toEqual(before);
      });

      test('an invalid name deep in a document leaves the store exactly as before', async () => {
        const ws = freshWorkspace('bad-child');
        await importDocuments(store(), [document(ws, '/', leaves('existing'))], NEW);
        const before = await snapshot(store(), ws);
        for (const bad of ['a/b', '', '..', 'tab\there']) {
          await expect(importDocuments(store(), [
            document(ws, '/', [draft('root', {}, [draft('fine', {}, [draft(bad)])])]),
          ], NEW)).rejects.toThrow();
          expect(await snapshot(store(), ws)).toEqual(before);
        }
      });

      test('a blob of a failed import is not stored', async () => {
        const ws = freshWorkspace('bad-blob');
        const blob = await spoolBytes(dir, randomBytes(3000));
        await expect(importDocuments(store(), [
          document(ws, '/', [draft('file', { properties: [['data', 'Binary', blob.hash]] })], { blobs: [blob] }),
          document(ws, '/', [draft('a/b')]),
        ], NEW)).rejects.toThrow();
        expect(await store().blobs.info(blob.hash)).toBeUndefined();
        expect(await store().blobs.read(blob.hash, 0, 10)).toHaveLength(0);
      });

      test('a read in flight while an import runs sees none of its rows before the commit', async () => {
        const ws = freshWorkspace('isolation');
        const wide = draft('wide', {}, Array.from({ length: 300 }, (_, i) => draft(`n${i}`)));
        const seen: number[] = [];
        let done = false;
        // A concurrent caller (say, an HTTP request between two awaits) keeps reading while the import runs.
        const reader = (async () => { while (!done) seen.push(await store().reads.countNodes(ws)); })();
        await expect(importDocuments(store(), [document(ws, '/', [wide]), document(ws, '/', [draft('a/b')])], NEW)
          .finally(() => { done = true; })).rejects.toThrow();
        await reader;
        expect(seen.filter((n) => n !== 0)).toEqual([]);
        expect(await store().reads.countNodes(ws)).toBe(0);
      });

      test('two imports started together both commit', async () => {
        const ws = freshWorkspace('concurrent');
        const results = await Promise.allSettled([
          importDocuments(store(), [document(ws, '/', [draft('one', {}, leaves('a', 'b'))])], NEW),
          importDocuments(store(), [document(ws, '/', [draft('two', {}, leaves('c'))])], NEW),
        ]);
        expect(results.map((r) => (r.status === 'rejected' ? String(r.reason) : 'ok'))).toEqual(['ok', 'ok']);
        expect(await store().reads.countNodes(ws)).toBe(5);
      });
    });

    describe('blobs', () => {
      let bytes: Buffer;
      let blob: BlobSpool;
      beforeAll(async () => {
        bytes = randomBytes(Math.floor(2.5 * MiB) + 123);
        blob = await spoolBytes(dir, bytes);
        await importDocuments(store(), [
          document(freshWorkspace('blobs'), '/', [draft('asset', { properties: [['data', 'Binary', blob.hash]] })], { blobs: [blob] }),
        ], NEW);
      });

      test('getBlobInfo gives hash and size of an imported blob', async () => {
        expect(await store().blobs.info(blob.hash)).toEqual({ hash: blob.hash, size: bytes.length });
      });

      test('readBlob returns the exact bytes for ranges across the 1 MiB chunk boundaries', async () => {
        const ranges: [offset: number, length: number][] = [
          [0, bytes.length], [0, 1], [0, MiB], [MiB, MiB], [MiB - 1, 2], [MiB - 10, 20], [MiB - 1, MiB + 2],
          [2 * MiB - 5, 10], [1234, 2 * MiB], [2 * MiB, bytes.length - 2 * MiB], [bytes.length - 100, 100],
          [bytes.length - 1, 1], [777_777, 1],
        ];
        for (const [offset, length] of ranges) {
          const read = await store().blobs.read(blob.hash, offset, length);
          expect(read.length, `${offset}+${length}`).toBe(length);
          expect(read.equals(bytes.subarray(offset, offset + length)), `${offset}+${length}`).toBe(true);
        }
      });

      test('readBlob past the end returns the bytes that exist; a zero length returns none', async () => {
        const tail = await store().blobs.read(blob.hash, bytes.length - 50, 100);
        expect(tail.equals(bytes.subarray(bytes.length - 50))).toBe(true);
        expect(await store().blobs.read(blob.hash, bytes.length, 10)).toHaveLength(0);
        expect(await store().blobs.read(blob.hash, 5 * MiB, 10)).toHaveLength(0);
        expect(await store().blobs.read(blob.hash, 10, 0)).toHaveLength(0);
      });

      // The SQLite store answers an unknown hash with an empty buffer (it reads zero chunks), not an error.
      test('an unknown blob has no info and reads as empty', async () => {
        const unknown = 'f'.repeat(64);
        expect(await store().blobs.info(unknown)).toBeUndefined();
        const read = await store().blobs.read(unknown, 0, 100);
        expect(Buffer.isBuffer(read)).toBe(true);
        expect(read).toHaveLength(0);
      });

      test('a blob imported again, or by two documents, is stored once', async () => {
        const small = await spoolBytes(dir, Buffer.from('tiny blob'));
        const ws = freshWorkspace('blob-twice');
        const node = (name: string) => draft(name, { properties: [['data', 'Binary', small.hash]] });
        await importDocuments(store(), [
          document(ws, '/', [node('a')], { blobs: [small] }), document(ws, '/', [node('b')], { blobs: [small] }),
        ], NEW);
        await importDocuments(store(), [document(ws, '/', [node('c')], { blobs: [small, blob] })], NEW);
        expect(await store().blobs.info(small.hash)).toEqual({ hash: small.hash, size: 9 });
        expect((await store().blobs.read(small.hash, 0, 100)).toString()).toBe('tiny blob');
        expect(await store().blobs.info(blob.hash)).toEqual({ hash: blob.hash, size: bytes.length });
        expect((await store().blobs.read(blob.hash, 0, bytes.length)).equals(bytes)).toBe(true);
      });
    });
  });
}
