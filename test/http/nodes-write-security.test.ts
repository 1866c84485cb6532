// Issue 16 point 3 for the Nodes API writes: 401 anonymous, 403 by URI rule (built-in roles other than
// superuser never write), 403 by workspace permission, hidden nodes answer exactly as missing ones (404)
// also for writes, CSRF for session callers, and the README's `editor` role at work.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { basic, expectErrorShape, get, hashOf, login, req, sessionCookie, stableHeaders, tempFolder, type Res } from '../security-http/helpers.js';

const PW = 'nodes-write-security-password';
const API = '/.rest/nodes/v1/website';
const HOST = 'petal.example';

const OPEN_ID = '72000000-0000-4000-8000-0000000000a1';
const SECRET_ID = '72000000-0000-4000-8000-0000000000a2';
const ROOT_ID = 'cafebabe-cafe-babe-cafe-babecafebabe';
const WEBSITE = `
'travel':
  'jcr:primaryType': 'mgnl:page'
  'title': 'Home'
  'open':
    'jcr:primaryType': 'mgnl:page'
    'jcr:uuid': '${OPEN_ID}'
    'locked':
      'jcr:primaryType': 'mgnl:page'
  'secret':
    'jcr:primaryType': 'mgnl:page'
    'jcr:uuid': '${SECRET_ID}'
    'title': 'TOP-SECRET'
`;
const OTHER = `'other':
  'jcr:primaryType': 'mgnl:page'
`;

const rw = (path: string) => ({ path, permission: 'readWrite' });
const read = (path: string) => ({ path, permission: 'read' });
const deny = (path: string) => ({ path, permission: 'deny' });
/** The `editor` role of README.md ("Writing content"). */
const EDITOR_ROLE = {
  uriPermissions: [{ path: '/.rest/nodes/*', permission: 'getAndPost' }, { path: '/.rest/delivery/*', permission: 'get' }],
  workspacePermissions: { website: [rw('/'), rw('/*')] },
};

let t: TestApp;
type User = 'editor' | 'travel' | 'reader' | 'builtin' | 'getter';
const auth = (user: User) => ({ authorization: basic(user, PW) });

beforeAll(async () => {
  const hash = await hashOf(PW);
  t = await createTestApp({
    content: { 'website.travel.yaml': WEBSITE, 'website.other.yaml': OTHER },
    security: {
      folder: tempFolder(),
      roles: {
        editor: EDITOR_ROLE,
        'travel-editor': {
          uriPermissions: [{ path: '/.rest/nodes/*', permission: 'getAndPost' }],
          workspacePermissions: {
            website: [read('/'), read('/*'), rw('/travel'), rw('/travel/*'), read('/travel/open/locked'), deny('/travel/secret'), deny('/travel/secret/*'), deny('/travel/vault'), deny('/travel/vault/*')],
          },
        },
        reader: { uriPermissions: [{ path: '/.rest/nodes/*', permission: 'getAndPost' }], workspacePermissions: { website: [read('/'), read('/*')] } },
        getter: { uriPermissions: [{ path: '/.rest/nodes/*', permission: 'get' }], workspacePermissions: { website: [rw('/'), rw('/*')] } },
      },
      users: {
        editor: { passwordHash: hash, roles: ['editor'] },
        travel: { passwordHash: hash, roles: ['travel-editor'] },
        reader: { passwordHash: hash, roles: ['reader'] },
        getter: { passwordHash: hash, roles: ['getter'] },
        builtin: { passwordHash: hash, roles: ['anonymous', 'rest-anonymous'] },
      },
    },
  });
});
afterAll(async () => t?.close());

const send = (method: 'PUT' | 'POST' | 'DELETE', path: string, headers: Record<string, string>, body?: unknown): Promise<Res> =>
  req(t.app, { method, url: `${API}${path}`, headers, ...(body !== undefined ? { payload: body as object } : {}) });
async function snapshot() {
  return { latest: await t.store.changes.latest(), nodes: await t.store.reads.countNodes() };
}

describe('URI permissions', () => {
  it('anonymous: 401; a role without getAndPost (built-in ones included): 403; nothing written', async () => {
    const s = await snapshot();
    expectErrorShape(await send('PUT', '/travel', {}, { name: 'x' }), 401, 'notAuthorized');
    expectErrorShape(await send('DELETE', '/travel', {}), 401, 'notAuthorized');
    for (const user of ['builtin', 'getter'] as const) {
      expectErrorShape(await send('PUT', '/travel', auth(user), { name: 'x' }), 403, 'accessDenied', user);
      expectErrorShape(await send('POST', '/travel', auth(user), { name: 'travel' }), 403, 'accessDenied', user);
      expectErrorShape(await send('DELETE', '/travel/open', auth(user)), 403, 'accessDenied', user);
    }
    expect(await snapshot()).toEqual(s);
  });
});

