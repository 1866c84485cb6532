// Issue 18 point 3, through HTTP on SQLite (and PostgreSQL with PETAL_TEST_PG): every committed change
// (a Nodes API write, move and delete, an import, a publish and an unpublish) is purged at the Fastly,
// Cloudflare and http targets (local servers) with exactly the keys `changeKeys` gives for the change
// events it recorded: the expected set is computed from the events themselves.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changeKeys, nodeKey } from '../../src/repository/dependencies.js';
import { importPaths } from '../../src/ingest/run-import.js';
import { Purger } from '../../src/notify/purger.js';
import { ChangeFollower } from '../../src/repository/change-follower.js';
import { purgeSenders } from '../../src/notify/purge-targets.js';
import { PostgresStore } from '../../src/store/postgres/store.js';
import { publishedWorkspace } from '../../src/model/workspaces.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { basic, hashOf } from '../security-http/helpers.js';
import { allKeys, startReceiver, type PurgeReceiver } from './purge-receiver.js';

const PW = 'h-purge-password';
const BOSS = { authorization: basic('boss', PW) };
const WEBSITE = `
'travel':
  'jcr:primaryType': 'mgnl:page'
  'jcr:uuid': '72000000-0000-4000-8000-000000000001'
  'title': 'Home'
  'a':
    'jcr:primaryType': 'mgnl:page'
    'jcr:uuid': '72000000-0000-4000-8000-00000000000a'
    'title': 'A'
  'b':
    'jcr:primaryType': 'mgnl:page'
    'jcr:uuid': '72000000-0000-4000-8000-00000000000b'
    'title': 'B'
`;

let t: TestApp;
let receivers: PurgeReceiver[];
let purger: Purger;
let changes: ChangeFollower;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'h-purge-changes-'));
  t = await createTestApp({
    definitions: { 'delivery/pages.yaml': '$type: jcrDeliveryEndpoint_v2\nworkspace: website\ndepth: 1\n' },
    content: { 'website.travel.yaml': WEBSITE },
    security: { users: { boss: { passwordHash: await hashOf(PW), roles: ['superuser'] } } },
    publishing: { previewContextPath: '/preview', previewRoles: ['superuser'] },
  });
  receivers = await Promise.all([startReceiver(), startReceiver(), startReceiver()]);
  const [fastly, cloudflare, hook] = receivers as [PurgeReceiver, PurgeReceiver, PurgeReceiver];
  const senders = purgeSenders([
    { type: 'fastly', serviceId: 'S', tokenEnv: 'T1', baseUrl: fastly.url },
    { type: 'cloudflare', zoneId: 'Z', tokenEnv: 'T2', baseUrl: cloudflare.url },
    { type: 'http', url: hook.url, secretEnv: 'T3' },
  ], { T1: 'a', T2: 'b', T3: 'c' });
  const store = t.store;
  changes = new ChangeFollower(store, {
    pollMs: 20, ...(store instanceof PostgresStore ? { wake: (poke: () => void) => store.onChange(poke) } : {}),
  });
  await changes.start();
  purger = new Purger(changes, senders, { log: { info: () => undefined, warn: () => undefined, error: () => undefined } });
  purger.start();
});
afterAll(async () => {
  await purger?.stop(0);
  await changes?.stop();
  await Promise.all((receivers ?? []).map((r) => r.close()));
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Runs `change`, waits for the purger, and checks every target received exactly the keys of the
 * events recorded meanwhile; returns those events' keys.
 */
async function purgedBy(change: () => Promise<void>): Promise<Set<string>> {
  const before = await t.store.changes.latest();
  const seen = receivers.map((r) => r.calls.length);
  await change();
  await purger.settle();
  const events = await t.store.changes.since(before, 1000);
  expect(events.length).toBeGreaterThan(0);
  const expected = new Set(events.flatMap((e) => [...changeKeys(e)]));
  receivers.forEach((r, i) => expect(allKeys(r.calls.slice(seen[i]))).toEqual(expected));
  return expected;
}

async function send(method: 'PUT' | 'POST' | 'DELETE', path: string, payload?: object): Promise<void> {
  const res = await t.app.inject({ method, url: `/.rest/nodes/v1/website${path}`, headers: BOSS, ...(payload !== undefined ? { payload } : {}) });
  expect(res.statusCode, res.body).toBeLessThan(300);
}

async function command(name: string, body: object): Promise<void> {
  const res = await t.app.inject({ method: 'POST', url: `/.rest/commands/v2/website/${name}`, headers: BOSS, payload: body });
  expect(res.statusCode, res.body).toBe(200);
}

describe('a committed change purges exactly the keys of its events', () => {
  it('a Nodes API write (a new node): its path, id, and its parent\'s child list', async () => {
    const keys = await purgedBy(() => send('PUT', '/travel', { name: 'c', type: 'mgnl:page' }));
    expect(keys).toContain(nodeKey('website', '/travel/c'));
  });

  it('a Nodes API rename: the old path and the new', async () => {
    const keys = await purgedBy(() => send('POST', '/travel/a?moveTo=/travel/a2'));
    expect(keys).toContain(nodeKey('website', '/travel/a'));
    expect(keys).toContain(nodeKey('website', '/travel/a2'));
  });

  it('a Nodes API delete', async () => {
    const keys = await purgedBy(() => send('DELETE', '/travel/c'));
    expect(keys).toContain(nodeKey('website', '/travel/c'));
  });

  it('an import', async () => {
    writeFileSync(join(dir, 'website.travel.yaml'), WEBSITE.replace("'title': 'B'", "'title': 'B, again'"));
    const keys = await purgedBy(async () => { await importPaths(t.store, [dir], { onUuidCollision: 'replace', publishing: true }); });
    expect(keys).toContain(nodeKey('website', '/travel/b'));
  });

  it('a publish (the published state and the working nodes\' marks) and an unpublish', async () => {
    const published = await purgedBy(() => command('activate', { repository: 'website', path: '/travel', recursive: true }));
    expect(published).toContain(nodeKey(publishedWorkspace('website'), '/travel/b'));
    const unpublished = await purgedBy(() => command('deactivate', { repository: 'website', path: '/travel/b' }));
    expect(unpublished).toContain(nodeKey(publishedWorkspace('website'), '/travel/b'));
  });
});
