// SQLite store: migrations 6 and 7 (issue 20) drop the value indexes of props and nodes, then the props
// table itself, from an existing store of version 5 with content; the store then answers every query
// shape as it did before, on the SQL path and through the query index.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Condition, StoreQuery } from '../../src/query/ast.js';
import { indexRows } from '../../src/store/index-values.js';
import { MIGRATIONS } from '../../src/store/sqlite/migrations.js';
import { KIND_CODES as KIND_CODE } from '../../src/store/query-index/column-source.js';
import type { StoredProperty } from '../../src/model/property-type.js';
import { connect } from '../../src/store/sqlite/statements.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import { NEW } from '../conformance/drafts.js';
import { folder, WS } from './sqlite-bulk-import-data.js';
import { importDocuments, writeNodes } from '../../src/repository/writes.js';

/** The indexes of version 5 that migration 6 drops, as migration 2 created them. */
const VERSION_4_INDEXES = `
CREATE INDEX props_by_text ON props (ws, name, kind, s);
CREATE INDEX props_by_folded ON props (ws, name, f);
CREATE INDEX props_by_number ON props (ws, name, kind, n) WHERE n IS NOT NULL;
CREATE INDEX nodes_by_name ON nodes (workspace, name);
CREATE INDEX nodes_by_type ON nodes (workspace, type);`;
/** The props table of version 5 (migration 2), its node index, and the trigger that kept it. */
const VERSION_5_PROPS = `
DROP TRIGGER nodes_delete_indexes;
CREATE TABLE props (
  nid INTEGER NOT NULL, ws TEXT NOT NULL, name TEXT NOT NULL, pos INTEGER NOT NULL, kind INTEGER NOT NULL,
  s TEXT NOT NULL, f TEXT NOT NULL, n REAL, PRIMARY KEY (ws, name, nid, pos)
) WITHOUT ROWID;
CREATE INDEX props_by_node ON props (nid);
CREATE TRIGGER nodes_delete_indexes AFTER DELETE ON nodes BEGIN
  DELETE FROM props WHERE nid = old.nid;
  DELETE FROM fts WHERE rowid = old.nid;
END`;
const DROPPED = ['nodes_by_name', 'nodes_by_type', 'props_by_folded', 'props_by_number', 'props_by_text'];

let dir = '';
const stores: SqliteStore[] = [];
beforeEach(async () => { dir = await mkdtemp(join(tmpdir(), 'petal-sqlite-migrations-')); });
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  await rm(dir, { recursive: true, force: true });
});

async function open(file: string, queryIndexThreshold: number): Promise<SqliteStore> {
  const store = new SqliteStore({ file, queryIndexThreshold });
  await store.open();
  stores.push(store);
  return store;
}

const range = (name: string, kind: 'string' | 'number' | 'date', lo: string | number, hi: string | number, negate = false): Condition => ({
  kind: 'ranges', target: { kind: 'property', name }, negate,
  ranges: [{ kind, lo: { value: lo, inclusive: true }, hi: { value: hi, inclusive: kind === 'string' && lo === hi } }],
} as Condition);
const query = (conditions: Condition[], orderBy: StoreQuery['orderBy'] = [], more: Partial<StoreQuery> = {}): StoreQuery => ({
  workspace: WS, rootPath: '/', types: null, conditions, fullText: [], orderBy, offset: 3, limit: 7, ...more,
});
const byProperty = (name: string, descending: boolean) => ({ target: { kind: 'property' as const, name }, descending });

/** Shapes whose SQL each of the dropped indexes could serve: text, folded text, numbers, names, types. */
const QUERIES: readonly StoreQuery[] = [
  query([range('tags', 'string', 't3', 't3')], [byProperty('title', true)]),
  query([range('price', 'number', 10, 120)], [byProperty('price', false)]),
  query([range('activated', 'date', Date.parse('2024-03-01T00:00:00Z'), Date.parse('2024-06-01T00:00:00Z'))], [byProperty('duration', true)]),
  query([range('title', 'string', 'The river', 'The t', true)], [byProperty('title', false)]),
  query([{ kind: 'like', target: { kind: 'property', name: 'title' }, caseInsensitive: true, patterns: ['%temple tour 1%'] }]),
  query([{ kind: 'ranges', target: { kind: 'name' }, negate: false, ranges: [{ kind: 'string', lo: { value: 'item-10', inclusive: true }, hi: { value: 'item-10', inclusive: true } }] }]),
  query([{ kind: 'exists', name: 'price', exists: false }], [{ target: { kind: 'name' }, descending: true }], { types: ['cms:folder'], offset: 0 }),
  query([], [{ target: { kind: 'type' }, descending: false }], { types: ['cms:content'], rootPath: '/f001' }),
];

