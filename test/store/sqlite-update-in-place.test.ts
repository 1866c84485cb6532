// A Nodes API update on SQLite rewrites the node in place (update-in-place.ts): the row keeps its nid,
// its property-index rows become exactly those of the new properties (changed, added, removed and
// multi-value ones), the full-text row follows the text, kinds and types stay known, and every read
// and query (through SQL and through the query index, whose cached records of that nid must go)
// answers the new state; the change event says `changed`.
import { afterAll, describe, expect, it } from 'vitest';
import type { Condition, StoreQuery } from '../../src/query/ast.js';
import { indexRows } from '../../src/store/index-values.js';
import type { NodeOperation } from '../../src/repository/node-write.js';
import type { ImportDocument } from '../../src/repository/import-document.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import { connect } from '../../src/store/sqlite/statements.js';
import type { StoredProperty } from '../../src/model/property-type.js';
import { importDocuments, writeNodes } from '../../src/repository/writes.js';

const WS = 'tours';
const stores: SqliteStore[] = [];
afterAll(async () => { for (const s of stores) await s.close(); });

function content(): ImportDocument {
  const roots = Array.from({ length: 5 }, (_, i) => ({
    name: `t${i}`, type: 'mgnl:tour', mixins: [],
    properties: [
      ['title', 'String', `walk number${i} riverside`],
      ['price', 'Double', 10 + i],
      ['size', 'Long', 3],
      ['old', 'String', 'legacy'],
      ['tags', 'String', ['a', 'b', 'c']],
    ] as StoredProperty[],
    children: [],
  }));
  return { source: 'test', workspace: WS, parentPath: '/', roots, blobs: [] };
}

async function open(threshold: number): Promise<SqliteStore> {
  const store = new SqliteStore({ file: ':memory:', queryIndexThreshold: threshold });
  stores.push(store);
  await store.open();
  await importDocuments(store, [content()], { onUuidCollision: 'new' });
  return store;
}

const query = (over: Partial<StoreQuery>): StoreQuery => ({
  workspace: WS, rootPath: '/', types: null, conditions: [], fullText: [], orderBy: [], offset: 0, limit: 50, ...over,
});
const eq = (name: string, value: string | number): Condition => ({
  kind: 'ranges', target: { kind: 'property', name }, negate: false,
  ranges: [{ kind: typeof value === 'number' ? 'number' : 'string', lo: { value, inclusive: true }, hi: { value, inclusive: true } }],
});
async function paths(store: SqliteStore, over: Partial<StoreQuery>): Promise<string[]> {
  return (await store.reads.query(query(over))).nodes.map((n) => n.path).sort();
}
const word = (w: string) => ({ fullText: [{ word: w, prefix: false }] });

function update(properties: StoredProperty[], extra: { remove?: string[]; type?: string } = {}): NodeOperation {
  return {
    op: 'update', path: '/t1',
    node: { name: 't1', properties, children: [], field: '', ...(extra.type !== undefined ? { type: extra.type } : {}) },
    ...(extra.remove !== undefined ? { remove: extra.remove } : {}),
  };
}

/** The row of /t1 and its property-index rows (as the SQL path derives them from its document), read from the database file. */
function rowsOf(store: SqliteStore): { nid: number; props: { name: string; pos: number; s: string }[]; fts: boolean } {
  const db = connect(store.databaseFile);
  try {
    const { nid } = db.prepare('SELECT nid FROM nodes WHERE workspace = ? AND path = ?').get(WS, '/t1') as { nid: number };
    const props = db.prepare('SELECT p.name, p.pos, p.s FROM nodes n, index_rows(n.props) p WHERE n.nid = ? ORDER BY p.name, p.pos').all(nid) as { name: string; pos: number; s: string }[];
    const fts = (db.prepare("SELECT rowid FROM fts WHERE fts MATCH 'riverside'").all() as { rowid: number }[]).some((r) => r.rowid === nid);
    return { nid, props, fts };
  } finally {
    db.close();
  }
}

