// Signed-in callers hold their own roles plus security.authenticatedRoles (default [rest-anonymous]),
// never the anonymous roles: a deny meant for the public does not bind editors, and what only the
// anonymous role grants is not theirs either (as in the original CMS).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/config-error.js';
import { loadSecurity } from '../../src/config/security-config.js';
import { createTestApp, getJson, type TestApp } from '../helpers/test-app.js';
import { basic, hashOf, tempFolder } from './helpers.js';

const PW = 'correct horse battery staple';
const SITE = [
  'site:', '  jcr:primaryType: mgnl:page', '  title: Site',
  '  internal:', '    jcr:primaryType: mgnl:page', '    title: Internal', '',
].join('\n');
const read = (path: string) => ({ path, permission: 'read' });
const deny = (path: string) => ({ path, permission: 'deny' });

describe('security.authenticatedRoles (default)', () => {
  let t: TestApp;
  beforeAll(async () => {
    const hash = await hashOf(PW);
    t = await createTestApp({
      definitions: { 'delivery/pages.yaml': '$type: jcrDeliveryEndpoint_v2\nworkspace: website\ndepth: 1\n' },
      content: { 'website.site.yaml': SITE },
      security: {
        roles: {
          anonymous: { workspacePermissions: { website: [read('/'), read('/*'), deny('/site/internal'), deny('/site/internal/*')] } },
          editor: { workspacePermissions: { website: [read('/site'), read('/site/*')] } },
        },
        users: { ed: { passwordHash: hash, roles: ['editor'] }, nobody: { passwordHash: hash } },
      },
    });
  });
  afterAll(async () => t?.close());

  it('anonymous callers stay bound by the anonymous deny', async () => {
    expect((await getJson(t.app, '/.rest/delivery/pages/site/internal')).status).toBe(404);
    expect((await getJson(t.app, '/.rest/delivery/pages/site')).body['@nodes']).toEqual([]);
  });

  it('a signed-in user is not bound by a deny meant for the public, and still reaches /.rest/delivery/*', async () => {
    const auth = { authorization: basic('ed', PW) };
    const internal = await getJson(t.app, '/.rest/delivery/pages/site/internal', auth);
    expect(internal.status).toBe(200);
    expect(internal.body.title).toBe('Internal');
    expect((await getJson(t.app, '/.rest/delivery/pages/site', auth)).body['@nodes']).toEqual(['internal']);
    const me = await getJson(t.app, '/.auth/me', auth);
    expect(me.body.roles).toEqual(['editor', 'rest-anonymous']);
  });

  it('a signed-in user without roles of their own does not read what only the anonymous role grants', async () => {
    const res = await getJson(t.app, '/.rest/delivery/pages/site', { authorization: basic('nobody', PW) });
    expect(res.status).toBe(404);
  });
});

describe('security.authenticatedRoles (configured)', () => {
  it('adds the listed roles to every signed-in caller, and names an unknown one', async () => {
    const hash = await hashOf(PW);
    const t = await createTestApp({
      definitions: { 'delivery/pages.yaml': '$type: jcrDeliveryEndpoint_v2\nworkspace: website\ndepth: 1\n' },
      content: { 'website.site.yaml': SITE },
      security: {
        authenticatedRoles: ['rest-anonymous', 'public'],
        roles: { public: { workspacePermissions: { website: [read('/'), read('/*')] } } },
        users: { nobody: { passwordHash: hash } },
      },
    });
    try {
      const res = await getJson(t.app, '/.rest/delivery/pages/site/internal', { authorization: basic('nobody', PW) });
      expect(res.status).toBe(200);
      expect((await getJson(t.app, '/.auth/me', { authorization: basic('nobody', PW) })).body.roles).toEqual(['public', 'rest-anonymous']);
    } finally {
      await t.close();
    }
    expect(() => loadSecurity({ authenticatedRoles: ['ghost'] }, tempFolder())).toThrow(ConfigError);
    expect(() => loadSecurity({ authenticatedRoles: ['ghost'] }, tempFolder())).toThrow(/security\.authenticatedRoles names unknown role ghost/);
  });
});
