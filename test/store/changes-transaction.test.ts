// Change events commit with their write or not at all: an import that fails after its event is
// written (a trigger makes the generation bump, the write's last statement, fail) leaves no event.
// SQLite always; PostgreSQL when PETAL_TEST_PG is set.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from '../../src/store/sqlite/driver.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { ContentStore } from '../../src/store/content-store.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import { PostgresStore } from '../../src/store/postgres/store.js';
import { NEW, document, draft, leaves } from '../conformance/drafts.js';
import { PG_URL, pgRows } from '../conformance/pg-sql.js';
import { importDocuments, publishVersion } from '../../src/repository/writes.js';

async function failingBump(store: ContentStore, fail: (on: boolean) => Promise<void>): Promise<void> {
  await importDocuments(store, [document('website', '/', leaves('first'))], NEW);
  await publishVersion(store, 'website', '/first', 'alice');
  const before = await store.changes.latest();
  const generation = await store.generation();
  await fail(true);
  await expect(importDocuments(store, [document('website', '/', [draft('second', {}, leaves('child'))])], NEW)).rejects.toThrow(/injected/);
  await expect(publishVersion(store, 'website', '/first', 'bob')).rejects.toThrow(/injected/);
  expect(await store.changes.latest()).toBe(before);
  expect(await store.changes.since(before, 10)).toEqual([]);
  expect(await store.generation()).toBe(generation);
  expect(await store.reads.getNode('website', '/second')).toBeUndefined();
  await fail(false);
  await importDocuments(store, [document('website', '/', leaves('second'))], NEW);
  const events = await store.changes.since(before, 10);
  expect(events.map((e) => e.created.map((n) => n.path))).toEqual([['/second']]);
}

describe('change events share their write transaction', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  it('sqlite: an import or publish that fails after writing its event leaves none', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'petal-changes-'));
    const store = new SqliteStore({ file: join(dir, 'petal.db') });
    await store.open();
    cleanups.push(() => rm(dir, { recursive: true, force: true }), () => store.close());
    const db = new Database(store.file);
    cleanups.push(async () => { db.close(); });
    await failingBump(store, async (on) => {
      db.exec(on
        ? "CREATE TRIGGER fail_bump BEFORE UPDATE ON meta BEGIN SELECT RAISE(ABORT, 'injected'); END"
        : 'DROP TRIGGER fail_bump');
    });
  });

  // Skipped without PETAL_TEST_PG: it needs a PostgreSQL server (.ci/run always sets it).
  it.skipIf(PG_URL === '')('postgres: an import or publish that fails after writing its event leaves none', async () => {
    const schema = `petal_t_${randomBytes(6).toString('hex')}`;
    const store = new PostgresStore({ url: PG_URL, schema });
    cleanups.push(() => pgRows(`DROP SCHEMA IF EXISTS ${schema} CASCADE`).then(() => undefined));
    await store.open();
    cleanups.push(() => store.close());
    await pgRows(`CREATE FUNCTION ${schema}.fail_bump() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'injected'; END $$`);
    await failingBump(store, async (on) => {
      await pgRows(on
        ? `CREATE TRIGGER fail_bump BEFORE UPDATE ON ${schema}.meta FOR EACH ROW EXECUTE FUNCTION ${schema}.fail_bump()`
        : `DROP TRIGGER fail_bump ON ${schema}.meta`);
    });
  });
});
