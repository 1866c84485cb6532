// A large SQLite import writes through a worker thread's connection (import-worker.ts): rows encoded
// into moved buffers arrive exactly as sent, in order with every other statement; a failed write fails
// the calls after it and rolls back; a worker that dies mid-import leaves the store as it was; and an
// import through the worker writes what an import on the main thread writes.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from '../../src/store/sqlite/driver.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { WorkerImportConnection } from '../../src/store/sqlite/import-worker.js';
import type { RowValue } from '../../src/store/sqlite/import-connection.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import { NEW, document, draft, uuid } from '../conformance/drafts.js';
import { folder, snapshot, WS } from './sqlite-bulk-import-data.js';
import { importDocuments } from '../../src/repository/writes.js';

let dir = '';
const open: { close(): Promise<void> }[] = [];
beforeEach(async () => { dir = await mkdtemp(join(tmpdir(), 'petal-import-worker-')); });
afterEach(async () => {
  for (const c of open.splice(0)) await c.close();
  await rm(dir, { recursive: true, force: true });
});

function database(): string {
  const file = join(dir, 'w.db');
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE t (k INTEGER PRIMARY KEY, a TEXT, b REAL, c TEXT UNIQUE)');
  db.close();
  return file;
}

function rowsOf(file: string): unknown[] {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare('SELECT k, a, b, c FROM t ORDER BY k').raw().all();
  } finally {
    db.close();
  }
}

const TEXTS = ['', 'plain', 'é ü ß', '😀 astral', 'quote " and \\ backslash', '\u0000 nul', '中文'];
/** Larger than a batch's buffer: it grows. */
const LONG = 'x'.repeat(3_000_000);

describe('SQLite import worker', () => {
  it('writes encoded rows exactly as given, in order with the statements sent after them', async () => {
    const file = database();
    const db = new WorkerImportConnection(file);
    open.push(db);
    await db.exec('BEGIN IMMEDIATE');
    const rows = db.rows('INSERT INTO t (k, a, b, c)', 4, 128);
    const expected: RowValue[][] = [];
    for (let k = 1; k <= 1_000; k++) {
      const row: RowValue[] = [k, k === 500 ? LONG : TEXTS[k % TEXTS.length]!, k % 3 === 0 ? null : k / 7 - 50, `c${k}`];
      expected.push(row);
      if (rows.add(...row)) await db.write([rows]);
    }
    // A statement after the buffered rows sees them (it runs after them, on the same connection).
    await db.write([rows], [['UPDATE t SET a = ? WHERE k = ?', ['changed', 1_000]]]);
    expected[999]![1] = 'changed';
    expect(await db.get<{ n: number }>('SELECT count(*) AS n FROM t')).toEqual({ n: 1_000 });
    await db.exec('COMMIT');
    expect(rowsOf(file)).toEqual(expected);
  });

  it('a failed write fails every later call; the rollback leaves nothing', async () => {
    const file = database();
    const db = new WorkerImportConnection(file);
    open.push(db);
    await db.exec('BEGIN IMMEDIATE');
    const rows = db.rows('INSERT INTO t (k, a, b, c)', 4, 64);
    rows.add(1, 'a', 1, 'same');
    rows.add(2, 'b', 2, 'same'); // UNIQUE (c)
    await db.write([rows]);
    await expect(db.get('SELECT 1 AS x')).rejects.toMatchObject({ code: 'SQLITE_CONSTRAINT_UNIQUE' });
    await expect(db.exec('COMMIT')).rejects.toMatchObject({ code: 'SQLITE_CONSTRAINT_UNIQUE' });
    await db.rollback();
    await db.close();
    expect(rowsOf(file)).toEqual([]);
  });

  it('a worker that stops fails the calls waiting on it', async () => {
    const db = new WorkerImportConnection(database());
    await db.exec('BEGIN IMMEDIATE');
    const pending = db.get('SELECT 1 AS x');
    await db.terminate();
    await pending.catch(() => undefined);
    await expect(db.get('SELECT 1 AS x')).rejects.toThrow(/stopped|terminated/);
    await db.rollback(); // nothing to roll back: no throw
  });
});

