// Child process of sqlite-bulk-import.test.ts: runs a large import into the SQLite file it is given and
// stops for good when the import is about to build its deferred indexes (the indexes dropped, every row
// written, in the open transaction), after writing `rebuilding` to the marker; the parent kills it there.
//   argv: <database file> <marker file>
import { writeFileSync } from 'node:fs';
import { DeferredIndexes } from '../../src/store/sqlite/deferred-indexes.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import { NEW } from '../conformance/drafts.js';
import { folder } from './sqlite-bulk-import-data.js';
import { importDocuments } from '../../src/repository/writes.js';

const [file, marker] = process.argv.slice(2) as [string, string];

DeferredIndexes.prototype.rebuild = async function stop(): Promise<void> {
  writeFileSync(marker, 'rebuilding');
  // Waits without returning to the event loop: the transaction can neither commit nor roll back.
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 120_000);
};

const store = new SqliteStore({ file });
await store.open();
await importDocuments(store, Array.from({ length: 11 }, (_, f) => folder(f, 1_000, f === 5)), NEW);
