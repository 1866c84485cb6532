// Conformance suite import-batches: imports a backend may write in batches (PostgreSQL buffers new
// nodes and writes them a few thousand at a time) must read back exactly as if written node by node:
// every node, position, property index row and word; replaced nodes leave no index rows behind.
import { describe, expect } from 'vitest';
import type { Condition, FullTextTerm, StoreQuery } from '../../src/query/ast.js';
import type { StoredProperty } from '../../src/model/property-type.js';
import type { NodeDraft } from '../../src/repository/import-document.js';
import { conformanceTest, useStore, type StoreFixture } from './fixture.js';
import { NEW, REPLACE, document, draft, freshWorkspace, pathsOf, uuid } from './drafts.js';
import { importDocuments } from '../../src/repository/writes.js';

/** More nodes than one write batch (2,000 on PostgreSQL), so an import spans several. */
const MANY = 4_500;

const query = (workspace: string, conditions: Condition[], fullText: FullTextTerm[] = []): StoreQuery => ({
  workspace, rootPath: '/', types: null, conditions, fullText, orderBy: [], offset: 0, limit: 10,
});
const eq = (name: string, value: string): Condition => ({
  kind: 'ranges', target: { kind: 'property', name }, negate: false,
  ranges: [{ kind: 'string', lo: { value, inclusive: true }, hi: { value, inclusive: true } }],
});
const between = (name: string, lo: number, hi: number): Condition => ({
  kind: 'ranges', target: { kind: 'property', name }, negate: false,
  ranges: [{ kind: 'number', lo: { value: lo, inclusive: true }, hi: { value: hi, inclusive: true } }],
});
const word = (w: string): FullTextTerm[] => [{ word: w, prefix: false }];

function item(i: number): NodeDraft {
  const properties: StoredProperty[] = [
    ['title', 'String', `item ${i} word${i}`],
    ['rank', 'Long', i],
    ['tags', 'String', [`t${i % 3}`, 'all']],
  ];
  return draft(`item-${i}`, { id: uuid(100_000 + i), properties });
}

