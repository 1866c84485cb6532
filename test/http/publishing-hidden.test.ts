// Issue 28 point 3 through HTTP (SQLite, and PostgreSQL with PETAL_TEST_PG): publishing is no
// existence oracle. An editor who may not read /shop/secret gets byte-identical answers from two
// servers that differ only in whether /shop/secret exists: recursive activate and deactivate (403
// naming /shop), the hidden node itself (404), schedules (202 or 403), the schedules list and the
// DELETE of another's schedule. A non-recursive activate publishes what the editor can see, and
// leaves what is hidden, published or not, as it is.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, getJson, type TestApp } from '../helpers/test-app.js';
import { basic, hashOf, tempFolder } from '../security-http/helpers.js';

const PW = 'publishing-hidden-password';
const PAGES = '$type: jcrDeliveryEndpoint_v2\nworkspace: website\ndepth: 3\n';
const SHOP = `
'shop':
  'jcr:primaryType': 'mgnl:page'
  'title': 'Shop'
  'main':
    'jcr:primaryType': 'mgnl:area'
    '0':
      'jcr:primaryType': 'mgnl:component'
      'text': 'Welcome'
`;
const SECRET = `  'secret':
    'jcr:primaryType': 'mgnl:area'
    '0':
      'jcr:primaryType': 'mgnl:component'
      'text': 'Launch price 1 euro'
`;
const rule = (path: string, permission: string) => ({ path, permission });
const ed = { authorization: basic('ed', PW) };
const boss = { authorization: basic('boss', PW) };
const PUBLIC = '/.rest/delivery/pages/v1';
/** About a month ahead: within publishing.scheduleHorizonDays. */
const SOON = new Date(Date.now() + 30 * 86_400_000).toISOString();

async function site(withSecret: boolean): Promise<TestApp> {
  const hash = await hashOf(PW);
  return createTestApp({
    definitions: { 'delivery/pages_v1.yaml': PAGES },
    content: { 'website.shop.yaml': withSecret ? SHOP + SECRET : SHOP },
    publishing: { previewContextPath: '/preview', previewRoles: ['shop-editor', 'boss'] },
    security: {
      folder: tempFolder(),
      roles: {
        'rest-anonymous': { uriPermissions: [{ path: '/.rest/delivery/*', permission: 'get' }] },
        anonymous: { workspacePermissions: { website: [rule('/', 'read'), rule('/*', 'read')] } },
        // The shop, but for its secret area, which the editor may not even read.
        'shop-editor': {
          uriPermissions: [{ path: '/*', permission: 'getAndPost' }],
          workspacePermissions: { website: [rule('/shop', 'readWrite'), rule('/shop/*', 'readWrite'), rule('/shop/secret', 'deny'), rule('/shop/secret/*', 'deny')] },
        },
        boss: { uriPermissions: [{ path: '/*', permission: 'getAndPost' }], workspacePermissions: { website: [rule('/', 'readWrite'), rule('/*', 'readWrite')] } },
      },
      users: { ed: { passwordHash: hash, roles: ['shop-editor'] }, boss: { passwordHash: hash, roles: ['boss'] } },
    },
  });
}

/** An answer as the client sees it: status, type and body, byte for byte. */
interface Answer { readonly status: number; readonly type: unknown; readonly body: string }

async function send(t: TestApp, method: 'GET' | 'POST' | 'DELETE', url: string, headers: Record<string, string>, payload?: object): Promise<Answer> {
  const res = await t.app.inject({ method, url, headers, ...(payload !== undefined ? { payload } : {}) });
  return { status: res.statusCode, type: res.headers['content-type'], body: res.payload };
}
const command = (t: TestApp, name: string, body: object, who = ed) => send(t, 'POST', `/.rest/commands/v2/${name}`, who, { repository: 'website', ...body });

let hidden: TestApp;
let none: TestApp;
beforeAll(async () => {
  [hidden, none] = await Promise.all([site(true), site(false)]);
});
afterAll(async () => {
  await hidden?.close();
  await none?.close();
});

/** The same request to both servers: the answers, which must be the same. */
async function both(request: (t: TestApp) => Promise<Answer>): Promise<Answer> {
  const [a, b] = [await request(hidden), await request(none)];
  expect(a).toEqual(b);
  expect(a.body).not.toMatch(/secret/i);
  return a;
}

