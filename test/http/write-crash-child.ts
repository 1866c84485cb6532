// Child process of write-crash.test.ts: serves one HTTP write (an import through POST /.rest/import/v1)
// and signals the parent at a chosen point, where the parent kills it with SIGKILL.
//   argv: <store: sqlite:<file> | postgres://…#<schema>> <point: inside | after> <marker file>
// "inside": the write has inserted a subtree and is about to replace another node, in its transaction.
import { writeFileSync } from 'node:fs';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { ContentStore } from '../../src/store/content-store.js';
import type { ImportDocument, ImportOptions } from '../../src/store/rows.js';
import { createTestApp } from '../helpers/test-app.js';
import { CRASH_SECURITY, crashUpload } from './write-crash-files.js';

const [storeArg, point, marker] = process.argv.slice(2) as [string, 'inside' | 'after', string];

function block(): void {
  // Waits without returning to the event loop, so the open transaction can neither commit nor roll back.
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 120_000);
}

const opened: ContentStore = storeArg.startsWith('sqlite:')
  ? new SqliteStore({ file: storeArg.slice('sqlite:'.length) })
  : new PostgresStore({ url: storeArg.slice(0, storeArg.lastIndexOf('#')), schema: storeArg.slice(storeArg.lastIndexOf('#') + 1) });
await opened.open();

// The store as the app sees it, except that the import's in-transaction guard stops when asked to
// remove the replaced node: by then the first root and its children are written, not yet committed.
const store = new Proxy(opened, {
  get(target, key) {
    if (key === 'importDocuments' && point === 'inside') {
      return (documents: readonly ImportDocument[], options: ImportOptions) => target.importDocuments(documents, {
        ...options,
        guard: {
          create: (ws, path) => options.guard?.create(ws, path),
          remove: (ws, path) => {
            options.guard?.remove(ws, path);
            writeFileSync(marker, 'inside');
            block();
          },
        },
      });
    }
    const value: unknown = Reflect.get(target, key);
    return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
  },
});

const t = await createTestApp({ store, security: CRASH_SECURITY });
const body = crashUpload();
const res = await t.app.inject({ method: 'POST', url: '/.rest/import/v1', payload: body.payload, headers: body.headers });
if (res.statusCode !== 200) {
  process.stderr.write(`import answered ${res.statusCode}: ${res.body}\n`);
  process.exit(3);
}
writeFileSync(marker, 'after');
block();
