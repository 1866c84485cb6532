// Conformance entry point for the PostgreSQL store: a fresh schema for every store created, in the
// database named by PETAL_TEST_PG (e.g. postgres://postgres@127.0.0.1:5432/petal_test). Without it,
// or when the server cannot be reached, every suite is skipped and the reason printed; under CI=true
// an unreachable server is an error instead, as the PostgreSQL run is mandatory there.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { ContentStore } from '../../src/store/content-store.js';
import { PostgresStore } from '../../src/store/postgres/store.js';
import { runConformance, type StoreFixture } from './fixture.js';
import { importBatchesSuite } from './import-batches.js';
import { importFilesSuite } from './import-files.js';
import { storeCrudSuite } from './store-crud.js';
import { subtreeReadSuite } from './subtree-read.js';
import { transactionsSuite } from './transactions.js';
import { versionsSuite } from './versions.js';
import { changesSuite } from './changes.js';
import { childPagesSuite } from './child-pages.js';

const url = process.env.PETAL_TEST_PG;
const HOW = 'set PETAL_TEST_PG=postgres://user@host:5432/database to run it';

async function reachable(connectionString: string): Promise<true | string> {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch (err) {
    return `PostgreSQL at ${connectionString} cannot be reached (${(err as Error).message})`;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
}

const postgresFixture: StoreFixture = {
  name: 'postgres',
  async available() {
    if (url === undefined || url === '') {
      console.warn(`PostgreSQL suite skipped: ${HOW}`);
      return `PETAL_TEST_PG is not set; ${HOW}`;
    }
    const ok = await reachable(url);
    if (ok !== true) {
      if (process.env.CI === 'true') throw new Error(`${ok}; the PostgreSQL suite is mandatory in CI`);
      console.warn(`PostgreSQL suite skipped: ${ok}; ${HOW}`);
    }
    return ok;
  },
  async create() {
    const schema = `petal_t_${randomBytes(6).toString('hex')}`;
    const store = new PostgresStore({ url: url!, schema });
    try {
      await store.open();
    } catch (err) {
      await dropSchema(schema).catch(() => undefined);
      throw err;
    }
    return store;
  },
  async dispose(store: ContentStore) {
    await store.close();
    await dropSchema((store as PostgresStore).schema!);
  },
};

await runConformance(postgresFixture, [storeCrudSuite, subtreeReadSuite, transactionsSuite, importFilesSuite, versionsSuite, importBatchesSuite, changesSuite, childPagesSuite]);
