// Issue 20 (cold start) on both stores: the query index's base segments persisted in the database.
// A restarted store (close, open) answers from them exactly as the SQL path (SQLite) or a store that
// persists nothing (PostgreSQL); so does it after Nodes API writes and small imports made after they
// were persisted, and after a truncated import (the persisted table is then not used). A damaged or
// unknown-format segment is ignored, and a column persisted at a floor below its base's is read again.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from '../../../src/store/sqlite/driver.js';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoreOrder, StoreQuery } from '../../../src/query/ast.js';
import type { ContentStore } from '../../../src/store/content-store.js';
import { PostgresStore } from '../../../src/store/postgres/store.js';
import { SqliteStore } from '../../../src/store/sqlite/store.js';
import type { QueryIndexEvent } from '../../../src/store/query-index/live-workspaces.js';
import type { ImportDocument, NodeDraft } from '../../../src/repository/import-document.js';
import { answer, Model, random, WS } from './delta-fixture.js';
import { importDocuments, writeNodes } from '../../../src/repository/writes.js';

interface Backend {
  readonly name: string;
  /** A store that persists segments of any size (unless `persist` is false), on the test's database. */
  open(events: QueryIndexEvent[], persist?: boolean): Promise<ContentStore>;
  /** Answers without any persisted segment: the SQL path (SQLite) or an index that persists nothing. */
  reference(queries: readonly StoreQuery[]): Promise<{ total: number; nodes: string[] }[]>;
  /** Runs SQL on the test's database (to damage a segment as a disk or another version would). */
  sql(text: string): Promise<void>;
  dispose(): Promise<void>;
}

function sqliteBackend(): Backend {
  const dir = mkdtempSync(join(tmpdir(), 'petal-qpersist-'));
  const file = join(dir, 'petal.db');
  return {
    name: 'SQLite',
    async open(events, persist = true) {
      const s = new SqliteStore({ file, queryIndexThreshold: 0, persistQueryIndex: persist, persistQueryIndexMinNodes: 0, onIndexEvent: (e) => { events.push(e); } });
      await s.open();
      return s;
    },
    async reference(queries) {
      const s = new SqliteStore({ file, queryIndexThreshold: Infinity, persistQueryIndex: false });
      await s.open();
      try {
        return await Promise.all(queries.map((q) => answer(s, q)));
      } finally {
        await s.close();
      }
    },
    async sql(text) {
      const db = new Database(file);
      try { db.exec(text); } finally { db.close(); }
    },
    async dispose() { rmSync(dir, { recursive: true, force: true }); },
  };
}

function postgresBackend(url: string): Backend {
  const schema = `petal_qpersist_${randomBytes(5).toString('hex')}`;
  const sql = async (text: string) => {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try { await c.query(text); } finally { await c.end(); }
  };
  return {
    name: 'PostgreSQL',
    async open(events, persist = true) {
      const s = new PostgresStore({ url, schema, persistQueryIndex: persist, persistQueryIndexMinNodes: 0, onIndexEvent: (e) => { events.push(e); } });
      await s.open();
      return s;
    },
    async reference(queries) {
      const s = new PostgresStore({ url, schema, persistQueryIndex: false });
      await s.open();
      try {
        const out = [];
        for (const q of queries) out.push(await answer(s, q));
        return out;
      } finally {
        await s.close();
      }
    },
    sql: (text) => sql(`SET search_path TO ${schema}; ${text}`),
    dispose: () => sql(`DROP SCHEMA IF EXISTS ${schema} CASCADE`),
  };
}

const BACKENDS: Backend[] = [sqliteBackend()];
if (process.env.PETAL_TEST_PG) BACKENDS.push(postgresBackend(process.env.PETAL_TEST_PG));
afterAll(async () => { for (const b of BACKENDS) await b.dispose(); });