describe('workspace permissions', () => {
  it('the README editor role creates, updates, moves and deletes', async () => {
    expect((await send('PUT', '/', auth('editor'), { name: 'top', type: 'mgnl:page' })).status).toBe(200);
    expect((await send('POST', '/top', auth('editor'), { name: 'top', properties: [{ name: 'title', type: 'String', multiple: false, values: ['T'] }] })).status).toBe(200);
    expect((await send('POST', '/top?moveTo=/other/top', auth('editor'))).status).toBe(200);
    expect((await send('DELETE', '/other/top', auth('editor'))).status).toBe(200);
  });

  it('readable but not writable: 403 accessDenied, nothing written', async () => {
    const s = await snapshot();
    expectErrorShape(await send('PUT', '/other', auth('travel'), { name: 'x' }), 403, 'accessDenied');
    expectErrorShape(await send('POST', '/travel', auth('reader'), { name: 'travel' }), 403, 'accessDenied');
    expectErrorShape(await send('DELETE', '/travel/open', auth('reader')), 403, 'accessDenied');
    // Delete and move need the whole subtree: /travel/open/locked is read-only.
    expectErrorShape(await send('DELETE', '/travel/open', auth('travel')), 403, 'accessDenied');
    expectErrorShape(await send('POST', '/travel/open?moveTo=/travel/moved', auth('travel')), 403, 'accessDenied');
    // Moving out of the writable part, or into a read-only parent.
    await send('PUT', '/travel', auth('travel'), { name: 'mine' });
    expectErrorShape(await send('POST', '/travel/mine?moveTo=/other/mine', auth('travel')), 403, 'accessDenied');
    await send('DELETE', '/travel/mine', auth('travel'));
    expect(await snapshot()).toMatchObject({ nodes: s.nodes });
  });

  it('a hidden node is answered exactly as a missing one (404), for every write', async () => {
    const s = await snapshot();
    const pairs: [string, string, unknown][] = [
      ['POST', '/travel/secret', { name: 'secret', properties: [] }],
      ['DELETE', '/travel/secret', undefined],
      ['PUT', '/travel/secret', { name: 'child' }],
      ['POST', '/travel/secret?moveTo=/travel/leak', undefined],
    ];
    for (const [method, path, body] of pairs) {
      const hidden = await send(method as 'POST', path, auth('travel'), body);
      const missing = await send(method as 'POST', path.replace('secret', 'absent'), auth('travel'), body);
      expectErrorShape(hidden, 404, 'pathNotFound', `${method} ${path}`);
      expect(hidden.raw.replace('secret', 'absent')).toBe(missing.raw);
      expect(stableHeaders(hidden)).toEqual(stableHeaders(missing));
    }
    // Creating a child named as a hidden sibling: refused by the rules alone, as for a name that does not exist.
    const onHidden = await send('PUT', '/travel', auth('travel'), { name: 'secret' });
    const onNone = await send('PUT', '/travel', auth('travel'), { name: 'vault' });
    expectErrorShape(onHidden, 403, 'accessDenied');
    expect(onHidden.raw.replace('secret', 'vault')).toBe(onNone.raw);
    expect(await snapshot()).toEqual(s);
    expect((await get(t.app, `${API}/travel/secret`, auth('editor'))).body.properties[0].values).toEqual(['TOP-SECRET']);
  });
});

describe('caller-chosen identifiers', () => {
  it('a UUID held by a hidden node is refused exactly as one held by a readable node or the root\'s (409, the holder never told)', async () => {
    const s = await snapshot();
    const answers: string[] = [];
    for (const id of [SECRET_ID, OPEN_ID, ROOT_ID]) {
      const res = await send('PUT', '/travel', auth('travel'), { name: 'twin', identifier: id });
      expectErrorShape(res, 409, 'identifierInUse', id);
      expect(res.raw).not.toMatch(/secret|open|belongs/);
      answers.push(res.raw.replace(id, '<id>'));
      // In a child of the body, or as jcr:uuid: the same answer, naming the field.
      const deep = await send('PUT', '/travel', auth('travel'), { name: 'twin', nodes: [{ name: 'c', properties: [{ name: 'jcr:uuid', type: 'String', values: [id] }] }] });
      expectErrorShape(deep, 409, 'identifierInUse', id);
      expect(deep.body.error.message).toBe(res.body.error.message.replace('identifier', 'nodes[0].identifier'));
    }
    expect(new Set(answers).size, answers.join('\n')).toBe(1);
    expect(await snapshot()).toEqual(s);
    const fresh = await send('PUT', '/travel', auth('travel'), { name: 'twin', identifier: '72000000-0000-4000-8000-0000000000a3' });
    expect(fresh.body.identifier, fresh.raw).toBe('72000000-0000-4000-8000-0000000000a3');
    expect((await send('DELETE', '/travel/twin', auth('travel'))).status).toBe(200);
  });
});

describe('CSRF', () => {
  it('a session write must come from the server origin or cors.origins', async () => {
    const session = await login(t.app, 'editor', PW);
    const cross = await send('PUT', '/travel', { ...sessionCookie(session), host: HOST, origin: 'https://evil.example' }, { name: 'csrf' });
    expectErrorShape(cross, 403, 'accessDenied');
    expect((await get(t.app, `${API}/travel/csrf`, auth('editor'))).status).toBe(404);
    const same = await send('PUT', '/travel', { ...sessionCookie(session), host: HOST, origin: `http://${HOST}` }, { name: 'csrf' });
    expect(same.status, same.raw).toBe(200);
    expect((await send('DELETE', '/travel/csrf', { ...sessionCookie(session), 'sec-fetch-site': 'same-origin' })).status).toBe(200);
  });
});
