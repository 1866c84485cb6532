// Issue 16 point 2 (HTTP half) and point 3 as an import needs it: POST /.rest/import/v1 through HTTP on
// the test store (SQLite, or PostgreSQL with PETAL_TEST_PG): one transaction, errors naming file and
// line, 401/403 by URI rule and by workspace permission, the body limit, CSRF, and caches after the write.
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { basic, expectErrorShape, get, hashOf, login, multipart, req, sessionCookie, tempFolder, type Res } from './helpers.js';

const PW = 'import-suite-password';
const URL_ = '/.rest/import/v1';
const HOST = 'petal.example';

function page(name: string, title: string, children = ''): string {
  return `'${name}':\n  'jcr:primaryType': 'mgnl:page'\n  'title': '${title}'\n${children}`;
}

const HOME_ID = '9a0b1c2d-3e4f-4a5b-8c6d-7e8f9a0b1c2d';
let t: TestApp;
const users = ['editor', 'nopost', 'reader', 'travel', 'admin'] as const;
const auth = (user: (typeof users)[number]) => ({ authorization: basic(user, PW) });

function post(files: readonly (readonly [string, string])[], headers: Record<string, string> = {}, query = '', fields: Record<string, string> = {}): Promise<Res> {
  const body = multipart(files, fields);
  return req(t.app, { method: 'POST', url: `${URL_}${query}`, payload: body.payload, headers: { ...body.headers, ...headers } });
}

const read = (path: string) => get(t.app, `/.rest/delivery/pages${path}`);

beforeAll(async () => {
  const hash = await hashOf(PW);
  const importUri = [{ path: '/.rest/import/*', permission: 'getAndPost' }];
  t = await createTestApp({
    definitions: { 'delivery/pages.yaml': '$type: jcrDeliveryEndpoint_v2\nworkspace: website\ndepth: 2\n' },
    content: {
      'website.home.yaml': `'home':\n  'jcr:primaryType': 'mgnl:page'\n  'jcr:uuid': '${HOME_ID}'\n  'title': 'Home'\n`,
      'website.travel.yaml': page('travel', 'Travel', `  'about':\n    'jcr:primaryType': 'mgnl:page'\n    'title': 'About'\n  'secret':\n    'jcr:primaryType': 'mgnl:page'\n    'title': 'Secret'\n`),
    },
    importMaxBytes: 4096,
    security: {
      folder: tempFolder(),
      roles: {
        anonymous: {
          uriPermissions: [{ path: '/.rest/delivery/*', permission: 'get' }],
          workspacePermissions: { website: [{ path: '/', permission: 'read' }, { path: '/*', permission: 'read' }] },
        },
        editor: { uriPermissions: importUri, workspacePermissions: { website: [{ path: '/', permission: 'read' }, { path: '/*', permission: 'readWrite' }] } },
        reader: { uriPermissions: importUri, workspacePermissions: { website: [{ path: '/', permission: 'read' }, { path: '/*', permission: 'read' }] } },
        'travel-editor': {
          uriPermissions: importUri,
          workspacePermissions: {
            website: [
              { path: '/', permission: 'read' }, { path: '/*', permission: 'read' },
              { path: '/travel', permission: 'readWrite' }, { path: '/travel/*', permission: 'readWrite' },
              { path: '/travel/secret', permission: 'deny' }, { path: '/travel/secret/*', permission: 'deny' },
              { path: '/travel/vault', permission: 'deny' }, { path: '/travel/vault/*', permission: 'deny' },
              { path: '/zone/*', permission: 'readWrite' },
            ],
          },
        },
      },
      users: {
        editor: { passwordHash: hash, roles: ['editor'] },
        nopost: { passwordHash: hash, roles: [] },
        reader: { passwordHash: hash, roles: ['reader'] },
        travel: { passwordHash: hash, roles: ['travel-editor'] },
        admin: { passwordHash: hash, roles: ['superuser'] },
      },
    },
  });
});
afterAll(async () => {
  await t?.close();
});

