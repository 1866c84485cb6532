// The query index threshold of a SQLite store decides on node counts kept from the change events
// (workspace-sizes.ts): a workspace is counted once, then each write's created and removed nodes
// adjust the count without counting the workspace again; a truncated event (a large import) makes
// it count again. Checked through the store (which path answers) and on the counter itself.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CHANGE_NODE_LIMIT } from '../../src/store/changes.js';
import type { StoreQuery } from '../../src/query/ast.js';
import type { QueryIndexEvent } from '../../src/store/query-index/live-workspaces.js';
import type { ImportDocument } from '../../src/repository/import-document.js';
import { SqliteChanges } from '../../src/store/sqlite/changes.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import { connect } from '../../src/store/sqlite/statements.js';
import { WorkspaceSizes } from '../../src/store/sqlite/workspace-sizes.js';
import { createStore } from '../../src/store/create-store.js';
import { importDocuments, writeNodes } from '../../src/repository/writes.js';

const dir = mkdtempSync(join(tmpdir(), 'petal-sizes-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function nodes(prefix: string, count: number, workspace = 'tours'): ImportDocument {
  const roots = Array.from({ length: count }, (_, i) => ({ name: `${prefix}${i}`, type: 'mgnl:tour', mixins: [], properties: [], children: [] }));
  return { source: 'test', workspace, parentPath: '/', roots, blobs: [] };
}
const all: StoreQuery = { workspace: 'tours', rootPath: '/', types: null, conditions: [], fullText: [], orderBy: [], offset: 0, limit: 100 };
const create = (name: string) => ({ op: 'create' as const, parentPath: '/', node: { name, properties: [], children: [], field: '' } });

describe('SQLite workspace sizes for the query index threshold', () => {
  it('by default a workspace of any size answers from the index; the threshold option keeps small ones on SQL', async () => {
    // createStore is what `petal serve` calls with `cache.queryIndexThreshold` (absent: the default).
    for (const [options, loads] of [[{}, 1], [{ queryIndexThreshold: 5 }, 0]] as const) {
      const store = createStore('sqlite::memory:', options);
      await store.open();
      try {
        await importDocuments(store, [nodes('t', 3)], { onUuidCollision: 'new' });
        expect((await store.reads.query(all)).total).toBe(3);
        expect(store.caches?.stats().queryIndex.loads).toBe(loads);
      } finally {
        await store.close();
      }
    }
  });

  it('a created node takes a workspace to the index, removed ones take it back to SQL', async () => {
    const events: QueryIndexEvent[] = [];
    const store = new SqliteStore({ file: ':memory:', queryIndexThreshold: 5, onIndexEvent: (e) => events.push(e) });
    await store.open();
    try {
      await importDocuments(store, [nodes('t', 4)], { onUuidCollision: 'new' });
      expect((await store.reads.query(all)).total).toBe(4);
      expect(events).toEqual([]); // 4 < 5: SQL
      await writeNodes(store, 'tours', [create('t4')], { by: 'editor' });
      expect((await store.reads.query(all)).total).toBe(5);
      expect(events.map((e) => e.kind)).toEqual(['load']); // 5: the index
      await writeNodes(store, 'tours', [{ op: 'delete', path: '/t0' }, { op: 'delete', path: '/t1' }], { by: 'editor' });
      expect((await store.reads.query(all)).total).toBe(3);
      expect(events.map((e) => e.kind)).toEqual(['load']); // 3: SQL again, nothing applied to the index
    } finally {
      await store.close();
    }
  });

  it('counts a workspace once, then follows the events; again only after a truncated one', async () => {
    const file = join(dir, 'sizes.db');
    const store = new SqliteStore({ file, walCheckpointIntervalMs: 0 });
    await store.open();
    const db = connect(file);
    try {
      await importDocuments(store, [nodes('t', 30), nodes('o', 3, 'other')], { onUuidCollision: 'new' });
      const counted: string[] = [];
      const sizes = new WorkspaceSizes(db, new SqliteChanges(db, db), (ws) => {
        counted.push(ws);
        return (db.prepare('SELECT count(*) AS n FROM nodes WHERE workspace = ?').get(ws) as { n: number }).n;
      });
      let generation = 0;
      const size = async (ws: string) => sizes.size(ws, ++generation);
      expect(await size('tours')).toBe(30);
      for (let i = 0; i < 10; i++) await writeNodes(store, 'tours', [create(`new${i}`)], { by: 'editor' });
      await writeNodes(store, 'tours', [{ op: 'update', path: '/t3', node: { name: 't3', properties: [['x', 'Long', 1]], children: [], field: '' } }], { by: 'editor' });
      await writeNodes(store, 'tours', [{ op: 'delete', path: '/t0' }], { by: 'editor' });
      await writeNodes(store, 'tours', [{ op: 'move', path: '/t1', to: '/t2/t1' }], { by: 'editor' });
      await importDocuments(store, [nodes('p', 2, 'other')], { onUuidCollision: 'new' });
      expect(await size('tours')).toBe(39);
      expect(counted).toEqual(['tours']);
      expect(await size('other')).toBe(5);
      expect(counted).toEqual(['tours', 'other']);
      await importDocuments(store, [nodes('big', CHANGE_NODE_LIMIT + 1)], { onUuidCollision: 'new' });
      expect(await size('tours')).toBe(39 + CHANGE_NODE_LIMIT + 1);
      expect(await size('other')).toBe(5);
      expect(counted).toEqual(['tours', 'other', 'tours']);
    } finally {
      db.close();
      await store.close();
    }
  }, 180_000);
});
