// PostgreSQL store with read replicas, in the database named by PETAL_TEST_PG (skipped without it).
// No real streaming replica is available here, so a "replica" is a second connection string to the
// same database: where each statement ran is told apart by the connection's application_name. A
// lagging replica is the same database with its search_path on another schema holding older content.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PostgresStore } from '../../src/store/postgres/store.js';
import type { StoreQuery } from '../../src/query/ast.js';
import type { StoredProperty } from '../../src/model/property-type.js';
import { NEW, document, draft } from './drafts.js';
import { pgRows as sql } from './pg-sql.js';
import { importDocuments } from '../../src/repository/writes.js';

const url = process.env.PETAL_TEST_PG ?? '';
if (url === '') console.warn('PostgreSQL replica tests skipped: set PETAL_TEST_PG=postgres://user@host:5432/database to run them');

const all = (workspace: string): StoreQuery => ({
  workspace, rootPath: '/', types: null, conditions: [], fullText: [], orderBy: [], offset: 0, limit: 100,
});

/** The URL with extra connection parameters. */
function withParams(params: Record<string, string>): string {
  const u = new URL(url);
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  return u.toString();
}


/** Statement names (or texts) run per connection, by application_name ('' = the primary pool). */
let ran: Map<string, string[]>;
function statementsOn(app: string): string[] {
  return ran.get(app) ?? [];
}

const title = (text: string): StoredProperty[] => [['title', 'String', text]];

