// SQLite import fast path (issue 20): a large import into a small store drops the indexes it does not
// need while it runs (since migration 6 only nodes_by_path_type, the query index's covering index of
// nodes) and builds them after its load, inside its transaction (deferred-indexes.ts); a small one
// maintains them row by row. Both must leave the same rows, words and indexes; a failure, or a
// SIGKILL, in the middle of a deferred import must leave the store (its indexes included) as it was.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Condition, StoreQuery } from '../../src/query/ast.js';
import { DEFER_MIN_NODES, DeferredIndexes, shouldDefer } from '../../src/store/sqlite/deferred-indexes.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import { document, draft, NEW, uuid } from '../conformance/drafts.js';
import { folder, snapshot, WS } from './sqlite-bulk-import-data.js';
import { importDocuments } from '../../src/repository/writes.js';

const CHILD = join(import.meta.dirname, 'sqlite-bulk-import-crash-child.ts');
/** Folders of the large import: more nodes than DEFER_MIN_NODES in one import. */
const FOLDERS = 11;
const PER = 1_000;

let dir = '';
const stores: SqliteStore[] = [];
beforeEach(async () => { dir = await mkdtemp(join(tmpdir(), 'petal-bulk-')); });
afterEach(async () => {
  vi.restoreAllMocks();
  for (const s of stores.splice(0)) await s.close();
  await rm(dir, { recursive: true, force: true });
});

async function open(name: string): Promise<SqliteStore> {
  // SQL answers queries (the indexes under test), never the in-memory query index.
  const store = new SqliteStore({ file: join(dir, name), queryIndexThreshold: Infinity });
  await store.open();
  stores.push(store);
  return store;
}

/** What the store held before the large import: folder 3 (replaced by it) with other content, and another workspace. */
async function seed(store: SqliteStore): Promise<void> {
  await importDocuments(store, [
    document(WS, '/', [draft('f003', { id: uuid(1) }, [draft('old', { id: uuid(2), properties: [['title', 'String', 'the old temple']] })])]),
    document('website', '/', [draft('home', { id: uuid(3), properties: [['title', 'String', 'Home forest']] })]),
  ], NEW);
}

/** The large import's documents: folder 5 names a child twice (a delete while the indexes are deferred). */
const large = () => Array.from({ length: FOLDERS }, (_, f) => folder(f, PER, f === 5));

const eq = (name: string, value: string | number): Condition => ({
  kind: 'ranges', target: { kind: 'property', name }, negate: false,
  ranges: [typeof value === 'number'
    ? { kind: 'number', lo: { value, inclusive: true }, hi: { value, inclusive: true } }
    : { kind: 'string', lo: { value, inclusive: true }, hi: { value, inclusive: true } }],
});
const query = (conditions: Condition[], orderBy: StoreQuery['orderBy'] = []): StoreQuery => ({
  workspace: WS, rootPath: '/', types: null, conditions, fullText: [], orderBy, offset: 0, limit: 5,
});

async function answers(store: SqliteStore) {
  const run = async (q: StoreQuery) => {
    const r = await store.reads.query(q);
    return { total: r.total, paths: r.nodes.map((n) => n.path) };
  };
  return {
    byTag: await run(query([eq('tags', 't3')])),
    byPrice: await run(query([eq('price', 100)], [{ target: { kind: 'property', name: 'title' }, descending: true }])),
    byDuration: await run(query([eq('duration', 7)], [{ target: { kind: 'property', name: 'price' }, descending: false }])),
    kinds: await store.reads.propertyKinds(WS, ['price', 'title', 'featured', 'activated']),
  };
}

