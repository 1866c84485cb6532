// Issue 16 point 1, the original's Properties API (`/.rest/properties/v1/{workspace}{path}`) over the
// Nodes API's read and write paths: GET, PUT/POST `?name=&value=&type=&multiple=`, DELETE; typed values
// with the parameter named in errors, maintained system properties, hidden nodes, If-Match, change events.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { basic, expectErrorShape, get, hashOf, req, type Res } from '../security-http/helpers.js';

const PW = 'properties-api-password';
const API = '/.rest/properties/v1/website';
const BOSS = { authorization: basic('boss', PW) };
const TRAVEL = { authorization: basic('travel', PW) };

const WEBSITE = `
'travel':
  'jcr:primaryType': 'mgnl:page'
  'title': 'Home'
  'keywords': ['a', 'b']
  'mgnl:created': !date '2015-05-12T11:21:08.960+02:00'
  'secret':
    'jcr:primaryType': 'mgnl:page'
    'title': 'TOP-SECRET'
`;

let t: TestApp;
beforeAll(async () => {
  const hash = await hashOf(PW);
  t = await createTestApp({
    content: { 'website.travel.yaml': WEBSITE },
    security: {
      roles: {
        'travel-editor': {
          uriPermissions: [{ path: '/.rest/properties/*', permission: 'getAndPost' }, { path: '/.rest/nodes/*', permission: 'get' }],
          workspacePermissions: { website: [{ path: '/*', permission: 'readWrite' }, { path: '/travel/secret', permission: 'deny' }] },
        },
      },
      users: { boss: { passwordHash: hash, roles: ['superuser'] }, travel: { passwordHash: hash, roles: ['travel-editor'] } },
    },
  });
});
afterAll(async () => t?.close());

const call = (method: 'PUT' | 'POST' | 'DELETE', path: string, headers: Record<string, string> = BOSS, extra: Record<string, string> = {}): Promise<Res> =>
  req(t.app, { method, url: `${API}${path}`, headers: { ...headers, ...extra } });
async function snapshot() {
  return { latest: await t.store.changes.latest(), nodes: await t.store.reads.countNodes() };
}

describe('Properties API', () => {
  it('GET answers a property in repository form; a missing or hidden one is 404', async () => {
    expect((await get(t.app, `${API}/travel/keywords`, BOSS)).body).toEqual({ name: 'keywords', type: 'String', multiple: true, values: ['a', 'b'] });
    expectErrorShape(await get(t.app, `${API}/travel/nothing`, BOSS), 404, 'pathNotFound');
    const hidden = await get(t.app, `${API}/travel/secret/title`, TRAVEL);
    const missing = await get(t.app, `${API}/travel/absent/title`, TRAVEL);
    expectErrorShape(hidden, 404, 'pathNotFound');
    expect(hidden.raw.replace('secret', 'absent')).toBe(missing.raw);
  });

  it('PUT sets a typed property (values repeated for a multi-value one); the event lists the node as changed', async () => {
    const before = await t.store.changes.latest();
    const res = await call('PUT', '/travel?name=count&value=42&type=Long', TRAVEL);
    expect(res.status, res.raw).toBe(200);
    expect(res.body).toEqual({ name: 'count', type: 'Long', multiple: false, values: ['42'] });
    const multi = await call('POST', '/travel?name=tags&value=x&value=y&multiple=true', TRAVEL);
    expect(multi.body).toEqual({ name: 'tags', type: 'String', multiple: true, values: ['x', 'y'] });
    const events = await t.store.changes.since(before, 10);
    expect(events.map((e) => [e.kind, e.by, e.changed.map((n) => n.path)])).toEqual([['nodes', 'travel', ['/travel']], ['nodes', 'travel', ['/travel']]]);
    expect((await get(t.app, `${API}/travel/cms:lastModifiedBy`, BOSS)).body.values).toEqual(['travel']);
  });

  it('bad values and names: 400 naming the parameter; maintained properties are neither set nor removed; nothing written', async () => {
    const s = await snapshot();
    const bad = await call('PUT', '/travel?name=count&value=ten&type=Long');
    expectErrorShape(bad, 400, 'invalidValueFormat');
    expect(bad.body.error.message).toMatch(/^count \(value\[0\]\): /);
    expectErrorShape(await call('PUT', '/travel?name=a|b&value=1'), 400, 'invalidField');
    expectErrorShape(await call('PUT', '/travel?name=p&value=1&value=2'), 400, 'invalidField');
    expectErrorShape(await call('PUT', '/travel?name=p&value=1&type=Money'), 400, 'invalidField');
    expectErrorShape(await call('DELETE', '/travel/mgnl:created'), 400, 'invalidField');
    expectErrorShape(await call('DELETE', '/travel/nothing'), 404, 'pathNotFound');
    expectErrorShape(await call('PUT', '/travel/secret?name=p&value=1', TRAVEL), 404, 'pathNotFound');
    // A maintained property, or a reserved prefix in another case: 400 naming `name`, never a 200 that writes nothing.
    for (const name of ['mgnl:lastModifiedBy', 'cms:created', 'jcr:created', 'jcr:lastModifiedBy', 'Mgnl:activationStatus', 'JCR:title', 'CMS:x']) {
      const res = await call('PUT', `/travel?name=${name}&value=mallory`);
      expectErrorShape(res, 400, 'invalidField', name);
      expect(res.body.error.message, name).toMatch(/^name: /);
    }
    expect(await snapshot()).toEqual(s);
    expect((await get(t.app, `${API}/travel/Mgnl:activationStatus`, BOSS)).status).toBe(404);
  });

  it('DELETE removes a property; If-Match guards it', async () => {
    const etag = String((await get(t.app, '/.rest/nodes/v1/website/travel', BOSS)).headers.etag);
    await call('PUT', '/travel?name=gone&value=1');
    expectErrorShape(await call('DELETE', '/travel/gone', BOSS, { 'if-match': etag }), 412, 'preconditionFailed');
    const res = await call('DELETE', '/travel/gone');
    expect(res.status, res.raw).toBe(200);
    expectErrorShape(await get(t.app, `${API}/travel/gone`, BOSS), 404, 'pathNotFound');
    expect((await get(t.app, `${API}/travel/title`, BOSS)).body.values).toEqual(['Home']);
  });
});
