// Child process of import-kill.test.ts: imports an export file into the SQLite store it is given and
// writes `reading` to the marker once half of the file is read (rows sent to the store's worker, the
// transaction open); the parent kills it there.
//   argv: <database file> <export file> <marker file>
import { writeFileSync } from 'node:fs';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import { importPaths } from '../../src/ingest/run-import.js';

const [file, exportFile, marker] = process.argv.slice(2) as [string, string, string];
const store = new SqliteStore({ file });
await store.open();
let told = false;
await importPaths(store, [exportFile], {
  onUuidCollision: 'new',
  onProgress: (p) => {
    if (told || p.bytesDone < p.bytesTotal / 2) return;
    told = true;
    writeFileSync(marker, 'reading');
    // Waits without returning to the event loop: the transaction can neither commit nor roll back.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 120_000);
  },
});