describe('import over HTTP', () => {
  it('imports a file, and the (cached) delivery answer shows it at once', async () => {
    const before = await read('/travel/about');
    expect(before.body.title).toBe('About');
    const hits = t.app.responseCache!.stats().hits;
    expect((await read('/travel/about')).body.title).toBe('About');
    expect(t.app.responseCache!.stats().hits, 'the second read is a cached answer').toBe(hits + 1);
    const res = await post([['website.travel.about.yaml', page('about', 'About us')]], auth('editor'));
    expect(res.status, res.raw).toBe(200);
    expect(res.body).toMatchObject({ files: 1, nodes: 1, roots: [{ workspace: 'website', path: '/travel/about' }] });
    expect((await read('/travel/about')).body.title).toBe('About us');
    const changes = await t.store.changes.since(0, 1000);
    expect(changes.at(-1)).toMatchObject({ workspace: 'website', kind: 'import', by: 'editor' });
  });

  it('writes two files in one transaction: a broken second file leaves the first unwritten (400 naming file and line)', async () => {
    const res = await post([
      ['website.travel.one.yaml', page('one', 'One')],
      ['website.travel.two.yaml', "'two':\n  'title': 'Two'\n  'bad': [unclosed\n"],
    ], auth('editor'));
    expectErrorShape(res, 400, 'invalidImport');
    expect(res.body.error.message).toMatch(/^website\.travel\.two\.yaml:\d+: /);
    expect((await read('/travel/one')).status).toBe(404);
  });

  it('refuses a conflicting UUID under onUuidCollision=fail (409 naming the file), and a bad policy (400 naming it)', async () => {
    const id = '0f5c2d4e-1111-4222-8333-444455556666';
    const first = await post([['website.travel.u1.yaml', `'u1':\n  'jcr:uuid': '${id}'\n`]], auth('editor'));
    expect(first.status, first.raw).toBe(200);
    const res = await post([['website.travel.u2.yaml', `'u2':\n  'jcr:uuid': '${id}'\n`]], auth('editor'), '?onUuidCollision=fail');
    expectErrorShape(res, 409, 'importConflict');
    expect(res.body.error.message).toMatch(/^website\.travel\.u2\.yaml/);
    // The holder's path is not told: the caller may not be allowed to read it.
    expect(res.body.error.message).toContain('cannot be used: it is taken or reserved');
    expect(res.body.error.message).not.toContain('/travel/u1');
    expect((await read('/travel/u2')).status).toBe(404);
    const bad = await post([['website.travel.u3.yaml', page('u3', 'x')]], auth('editor'), '?onUuidCollision=maybe');
    expectErrorShape(bad, 400, 'invalidParameter');
    expect(bad.body.error.message).toContain('onUuidCollision');
  });

  it('refuses bad file names (400 naming the file), and a request that is not multipart (415)', async () => {
    for (const name of ['website..x.yaml', 'notes.txt', '.hidden.yaml']) {
      const res = await post([[name, page('x', 'x')]], auth('editor'));
      expectErrorShape(res, 400, 'invalidImport', name);
      expect(res.body.error.message, name).toContain(name);
    }
    const res = await req(t.app, { method: 'POST', url: URL_, payload: '{}', headers: { 'content-type': 'application/json', ...auth('editor') } });
    expectErrorShape(res, 415, 'unsupportedMediaType');
  });

  it('answers 413 beyond limits.importMaxBytes, with or without Content-Length, and writes nothing', async () => {
    const big = page('big', 'x'.repeat(5000));
    expectErrorShape(await post([['website.travel.big.yaml', big]], auth('editor')), 413, 'payloadTooLarge');
    // Streamed without Content-Length: three files, each under the limit, together over it.
    const parts = ['big1', 'big2', 'big3'].map((n) => [`website.travel.${n}.yaml`, page(n, 'x'.repeat(1500))] as const);
    const body = multipart(parts);
    const chunked = await req(t.app, {
      method: 'POST', url: URL_, headers: { ...body.headers, ...auth('editor') }, payload: Readable.from([body.payload]),
    });
    expectErrorShape(chunked, 413, 'payloadTooLarge', 'streamed');
    expect(chunked.body.error.message).toContain('limits.importMaxBytes');
    for (const path of ['/travel/big', '/travel/big1']) expect((await read(path)).status, path).toBe(404);
  });
});

