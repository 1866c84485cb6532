// Conformance entry point for the SQLite store: a fresh temporary database file for every store created.
// Its queries go through the query index (the default); PETAL_QUERY_INDEX_THRESHOLD=Infinity, the
// second run of `npm test`, sends them through SQL.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { ContentStore } from '../../src/store/content-store.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import { runConformance, type StoreFixture } from './fixture.js';
import { importBatchesSuite } from './import-batches.js';
import { importFilesSuite } from './import-files.js';
import { storeCrudSuite } from './store-crud.js';
import { subtreeReadSuite } from './subtree-read.js';
import { transactionsSuite } from './transactions.js';
import { versionsSuite } from './versions.js';
import { changesSuite } from './changes.js';
import { childPagesSuite } from './child-pages.js';

const sqliteFixture: StoreFixture = {
  name: 'sqlite',
  available: async () => true,
  async create() {
    const dir = await mkdtemp(join(tmpdir(), 'petal-conformance-'));
    const threshold = process.env.PETAL_QUERY_INDEX_THRESHOLD;
    const store = new SqliteStore({ file: join(dir, 'petal.db'), ...(threshold !== undefined ? { queryIndexThreshold: Number(threshold) } : {}) });
    await store.open();
    return store;
  },
  async dispose(store: ContentStore) {
    await store.close();
    await rm(dirname((store as SqliteStore).file), { recursive: true, force: true });
  },
};

await runConformance(sqliteFixture, [storeCrudSuite, subtreeReadSuite, transactionsSuite, importFilesSuite, versionsSuite, importBatchesSuite, changesSuite, childPagesSuite]);
