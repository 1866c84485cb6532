// SQLite store: migration 6 (issue 20) drops the value indexes of props and nodes from an existing
// store of version 5 with content; the store then answers every query shape as it did before, on the
// SQL path (which used those indexes) and through the query index.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Condition, StoreQuery } from '../../src/query/ast.js';
import { compileCount, compilePage } from '../../src/store/sqlite/compile-query.js';
import { connect } from '../../src/store/sqlite/statements.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { NEW } from '../conformance/drafts.js';
import { folder, WS } from './sqlite-bulk-import-data.js';

/** The indexes of version 5 that migration 6 drops, as migration 2 created them. */
const VERSION_4_INDEXES = `
CREATE INDEX props_by_text ON props (ws, name, kind, s);
CREATE INDEX props_by_folded ON props (ws, name, f);
CREATE INDEX props_by_number ON props (ws, name, kind, n) WHERE n IS NOT NULL;
CREATE INDEX nodes_by_name ON nodes (workspace, name);
CREATE INDEX nodes_by_type ON nodes (workspace, type);`;
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
  it('migration 6 upgrades a store of version 5 with content: value indexes dropped, the same answers', async () => {
    const file = join(dir, 'petal.db');
    const first = await open(file, Infinity);
    await first.importDocuments([folder(0, 300), folder(1, 300, true)], NEW);
    await first.close();
    stores.pop();

    // Back to version 5, then the answers of the SQL path as a version 5 store gave them.
    const db = connect(file);
    let before: unknown[];
    try {
      db.exec(`DELETE FROM schema_migrations WHERE version = 6; ${VERSION_4_INDEXES}`);
      before = QUERIES.map((q) => {
        const count = compileCount(q);
        const page = compilePage(q);
        return {
          total: (db.prepare(count.sql).get(...count.params) as { total: number }).total,
          paths: (db.prepare(page.sql).all(...page.params) as { path: string }[]).map((r) => r.path),
        };
      });
    } finally {
      db.close();
    }
    // The shapes find something: an empty answer would hide a wrong one.
    expect(before.filter((a) => (a as { total: number }).total > 0)).toHaveLength(QUERIES.length);

    for (const threshold of [Infinity, 0]) {
      const store = await open(file, threshold);
      const answers = await Promise.all(QUERIES.map(async (q) => {
        const r = await store.query(q);
        return { total: r.total, paths: r.nodes.map((n) => n.path) };
      }));
      expect(answers, `queryIndexThreshold ${threshold}`).toEqual(before);
      await store.close();
      stores.pop();
    }

    const check = connect(file);
    try {
      const indexes = (check.prepare("SELECT name FROM sqlite_master WHERE type = 'index'").all() as { name: string }[]).map((r) => r.name);
      for (const name of DROPPED) expect(indexes).not.toContain(name);
      expect(indexes).toEqual(expect.arrayContaining(['nodes_by_path', 'nodes_by_id', 'nodes_by_parent', 'nodes_by_path_type', 'props_by_node']));
      expect(check.prepare('SELECT max(version) AS v FROM schema_migrations').get()).toEqual({ v: 6 });
      expect(check.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      check.close();
    }
  }, 60_000);

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
