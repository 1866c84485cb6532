// PostgreSQL store: instances learn of each other's writes through LISTEN/NOTIFY. Two stores on one
// schema of the database named by PETAL_TEST_PG (skipped without it, as postgres.test.ts).
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PostgresStore } from '../../src/store/postgres/store.js';
import type { StoreQuery } from '../../src/query/ast.js';
import { NEW, document, draft } from './drafts.js';
import { pgRows as sql } from './pg-sql.js';
import { importDocuments } from '../../src/repository/writes.js';

const url = process.env.PETAL_TEST_PG ?? '';
if (url === '') console.warn('PostgreSQL LISTEN/NOTIFY tests skipped: set PETAL_TEST_PG=postgres://user@host:5432/database to run them');

const all = (workspace: string): StoreQuery => ({
  workspace, rootPath: '/', types: null, conditions: [], fullText: [], orderBy: [], offset: 0, limit: 100,
});


// Skipped without PETAL_TEST_PG: it needs a PostgreSQL server (.ci/run always sets it).
describe.skipIf(url === '')('postgres LISTEN/NOTIFY', () => {
  const opened: PostgresStore[] = [];
  const schemas = new Set<string>();
  async function pair(): Promise<[PostgresStore, PostgresStore, string]> {
    const schema = `petal_t_${randomBytes(6).toString('hex')}`;
    schemas.add(schema);
    const a = new PostgresStore({ url, schema });
    const b = new PostgresStore({ url, schema });
    opened.push(a, b);
    await a.open();
    await b.open();
    return [a, b, schema];
  }
  afterEach(async () => {
    for (const s of opened.splice(0)) await s.close();
    for (const schema of schemas) await sql(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    schemas.clear();
  });

  it('announces writes: an import through one instance reaches the other within a second', async () => {
    const [a, b] = await pair();
    expect(b.capabilities.notifyOnWrite).toBe(true);
    expect(b.generationHint()).toBe(0);
    // The other instance has loaded its query index before the write.
    expect((await b.reads.query(all('website'))).total).toBe(0);

    const heard: number[] = [];
    const stop = b.onChange((g) => heard.push(g));
    const started = Date.now();
    await importDocuments(a, [document('website', '/', [draft('news', {}, [draft('one')])])], NEW);
    const written = await a.generation();
    expect(written).toBe(1);
    await vi.waitFor(() => expect(heard).toEqual([written]), { timeout: 4_000, interval: 5 });
    // By notification, not the 5 s poll: under 3 s leaves room for a loaded machine.
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(b.generationHint()).toBe(written);

    // At once (no waiting for anything else): the query index reloads for the new generation.
    const r = await b.reads.query(all('website'));
    expect(r.total).toBe(2);
    expect(r.nodes.map((n) => n.path)).toEqual(['/news', '/news/one']);
    expect((await b.reads.getNode('website', '/news/one'))?.name).toBe('one');

    stop();
    await importDocuments(a, [document('website', '/news', [draft('two')])], NEW);
    await vi.waitFor(() => expect(b.generationHint()).toBe(2), { timeout: 4_000, interval: 5 });
    expect(heard).toEqual([1]); // removed listeners hear nothing more
  });

  it('a rolled-back import announces nothing', async () => {
    const [a, b] = await pair();
    const heard: number[] = [];
    b.onChange((g) => heard.push(g));
    // An invalid node name: writeImport rejects the document inside the transaction.
    const bad = document('website', '/', [draft('fine'), draft('bad/name')]);
    await expect(importDocuments(a, [bad], NEW)).rejects.toThrow();
    await importDocuments(a, [document('website', '/', [draft('ok')])], NEW);
    await vi.waitFor(() => expect(heard.length).toBeGreaterThan(0), { timeout: 4_000, interval: 5 });
    expect(heard).toEqual([await a.generation()]);
  });

  it('the listener reconnects after its connection is killed, and catches up', async () => {
    const [a, b, schema] = await pair();
    const heard: number[] = [];
    b.onChange((g) => heard.push(g));
    const killed = await sql(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
       WHERE datname = current_database() AND application_name = $1`,
      [`petal-listen petal_changes_${schema}`],
    );
    expect(killed).toHaveLength(2); // the listeners of both stores
    await vi.waitFor(() => expect(b.generationHint()).toBeUndefined(), { timeout: 4_000, interval: 5 });
    // Meanwhile an import commits; without the listener it is not announced to b.
    await importDocuments(a, [document('website', '/', [draft('while-away')])], NEW);
    // The listener comes back, reads the generation it missed, and hears the next import at once.
    await vi.waitFor(() => expect(b.generationHint()).toBe(1), { timeout: 3_000, interval: 10 });
    await importDocuments(a, [document('website', '/', [draft('after')])], NEW);
    await vi.waitFor(() => expect(heard).toEqual([1, 2]), { timeout: 4_000, interval: 5 });
  });

  it('after a reconnect, a generation older than the one known (database restored, failed over) is believed', async () => {
    const [a, b, schema] = await pair();
    await importDocuments(a, [document('website', '/', [draft('one')])], NEW);
    await importDocuments(a, [document('website', '/', [draft('two')])], NEW);
    await vi.waitFor(() => expect(b.generationHint()).toBe(2), { timeout: 4_000, interval: 5 });
    expect((await b.reads.query(all('website'))).total).toBe(2);
    const heard: number[] = [];
    b.onChange((g) => heard.push(g));
    // Both listeners lose their connection and, in the same statement, the counter goes back to 0, as
    // in a backup restored while they were away.
    await sql(
      `WITH killed AS (
         SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1)
       UPDATE ${schema}.meta SET value = 0 WHERE key = 'generation' AND (SELECT count(*) FROM killed) >= 0`,
      [`petal-listen petal_changes_${schema}`],
    );
    await vi.waitFor(() => {
      expect(a.generationHint()).toBe(0);
      expect(b.generationHint()).toBe(0);
    }, { timeout: 3_000, interval: 10 });
    expect(heard).toEqual([0]); // caches of b's users drop
    // The next commit is numbered 1 again: b must not take it for one it has already seen.
    await importDocuments(a, [document('website', '/', [draft('three')])], NEW);
    await vi.waitFor(() => expect(b.generationHint()).toBe(1), { timeout: 4_000, interval: 5 });
    expect((await b.reads.query(all('website'))).nodes.map((n) => n.path)).toContain('/three');
  });

  it('without a listener, generationHint is undefined and generation() still answers', async () => {
    const [a] = await pair();
    await a.close();
    expect(a.generationHint()).toBeUndefined();
    await a.open();
    expect(await a.generation()).toBe(0);
  });
});
