// Scheduled publication against the real stores: several instances on one database run a due schedule
// exactly once (the store claims it in the transaction that carries it out), and a schedule stored
// before a restart runs after it. SQLite: instances on one file; PostgreSQL (PETAL_TEST_PG): on one
// schema. The scheduler's own rules, over an in-memory store: test/publishing/scheduler.test.ts.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { PublishScheduler, type SchedulerLog } from '../../src/publishing/scheduler.js';
import { NodeTypeRegistry } from '../../src/repository/node-types.js';
import { takenAlongBy } from '../../src/repository/publish-rules.js';
import type { ContentStore } from '../../src/store/content-store.js';
import { publishingStore } from '../../src/publishing/publisher.js';
import { PostgresStore } from '../../src/store/postgres/store.js';
import { publishedWorkspace } from '../../src/model/workspaces.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import { NEW, document, draft } from '../conformance/drafts.js';
import { importDocuments } from '../../src/repository/writes.js';

const DUE = '2026-06-01T12:00:00.000Z';
const AFTER_DUE = new Date('2026-06-01T12:00:05.000Z');

interface Backend {
  readonly name: string;
  /** A new instance on the same database each call. */
  instance(): ContentStore;
  dispose(): Promise<void>;
}

function sqlite(): Backend {
  const dir = mkdtempSync(join(tmpdir(), 'h-sched-schedules-'));
  return {
    name: 'sqlite',
    instance: () => new SqliteStore({ file: join(dir, 'petal.db') }),
    dispose: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

function postgres(url: string): Backend {
  const schema = `petal_sched_${randomBytes(6).toString('hex')}`;
  return {
    name: 'postgres',
    instance: () => new PostgresStore({ url, schema }),
    dispose: async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      } finally {
        await client.end();
      }
    },
  };
}

const silent: SchedulerLog = { info: () => undefined, warn: () => undefined, error: () => undefined };

function schedulerOf(store: ContentStore): PublishScheduler {
  // The operator's schedules (petal publish --at): no user's rights are asked for.
  const rights = { guardFor: () => { throw new Error('an operator\'s schedule asks for no rights'); } };
  return new PublishScheduler(publishingStore(store), { takenAlong: takenAlongBy(new NodeTypeRegistry()), rights, log: silent, now: () => AFTER_DUE });
}

const open: ContentStore[] = [];
async function opened(backend: Backend): Promise<ContentStore> {
  const store = backend.instance();
  await store.open();
  open.push(store);
  return store;
}

async function importTravel(store: ContentStore): Promise<void> {
  await importDocuments(store, [document('website', '/', [draft('travel', { type: 'cms:page' }, [draft('main', { type: 'cms:area' })])])], NEW);
}

const pgUrl = process.env.PETAL_TEST_PG;
const backends: [string, () => Backend][] = [['sqlite', sqlite]];
if (pgUrl !== undefined && pgUrl !== '') backends.push(['postgres', () => postgres(pgUrl)]);

describe.each(backends)('scheduled publication on %s (PETAL_TEST_PG adds postgres)', (_name, make) => {
  let backend: Backend | undefined;
  afterEach(async () => {
    for (const s of open.splice(0)) await s.close();
    await backend?.dispose();
    backend = undefined;
  });

  it('two instances polling together run a due schedule exactly once', async () => {
    backend = make();
    const a = await opened(backend);
    const b = await opened(backend);
    await importTravel(a);
    await a.schedules.add({ action: 'publish', workspace: 'website', path: '/travel', recursive: true, by: 'alice', runAs: 'operator', due: DUE });
    // PostgreSQL: the two polls race. SQLite: one after the other, since two instances in ONE process
    // cannot race (the second's busy wait for the write lock blocks the thread the first needs to
    // commit, until busy_timeout); two processes on one file do not have that problem.
    const [ra, rb] = backend.name === 'postgres'
      ? await Promise.all([schedulerOf(a).poll(), schedulerOf(b).poll()])
      : [await schedulerOf(a).poll(), await schedulerOf(b).poll()];
    expect(ra.ran + rb.ran).toBe(1);
    expect(ra.failed + rb.failed + ra.retried + rb.retried).toBe(0);
    expect(await a.schedules.list()).toEqual([]);
    expect(await b.versions.list('website', '/travel')).toHaveLength(1);
    expect((await b.reads.getSubtree(publishedWorkspace('website'), '/travel', 1)).map((n) => n.path)).toEqual(['/travel', '/travel/main']);
    // Neither runs it again.
    const again = [await schedulerOf(a).poll(), await schedulerOf(b).poll()];
    expect(again.map((r) => r.ran)).toEqual([0, 0]);
  });

  it('a schedule stored before a restart runs after it, once; one not due yet stays', async () => {
    backend = make();
    const first = await opened(backend);
    await importTravel(first);
    await first.schedules.add({ action: 'publish', workspace: 'website', path: '/travel', recursive: false, by: 'alice', runAs: 'operator', comment: 'spring', due: DUE });
    await first.close();
    open.splice(open.indexOf(first), 1);

    const restarted = await opened(backend);
    const later = await restarted.schedules.add({ action: 'unpublish', workspace: 'website', path: '/travel', recursive: false, by: 'bob', runAs: 'operator', due: '2999-01-01T00:00:00.000Z' });
    const scheduler = schedulerOf(restarted);
    expect(await scheduler.poll()).toEqual({ ran: 1, failed: 0, retried: 0 });
    expect(await scheduler.poll()).toEqual({ ran: 0, failed: 0, retried: 0 });
    expect(await restarted.reads.getNode(publishedWorkspace('website'), '/travel')).toBeDefined();
    const versions = await restarted.versions.list('website', '/travel');
    expect(versions.map((v) => [v.createdBy, v.comment])).toEqual([['alice', 'spring']]);
    expect((await restarted.schedules.list()).map((s) => s.id)).toEqual([later.id]);
  });

  it('a refused schedule (parent not published) is marked failed and stays listed, not run again', async () => {
    backend = make();
    const store = await opened(backend);
    await importTravel(store);
    const s = await store.schedules.add({ action: 'publish', workspace: 'website', path: '/travel/main', recursive: false, by: 'alice', runAs: 'operator', due: DUE });
    const scheduler = schedulerOf(store);
    expect(await scheduler.poll()).toEqual({ ran: 0, failed: 1, retried: 0 });
    expect(await scheduler.poll()).toEqual({ ran: 0, failed: 0, retried: 0 });
    const [listed] = await store.schedules.list();
    expect(listed?.id).toBe(s.id);
    expect(listed?.error).toBeTruthy();
    expect(await store.reads.getNode(publishedWorkspace('website'), '/travel/main')).toBeUndefined();
  });
});
