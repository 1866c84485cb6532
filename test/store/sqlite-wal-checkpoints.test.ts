// WAL checkpoints of a SQLite file store run in a worker thread, never inside a write on the main
// thread (wal-checkpointer.ts): a write past SQLite's 1,000-page automatic checkpoint leaves its
// frames in the WAL until the worker copies them; the worker's timer does that on its own; the worker
// ends with the store; a `:memory:` store has none.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { ImportDocument } from '../../src/repository/import-document.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import { StoreClosedError } from '../../src/store/store-faults.js';
import { connect } from '../../src/store/sqlite/statements.js';
import { checkpointInBackground } from '../../src/store/sqlite/wal-checkpointer.js';
import { importDocuments } from '../../src/repository/writes.js';

const dir = mkdtempSync(join(tmpdir(), 'petal-wal-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** About 6 MB of pages: well past the 1,000 pages (4 MB) of SQLite's automatic checkpoint. */
function bulky(prefix: string, count = 1_200): ImportDocument {
  const roots = Array.from({ length: count }, (_, i) => ({
    name: `${prefix}${i}`, type: 'mgnl:tour', mixins: [],
    properties: [['body', 'String', `${prefix} ${i} ${'lorem ipsum '.repeat(400)}`]] as [string, 'String', string][],
    children: [],
  }));
  return { source: 'test', workspace: 'tours', parentPath: '/', roots, blobs: [] };
}
const small = (name: string): ImportDocument =>
  ({ source: 'test', workspace: 'tours', parentPath: '/', roots: [{ name, type: 'mgnl:tour', mixins: [], properties: [], children: [] }], blobs: [] });

describe('SQLite WAL checkpoints in a worker thread', () => {
  it('a large write is not checkpointed by the writer: its frames wait in the WAL for the worker', async () => {
    const store = new SqliteStore({ file: join(dir, 'big.db'), walCheckpointIntervalMs: 0 });
    await store.open();
    try {
      await importDocuments(store, [bulky('a')], { onUuidCollision: 'new' });
      // With SQLite's automatic checkpoint, the commit above would have copied the WAL back and this
      // write would have started a new, short WAL.
      await importDocuments(store, [small('after')], { onUuidCollision: 'new' });
      const r = (await store.checkpointWal())!;
      expect(r.log).toBeGreaterThan(1_000);
      expect(r.checkpointed).toBe(r.log);
      expect(r.timed).toBe(0);
      // Checkpointed completely: the next write starts the WAL over.
      await importDocuments(store, [small('later')], { onUuidCollision: 'new' });
      const again = (await store.checkpointWal())!;
      expect(again.log).toBeLessThan(100);
      expect((await store.reads.getNode('tours', '/a7'))?.properties[0]?.[2]).toMatch(/^a 7 lorem/);
    } finally {
      await store.close();
    }
  });

  it('the worker checkpoints on its timer', async () => {
    const store = new SqliteStore({ file: join(dir, 'timer.db'), walCheckpointIntervalMs: 10 });
    await store.open();
    try {
      await importDocuments(store, [small('one')], { onUuidCollision: 'new' });
      await vi.waitFor(async () => expect((await store.checkpointWal())!.timed).toBeGreaterThan(2), { timeout: 20_000, interval: 20 });
    } finally {
      await store.close();
    }
  });

  it('ends with the store, starts again when it reopens; a :memory: store has none', async () => {
    const store = new SqliteStore({ file: join(dir, 'reopen.db'), walCheckpointIntervalMs: 0 });
    await store.open();
    expect(await store.checkpointWal()).toBeDefined();
    await store.close();
    await expect(store.checkpointWal()).rejects.toBeInstanceOf(StoreClosedError);
    await store.open();
    expect((await store.checkpointWal())?.checkpointed).toBeGreaterThanOrEqual(0);
    await store.close();

    const memory = new SqliteStore({ file: ':memory:' });
    await memory.open();
    expect(await memory.checkpointWal()).toBeUndefined();
    await memory.close();
  });

  it('a worker that fails gives the checkpoints back to the writer, and says so', async () => {
    const file = join(dir, 'fallback.db');
    const writer = connect(file);
    const reader = connect(file);
    const notices: string[] = [];
    try {
      // The worker cannot open a file that does not exist: it ends on its own.
      const checkpointer = checkpointInBackground(join(dir, 'missing', 'none.db'), writer, reader, (m) => notices.push(m), 0);
      expect(writer.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
      await vi.waitFor(() => expect(notices).toHaveLength(1), { timeout: 20_000, interval: 20 });
      expect(notices[0]).toMatch(/WAL checkpoints run on the main thread again/);
      expect(writer.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
      expect(await checkpointer.checkpoint()).toBeUndefined();
      await checkpointer.close();
    } finally {
      writer.close();
      reader.close();
    }
  });
});
