// Issue 16: a process killed (SIGKILL) in the middle of an HTTP write leaves the store as before or as
// after, never between. The child (write-crash-child.ts) serves the write through the real routes and
// store; it is killed inside the write's transaction (after a subtree was inserted, before the node it
// replaces is removed) or right after the answer.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { PostgresStore } from '../../src/store/postgres/postgres-store.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { CRASH_BEFORE, CRASH_CHILDREN, CRASH_SECURITY } from './write-crash-files.js';

const CHILD = join(import.meta.dirname, 'write-crash-child.ts');

let t: TestApp;
beforeEach(async () => { t = await createTestApp({ content: CRASH_BEFORE, security: CRASH_SECURITY }); });
afterEach(async () => { await t.close(); });

function storeArg(): string {
  if (t.store instanceof SqliteStore) return `sqlite:${t.store.databaseFile}`;
  if (t.store instanceof PostgresStore) return `${process.env.PETAL_TEST_PG}#${t.store.schema}`;
  throw new Error('unknown store');
}

async function killAt(point: 'inside' | 'after'): Promise<void> {
  const marker = join(t.dir, `marker-${point}`);
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', CHILD, storeArg(), point, marker], { stdio: ['ignore', 'ignore', 'pipe'] });
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
  const keep = await t.store.getNode('website', '/keep');
  return {
    title: keep?.properties.find(([name]) => name === 'title')?.[2],
    fresh: (await t.store.getSubtree('website', '/fresh', 1)).length,
    nodes: await t.store.countNodes('website'),
    events: (await t.store.changesSince(0, 100)).length,
  };
}

describe(`SIGKILL during an HTTP import (${process.env.PETAL_TEST_PG ? 'PostgreSQL' : 'SQLite'})`, () => {
  it('killed inside the transaction: the store as before, and it takes the same write afterwards', async () => {
    const before = await state();
    expect(before).toMatchObject({ title: 'Old', fresh: 0, nodes: 1 });
    await killAt('inside');
    expect(await state()).toEqual(before);
    // Nothing is left locked or half-open: the same import through this process succeeds.
    const { crashUpload } = await import('./write-crash-files.js');
    const body = crashUpload();
    const res = await t.app.inject({ method: 'POST', url: '/.rest/import/v1', payload: body.payload, headers: body.headers });
    expect(res.statusCode).toBe(200);
    expect(await state()).toEqual({ title: 'New', fresh: CRASH_CHILDREN + 1, nodes: CRASH_CHILDREN + 2, events: before.events + 1 });
  }, 90_000);

  it('killed right after the answer: the whole write is there', async () => {
    const before = await state();
    await killAt('after');
    expect(await state()).toEqual({ title: 'New', fresh: CRASH_CHILDREN + 1, nodes: CRASH_CHILDREN + 2, events: before.events + 1 });
  }, 90_000);
});