export function importBatchesSuite(fixture: StoreFixture): void {
  describe('import-batches', () => {
    const test = conformanceTest(fixture);
    const store = useStore(fixture);

    test('an import larger than a write batch keeps every node, position, index row and word', async () => {
      const ws = freshWorkspace('batches');
      const children = Array.from({ length: MANY }, (_, i) => item(i));
      const result = await importDocuments(store(), [
        document(ws, '/', [draft('big', {}, children)]),
        document(ws, '/big', [draft('late')]), // after every buffered child of /big
      ], NEW);
      expect(result).toEqual({ nodes: MANY + 2, warnings: [] });
      expect(await store().reads.countNodes(ws)).toBe(MANY + 2);
      const level = await store().reads.getSubtree(ws, '/big', 1);
      expect(level.map((n) => n.position)).toEqual([0, ...Array.from({ length: MANY + 1 }, (_, i) => i)]);
      expect(level.at(-1)).toMatchObject({ path: '/big/late', position: MANY });
      for (const i of [0, 1_999, 2_000, 2_001, MANY - 1]) {
        expect(await store().reads.getNodeById(ws, uuid(100_000 + i))).toMatchObject({ path: `/big/item-${i}`, position: i });
        expect((await store().reads.query(query(ws, [eq('title', `item ${i} word${i}`)]))).nodes.map((n) => n.name)).toEqual([`item-${i}`]);
        expect((await store().reads.query(query(ws, [], word(`word${i}`)))).nodes.map((n) => n.name)).toEqual([`item-${i}`]);
      }
      expect((await store().reads.query(query(ws, [between('rank', 1_990, 2_010)]))).total).toBe(21);
      expect((await store().reads.query(query(ws, [eq('tags', 'all')]))).total).toBe(MANY);
      expect((await store().reads.query(query(ws, [eq('tags', 't1')]))).total).toBe(MANY / 3);
      expect(await store().reads.propertyKinds(ws, ['rank', 'title'])).toEqual(new Map([['rank', ['number']], ['title', ['string']]]));
    }, 180_000);

    test('a failure after several batches leaves the store exactly as before', async () => {
      const ws = freshWorkspace('failing');
      await importDocuments(store(), [document(ws, '/', [draft('kept')])], NEW);
      const before = { nodes: await store().reads.countNodes(), generation: await store().generation() };
      const children = [...Array.from({ length: MANY }, (_, i) => item(i)), draft('bad/name')];
      await expect(importDocuments(store(), [document(ws, '/', [draft('big', {}, children)])], NEW)).rejects.toThrow(/invalid node name/);
      expect({ nodes: await store().reads.countNodes(), generation: await store().generation() }).toEqual(before);
      expect(pathsOf(await store().reads.getSubtree(ws, '/', 1))).toEqual(['/kept']);
      expect((await store().reads.query(query(ws, [eq('tags', 'all')]))).total).toBe(0);
      // The store still takes imports afterwards.
      await importDocuments(store(), [document(ws, '/', [draft('after')])], NEW);
      expect(pathsOf(await store().reads.getSubtree(ws, '/', 1))).toEqual(['/kept', '/after']);
    }, 180_000);

    test('a name twice among siblings of one document: the later node wins, its twin leaves no index rows', async () => {
      const ws = freshWorkspace('twins');
      const first = draft('twin', { properties: [['title', 'String', 'firstling']] }, [draft('only-in-first')]);
      const second = draft('twin', { properties: [['title', 'String', 'secondling']] }, [draft('only-in-second')]);
      const result = await importDocuments(store(), [document(ws, '/', [draft('p', {}, [draft('a'), first, second, draft('z')])])], NEW);
      expect(result.nodes).toBe(7); // every node written counts, the replaced twin too
      expect(result.warnings).toEqual([expect.stringContaining(`${ws}:/p/twin appears twice`)]);
      expect(pathsOf(await store().reads.getSubtree(ws, '/p', 2))).toEqual(['/p', '/p/a', '/p/twin', '/p/z', '/p/twin/only-in-second']);
      expect(await store().reads.getNode(ws, '/p/twin')).toMatchObject({ position: 2, properties: [['title', 'String', 'secondling']] });
      expect((await store().reads.query(query(ws, [eq('title', 'firstling')]))).total).toBe(0);
      expect((await store().reads.query(query(ws, [], word('firstling')))).total).toBe(0);
      expect((await store().reads.query(query(ws, [], word('secondling')))).nodes.map((n) => n.path)).toEqual(['/p/twin']);
    });

    test('a root written twice in one import: the second replaces the first, its index rows and words with it', async () => {
      const ws = freshWorkspace('twice');
      const version = (title: string, child: string) => draft('r', { id: uuid(7), properties: [['title', 'String', title]] }, [
        draft(child, { properties: [['title', 'String', `${title} child`]] }),
      ]);
      await importDocuments(store(), [
        document(ws, '/', [version('alpha', 'c1')]), document(ws, '/', [draft('s')]), document(ws, '/', [version('beta', 'c2')]),
      ], NEW);
      expect(pathsOf(await store().reads.getSubtree(ws, '/', 2))).toEqual(['/r', '/s', '/r/c2']);
      expect(await store().reads.getNode(ws, '/r')).toMatchObject({ id: uuid(7), position: 0 });
      expect((await store().reads.query(query(ws, [], word('alpha')))).total).toBe(0);
      expect((await store().reads.query(query(ws, [eq('title', 'alpha child')]))).total).toBe(0);
      expect((await store().reads.query(query(ws, [], word('beta')))).nodes.map((n) => n.path).sort()).toEqual(['/r', '/r/c2']);
      // Replacing it again in a later import: the same, across transactions.
      await importDocuments(store(), [document(ws, '/', [version('gamma', 'c3')])], NEW);
      expect((await store().reads.query(query(ws, [], word('beta')))).total).toBe(0);
      expect((await store().reads.query(query(ws, [], word('gamma')))).total).toBe(2);
      expect(await store().reads.countNodes(ws)).toBe(3);
    });

    test('policy replace: a uuid written earlier in the same import moves, and its first holder goes', async () => {
      const ws = freshWorkspace('moved');
      const result = await importDocuments(store(), [
        document(ws, '/', [draft('a', { id: uuid(8), properties: [['title', 'String', 'holder']] }, [draft('a1')])]),
        document(ws, '/', [draft('b', {}, [draft('b1', { id: uuid(8) })])]),
      ], REPLACE);
      expect(result.warnings).toEqual([expect.stringContaining(`uuid ${uuid(8)} moved from ${ws}:/a`)]);
      expect(pathsOf(await store().reads.getSubtree(ws, '/', 2))).toEqual(['/b', '/b/b1']);
      expect((await store().reads.getNodeById(ws, uuid(8)))?.path).toBe('/b/b1');
      expect((await store().reads.query(query(ws, [eq('title', 'holder')]))).total).toBe(0);
    });

    test('missing ancestors created by several documents of one import take their places in order', async () => {
      const ws = freshWorkspace('ancestors');
      await importDocuments(store(), [
        document(ws, '/m/x', [draft('one')]), document(ws, '/m/y', [draft('two')]), document(ws, '/m', [draft('z')]),
      ], NEW);
      const level = await store().reads.getSubtree(ws, '/m', 2);
      expect(level.map((n) => [n.path, n.position])).toEqual([
        ['/m', 0], ['/m/x', 0], ['/m/y', 1], ['/m/z', 2], ['/m/x/one', 0], ['/m/y/two', 0],
      ]);
      expect(await store().reads.getNode(ws, '/m/y')).toMatchObject({ type: 'cms:folder' });
    });

    test('a uuid list longer than a statement may hold parameters (40,000 ids) selects or leaves out exactly those', async () => {
      const ws = freshWorkspace('idlist');
      await importDocuments(store(), [document(ws, '/', [draft('list', {}, Array.from({ length: 30 }, (_, i) => item(i)))])], NEW);
      const ids = Array.from({ length: 40_000 }, (_, i) => uuid(900_000 + i)); // none of them exists
      ids.push(uuid(100_000 + 3), uuid(100_000 + 7));
      const idRanges = (negate: boolean): Condition => ({
        kind: 'ranges', target: { kind: 'uuid' }, negate,
        ranges: ids.map((id) => ({ kind: 'string', lo: { value: id, inclusive: true }, hi: { value: id, inclusive: true } })),
      });
      const inList = await store().reads.query({ ...query(ws, [idRanges(false)]), limit: 100 });
      expect(inList.nodes.map((n) => n.name).sort()).toEqual(['item-3', 'item-7']);
      const notInList = await store().reads.query({ ...query(ws, [idRanges(true), eq('tags', 'all')]), limit: 100 });
      expect(notInList.total).toBe(28);
      expect(notInList.nodes.map((n) => n.name)).not.toContain('item-3');
    });
  });
}
