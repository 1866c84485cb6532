// missingStore (issue 29 point 2): the read-only commands' check that a store is there, which must not
// make it. SQLite: the file; PostgreSQL: Petal's schema (schema_migrations) in the database, checked in a
// scratch database of its own (skipped without PETAL_TEST_PG), and through `petal versions --store`.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { missingStore } from '../../src/store/store-exists.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import { PostgresStore } from '../../src/store/postgres/store.js';
import { createScratchDatabase, type ScratchDatabase } from '../helpers/scratch-database.js';
import { runCli } from '../helpers/run-cli.js';

const PG = process.env.PETAL_TEST_PG ?? '';

describe('missingStore, SQLite', () => {
  it('names a file that is not there without creating it or its folder, and accepts one a store made', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'petal-store-exists-'));
    try {
      const file = join(dir, 'data', 'petal.db');
      expect(await missingStore(`sqlite:${file}`)).toBe(file);
      expect(existsSync(join(dir, 'data'))).toBe(false);
      const store = new SqliteStore({ file });
      await store.open();
      await store.close();
      expect(await missingStore(`sqlite:${file}`)).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// Skipped without PETAL_TEST_PG: it needs a PostgreSQL server (.ci/run always sets it).
describe.skipIf(PG === '')('missingStore, PostgreSQL', () => {
  let scratch: ScratchDatabase | undefined;
  afterAll(async () => { await scratch?.drop(); });

  async function hasMigrationsTable(url: string): Promise<boolean> {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      return (await c.query<{ t: string | null }>("SELECT to_regclass('schema_migrations')::text AS t")).rows[0]!.t !== null;
    } finally {
      await c.end();
    }
  }

  it('refuses a database without Petal\'s schema (and does not migrate it), then accepts it once a store opened it', async () => {
    scratch = await createScratchDatabase();
    const url = scratch!.url;
    expect(await missingStore(url)).toMatch(/no Petal schema/);
    const r = await runCli(['versions', 'website', '/site', '--store', url]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^petal: no store at postgres:\/\/.* \(no Petal schema: no schema_migrations table\) \(run `petal serve` or `petal import` first, or pass --store\)\n$/);
    expect(await hasMigrationsTable(url)).toBe(false);

    const store = new PostgresStore({ url });
    await store.open();
    await store.close();
    expect(await missingStore(url)).toBeUndefined();
    expect((await runCli(['versions', 'website', '/site', '--store', url])).code).toBe(0);
  });

  it('refuses a database that does not exist, without its password in the message', async () => {
    const u = new URL(PG);
    u.pathname = '/petal_no_such_database_29';
    u.password = 'secret-pw';
    const where = await missingStore(u.toString());
    expect(where).toMatch(/petal_no_such_database_29/);
    expect(where).not.toContain('secret-pw');
  });
});
