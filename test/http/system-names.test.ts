// Hardening III (issue 28) for the Nodes and Properties APIs, publishing on: a system property is
// never set through the Properties API (400 naming `name`, not a 200 that writes nothing), a reserved
// prefix in another case is never stored as an ordinary property (point 11); workspace names follow
// one pattern, and a new one may not differ only by case from an existing one (point 10).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { basic, expectErrorShape, get, hashOf, req, type Res } from '../security-http/helpers.js';

const PW = 'system-names-password';
const BOSS = { authorization: basic('boss', PW) };
const WEBSITE = `'travel':
  'jcr:primaryType': 'mgnl:page'
  'title': 'Home'
`;

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({
    content: { 'website.travel.yaml': WEBSITE },
    publishing: { previewContextPath: '/preview', previewRoles: ['superuser'] },
    security: { users: { boss: { passwordHash: await hashOf(PW), roles: ['superuser'] } } },
  });
});
afterAll(async () => t?.close());

const call = (method: 'PUT' | 'POST' | 'DELETE', url: string, body?: unknown): Promise<Res> =>
  req(t.app, { method, url, headers: BOSS, ...(body !== undefined ? { payload: body as object } : {}) });
const prop = (name: string, value: string) => ({ name, type: 'String', multiple: false, values: [value] });
const stored = async (path: string) => Object.fromEntries((await t.store.reads.getNode('website', path))?.properties.map(([n, , v]) => [n, v]) ?? []);
const snapshot = async () => ({ latest: await t.store.changes.latest(), nodes: await t.store.reads.countNodes(), workspaces: await t.store.reads.listWorkspaces() });

describe('system property names (point 11)', () => {
  it('the Properties API refuses every maintained property (activation ones with publishing on) and reserved prefixes in another case, naming `name`', async () => {
    const s = await snapshot();
    for (const name of ['cms:activationStatus', 'mgnl:activationStatus', 'mgnl:lastActivatedBy', 'cms:lastActivated', 'jcr:created', 'jcr:lastModified', 'Mgnl:activationStatus', 'jCr:created', 'REP:x', 'Nt:x', 'MIX:x']) {
      const res = await call('PUT', `/.rest/properties/v1/website/travel?name=${name}&value=true`);
      expectErrorShape(res, 400, 'invalidField', name);
      expect(res.body.error.message, name).toMatch(/^name: /);
    }
    expect(await snapshot()).toEqual(s);
    expect(await stored('/travel')).not.toHaveProperty('cms:activationStatus');
  });

  it('a Nodes API body refuses a reserved prefix in another case (400 naming the field), nothing written', async () => {
    const s = await snapshot();
    const top = await call('PUT', '/.rest/nodes/v1/website/travel', { name: 'n', properties: [prop('Mgnl:activationStatus', 'true')] });
    expectErrorShape(top, 400, 'invalidField');
    expect(top.body.error.message).toMatch(/^properties\[0\]\.name: /);
    const deep = await call('POST', '/.rest/nodes/v1/website/travel', { nodes: [{ name: 'c', properties: [prop('title', 'x'), prop('JCR:title', 'x')] }] });
    expectErrorShape(deep, 400, 'invalidField');
    expect(deep.body.error.message).toMatch(/^nodes\[0\]\.properties\[1\]\.name: /);
    expect(await snapshot()).toEqual(s);
  });

  it('a body read back with includeMetadata still writes: its maintained properties are ignored, as before', async () => {
    const res = await call('PUT', '/.rest/nodes/v1/website/travel', {
      name: 'echo', properties: [prop('jcr:uuid', '74000000-0000-4000-8000-000000000001'), prop('title', 'Echo'), prop('mgnl:activationStatus', 'true'),
        prop('mgnl:lastActivatedBy', 'mallory'), prop('mgnl:createdBy', 'mallory'), prop('jcr:created', '2015-05-12T11:21:08.960+02:00')],
    });
    expect(res.status, res.raw).toBe(200);
    const p = await stored('/travel/echo');
    expect(p).toMatchObject({ title: 'Echo', 'cms:createdBy': 'boss' });
    for (const name of ['cms:activationStatus', 'cms:lastActivatedBy', 'jcr:created']) expect(p, name).not.toHaveProperty(name);
  });
});

describe('workspace names (point 10)', () => {
  const bad = ['*', 'WEBSITE', 'Website', 'website%20', '%20website', '-', '_x', 'web.site', 'w%40x', 'a'.repeat(65)];

  it('a PUT at / of a workspace outside the pattern is 400 naming it, and creates nothing', async () => {
    const s = await snapshot();
    for (const ws of bad) {
      const res = await call('PUT', `/.rest/nodes/v1/${ws}`, { name: 'x' });
      expectErrorShape(res, 400, 'badRequest', ws);
      expect(res.body.error.message, ws).toMatch(/^Workspace ".*": a workspace name is a lowercase letter/);
    }
    expect(await snapshot()).toEqual(s);
  });

  it('a new workspace may not differ only by case from an existing one; a new name that fits is created', async () => {
    const variant = await call('PUT', '/.rest/nodes/v1/webSite', { name: 'x' });
    expectErrorShape(variant, 400, 'badRequest');
    expect(variant.body.error.message).toBe('Workspace "webSite": differs only by case from the workspace website');
    const fresh = await call('PUT', '/.rest/nodes/v1/shopProducts', { name: 'x' });
    expect(fresh.status, fresh.raw).toBe(200);
    expect(await t.store.reads.listWorkspaces()).toContain('shopProducts');
    // Once it exists, writing more at its root is no creation.
    expect((await call('PUT', '/.rest/nodes/v1/shopProducts', { name: 'y' })).status).toBe(200);
  });

  it('the Nodes API read, the Properties API and the export route answer 400 naming the workspace', async () => {
    for (const ws of ['WEBSITE', '*', '-']) {
      for (const url of [`/.rest/nodes/v1/${ws}/travel`, `/.rest/properties/v1/${ws}/travel/title`, `/.rest/export/v1/${ws}/travel`]) {
        const res = await get(t.app, url, BOSS);
        expectErrorShape(res, 400, 'badRequest', url);
        expect(res.body.error.message, url).toContain(`"${ws}"`);
      }
    }
  });
});