// Skipped without PETAL_TEST_PG: it needs a PostgreSQL server (.ci/run always sets it).
describe.skipIf(url === '')('postgres read replicas', () => {
  const opened: PostgresStore[] = [];
  const schemas: string[] = [];
  const newSchema = () => {
    const s = `petal_t_${randomBytes(6).toString('hex')}`;
    schemas.push(s);
    return s;
  };
  async function open(store: PostgresStore): Promise<PostgresStore> {
    opened.push(store);
    await store.open();
    return store;
  }

  beforeEach(() => {
    ran = new Map();
    const original = pg.Client.prototype.query;
    vi.spyOn(pg.Client.prototype, 'query').mockImplementation(function (this: pg.Client, ...args: unknown[]) {
      const app = (this as unknown as { connectionParameters: { application_name?: string } }).connectionParameters.application_name ?? '';
      const q = args[0] as string | { name?: string; text: string };
      const label = typeof q === 'string' ? q : (q.name ?? q.text);
      const list = ran.get(app);
      if (list) list.push(label);
      else ran.set(app, [label]);
      return (original as (...a: unknown[]) => unknown).apply(this, args);
    } as never);
  });
  afterEach(async () => {
    vi.restoreAllMocks();
    for (const s of opened.splice(0)) await s.close();
    for (const s of schemas.splice(0)) await sql(`DROP SCHEMA IF EXISTS ${s} CASCADE`);
  });

  it('sends reads to the replicas in turn and writes to the primary', async () => {
    const schema = newSchema();
    const store = await open(new PostgresStore({
      url, schema, replicas: [withParams({ application_name: 'r1' }), withParams({ application_name: 'r2' })],
    }));
    ran.clear();
    await importDocuments(store, [document('website', '/', [draft('a', { properties: title('A') }, [draft('b')])])], NEW);
    for (const app of ['r1', 'r2']) {
      expect(statementsOn(app).filter((s) => s !== 'petal_generation')).toEqual([]); // no write on a replica
    }
    expect(statementsOn('')).toEqual(expect.arrayContaining(['BEGIN', expect.stringMatching(/^COPY nodes /), 'petal_bump', 'petal_notify', 'COMMIT']));

    // Read-after-write: the replicas last reported generation 0, so this read goes to the primary
    // (and has the replicas checked again in the background).
    ran.clear();
    expect((await store.reads.getNode('website', '/a'))?.name).toBe('a');
    expect(statementsOn('')).toEqual(['petal_by_path']);
    expect(statementsOn('r1').concat(statementsOn('r2')).filter((s) => s !== 'petal_generation')).toEqual([]);

    // Both "replicas" are the primary's database, so they report generation 1 once checked.
    await vi.waitFor(async () => {
      ran.clear();
      await store.reads.getNode('website', '/a');
      expect(statementsOn('')).toEqual([]);
    }, { timeout: 10_000, interval: 20 });

    ran.clear();
    for (let i = 0; i < 6; i++) await store.reads.getNode('website', '/a');
    await store.reads.getNodeById('website', (await store.reads.getNode('website', '/a'))!.id);
    await store.reads.getSubtree('website', '/a', 1);
    await store.reads.getSubtrees('website', ['/a'], 1);
    await store.reads.countNodes('website');
    await store.reads.listWorkspaces();
    await store.reads.nodeTypesPresent('website');
    await store.reads.propertyKinds('website', ['title']);
    expect((await store.reads.query(all('website'))).total).toBe(2);
    expect(statementsOn('')).toEqual([]); // nothing on the primary
    const byPath = (app: string) => statementsOn(app).filter((s) => s === 'petal_by_path').length;
    expect(byPath('r1') + byPath('r2')).toBe(7);
    expect(Math.abs(byPath('r1') - byPath('r2'))).toBeLessThanOrEqual(1); // round robin
    const onReplicas = new Set([...statementsOn('r1'), ...statementsOn('r2')]);
    for (const name of ['petal_by_id', 'petal_subtree', 'petal_subtrees', 'petal_count_ws', 'petal_workspaces', 'petal_types', 'petal_kinds', 'petal_nodes_by_nid']) {
      expect(onReplicas).toContain(name);
    }
    // The node table is read in pages from a cursor (cursor-reads.ts), on a replica too.
    expect([...onReplicas].some((l) => l.startsWith('DECLARE') && l.includes('FROM nodes WHERE workspace'))).toBe(true);
    // With the listener connected, the query index takes the announced generation: no round trip for it.
    expect(store.generationHint()).toBe(1);
  });

  it('reads from the primary while a replica lags behind this instance’s write, then from the replica', async () => {
    const primarySchema = newSchema();
    const laggingSchema = newSchema();
    // The lagging replica: another schema of the same database, written through its own store.
    const lagging = await open(new PostgresStore({ url, schema: laggingSchema }));
    const v1 = [document('website', '/', [draft('page', { properties: title('one') })])];
    await importDocuments(lagging, v1, NEW); // the replica holds version one, generation 1
    const store = await open(new PostgresStore({
      url, schema: primarySchema,
      replicas: [withParams({ application_name: 'lagging', options: `-c search_path=${laggingSchema}` })],
    }));
    const read = async () => (await store.reads.getNode('website', '/page'))?.properties;

    // Generation 0 on the primary, 1 on the replica: the replica serves (what it holds).
    expect(await read()).toEqual(title('one'));
    expect(statementsOn('lagging')).toContain('petal_by_path');

    // Two writes here: generation 2 on the primary, the replica still at 1.
    await importDocuments(store, v1, NEW);
    await importDocuments(store, [document('website', '/', [draft('page', { properties: title('two') })])], NEW);
    expect(await store.generation()).toBe(2);
    ran.clear();
    for (let i = 0; i < 5; i++) {
      expect(await read()).toEqual(title('two')); // never older than what this instance wrote
      expect((await store.reads.query(all('website'))).nodes.map((n) => n.properties)).toEqual([title('two')]);
      await new Promise((r) => setTimeout(r, 60)); // lets the replica be checked again (every 100 ms)
    }
    expect(statementsOn('lagging').filter((s) => s !== 'petal_generation')).toEqual([]);
    expect(statementsOn('lagging')).toContain('petal_generation'); // it was asked, and still lagged

    // The replica catches up (generation 2, same content): reads go back to it.
    await importDocuments(lagging, [document('website', '/', [draft('page', { properties: title('two') })])], NEW);
    await vi.waitFor(async () => {
      ran.clear();
      expect(await read()).toEqual(title('two'));
      expect(statementsOn('lagging')).toContain('petal_by_path');
    }, { timeout: 10_000, interval: 20 });
  });

  it('another instance’s announced write also keeps reads on the primary until the replica has it', async () => {
    const primarySchema = newSchema();
    const laggingSchema = newSchema();
    const lagging = await open(new PostgresStore({ url, schema: laggingSchema }));
    const store = await open(new PostgresStore({
      url, schema: primarySchema,
      replicas: [withParams({ application_name: 'lagging', options: `-c search_path=${laggingSchema}` })],
    }));
    const other = await open(new PostgresStore({ url, schema: primarySchema }));
    expect(await store.reads.getNode('website', '/page')).toBeUndefined();
    await importDocuments(other, [document('website', '/', [draft('page')])], NEW);
    await vi.waitFor(() => expect(store.generationHint()).toBe(1), { timeout: 4_000, interval: 5 });
    ran.clear();
    expect((await store.reads.getNode('website', '/page'))?.name).toBe('page');
    expect((await store.reads.query(all('website'))).total).toBe(1);
    expect(statementsOn('lagging').filter((s) => s !== 'petal_generation')).toEqual([]);
    expect(lagging.generationHint()).toBe(0);
  });

  it('an unreachable replica: reads fall back to the primary', async () => {
    const schema = newSchema();
    const store = await open(new PostgresStore({ url, schema, replicas: ['postgres://postgres@127.0.0.1:1/nothing'] }));
    await importDocuments(store, [document('website', '/', [draft('a')])], NEW);
    await new Promise((r) => setTimeout(r, 150));
    expect((await store.reads.getNode('website', '/a'))?.name).toBe('a');
    expect(await store.reads.countNodes()).toBe(1);
  });
});