describe('a node the caller may not read, when publishing', () => {
  it('refuses a recursive activate, a deactivate and their schedules identically (403 naming only the node asked for)', async () => {
    const recursive = await both((t) => command(t, 'activate', { path: '/shop', recursive: true }));
    expect(recursive.status).toBe(403);
    expect(JSON.parse(recursive.body).error.message).toBe('You may not publish or unpublish website:/shop');
    expect((await both((t) => command(t, 'deactivate', { path: '/shop' }))).status).toBe(403);
    expect((await both((t) => command(t, 'activate', { path: '/shop', recursive: true, publicationDate: SOON }))).status).toBe(403);
    expect((await both((t) => command(t, 'deactivate', { path: '/shop', publicationDate: SOON }))).status).toBe(403);
  });

  it('answers for the hidden node itself as for no node (404), now and scheduled', async () => {
    for (const [name, body] of [
      ['activate', { path: '/shop/secret' }], ['activate', { path: '/shop/secret', recursive: true }], ['deactivate', { path: '/shop/secret' }],
      ['activate', { path: '/shop/secret', publicationDate: SOON }], ['deactivate', { path: '/shop/secret', publicationDate: SOON }],
    ] as const) {
      const [a, b] = [await command(hidden, name, body), await command(none, name, body)];
      expect(a, JSON.stringify(body)).toEqual(b);
      expect(a.status).toBe(404);
    }
  });

  it('publishes what the caller can see without recursive, the same answer either way; the hidden area stays unpublished', async () => {
    const done = await both((t) => command(t, 'activate', { path: '/shop' }));
    expect(done.status).toBe(200);
    expect(JSON.parse(done.body)).toMatchObject({ nodes: 3, version: '1.0' });
    expect((await getJson(hidden.app, `${PUBLIC}/shop/main/0`)).status).toBe(200);
    expect((await getJson(hidden.app, `${PUBLIC}/shop/secret`)).status).toBe(404);
    expect((await getJson(hidden.app, `${PUBLIC}/shop/secret/0`)).status).toBe(404);
    // Scheduled the same way: stored, the same schedule but for its id and instant of storing.
    const strip = (a: Answer) => ({ ...a, body: JSON.parse(a.body, (k, v: unknown) => (k === 'id' || k === 'created' ? undefined : v)) as unknown });
    const [a, b] = [await command(hidden, 'activate', { path: '/shop', publicationDate: SOON }), await command(none, 'activate', { path: '/shop', publicationDate: SOON })];
    expect(a.status).toBe(202);
    expect(strip(a)).toEqual(strip(b));
    for (const [t, answer] of [[hidden, a], [none, b]] as const) {
      const id = JSON.parse(answer.body).schedule.id as string;
      expect((await send(t, 'DELETE', `/.rest/commands/v2/schedules/${id}`, ed)).status).toBe(200);
    }
  });

  it('leaves the hidden area published by another as it is when the caller publishes the page again', async () => {
    for (const t of [hidden, none]) expect((await command(t, 'activate', { path: '/shop' }, boss)).status).toBe(200);
    expect((await getJson(hidden.app, `${PUBLIC}/shop/secret/0`)).body.text).toBe('Launch price 1 euro');
    const again = await both((t) => command(t, 'activate', { path: '/shop' }));
    expect(JSON.parse(again.body)).toMatchObject({ nodes: 3, version: '1.2' });
    expect((await getJson(hidden.app, `${PUBLIC}/shop/secret/0`)).body.text).toBe('Launch price 1 euro');
    expect((await getJson(hidden.app, `${PUBLIC}/shop/main/0`)).status).toBe(200);
  });

  it('hides another\'s schedule of the hidden node: the list and its DELETE answer as without it', async () => {
    const theirs = await command(hidden, 'activate', { path: '/shop/secret', publicationDate: SOON }, boss);
    expect(theirs.status).toBe(202);
    const id = JSON.parse(theirs.body).schedule.id as string;
    const list = await both((t) => send(t, 'GET', '/.rest/commands/v2/schedules', ed));
    expect(JSON.parse(list.body)).toEqual({ schedules: [] });
    const gone = await both((t) => send(t, 'DELETE', `/.rest/commands/v2/schedules/${id}`, ed));
    expect(gone.status).toBe(404);
    // Still there for its author.
    expect(JSON.parse((await send(hidden, 'GET', '/.rest/commands/v2/schedules', boss)).body).schedules.map((s: { id: string }) => s.id)).toEqual([id]);
  });
});
