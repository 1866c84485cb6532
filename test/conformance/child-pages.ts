// Conformance suite child-pages: getChildrenPages reads a parent's children a page at a time, in getSubtree's
// order, each child exactly once across pages, several parents in one read, and limits clamped.
import { describe, expect } from 'vitest';
import type { ContentStore } from '../../src/store/content-store.js';
import type { Condition, StoreQuery } from '../../src/query/ast.js';
import type { NodeRecord } from '../../src/store/rows.js';
import { MAX_CHILD_PAGE, readChildPages, type ChildCursor } from '../../src/store/child-pages.js';
import { conformanceTest, useStore, type StoreFixture } from './fixture.js';
import { NEW, document, draft, freshWorkspace, leaves, pathsOf } from './drafts.js';
import { importDocuments } from '../../src/repository/writes.js';

/** Names count down so that name order and position order disagree. */
const WIDE = Array.from({ length: 257 }, (_, i) => `c${String(999 - i).padStart(3, '0')}`);
const HUGE = MAX_CHILD_PAGE + 5;

/** Every child of `parent` read `limit` at a time, following the cursor; the pages' sizes too. */
async function readAll(store: ContentStore, ws: string, parent: string, limit: number): Promise<{ rows: NodeRecord[]; sizes: number[] }> {
  const rows: NodeRecord[] = [];
  const sizes: number[] = [];
  let after: ChildCursor | undefined;
  for (let reads = 0; reads < 10_000; reads++) {
    const page = await store.reads.getChildrenPages(ws, [after === undefined ? { parentPath: parent } : { parentPath: parent, after }], limit);
    rows.push(...page);
    sizes.push(page.length);
    const last = page.at(-1);
    if (page.length < Math.min(limit, MAX_CHILD_PAGE) || last === undefined) return { rows, sizes };
    after = { position: last.position, name: last.name };
  }
  throw new Error('pages never ended');
}

