// The store's record of bootstrap files (store/bootstrap-files.ts), once per backend (PostgreSQL with
// PETAL_TEST_PG): written in the import's transaction (a failed import leaves no record), numbered with
// the import's last change event; an import whose decision a later write made stale rolls back with a
// BootstrapRaceError and writes nothing; withBootstrapFiles lets one caller at a time in.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ContentStore } from '../../src/store/content-store.js';
import { BootstrapRaceError, type BootstrapFile } from '../../src/store/bootstrap-files.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import { PostgresStore } from '../../src/store/postgres/store.js';
import { FAIL, NEW, document, draft, leaves, uuid } from '../conformance/drafts.js';
import { PG_URL, pgRows } from '../conformance/pg-sql.js';
import { importDocuments } from '../../src/repository/writes.js';

const recorded = (store: ContentStore) => store.withBootstrapFiles(async (files) => files);

async function rules(store: ContentStore, other: ContentStore): Promise<void> {
  // Recorded with the import, numbered with its (last) change event.
  await importDocuments(store, [document('website', '/', leaves('a', 'b'))], {
    ...NEW, bootstrap: { files: [{ path: 'content/website.a.yaml', sha256: 'f'.repeat(64), nodes: { website: ['/a', '/b'] } }] },
  });
  const [first] = await recorded(store);
  expect(first).toMatchObject({ path: 'content/website.a.yaml', sha256: 'f'.repeat(64), nodes: { website: ['/a', '/b'] }, sequence: await store.changes.latest() });
  expect(Number.isNaN(Date.parse(first!.importedAt))).toBe(false);

  // A failed import records nothing.
  await importDocuments(store, [document('website', '/', [draft('held', { id: uuid(1) })])], NEW);
  const clash = document('website', '/', [draft('clash', { id: uuid(1) })]);
  await expect(importDocuments(store, [clash], { ...FAIL, bootstrap: { files: [{ path: 'x.yaml', sha256: '0'.repeat(64), nodes: {} }] } })).rejects.toThrow();
  expect((await recorded(store)).map((f) => f.path)).toEqual(['content/website.a.yaml']);

  // A write after the decision: the import rolls back, nothing of it is written.
  const decidedAt = await store.changes.latest();
  await importDocuments(store, [document('website', '/', leaves('editor'))], NEW);
  const nodes = await store.reads.countNodes();
  await expect(importDocuments(store, [document('website', '/', leaves('late'))], {
    ...NEW, bootstrap: { files: [{ path: 'content/website.a.yaml', sha256: '1'.repeat(64), nodes: {} }], decidedAt },
  })).rejects.toBeInstanceOf(BootstrapRaceError);
  expect(await store.reads.countNodes()).toBe(nodes);
  expect((await recorded(store))[0]!.sha256).toBe('f'.repeat(64));
  // Decided after it: written and recorded (the import's own events do not count as a later write).
  await importDocuments(store, [document('website', '/', leaves('late'))], {
    ...NEW, bootstrap: { files: [{ path: 'content/website.a.yaml', sha256: '1'.repeat(64), nodes: {} }], decidedAt: await store.changes.latest() },
  });
  expect((await recorded(store))[0]!.sha256).toBe('1'.repeat(64));

  // One caller at a time, whichever store (instance) it comes through.
  const order: string[] = [];
  let release!: () => void;
  const held = new Promise<void>((r) => { release = r; });
  const a = store.withBootstrapFiles(async () => { order.push('a in'); await held; order.push('a out'); });
  await new Promise((r) => setTimeout(r, 50)); // a holds the turn
  const b = other.withBootstrapFiles(async (files: readonly BootstrapFile[]) => { order.push(`b in (${files.length})`); });
  await new Promise((r) => setTimeout(r, 50));
  release();
  await Promise.all([a, b]);
  expect(order).toEqual(['a in', 'a out', 'b in (1)']);
}

describe('bootstrap files in the store', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('sqlite', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'petal-bootstrap-files-'));
    const store = new SqliteStore({ file: join(dir, 'petal.db') });
    await store.open();
    cleanups.push(() => rm(dir, { recursive: true, force: true }), () => store.close());
    await rules(store, store);
  });

  // Skipped without PETAL_TEST_PG: it needs a PostgreSQL server (.ci/run always sets it).
  it.skipIf(PG_URL === '')('postgres (two instances: two stores on one schema)', async () => {
    const schema = `petal_t_${randomBytes(6).toString('hex')}`;
    const store = new PostgresStore({ url: PG_URL, schema });
    const other = new PostgresStore({ url: PG_URL, schema });
    cleanups.push(() => pgRows(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).then(() => undefined));
    await store.open();
    await other.open();
    cleanups.push(() => store.close(), () => other.close());
    await rules(store, other);
  });
});