describe('SQLite store: large imports through the worker', () => {
  const docs = () => Array.from({ length: 11 }, (_, f) => folder(f, 1_000, f === 5));

  async function store(file: string, importWorkerMinNodes: number): Promise<SqliteStore> {
    const s = new SqliteStore({ file: join(dir, file), importWorkerMinNodes });
    await s.open();
    open.push(s);
    return s;
  }

  it('writes the rows, words, kinds and answers an import on the main thread writes', async () => {
    const spawned = vi.spyOn(WorkerImportConnection.prototype, 'rows');
    const viaWorker = await store('worker.db', 10_000);
    const local = await store('local.db', Infinity);
    await importDocuments(viaWorker, docs(), NEW);
    expect(spawned).toHaveBeenCalled();
    spawned.mockClear();
    await importDocuments(local, docs(), NEW);
    expect(spawned).not.toHaveBeenCalled();
    // Again over the first (re-imported roots: deletes inside the worker's transaction).
    await importDocuments(viaWorker, docs(), NEW);
    await importDocuments(local, docs(), NEW);
    const [a, b] = [snapshot(viaWorker.databaseFile), snapshot(local.databaseFile)];
    expect(a.integrity).toBe('ok');
    expect(a).toEqual(b);
    expect((await viaWorker.changes.since(0, 100)).map((e) => [e.kind, e.count])).toEqual((await local.changes.since(0, 100)).map((e) => [e.kind, e.count]));
  }, 120_000);

  it('answers what the transaction did not write from the last commit as the main thread does (positions, a reused uuid)', async () => {
    const run = async (file: string, min: number) => {
      const s = await store(file, min);
      await importDocuments(s, [document('tours', '/', [draft('a', { id: uuid(7) }), draft('b')])], NEW);
      const result = await importDocuments(s, [document('tours', '/', [draft('c', {}, [draft('d', { id: uuid(7) })]), draft('e')])], NEW);
      return {
        warnings: result.warnings.map((w) => w.replace(/new uuid \S+/, 'new uuid …')),
        order: (await s.reads.getSubtree('tours', '/', 1)).map((n) => n.path),
        ids: (await s.reads.getSubtree('tours', '/', 2)).filter((n) => n.id === uuid(7)).map((n) => n.path),
      };
    };
    const spawned = vi.spyOn(WorkerImportConnection.prototype, 'rows');
    const viaWorker = await run('reuse-worker.db', 1);
    expect(spawned).toHaveBeenCalled();
    expect(viaWorker).toEqual(await run('reuse-local.db', Infinity));
    expect(viaWorker.order).toEqual(['/a', '/b', '/c', '/e']);
    expect(viaWorker.warnings).toEqual([expect.stringContaining('already belongs to tours:/a; /c/d gets the new uuid …')]);
  });

  it('a worker that dies during an import leaves the store as it was, and the next import works', async () => {
    const s = await store('dies.db', 10_000);
    await importDocuments(s, [folder(0, 10, false)], NEW);
    const before = snapshot(s.databaseFile);
    let writes = 0;
    const write = WorkerImportConnection.prototype.write;
    const spy = vi.spyOn(WorkerImportConnection.prototype, 'write').mockImplementation(async function (this: WorkerImportConnection, ...args) {
      if (++writes === 5) await this.terminate();
      return write.apply(this, args);
    });
    await expect(importDocuments(s, docs(), NEW)).rejects.toThrow();
    spy.mockRestore();
    expect(snapshot(s.databaseFile)).toEqual(before);
    await importDocuments(s, docs(), NEW);
    expect(await s.reads.countNodes(WS)).toBe(11 * (1_000 + 1)); // the twin of folder 5 replaces a sibling of its name
  }, 120_000);
});
