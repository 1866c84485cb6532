// Publishes from two store instances over one database (two processes sharing a SQLite file, two
// servers sharing PostgreSQL) never give two versions one name: the numbering is read under the
// backend's write lock, and a unique constraint backs it.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { ContentStore } from '../../src/store/content-store.js';
import { PostgresStore } from '../../src/store/postgres/store.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import { NEW, document, draft } from '../conformance/drafts.js';
import { importDocuments, publishVersion } from '../../src/repository/writes.js';

async function publishFromBoth(a: ContentStore, b: ContentStore): Promise<void> {
  await importDocuments(a, [document('website', '/', [draft('page', {}, [draft('main')])])], NEW);
  const rounds = 8;
  const all = await Promise.all(Array.from({ length: rounds }, (_, i) => publishVersion((i % 2 === 0 ? a : b), 'website', '/page', `p${i}`)));
  expect(new Set(all.map((v) => v!.name)).size).toBe(rounds);
  const listed = (await b.versions.list('website', '/page')).map((v) => v.name);
  expect(listed).toEqual(Array.from({ length: rounds }, (_, i) => `1.${i}`));
  // Every copy is whole.
  for (const name of listed) expect(await a.versions.subtree('website', '/page', name, 1)).toHaveLength(2);
}

describe('concurrent publishes from two instances', () => {
  it('sqlite: two stores on one file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'petal-versions-'));
    const a = new SqliteStore({ file: join(dir, 'petal.db') });
    const b = new SqliteStore({ file: join(dir, 'petal.db') });
    try {
      await a.open();
      await b.open();
      await publishFromBoth(a, b);
    } finally {
      await a.close();
      await b.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  const url = process.env.PETAL_TEST_PG;
  // Skipped without PETAL_TEST_PG: it needs a PostgreSQL server (.ci/run always sets it).
  it.skipIf(url === undefined || url === '')('postgres: two stores on one schema (set PETAL_TEST_PG to run)', async () => {
    const schema = `petal_vc_${randomBytes(6).toString('hex')}`;
    const a = new PostgresStore({ url: url!, schema });
    const b = new PostgresStore({ url: url!, schema });
    try {
      await a.open();
      await b.open();
      await publishFromBoth(a, b);
    } finally {
      await a.close();
      await b.close();
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client.end();
    }
  });
});