describe('the number of files', () => {
  it('refuses more than 1000 files in one import (413; empty files, under the byte limit) and writes none of them', async () => {
    const files = Array.from({ length: 1001 }, (_, i) => [`website.travel.f${i}.yaml`, ''] as const);
    const body = multipart(files);
    const res = await req(t.app, { method: 'POST', url: URL_, headers: { ...body.headers, ...auth('editor') }, payload: Readable.from([body.payload]) });
    expectErrorShape(res, 413, 'payloadTooLarge');
    expect(res.body.error.message).toContain('1000 files');
    expect((await read('/travel/f0')).status).toBe(404);
  });
});

describe('authorization of an import', () => {
  const file = [['website.travel.auth.yaml', page('auth', 'Auth')]] as const;

  it('answers 401 to anonymous callers and 403 to a user without getAndPost on the URL', async () => {
    expectErrorShape(await post(file), 401, 'notAuthorized');
    expectErrorShape(await post(file, auth('nopost')), 403, 'accessDenied');
  });

  it('answers 403 to a user with getAndPost but only read on the workspace, and writes nothing', async () => {
    const res = await post(file, auth('reader'));
    expectErrorShape(res, 403, 'accessDenied');
    expect((await read('/travel/auth')).status).toBe(404);
  });

  it('refuses a replace whose subtree holds a node the caller may not write, and a path outside the grant', async () => {
    // readWrite on /travel and below, but a deny at /travel/secret: replacing /travel would remove it.
    const whole = await post([['website.travel.yaml', page('travel', 'Mine')]], auth('travel'));
    expectErrorShape(whole, 403, 'accessDenied');
    expect((await read('/travel')).body.title).toBe('Travel');
    // A hidden node answers as a missing one under the same rules does (/travel/vault does not exist).
    const hidden = await post([['website.travel.secret.child.yaml', page('child', 'x')]], auth('travel'));
    const missing = await post([['website.travel.vault.child.yaml', page('child', 'x')]], auth('travel'));
    expectErrorShape(hidden, 403, 'accessDenied');
    expectErrorShape(missing, 403, 'accessDenied');
    expect(hidden.body.error.message.replace('secret', 'vault')).toBe(missing.body.error.message);
    const outside = await post([['website.elsewhere.yaml', page('elsewhere', 'x')]], auth('travel'));
    expectErrorShape(outside, 403, 'accessDenied');
    // Where the grant holds, the same user writes.
    const ok = await post([['website.travel.mine.yaml', page('mine', 'Mine')]], auth('travel'));
    expect(ok.status, ok.raw).toBe(200);
    expect((await read('/travel/mine')).body.title).toBe('Mine');
  });

  it('refuses, inside the transaction, to remove a UUID holder or create a parent folder the caller may not write', async () => {
    // onUuidCollision=replace would remove /home (outside the grant) with its subtree.
    const stolen = await post([['website.travel.stolen.yaml', `'stolen':\n  'jcr:uuid': '${HOME_ID}'\n`]], auth('travel'), '?onUuidCollision=replace');
    expectErrorShape(stolen, 403, 'accessDenied');
    expect((await read('/home')).body.title).toBe('Home');
    expect((await read('/travel/stolen')).status).toBe(404);
    // readWrite on /zone/* but not on /zone itself, which is missing and would be created as a folder.
    const deep = await post([['website.zone.a.b.yaml', page('b', 'B')]], auth('travel'));
    expectErrorShape(deep, 403, 'accessDenied');
    expect(deep.body.error.message).toContain('website:/zone');
    expect((await read('/zone')).status).toBe(404);
  });

  it('lets superuser import', async () => {
    const res = await post([['website.travel.admin.yaml', page('admin', 'Admin')]], auth('admin'));
    expect(res.status, res.raw).toBe(200);
  });

  it('refuses a cookie-authenticated import from a foreign Origin, and takes it from the same origin', async () => {
    const id = await login(t.app, 'editor', PW);
    const foreign = await post([['website.travel.csrf.yaml', page('csrf', 'x')]], { ...sessionCookie(id), host: HOST, origin: 'https://evil.example' });
    expectErrorShape(foreign, 403, 'accessDenied');
    expect((await read('/travel/csrf')).status).toBe(404);
    const same = await post([['website.travel.csrf.yaml', page('csrf', 'x')]], { ...sessionCookie(id), host: HOST, origin: `http://${HOST}` });
    expect(same.status, same.raw).toBe(200);
  });
});
