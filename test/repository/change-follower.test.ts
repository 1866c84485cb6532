// The change follower as the caches see it (`subscribe`, `sync`), through the store interface on SQLite
// and (with PETAL_TEST_PG) on PostgreSQL: the first sync resets, each later generation hands out the
// events committed since, a generation already synced costs nothing, and events that cannot be read (a
// failing store, a full page, a database that went back) are handed out as a reset.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { ChangeFollower, type ChangeBatch } from '../../src/repository/change-follower.js';
import { CHANGES_PAGE_MAX, type ChangeEvent } from '../../src/store/changes.js';
import type { ChangeLog, ContentStore } from '../../src/store/content-store.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import { PostgresStore } from '../../src/store/postgres/store.js';
import type { ImportDocument } from '../../src/repository/import-document.js';
import { importDocuments } from '../../src/repository/writes.js';

const pgUrl = process.env.PETAL_TEST_PG ?? '';
const schemas: string[] = [];
const stores: ContentStore[] = [];

async function openStore(kind: 'sqlite' | 'postgres'): Promise<ContentStore> {
  let store: ContentStore;
  if (kind === 'sqlite') store = new SqliteStore({ file: ':memory:' });
  else {
    const schema = `petal_feed_${randomBytes(6).toString('hex')}`;
    schemas.push(schema);
    store = new PostgresStore({ url: pgUrl, schema });
  }
  await store.open();
  stores.push(store);
  return store;
}
afterAll(async () => {
  for (const s of stores) await s.close();
  if (schemas.length === 0) return;
  const client = new pg.Client({ connectionString: pgUrl });
  await client.connect();
  for (const s of schemas) await client.query(`DROP SCHEMA IF EXISTS ${s} CASCADE`);
  await client.end();
});

function page(name: string): ImportDocument {
  return { source: 'test', workspace: 'website', parentPath: '/', blobs: [], roots: [{ name, type: 'cms:page', mixins: [], properties: [], children: [] }] };
}

function listen(feed: ChangeFollower): ChangeBatch[] {
  const seen: ChangeBatch[] = [];
  feed.subscribe((b) => seen.push(b));
  return seen;
}

/** The store, with changesSince / latestChange replaced. */
function withChanges(store: ContentStore, o: { since?: ChangeLog['since']; latest?: ChangeLog['latest'] }): ContentStore {
  const changes: ChangeLog = { since: o.since ?? store.changes.since, latest: o.latest ?? store.changes.latest };
  return new Proxy(store, {
    get(target, prop, receiver) {
      if (prop === 'changes') return changes;
      const v = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}

for (const kind of ['sqlite', 'postgres'] as const) {
  // PostgreSQL is skipped without PETAL_TEST_PG: it needs a server (.ci/run always sets it).
  describe.skipIf(kind === 'postgres' && pgUrl === '')(`change follower, the caches' view (${kind})`, () => {
    it('resets first, then hands out each change once, in order; an unchanged generation costs nothing', async () => {
      const store = await openStore(kind);
      await importDocuments(store, [page('before')], { onUuidCollision: 'new' });
      const feed = new ChangeFollower(store);
      const seen = listen(feed);
      await feed.sync(await store.generation());
      expect(seen).toEqual([{ kind: 'reset' }]);
      await importDocuments(store, [page('a')], { onUuidCollision: 'new' });
      await importDocuments(store, [page('b')], { onUuidCollision: 'new' });
      const g = await store.generation();
      await Promise.all([feed.sync(g), feed.sync(g)]);
      await feed.sync(g);
      expect(seen).toHaveLength(2);
      const batch = seen[1]!;
      const events: readonly ChangeEvent[] = batch.kind === 'events' ? batch.events : [];
      expect(events.map((e) => e.created.map((n) => n.path))).toEqual([['/a'], ['/b']]);
      expect(feed.stats()).toMatchObject({ events: 2, resets: 1, sequence: await store.changes.latest() });
    });

    it('a failure to read events is a reset, and so is the next change (the sequence is unknown until read again)', async () => {
      const store = await openStore(kind);
      let fail = false;
      const feed = new ChangeFollower(withChanges(store, {
        since: async (s, l) => { if (fail) throw new Error('store unreachable'); return store.changes.since(s, l); },
      }));
      const seen = listen(feed);
      await feed.sync(await store.generation());
      fail = true;
      await importDocuments(store, [page('a')], { onUuidCollision: 'new' });
      await feed.sync(await store.generation());
      expect(seen.map((b) => b.kind)).toEqual(['reset', 'reset']);
      fail = false;
      await importDocuments(store, [page('b')], { onUuidCollision: 'new' });
      await feed.sync(await store.generation());
      expect(seen.map((b) => b.kind)).toEqual(['reset', 'reset', 'reset']);
      await importDocuments(store, [page('c')], { onUuidCollision: 'new' });
      await feed.sync(await store.generation());
      expect(seen.map((b) => b.kind)).toEqual(['reset', 'reset', 'reset', 'events']);
    });

    it('a full page of events (a backlog) is a reset', async () => {
      const store = await openStore(kind);
      let full = false;
      const feed = new ChangeFollower(withChanges(store, {
        since: async (s, l) => {
          const events = await store.changes.since(s, l);
          return full ? Array.from({ length: CHANGES_PAGE_MAX }, () => events[0]!) : events;
        },
      }));
      const seen = listen(feed);
      await feed.sync(await store.generation());
      full = true;
      await importDocuments(store, [page('a')], { onUuidCollision: 'new' });
      await feed.sync(await store.generation());
      expect(seen.map((b) => b.kind)).toEqual(['reset', 'reset']);
    });

    it('an older generation with fewer events than were handed out (a restored database) is a reset', async () => {
      const store = await openStore(kind);
      let latest: number | undefined;
      const feed = new ChangeFollower(withChanges(store, { latest: async () => latest ?? store.changes.latest() }));
      const seen = listen(feed);
      await importDocuments(store, [page('a')], { onUuidCollision: 'new' });
      await feed.sync(await store.generation());
      const g = await store.generation();
      await feed.sync(g - 1); // an older read of the generation: nothing to do
      expect(seen.map((b) => b.kind)).toEqual(['reset']);
      latest = 0; // the database lost its events
      await feed.sync(g - 1);
      expect(seen.map((b) => b.kind)).toEqual(['reset', 'reset']);
    });
  });
}