describe('SQLite large import', () => {
  it('decides to build the deferrable indexes after the load only for a large import into a store at most 3x its size', () => {
    expect(shouldDefer(DEFER_MIN_NODES - 1, 0)).toBe(false);
    expect(shouldDefer(DEFER_MIN_NODES, 0)).toBe(true);
    expect(shouldDefer(100_000, 300_000)).toBe(true);
    expect(shouldDefer(100_000, 300_001)).toBe(false);
  });

  it('with indexes built after the load writes the same rows, words, indexes and answers as imports row by row', async () => {
    const drops = vi.spyOn(DeferredIndexes.prototype, 'drop');
    // Whether the rebuild had an index to create: the schema still holds one to defer.
    const rebuilt: boolean[] = [];
    const rebuild = DeferredIndexes.prototype.rebuild;
    vi.spyOn(DeferredIndexes.prototype, 'rebuild').mockImplementation(function (this: DeferredIndexes) {
      rebuilt.push(this.active);
      return rebuild.call(this);
    });
    const bulk = await open('bulk.db');
    await seed(bulk);
    const result = await importDocuments(bulk, large(), NEW);
    expect(drops).toHaveBeenCalledTimes(1);
    expect(rebuilt).toContain(true);
    expect(result.nodes).toBe(FOLDERS * (PER + 1) + 1);
    expect(result.warnings).toEqual([expect.stringContaining('appears twice')]);

    const small = await open('small.db');
    await seed(small);
    // One folder per import: each below DEFER_MIN_NODES, so every index is maintained row by row.
    for (const doc of large()) await importDocuments(small, [doc], NEW);
    expect(drops).toHaveBeenCalledTimes(1);

    const [a, b] = [snapshot(bulk.databaseFile), snapshot(small.databaseFile)];
    expect(a.integrity).toBe('ok');
    expect(a.nodes).toHaveLength(FOLDERS * (PER + 1) + 1);
    expect(a.orphanText).toBe(0);
    expect(a.words.twin).toEqual({ paths: ['/f005/item-5000'], rows: 1 });
    expect(a.words.temple.rows).toBe(a.words.temple.paths.length);
    expect(a).toEqual(b);
    expect(await answers(bulk)).toEqual(await answers(small));
    expect((await answers(bulk)).byTag.total).toBe(FOLDERS * PER / 5);
  }, 120_000);

  it('a failure at the end of a deferred import leaves the rows and every index as they were', async () => {
    const store = await open('failing.db');
    await seed(store);
    const before = snapshot(store.databaseFile);
    const drops = vi.spyOn(DeferredIndexes.prototype, 'drop');
    const docs = [...large(), document(WS, '/', [draft('bad/name')])];
    await expect(importDocuments(store, docs, NEW)).rejects.toThrow(/invalid node name/);
    expect(drops).toHaveBeenCalledTimes(1);
    expect(snapshot(store.databaseFile)).toEqual(before);
    // Later imports (a large one again) work on the restored schema.
    await importDocuments(store, large(), NEW);
    expect(snapshot(store.databaseFile).integrity).toBe('ok');
    expect(await store.reads.countNodes(WS)).toBe(FOLDERS * (PER + 1));
  }, 120_000);

  it('a process killed (SIGKILL) during a deferred import, indexes dropped and rows written, leaves the store as it was', async () => {
    const file = join(dir, 'killed.db');
    const store = await open('killed.db');
    await seed(store);
    await store.close();
    stores.splice(0);
    const before = snapshot(file);

    const marker = join(dir, 'marker');
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, file, marker], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
    const exited = new Promise((r) => child.once('exit', r));
    try {
      const deadline = Date.now() + 100_000;
      while (!(existsSync(marker) && readFileSync(marker, 'utf8') === 'rebuilding')) {
        if (child.exitCode !== null) throw new Error(`child exited ${child.exitCode}: ${stderr}`);
        if (Date.now() > deadline) throw new Error(`child never reached the rebuild: ${stderr}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    } finally {
      child.kill('SIGKILL');
      await exited;
    }

    expect(snapshot(file)).toEqual(before);
    const reopened = await open('killed.db');
    expect(await reopened.reads.countNodes(WS)).toBe(1 + 1);
    await importDocuments(reopened, large(), NEW);
    expect(snapshot(file).integrity).toBe('ok');
  }, 150_000);
});
