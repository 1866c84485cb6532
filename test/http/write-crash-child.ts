// Child process of write-crash.test.ts: serves one HTTP write (an import through POST /.rest/import/v1, or
// a Nodes API POST) and signals the parent at a chosen point, where the parent kills it with SIGKILL.
//   argv: <store: sqlite:<file> | postgres://…#<schema>> <write: import | nodes> <point: inside | after> <marker file>
// "inside", import: the write has inserted a subtree and is about to replace another node, in its transaction.
// "inside", nodes: the write has updated /keep and created half of its new children, in its transaction.
import { writeFileSync } from 'node:fs';
import { PostgresStore } from '../../src/store/postgres/store.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import type { ContentStore } from '../../src/store/content-store.js';
import type { WriteTx } from '../../src/store/write-tx.js';
import type { ImportTx, InsertNode } from '../../src/store/import-tx.js';
import { createTestApp } from '../helpers/test-app.js';
import { CRASH_CHILDREN, CRASH_SECURITY, crashNodesBody, crashUpload } from './write-crash-files.js';

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

// The store as the app sees it, except that the write's transaction stops midway: the import's when it
// is about to remove the replaced node (the first root and its children are written by then), the Nodes
// API write's when it is about to insert the middle one of the new children (the update and half of
// them are written).
function stopping<T extends object>(tx: T, method: string, when: (args: unknown[]) => boolean): T {
  return new Proxy(tx, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key);
      if (typeof value !== 'function') return value;
      const bound = (value as (...a: unknown[]) => unknown).bind(target);
      return key !== method ? bound : (...args: unknown[]) => {
        if (when(args)) stop();
        return bound(...args);
      };
    },
  });
}

let inserted = 0;
const store = new Proxy(opened, {
  get(target, key) {
    if (key === 'transaction' && write === 'nodes' && point === 'inside') {
      return <R>(body: (tx: WriteTx) => Promise<R>) => target.transaction((tx) => body(stopping(tx, 'insertNode', (args) => {
        const node = args[0] as InsertNode;
        return node.parentPath === '/keep' && ++inserted === CRASH_CHILDREN / 2;
      })));
    }
    if (key === 'importTransaction' && write === 'import' && point === 'inside') {
      return <R>(nodes: number, body: (tx: ImportTx) => Promise<R>) => target.importTransaction(nodes, (tx) => body(stopping(tx, 'deleteSubtree', () => true)));
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