describe('SQLite migrations', () => {
  it('migrations 6 and 7 upgrade a store of version 5 with content: value indexes and props dropped, the same answers', async () => {
    const file = join(dir, 'petal.db');
    const first = await open(file, Infinity);
    await importDocuments(first, [folder(0, 300), folder(1, 300, true)], NEW);
    // The answers of the SQL path and of the query index before the upgrade.
    const answer = async (store: SqliteStore) => Promise.all(QUERIES.map(async (q) => {
      const r = await store.reads.query(q);
      return { total: r.total, paths: r.nodes.map((n) => n.path) };
    }));
    const before = await answer(first);
    await first.close();
    stores.pop();
    // The shapes find something: an empty answer would hide a wrong one.
    expect(before.filter((a) => a.total > 0)).toHaveLength(QUERIES.length);

    // Back to version 5: the props table with its rows and indexes, and the trigger that deleted them.
    const db = connect(file);
    try {
      db.exec(`DELETE FROM schema_migrations WHERE version IN (6, 7); ${VERSION_5_PROPS}; ${VERSION_4_INDEXES}`);
      const insert = db.prepare('INSERT INTO props (nid, ws, name, pos, kind, s, f, n) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
      for (const r of db.prepare('SELECT nid, workspace, props FROM nodes').all() as { nid: number; workspace: string; props: string }[]) {
        for (const x of indexRows(JSON.parse(r.props) as StoredProperty[])) insert.run(r.nid, r.workspace, x.name, x.pos, KIND_CODE[x.kind], x.s, x.f, x.n);
      }
      expect((db.prepare('SELECT count(*) AS n FROM props').get() as { n: number }).n).toBeGreaterThan(600);
    } finally {
      db.close();
    }

    for (const threshold of [Infinity, 0]) {
      const store = await open(file, threshold);
      expect(await answer(store), `queryIndexThreshold ${threshold}`).toEqual(before);
      // The new trigger: a deleted node's full-text row goes with it.
      if (threshold === 0) {
        await writeNodes(store, WS, [{ op: 'delete', path: '/f001' }], { by: 'test' });
        expect((await store.reads.query(query([], [], { fullText: [{ word: 'twin', prefix: false }], offset: 0 }))).total).toBe(0);
      }
      await store.close();
      stores.pop();
    }

    const check = connect(file);
    try {
      const names = (check.prepare("SELECT name FROM sqlite_master WHERE type IN ('index', 'table')").all() as { name: string }[]).map((r) => r.name);
      for (const name of [...DROPPED, 'props', 'props_by_node']) expect(names).not.toContain(name);
      expect(names).toEqual(expect.arrayContaining(['nodes_by_path', 'nodes_by_id', 'nodes_by_parent', 'nodes_by_path_type', 'prop_kinds']));
      expect(check.prepare('SELECT max(version) AS v FROM schema_migrations').get()).toEqual({ v: MIGRATIONS.at(-1)!.version });
      expect((check.prepare('SELECT count(*) AS n FROM fts_docsize WHERE id NOT IN (SELECT nid FROM nodes)').get() as { n: number }).n).toBe(0);
      expect(check.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      check.close();
    }
  }, 180_000);

  it('migration 10 upgrades schedules of version 9: each runs as the user its `by` names, checked when it runs', async () => {
    const file = join(dir, 'schedules.db');
    const first = await open(file, 0);
    const stored = await first.schedules.add({ action: 'publish', workspace: 'website', path: '/shop', recursive: false, by: 'ed', runAs: 'operator', due: '2030-01-01T00:00:00Z' });
    await first.close();
    stores.pop();
    // Back to version 9: no run_as, so the row cannot tell the Commands API's schedule from the CLI's.
    const db = connect(file);
    try {
      db.exec('ALTER TABLE schedules DROP COLUMN run_as; DELETE FROM schema_migrations WHERE version = 10');
    } finally {
      db.close();
    }
    const again = await open(file, 0);
    expect(await again.schedules.list()).toEqual([{ ...stored, runAs: 'user:ed' }]);
    const added = await again.schedules.add({ action: 'unpublish', workspace: 'website', path: '/shop', recursive: true, by: 'root', runAs: 'operator', due: '2030-01-02T00:00:00Z' });
    expect(added.runAs).toBe('operator');
  });

  it('a new store never has the value indexes', async () => {
    await open(join(dir, 'new.db'), 0);
    const db = connect(join(dir, 'new.db'));
    try {
      const indexes = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'index'").all() as { name: string }[]).map((r) => r.name);
      expect(indexes.filter((n) => DROPPED.includes(n))).toEqual([]);
    } finally {
      db.close();
    }
  });
});