/** Queries that use every persisted structure (equality lookups, numeric ranges, orders by property) and random ones. */
function queries(model: Model): StoreQuery[] {
  const base: StoreQuery = { workspace: WS, rootPath: '/', types: null, conditions: [], fullText: [], orderBy: [], offset: 0, limit: 50 };
  const by = (name: string, descending = false): StoreOrder => ({ target: { kind: 'property', name }, descending });
  const out: StoreQuery[] = [];
  for (const name of ['price', 'title', 'mix', 'date', 'tags', 'flag']) out.push({ ...base, orderBy: [by(name)] }, { ...base, orderBy: [by(name, true)], offset: 3, limit: 9 });
  out.push({ ...base, conditions: [{ kind: 'ranges', target: { kind: 'property', name: 'flag' }, negate: false, ranges: [{ kind: 'boolean', lo: { value: 'true', inclusive: true }, hi: { value: 'true', inclusive: true } }] }], orderBy: [by('price')] });
  out.push({ ...base, conditions: [{ kind: 'ranges', target: { kind: 'property', name: 'tags' }, negate: false, ranges: [{ kind: 'string', lo: { value: 'beta', inclusive: true }, hi: { value: 'beta', inclusive: true } }] }] });
  out.push({ ...base, conditions: [{ kind: 'ranges', target: { kind: 'property', name: 'mix' }, negate: false, ranges: [{ kind: 'string', lo: { value: 'éclair', inclusive: true }, hi: { value: 'éclair', inclusive: true } }] }], orderBy: [by('mix', true)] });
  out.push({ ...base, conditions: [{ kind: 'ranges', target: { kind: 'property', name: 'price' }, negate: false, ranges: [{ kind: 'number', lo: { value: 5, inclusive: false }, hi: { value: 15, inclusive: true } }] }], orderBy: [by('price', true)] });
  out.push({ ...base, conditions: [{ kind: 'ranges', target: { kind: 'property', name: 'date' }, negate: false, ranges: [{ kind: 'date', lo: { value: Date.UTC(2024, 5, 1), inclusive: true } }] }], orderBy: [by('date')] });
  for (let i = 0; i < 40; i++) out.push(model.query());
  return out;
}

async function expectSame(b: Backend, store: ContentStore, qs: readonly StoreQuery[]): Promise<void> {
  const expected = await b.reference(qs);
  for (let i = 0; i < qs.length; i++) expect({ q: qs[i], a: await answer(store, qs[i]!) }).toEqual({ q: qs[i], a: expected[i] });
}

const said = (events: readonly QueryIndexEvent[], text: string) => events.some((e) => e.message.includes(text));

/** Opens a store, runs `fn`, closes it (closing waits for the segment writes begun). */
async function withStore(b: Backend, fn: (store: ContentStore, events: QueryIndexEvent[]) => Promise<void>): Promise<QueryIndexEvent[]> {
  const events: QueryIndexEvent[] = [];
  const store = await b.open(events);
  try {
    await fn(store, events);
  } finally {
    await store.close();
  }
  return events;
}

const big = (n: number, prefix: string): ImportDocument => ({
  source: 'big', workspace: WS, parentPath: '/', blobs: [],
  roots: Array.from({ length: n }, (_, i): NodeDraft => ({ name: `${prefix}${i}`, type: 'cms:content', mixins: [], properties: [['price', 'Long', i % 17], ['title', 'String', `Big ${i}`]], children: [] })),
});

