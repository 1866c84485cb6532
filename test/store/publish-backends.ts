// Test helper for the publishing suites: one store per backend (SQLite always; PostgreSQL when
// PETAL_TEST_PG is set), a second store on the same database, and a fault that makes the generation
// bump (the last statement of every write) fail.
import { afterAll, beforeAll } from 'vitest';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from '../../src/store/sqlite/driver.js';
import type { ContentStore } from '../../src/store/content-store.js';
import { PostgresStore } from '../../src/store/postgres/store.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import { PG_URL, pgRows } from '../conformance/pg-sql.js';

export interface OpenBackend {
  readonly store: ContentStore;
  /**
   * Another store on the same database (another instance). SQLite's is the same store: two stores of
   * one process on one file would block the thread on each other's write lock (better-sqlite3 waits
   * synchronously), which separate processes do not; one process's writes are serialized by its queue.
   */
  another(): Promise<ContentStore>;
  /** Makes every write fail at its generation bump (`on`), or stops it. */
  failBump(on: boolean): Promise<void>;
  close(): Promise<void>;
}

export interface Backend {
  readonly name: string;
  /** Why it cannot run here, or false. */
  readonly skip: string | false;
  open(): Promise<OpenBackend>;
}

const sqlite: Backend = {
  name: 'sqlite',
  skip: false,
  async open() {
    const dir = await mkdtemp(join(tmpdir(), 'petal-publish-'));
    const store = new SqliteStore({ file: join(dir, 'petal.db') });
    await store.open();
    const db = new Database(store.file);
    return {
      store,
      another: async () => store,
      failBump: async (on) => {
        db.exec(on
          ? "CREATE TRIGGER fail_bump BEFORE UPDATE ON meta BEGIN SELECT RAISE(ABORT, 'injected'); END"
          : 'DROP TRIGGER fail_bump');
      },
      close: async () => {
        db.close();
        await store.close();
        await rm(dir, { recursive: true, force: true });
      },
    };
  },
};

const postgres: Backend = {
  name: 'postgres',
  skip: PG_URL === '' ? 'set PETAL_TEST_PG to run it' : false,
  async open() {
    const schema = `petal_pub_${randomBytes(6).toString('hex')}`;
    const store = new PostgresStore({ url: PG_URL, schema });
    await store.open();
    const others: ContentStore[] = [];
    await pgRows(`CREATE FUNCTION ${schema}.fail_bump() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'injected'; END $$`);
    return {
      store,
      another: async () => {
        const other = new PostgresStore({ url: PG_URL, schema });
        await other.open();
        others.push(other);
        return other;
      },
      failBump: async (on) => {
        await pgRows(on
          ? `CREATE TRIGGER fail_bump BEFORE UPDATE ON ${schema}.meta FOR EACH ROW EXECUTE FUNCTION ${schema}.fail_bump()`
          : `DROP TRIGGER fail_bump ON ${schema}.meta`);
      },
      close: async () => {
        for (const other of others) await other.close();
        await store.close();
        await pgRows(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      },
    };
  },
};

export const BACKENDS: readonly Backend[] = [sqlite, postgres];

/**
 * Opens the backend before the tests of the calling `describe` and closes it after; `opened(store)` is
 * told the store. Returns the opened backend, for its other helpers (`another`, `failBump`).
 */
export function openForSuite(backend: Backend, opened: (store: ContentStore) => void): () => OpenBackend {
  let open: OpenBackend | undefined;
  beforeAll(async () => {
    open = await backend.open();
    opened(open.store);
  });
  afterAll(async () => { await open?.close(); });
  return () => open!;
}
