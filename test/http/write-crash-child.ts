// Child process of write-crash.test.ts: serves one HTTP write (an import through POST /.rest/import/v1, or
// a Nodes API POST) and signals the parent at a chosen point, where the parent kills it with SIGKILL.
//   argv: <store: sqlite:<file> | postgres://…#<schema>> <write: import | nodes> <point: inside | after> <marker file>
// "inside", import: the write has inserted a subtree and is about to replace another node, in its transaction.
// "inside", nodes: the write has updated /keep and created half of its new children, in its transaction.
import { writeFileSync } from 'node:fs';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { ContentStore } from '../../src/store/content-store.js';
import type { ImportDocument, ImportOptions } from '../../src/store/rows.js';
import type { NodeOperation, NodeWriteOptions } from '../../src/store/node-write.js';
import { createTestApp } from '../helpers/test-app.js';
import { CRASH_CHILDREN, CRASH_SECURITY, crashNodesBody, crashUpload } from './write-crash-files.js';
import { importDocuments, writeNodes } from '../../src/repository/writes.js';

const [storeArg, write, point, marker] = process.argv.slice(2) as [string, 'import' | 'nodes', 'inside' | 'after', string];

function block(): void {
  // Waits without returning to the event loop, so the open transaction can neither commit nor roll back.
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 120_000);
}

const opened: ContentStore = storeArg.startsWith('sqlite:')
  ? new SqliteStore({ file: storeArg.slice('sqlite:'.length) })
  : new PostgresStore({ url: storeArg.slice(0, storeArg.lastIndexOf('#')), schema: storeArg.slice(storeArg.lastIndexOf('#') + 1) });
await opened.open();

function stop(): void {
  writeFileSync(marker, 'inside');
  block();
}

// The store as the app sees it, except that the write's in-transaction guard stops midway: the import's
// when asked to remove the replaced node (the first root and its children are written by then), the
// Nodes API write's when asked about the middle one of the new children (the update and half of them are).
const store = new Proxy(opened, {
  get(target, key) {
    if (key === 'writeNodes' && point === 'inside') {
      return (workspace: string, operations: readonly NodeOperation[], options: NodeWriteOptions) => {
        const guard = options.guard!;
        let asked = 0;
        return writeNodes(target, workspace, operations, {
          ...options,
          guard: {
            canRead: (ws, path) => {
              if (path.startsWith('/keep/') && ++asked === CRASH_CHILDREN / 2) stop();
              return guard.canRead(ws, path);
            },
            mayWrite: (ws, path) => guard.mayWrite(ws, path),
            mayReplaceSubtree: (ws, path) => guard.mayReplaceSubtree(ws, path),
          },
        });
      };
    }
    if (key === 'importDocuments' && point === 'inside') {
      return (documents: readonly ImportDocument[], options: ImportOptions) => importDocuments(target, documents, {
        ...options,
        guard: {
          create: (ws, path) => options.guard?.create(ws, path),
          remove: (ws, path) => {
            options.guard?.remove(ws, path);
            stop();
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
const res = write === 'import'
  ? await t.app.inject({ method: 'POST', url: '/.rest/import/v1', payload: body.payload, headers: body.headers })
  : await t.app.inject({ method: 'POST', url: '/.rest/nodes/v1/website/keep', payload: crashNodesBody() as object, headers: { 'content-type': 'application/json' } });
if (res.statusCode !== 200) {
  process.stderr.write(`${write} answered ${res.statusCode}: ${res.body}\n`);
  process.exit(3);
}
writeFileSync(marker, 'after');
block();
