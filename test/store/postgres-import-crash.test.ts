// Issue 20: a process killed (SIGKILL) while the server is in the middle of one of its import's COPY
// statements leaves the PostgreSQL store as before (the import's one transaction is rolled back when
// its connection closes), with no lock held, and the same import afterwards commits. In the database
// named by PETAL_TEST_PG; skipped without it.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PostgresStore } from '../../src/store/postgres/store.js';
import { NEW, document, draft } from '../conformance/drafts.js';
import { pgRows as sql } from '../conformance/pg-sql.js';
import { importDocuments } from '../../src/repository/writes.js';

const url = process.env.PETAL_TEST_PG ?? '';
const CHILD = join(import.meta.dirname, 'postgres-import-crash-child.ts');
const NODES = 60_000;
const TABLES = ['nodes', 'fts', 'prop_kinds', 'node_types', 'changes', 'change_nodes'];

// Skipped without PETAL_TEST_PG: it needs a PostgreSQL server (.ci/run always sets it).
describe.skipIf(url === '')('SIGKILL during a PostgreSQL import (COPY in progress)', () => {
  let schema = '';
  let store: PostgresStore | undefined;
  afterEach(async () => {
    await store?.close();
    if (schema !== '') await sql(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    store = undefined;
    schema = '';
  });

  async function rows(): Promise<Record<string, number>> {
    return Object.fromEntries(await Promise.all(TABLES.map(async (t) =>
      [t, (await sql<{ n: number }>(`SELECT count(*)::int AS n FROM ${schema}.${t}`))[0]!.n] as const)));
  }

  it('leaves the store as before, and the same import commits afterwards', async () => {
    schema = `petal_k_${randomBytes(6).toString('hex')}`;
    store = new PostgresStore({ url, schema });
    await store.open();
    await importDocuments(store, [document('tours', '/', [draft('kept', { properties: [['title', 'String', 'kept']] })])], NEW);
    const before = { rows: await rows(), generation: await store.generation() };

    const app = `petal_crash_${randomBytes(4).toString('hex')}`;
    const childUrl = new URL(url);
    childUrl.searchParams.set('application_name', app);
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, childUrl.toString(), schema, String(NODES)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d: Buffer) => { output += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { output += d.toString(); });
    const exited = new Promise((r) => child.once('exit', r));
    // The server reports a COPY of the child's connection in progress (pg_stat_progress_copy, PG 14+).
    let copying = 0;
    const deadline = Date.now() + 60_000;
    while (copying === 0) {
      if (child.exitCode !== null) throw new Error(`child exited ${child.exitCode} before it was killed: ${output}`);
      if (Date.now() > deadline) throw new Error(`no COPY of the child seen: ${output}`);
      copying = (await sql<{ n: number }>(`
        SELECT count(*)::int AS n FROM pg_stat_progress_copy c JOIN pg_stat_activity a USING (pid)
        WHERE a.application_name = $1 AND c.command = 'COPY FROM'`, [app]))[0]!.n;
    }
    child.kill('SIGKILL');
    await exited;
    expect(output).not.toContain('committed');

    // The killed connection's transaction is rolled back (reads see the last commit meanwhile).
    expect({ rows: await rows(), generation: await store.generation() }).toEqual(before);
    // Its import lock went with it: the same import through this process commits.
    const children = Array.from({ length: 3 }, (_, i) => draft(`n${i}`, { properties: [['title', 'String', `node ${i}`]] }));
    expect((await importDocuments(store, [document('tours', '/', [draft('big', {}, children)])], NEW)).nodes).toBe(4);
    expect(await store.reads.countNodes('tours')).toBe(5);
    expect(await store.generation()).toBe(before.generation + 1);
  }, 120_000);
});