describe.each(BACKENDS)('persisted query index segments on $name', (b) => {
  const model = new Model(random(0xc01d), 7);
  let qs: StoreQuery[] = [];

  beforeAll(async () => {
    await withStore(b, async (store) => { await importDocuments(store, [model.initial(5, 24)], { onUuidCollision: 'new' }); });
    qs = queries(model);
  }, 180_000);

  it('a restarted store answers from the persisted segments exactly as without them', async () => {
    const first = await withStore(b, async (store) => { for (const q of qs) await answer(store, q); });
    expect(said(first, 'persisted the node table')).toBe(true);
    expect(said(first, 'persisted the column price')).toBe(true);
    const second = await withStore(b, (store) => expectSame(b, store, qs));
    expect(said(second, 'read the persisted node table')).toBe(true);
    // Nothing was read from SQL again: nothing was persisted again.
    expect(second.filter((e) => e.message.includes('persisted the'))).toEqual([]);
  }, 180_000);

  it('with persistQueryIndex false, a store neither reads nor writes segments', async () => {
    const events: QueryIndexEvent[] = [];
    const store = await b.open(events, false);
    try {
      await expectSame(b, store, qs);
    } finally {
      await store.close();
    }
    expect(said(events, 'loaded workspace')).toBe(true);
    expect(events.filter((e) => e.kind === 'persist')).toEqual([]);
  }, 180_000);

  it('Nodes API writes and small imports made after the segments were persisted: answers still identical after a restart', async () => {
    await withStore(b, async (store) => {
      for (let i = 0; i < 6; i++) await model.change(store);
      const s = model.sections[1]!;
      const p = s.pages[0]!;
      await writeNodes(store, WS, [
        { op: 'update', path: `/${s.name}/${p.name}`, node: { name: p.name, properties: [['price', 'Long', 999], ['flag', 'Boolean', true]], children: [], field: '' } },
        { op: 'create', parentPath: `/${s.name}`, node: { name: 'fresh', properties: [['price', 'Double', 0.5], ['tags', 'String', ['beta', 'éclair']]], children: [], field: '' } },
        { op: 'delete', path: `/${model.sections[2]!.name}/${model.sections[2]!.pages[0]!.name}` },
      ], { by: 'test' });
      model.sections[2]!.pages.shift();
    });
    const events = await withStore(b, (store) => expectSame(b, store, qs));
    expect(said(events, 'read the persisted node table')).toBe(true);
  }, 180_000);

  it('a damaged or unknown-format segment is ignored: read from SQL, persisted again', async () => {
    await b.sql(b.name === 'SQLite'
      ? "UPDATE index_segments SET data = substr(data, 1, 40) || x'deadbeefdeadbeef' || substr(data, 49) WHERE kind = 'table'"
      : "UPDATE index_segments SET data = overlay(data placing '\\xdeadbeefdeadbeef'::bytea from 41 for 8) WHERE kind = 'table'");
    await b.sql("UPDATE index_segments SET format = 9999 WHERE kind = 'column' AND name = 'price'");
    const events = await withStore(b, (store) => expectSame(b, store, qs));
    expect(said(events, 'ignored the persisted node table')).toBe(true);
    expect(said(events, 'persisted the node table')).toBe(true);
    expect(said(events, 'persisted the column price')).toBe(true);
    const again = await withStore(b, (store) => expectSame(b, store, qs));
    expect(said(again, 'read the persisted node table')).toBe(true);
  }, 180_000);

  it('after a truncated import the persisted table is not used; a column persisted below its base floor is read again', async () => {
    // Prices change after the column was persisted, then a truncated import: the next base is read
    // from SQL (and persisted) at a floor above both, with only `title` used (price stays behind).
    await withStore(b, async (store) => {
      const s = model.sections[0]!;
      for (const p of s.pages.slice(0, 4)) {
        await writeNodes(store, WS, [{ op: 'update', path: `/${s.name}/${p.name}`, node: { name: p.name, properties: [['price', 'Long', 1000 + p.name.length]], children: [], field: '' } }], { by: 'test' });
      }
      await importDocuments(store, [big(10_001, 'big')], { onUuidCollision: 'new' });
    });
    const titled: StoreQuery = { ...qs[0]!, orderBy: [{ target: { kind: 'property', name: 'title' }, descending: true }] };
    const reload = await withStore(b, (store) => expectSame(b, store, [titled]));
    expect(said(reload, 'read the persisted node table')).toBe(false); // a truncated event after its floor
    expect(said(reload, 'persisted the node table')).toBe(true);
    const restarted = await withStore(b, (store) => expectSame(b, store, qs));
    expect(said(restarted, 'read the persisted node table')).toBe(true);
    expect(said(restarted, 'persisted the column price')).toBe(true); // its floor is below the table's
  }, 120_000);

  it('an import refreshes the persisted segments (caches.refreshPersisted): the next start reads none from SQL', async () => {
    await withStore(b, async (store) => {
      for (let i = 0; i < 4; i++) await model.change(store);
      expect(await store.caches!.refreshPersisted([WS, 'no-such-workspace'])).toBeGreaterThan(1);
    });
    const events = await withStore(b, (store) => expectSame(b, store, qs));
    expect(said(events, 'read the persisted node table')).toBe(true);
    expect(events.filter((e) => e.message.includes('persisted the'))).toEqual([]);
  }, 120_000);
});
