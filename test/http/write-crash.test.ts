// Issue 16: a process killed (SIGKILL) in the middle of an HTTP write leaves the store as before or as
// after, never between. The child (write-crash-child.ts) serves the write through the real routes and
// store; it is killed inside the write's transaction (an import: after a subtree was inserted, before the
// node it replaces is removed; a Nodes API POST: after the node's update and half of its new children)
// or right after the answer.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { PostgresStore } from '../../src/store/postgres/store.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import { CRASH_BEFORE, CRASH_CHILDREN, CRASH_SECURITY, crashNodesBody, crashUpload } from './write-crash-files.js';

const CHILD = join(import.meta.dirname, 'write-crash-child.ts');

let t: TestApp;
beforeEach(async () => { t = await createTestApp({ content: CRASH_BEFORE, security: CRASH_SECURITY }); });
afterEach(async () => { await t.close(); });

function storeArg(): string {
  if (t.store instanceof SqliteStore) return `sqlite:${t.store.databaseFile}`;
  if (t.store instanceof PostgresStore) return `${process.env.PETAL_TEST_PG}#${t.store.schema}`;
  throw new Error('unknown store');
}

type Write = 'import' | 'nodes';

async function killAt(write: Write, point: 'inside' | 'after'): Promise<void> {
  const marker = join(t.dir, `marker-${write}-${point}`);
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', CHILD, storeArg(), write, point, marker], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => { stderr += d.toString(); });
  try {
    const deadline = Date.now() + 60_000;
    while (!(existsSync(marker) && readFileSync(marker, 'utf8') === point)) {
      if (child.exitCode !== null) throw new Error(`child exited ${child.exitCode}: ${stderr}`);
      if (Date.now() > deadline) throw new Error(`child never reached ${point}: ${stderr}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await exited;
    }
  }
}

async function state() {
  const keep = await t.store.reads.getNode('website', '/keep');
  return {
    title: keep?.properties.find(([name]) => name === 'title')?.[2],
    keep: (await t.store.reads.getSubtree('website', '/keep', 1)).length,
    fresh: (await t.store.reads.getSubtree('website', '/fresh', 1)).length,
    nodes: await t.store.reads.countNodes('website'),
    events: (await t.store.changes.since(0, 100)).length,
  };
}

/** The same write through this process's app. */
async function writeHere(write: Write): Promise<number> {
  if (write === 'nodes') {
    return (await t.app.inject({ method: 'POST', url: '/.rest/nodes/v1/website/keep', payload: crashNodesBody() as object, headers: { 'content-type': 'application/json' } })).statusCode;
  }
  const body = crashUpload();
  return (await t.app.inject({ method: 'POST', url: '/.rest/import/v1', payload: body.payload, headers: body.headers })).statusCode;
}

/** What the store holds once the write committed. */
function after(write: Write, events: number) {
  return write === 'import'
    ? { title: 'New', keep: 1, fresh: CRASH_CHILDREN + 1, nodes: CRASH_CHILDREN + 2, events: events + 1 }
    : { title: 'New', keep: CRASH_CHILDREN + 1, fresh: 0, nodes: CRASH_CHILDREN + 1, events: events + 1 };
}

const WRITES: readonly [Write, string][] = [['import', 'an HTTP import'], ['nodes', 'a Nodes API write']];

describe.each(WRITES)(`SIGKILL during %s (${process.env.PETAL_TEST_PG ? 'PostgreSQL' : 'SQLite'})`, (write, what) => {
  it(`killed inside the transaction of ${what}: the store as before, and it takes the same write afterwards`, async () => {
    const before = await state();
    expect(before).toMatchObject({ title: 'Old', keep: 1, fresh: 0, nodes: 1 });
    await killAt(write, 'inside');
    expect(await state()).toEqual(before);
    // Nothing is left locked or half-open: the same write through this process succeeds.
    expect(await writeHere(write)).toBe(200);
    expect(await state()).toEqual(after(write, before.events));
  }, 180_000);

  it(`killed right after the answer to ${what}: the whole write is there`, async () => {
    const before = await state();
    await killAt(write, 'after');
    expect(await state()).toEqual(after(write, before.events));
  }, 180_000);
});