describe.each([
  ['SQL', Infinity],
  ['query index', 0],
])('SQLite update in place, queries through %s', (_name, threshold) => {
  it('keeps the nid and writes exactly the index rows of the new properties', async () => {
    const store = await open(threshold);
    const before = rowsOf(store);
    await writeNodes(store, WS, [update([['price', 'Double', 99.5], ['color', 'String', 'red'], ['tags', 'String', ['a', 'd']]], { remove: ['old'] })], { by: 'editor' });
    const after = rowsOf(store);
    expect(after.nid).toBe(before.nid);
    const node = (await store.reads.getNode(WS, '/t1'))!;
    const expected = indexRows(node.properties).map((r) => ({ name: r.name, pos: r.pos, s: r.s }))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.pos - b.pos));
    expect(after.props).toEqual(expected);
    expect(after.props.some((r) => r.name === 'old')).toBe(false);
    expect(after.fts).toBe(true); // text unchanged: the full-text row stays
  });

  it('answers queries with the changed, added, removed and multi-value properties', async () => {
    const store = await open(threshold);
    // Load (and cache) the node as it was first, so that a stale copy would show.
    expect(await paths(store, { conditions: [eq('price', 11)] })).toEqual(['/t1']);
    expect((await store.reads.query(query({ conditions: [eq('tags', 'b')] }))).nodes.find((n) => n.path === '/t1')).toBeDefined();
    await writeNodes(store, WS, [update([['price', 'Double', 99.5], ['color', 'String', 'red'], ['tags', 'String', ['a', 'd']]], { remove: ['old'] })], { by: 'editor' });

    expect(await paths(store, { conditions: [eq('price', 11)] })).toEqual([]);
    expect(await paths(store, { conditions: [eq('price', 99.5)] })).toEqual(['/t1']);
    expect(await paths(store, { conditions: [eq('color', 'red')] })).toEqual(['/t1']);
    expect(await paths(store, { conditions: [{ kind: 'exists', name: 'old', exists: true }] })).toEqual(['/t0', '/t2', '/t3', '/t4']);
    expect(await paths(store, { conditions: [eq('tags', 'd')] })).toEqual(['/t1']);
    expect(await paths(store, { conditions: [eq('tags', 'b')] })).toEqual(['/t0', '/t2', '/t3', '/t4']);
    expect(await paths(store, { conditions: [eq('tags', 'c')] })).toEqual(['/t0', '/t2', '/t3', '/t4']);
    expect(await paths(store, { conditions: [eq('tags', 'a')] })).toEqual(['/t0', '/t1', '/t2', '/t3', '/t4']);
    const hit = (await store.reads.query(query({ conditions: [eq('color', 'red')] }))).nodes[0]!;
    expect(hit.properties.find(([n]) => n === 'price')?.[2]).toBe(99.5);
    const ordered = await store.reads.query(query({ orderBy: [{ target: { kind: 'property', name: 'price' }, descending: true }], limit: 1 }));
    expect(ordered.nodes.map((n) => n.path)).toEqual(['/t1']);
  });

  it('follows the full text, the kinds and the type', async () => {
    const store = await open(threshold);
    expect(await paths(store, word('number1'))).toEqual(['/t1']);
    await writeNodes(store, WS, [update([['title', 'String', 'climb zebra'], ['size', 'String', 'large']], { type: 'mgnl:trip' })], { by: 'editor' });
    expect(await paths(store, word('number1'))).toEqual([]);
    expect(await paths(store, word('riverside'))).toEqual(['/t0', '/t2', '/t3', '/t4']);
    expect(await paths(store, word('zebra'))).toEqual(['/t1']);
    expect(rowsOf(store).fts).toBe(false);
    expect((await store.reads.propertyKinds(WS, ['size'])).get('size')?.slice().sort()).toEqual(['number', 'string']);
    expect(await paths(store, { conditions: [eq('size', 'large')] })).toEqual(['/t1']);
    expect(await store.reads.nodeTypesPresent(WS)).toContain('mgnl:trip');
    expect(await paths(store, { types: ['mgnl:trip'] })).toEqual(['/t1']);
    expect(await paths(store, { types: ['mgnl:tour'] })).toEqual(['/t0', '/t2', '/t3', '/t4']);
    // Text removed altogether: no full-text row is left.
    await writeNodes(store, WS, [update([], { remove: ['title', 'old', 'tags', 'size'] })], { by: 'editor' });
    expect(await paths(store, word('zebra'))).toEqual([]);
    expect(await paths(store, word('legacy'))).toEqual(['/t0', '/t2', '/t3', '/t4']);
  });

  it('records the update as `changed`', async () => {
    const store = await open(threshold);
    const from = await store.changes.latest();
    await writeNodes(store, WS, [update([['price', 'Double', 1]])], { by: 'editor' });
    const [event] = await store.changes.since(from, 10);
    expect(event!.changed.map((n) => n.path)).toEqual(['/t1']);
    expect(event!.created).toEqual([]);
    expect(event!.removed).toEqual([]);
  });
});
