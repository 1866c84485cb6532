// Conformance suite changes: the change log. One event per committed import (per workspace it
// changed) and per publish, written in the write's transaction, numbered in commit order, paged by
// changesSince, and truncated above CHANGE_NODE_LIMIT nodes.
import { describe, expect } from 'vitest';
import type { ContentStore } from '../../src/store/content-store.js';
import { CHANGE_NODE_LIMIT, type ChangeEvent, type ChangedNode } from '../../src/store/changes.js';
import { conformanceTest, useStore, type StoreFixture } from './fixture.js';
import { FAIL, NEW, REPLACE, document, draft, freshWorkspace, leaves, uuid } from './drafts.js';
import { importDocuments, publishVersion } from '../../src/repository/writes.js';

const ISO_INSTANT = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

/** Every event after `since`, paging through changesSince. */
async function eventsAfter(store: ContentStore, since: number): Promise<ChangeEvent[]> {
  const out: ChangeEvent[] = [];
  for (;;) {
    const page = await store.changes.since(since, 100);
    if (page.length === 0) return out;
    out.push(...page);
    since = page[page.length - 1]!.sequence;
  }
}

const paths = (nodes: readonly ChangedNode[]) => nodes.map((n) => n.path).sort();

/** `/site` (uuid 1) with `a` (uuid 2, with child `a1`, uuid 3) and `b` (uuid 4). */
function site(title: string, children = [draft('a', { id: uuid(2) }, [draft('a1', { id: uuid(3) })]), draft('b', { id: uuid(4), type: 'cms:page' })]) {
  return draft('site', { id: uuid(1), type: 'cms:page', properties: [['title', 'String', title]] }, children);
}