export function childPagesSuite(fixture: StoreFixture): void {
  describe('child-pages', () => {
    const test = conformanceTest(fixture);
    const ws = freshWorkspace('pages');
    const hugeWs = freshWorkspace('pages-huge');

    const store = useStore(fixture, async (s) => {
      await importDocuments(s, [
        document(ws, '/', [
          draft('wide', {}, WIDE.map((name) => draft(name, {}, name === 'c998' ? leaves('inner') : []))),
          draft('small', {}, leaves('b', 'a', 'c')),
          draft('empty'),
          draft('wide-b', {}, leaves('x')),
        ]),
      ], NEW);
      await importDocuments(s, [document(hugeWs, '/', [draft('h', {}, Array.from({ length: HUGE }, (_, i) => draft(`n${i}`)))])], NEW);
    });

    // The GraphQL API's list fields with `path`: the items directly under it (the original's rule).
    test('a query\'s childOf condition keeps the children of a path, not deeper nodes, with other conditions and totals', async () => {
      const q = (path: string, extra: Condition[] = [], rootPath = '/'): StoreQuery => ({
        workspace: ws, rootPath, types: null, conditions: [{ kind: 'childOf', path }, ...extra], fullText: [],
        orderBy: [{ target: { kind: 'name' }, descending: false }], offset: 0, limit: 10,
      });
      const names = async (query: StoreQuery) => {
        const r = await store().reads.query(query);
        return { total: r.total, names: r.nodes.map((n) => n.name) };
      };
      expect(await names(q('/small'))).toEqual({ total: 3, names: ['a', 'b', 'c'] });
      expect(await names(q('/'))).toEqual({ total: 4, names: ['empty', 'small', 'wide', 'wide-b'] });
      expect(await names(q('/wide', [], '/wide'))).toMatchObject({ total: WIDE.length });
      // /wide/c998/inner is below /wide but not a child of it; /wide-b/x is neither (a sibling's child).
      expect((await names({ ...q('/wide'), limit: 1_000 })).names).not.toContain('inner');
      expect((await names({ ...q('/wide'), limit: 1_000 })).names).not.toContain('x');
      expect(await names(q('/small', [{ kind: 'like', target: { kind: 'name' }, caseInsensitive: false, patterns: ['b%'] }]))).toEqual({ total: 1, names: ['b'] });
      expect(await names(q('/empty'))).toEqual({ total: 0, names: [] });
    });

    test('pages of any size cover every child exactly once, in getSubtree\'s order', async () => {
      const expected = (await store().reads.getSubtree(ws, '/wide', 1)).slice(1);
      expect(expected).toHaveLength(WIDE.length);
      for (const limit of [1, 2, 7, 100, 256, 257, 258, 1_000]) {
        const { rows, sizes } = await readAll(store(), ws, '/wide', limit);
        expect(rows, `limit ${limit}`).toEqual(expected);
        expect(Math.max(...sizes), `limit ${limit}`).toBeLessThanOrEqual(limit);
      }
    });

    test('a page starts right after its cursor, and the workspace root pages its top-level nodes', async () => {
      const first = await store().reads.getChildrenPages(ws, [{ parentPath: '/small' }], 2);
      expect(pathsOf(first)).toEqual(['/small/b', '/small/a']);
      const rest = await store().reads.getChildrenPages(ws, [{ parentPath: '/small', after: { position: first[1]!.position, name: first[1]!.name } }], 2);
      expect(pathsOf(rest)).toEqual(['/small/c']);
      expect(pathsOf(await store().reads.getChildrenPages(ws, [{ parentPath: '/' }], 10))).toEqual(['/wide', '/small', '/empty', '/wide-b']);
    });

    test('several parents in one read: each parent\'s page in the order asked, each parent once', async () => {
      const rows = await store().reads.getChildrenPages(ws, [
        { parentPath: '/small' }, { parentPath: '/missing' }, { parentPath: '/wide' }, { parentPath: '/empty' }, { parentPath: '/small' },
      ], 3);
      expect(pathsOf(rows)).toEqual(['/small/b', '/small/a', '/small/c', '/wide/c999', '/wide/c998', '/wide/c997']);
      const pages = await readChildPages(store().reads, ws, [{ parentPath: '/wide' }, { parentPath: '/small' }, { parentPath: '/wide-b' }], 3);
      expect(pages.map((p) => [p.parentPath, p.nodes.length, p.next])).toEqual([
        ['/wide', 3, { position: 2, name: 'c997' }], ['/small', 3, { position: 2, name: 'c' }], ['/wide-b', 1, undefined],
      ]);
    });

    test('a missing or empty parent, an unknown workspace and no parents read nothing', async () => {
      expect(await store().reads.getChildrenPages(ws, [{ parentPath: '/empty' }], 10)).toEqual([]);
      expect(await store().reads.getChildrenPages(ws, [{ parentPath: '/missing' }], 10)).toEqual([]);
      expect(await store().reads.getChildrenPages(ws, [{ parentPath: '/wid' }], 10)).toEqual([]);
      expect(await store().reads.getChildrenPages(`${ws}-unknown`, [{ parentPath: '/wide' }], 10)).toEqual([]);
      expect(await store().reads.getChildrenPages(ws, [], 10)).toEqual([]);
      expect(await store().reads.getChildrenPages(ws, [{ parentPath: '/wide\u0000' }], 10)).toEqual([]);
      expect(await store().reads.getChildrenPages(ws, [{ parentPath: '/wide', after: { position: 1_000_000, name: '' } }], 10)).toEqual([]);
    });

    test('limits are clamped to 1..MAX_CHILD_PAGE', async () => {
      for (const limit of [0, -5, 0.5, Number.NaN]) {
        expect(pathsOf(await store().reads.getChildrenPages(ws, [{ parentPath: '/small' }], limit)), String(limit)).toEqual(['/small/b']);
      }
      expect(await store().reads.getChildrenPages(ws, [{ parentPath: '/small' }], 2.9)).toHaveLength(2);
      expect(await store().reads.getChildrenPages(hugeWs, [{ parentPath: '/h' }], Number.POSITIVE_INFINITY)).toHaveLength(MAX_CHILD_PAGE);
      const all = await readAll(store(), hugeWs, '/h', 1e9);
      expect(all.sizes).toEqual([MAX_CHILD_PAGE, 5]);
      expect(pathsOf(all.rows)).toEqual(Array.from({ length: HUGE }, (_, i) => `/h/n${i}`));
    }, 180_000);
  });
}