export function changesSuite(fixture: StoreFixture): void {
  describe('changes', () => {
    const test = conformanceTest(fixture);
    const store = useStore(fixture);

    test('an import records exactly one event: the workspace, its time and every node created', async () => {
      const ws = freshWorkspace('chg-import');
      const before = await store().changes.latest();
      await importDocuments(store(), [document(ws, '/x', [site('One')])], NEW);
      const events = await eventsAfter(store(), before);
      expect(events).toHaveLength(1);
      const [e] = events;
      expect(e).toMatchObject({ workspace: ws, kind: 'import', truncated: false, count: 5, changed: [], moved: [], removed: [] });
      expect(e!.by).toBeUndefined();
      expect(e!.at).toMatch(ISO_INSTANT);
      expect(Math.abs(Date.parse(e!.at) - Date.now())).toBeLessThan(60_000);
      expect(paths(e!.created)).toEqual(['/x', '/x/site', '/x/site/a', '/x/site/a/a1', '/x/site/b']);
      // The missing parent became a folder; ids and types are the stored ones.
      const folder = await store().reads.getNode(ws, '/x');
      expect(e!.created).toContainEqual({ id: folder!.id, path: '/x', type: 'cms:folder' });
      expect(e!.created).toContainEqual({ id: uuid(4), path: '/x/site/b', type: 'cms:page' });
      expect(e!.created).toContainEqual({ id: uuid(3), path: '/x/site/a/a1', type: 'cms:contentNode' });
      expect(await store().changes.latest()).toBe(e!.sequence);
    });

    test('a re-import records kept ids as changed, dropped nodes as removed and new ones as created', async () => {
      const ws = freshWorkspace('chg-reimport');
      await importDocuments(store(), [document(ws, '/', [site('One'), draft('other', { id: uuid(9) })])], NEW);
      const before = await store().changes.latest();
      // a keeps its id but loses a1; b is gone; c is new. Unchanged content counts as changed too.
      await importDocuments(store(), [document(ws, '/', [site('Two', [draft('a', { id: uuid(2) }), draft('c', { id: uuid(5) })])])], NEW);
      const [e, ...rest] = await eventsAfter(store(), before);
      expect(rest).toEqual([]);
      expect(e!.changed).toEqual(expect.arrayContaining([
        { id: uuid(1), path: '/site', type: 'cms:page' }, { id: uuid(2), path: '/site/a', type: 'cms:contentNode' },
      ]));
      expect(paths(e!.changed)).toEqual(['/site', '/site/a']);
      expect(e!.created).toEqual([{ id: uuid(5), path: '/site/c', type: 'cms:contentNode' }]);
      expect(paths(e!.removed)).toEqual(['/site/a/a1', '/site/b']);
      expect(e!.removed).toContainEqual({ id: uuid(4), path: '/site/b', type: 'cms:page' });
      expect(e!.moved).toEqual([]);
      expect(e!.count).toBe(5);
    });

    test('a uuid taken over under the replace policy is recorded as moved, with where it was', async () => {
      const ws = freshWorkspace('chg-moved');
      await importDocuments(store(), [document(ws, '/', [draft('old', { id: uuid(7), type: 'cms:page' }), draft('keep')])], NEW);
      const before = await store().changes.latest();
      await importDocuments(store(), [document(ws, '/new', [draft('page', { id: uuid(7), type: 'cms:page' })])], REPLACE);
      const [e, ...rest] = await eventsAfter(store(), before);
      expect(rest).toEqual([]);
      expect(e!.moved).toEqual([{ id: uuid(7), path: '/new/page', type: 'cms:page', from: '/old' }]);
      expect(paths(e!.created)).toEqual(['/new']);
      expect(e!.removed).toEqual([]);
      expect(e!.changed).toEqual([]);
    });

    test('a failed import records no event (same transaction)', async () => {
      const ws = freshWorkspace('chg-failed');
      await importDocuments(store(), [document(ws, '/', [draft('taken', { id: uuid(8) })])], NEW);
      const before = await store().changes.latest();
      await expect(importDocuments(store(), [document(ws, '/', leaves('fine', 'more')), document(ws, '/', [draft('dup', { id: uuid(8) })])], FAIL))
        .rejects.toThrow();
      await expect(importDocuments(store(), [document(ws, '/', [draft('fine'), draft('bad/name')])], NEW)).rejects.toThrow();
      expect(await store().changes.latest()).toBe(before);
      expect(await store().changes.since(before, 10)).toEqual([]);
      expect(await store().reads.getNode(ws, '/fine')).toBeUndefined();
    });

    test('a publish records one event: who, the version and the published node', async () => {
      const ws = freshWorkspace('chg-publish');
      await importDocuments(store(), [document(ws, '/', [site('One')])], NEW);
      const before = await store().changes.latest();
      const v = await publishVersion(store(), ws, '/site/a', 'alice');
      expect(await publishVersion(store(), ws, '/missing', 'alice')).toBeUndefined();
      const [e, ...rest] = await eventsAfter(store(), before);
      expect(rest).toEqual([]);
      expect(e).toMatchObject({
        workspace: ws, kind: 'publish', by: 'alice', version: v!.name, truncated: false, count: 1,
        changed: [{ id: uuid(2), path: '/site/a', type: 'cms:contentNode' }], created: [], moved: [], removed: [],
      });
    });

    test('an import into two workspaces records one event for each', async () => {
      const one = freshWorkspace('chg-two');
      const two = freshWorkspace('chg-two');
      const before = await store().changes.latest();
      await importDocuments(store(), [document(one, '/', leaves('a')), document(two, '/', leaves('b', 'c')), document(one, '/', leaves('d'))], NEW);
      const events = await eventsAfter(store(), before);
      expect(events.map((e) => [e.workspace, paths(e.created)])).toEqual([[one, ['/a', '/d']], [two, ['/b', '/c']]]);
    });

    test('sequence numbers strictly increase and changesSince pages through them', async () => {
      const ws = freshWorkspace('chg-paging');
      const before = await store().changes.latest();
      for (let i = 0; i < 5; i++) await importDocuments(store(), [document(ws, '/', leaves(`n${i}`))], NEW);
      await publishVersion(store(), ws, '/n0', 'bob');
      const all = await store().changes.since(before, 100);
      expect(all).toHaveLength(6);
      for (let i = 1; i < all.length; i++) expect(all[i]!.sequence).toBeGreaterThan(all[i - 1]!.sequence);
      expect(all[0]!.sequence).toBeGreaterThan(before);
      expect(all.map((e) => e.kind)).toEqual(['import', 'import', 'import', 'import', 'import', 'publish']);
      expect(all.slice(0, 5).map((e) => e.created[0]!.path)).toEqual(['/n0', '/n1', '/n2', '/n3', '/n4']);
      // Pages of two, each starting after the last sequence seen: the same events, none twice.
      const paged: ChangeEvent[] = [];
      let since = before;
      for (;;) {
        const page = await store().changes.since(since, 2);
        expect(page.length).toBeLessThanOrEqual(2);
        if (page.length === 0) break;
        paged.push(...page);
        since = page[page.length - 1]!.sequence;
      }
      expect(paged).toEqual(all);
      expect(await store().changes.since(all[5]!.sequence, 10)).toEqual([]);
      expect(await store().changes.latest()).toBe(all[5]!.sequence);
      // A limit out of range is clamped, not an error.
      expect(await store().changes.since(before, 0)).toEqual(all.slice(0, 1));
    });

    test(`an import of more than ${CHANGE_NODE_LIMIT} nodes records a truncated event with the count`, async () => {
      const ws = freshWorkspace('chg-truncated');
      const many = Array.from({ length: CHANGE_NODE_LIMIT }, (_, i) => draft(`n${i}`));
      const before = await store().changes.latest();
      await importDocuments(store(), [document(ws, '/', [draft('big', {}, many)])], NEW);
      const [e, ...rest] = await eventsAfter(store(), before);
      expect(rest).toEqual([]);
      expect(e).toMatchObject({ workspace: ws, kind: 'import', truncated: true, count: CHANGE_NODE_LIMIT + 1, created: [], changed: [], removed: [] });
      // Replacing it: listing the old subtree already exceeds the bound.
      await importDocuments(store(), [document(ws, '/', [draft('big'), draft('small')])], NEW);
      const [again] = await eventsAfter(store(), e!.sequence);
      expect(again).toMatchObject({ truncated: true, count: CHANGE_NODE_LIMIT + 1 + 2, removed: [] });
      // Exactly at the bound, the lists are kept.
      await importDocuments(store(), [document(ws, '/', [draft('big', {}, many.slice(0, CHANGE_NODE_LIMIT - 2))])], NEW);
      const [last] = await eventsAfter(store(), again!.sequence);
      expect(last).toMatchObject({ truncated: false, count: CHANGE_NODE_LIMIT });
      expect(last!.changed).toHaveLength(0); // big got a fresh uuid: removed + created
      expect(last!.created).toHaveLength(CHANGE_NODE_LIMIT - 1);
      expect(last!.removed).toHaveLength(1);
    }, 180_000);
  });
}
