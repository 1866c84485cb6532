// Issue 4, point 3 (URI permissions) through HTTP: the public delivery prefix, 401 vs 403, longest
// pattern across roles, ties, deny by default, writes, and every path trick of the research
// (security.md §2 and checklist §B.9) against a denied endpoint.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { basic, expectErrorShape, get, hashOf, req, type Res } from './helpers.js';

const PW = 'uri-suite-password';
const MARKER = 'SECRET-MARKER-7f3a';

const DEFINITIONS = {
  // Public pages; their rootPath keeps the secret subtree out of reach through this endpoint.
  'delivery/pages.yaml': '$type: jcrDeliveryEndpoint_v2\nworkspace: website\nrootPath: /site/public\n',
  // The protected endpoint: URI rules deny it to anonymous callers.
  'delivery/secret.yaml': '$type: jcrDeliveryEndpoint_v2\nworkspace: website\nrootPath: /site/secret\ndepth: 2\n',
  // Outside /.rest/delivery: needs a role.
  'private/docs.yaml': '$type: jcrDeliveryEndpoint_v2\nworkspace: website\n',
};

const CONTENT = {
  'website.site.yaml': `
'site':
  'jcr:primaryType': 'mgnl:page'
  'jcr:uuid': '40000000-0000-4000-8000-000000000001'
  'title': 'Site'
  'public':
    'jcr:primaryType': 'mgnl:page'
    'jcr:uuid': '40000000-0000-4000-8000-000000000002'
    'title': 'Public'
    'page1':
      'jcr:primaryType': 'mgnl:page'
      'jcr:uuid': '40000000-0000-4000-8000-000000000003'
      'title': 'Public page'
  'secret':
    'jcr:primaryType': 'mgnl:page'
    'jcr:uuid': '40000000-0000-4000-8000-000000000004'
    'title': 'Secret root'
    'doc':
      'jcr:primaryType': 'mgnl:page'
      'jcr:uuid': '40000000-0000-4000-8000-000000000005'
      'title': '${MARKER}'
`,
};

function security(hash: string) {
  return {
    roles: {
      // Every caller holds this role (signed-in users too). Content is readable: only URI rules matter here.
      anonymous: {
        uriPermissions: [
          { path: '/.health', permission: 'get' },
          { path: '/.rest/delivery/secret', permission: 'deny' },
          { path: '/.rest/delivery/secret/*', permission: 'deny' },
        ],
        workspacePermissions: { '*': [{ path: '/', permission: 'read' }, { path: '/*', permission: 'read' }] },
      },
      'private-reader': { uriPermissions: [{ path: '/.rest/private/*', permission: 'get' }] },
      'private-writer': { uriPermissions: [{ path: '/.rest/private/*', permission: 'getAndPost' }] },
      // Longer than private-reader/-writer: wins for the about page whatever the other roles say.
      'about-deny': { uriPermissions: [{ path: '/.rest/private/docs/site/public*', permission: 'deny' }] },
      // A short deny, beaten by a longer get of another role.
      'private-deny-all': { uriPermissions: [{ path: '/.rest/private/*', permission: 'deny' }] },
      'docs-get': { uriPermissions: [{ path: '/.rest/private/docs/*', permission: 'get' }] },
      // Same pattern as the anonymous deny: a tie, the most permissive wins.
      'secret-tie': { uriPermissions: [{ path: '/.rest/delivery/secret/*', permission: 'get' }, { path: '/.rest/delivery/secret', permission: 'get' }] },
    },
    authenticatedRoles: ['anonymous', 'rest-anonymous'],
    users: {
      reader: { passwordHash: hash, roles: ['private-reader'] },
      writer: { passwordHash: hash, roles: ['private-writer'] },
      both: { passwordHash: hash, roles: ['private-reader', 'private-writer'] },
      plain: { passwordHash: hash },
      layered: { passwordHash: hash, roles: ['private-writer', 'about-deny'] },
      longer: { passwordHash: hash, roles: ['private-deny-all', 'docs-get'] },
      tie: { passwordHash: hash, roles: ['secret-tie'] },
    },
  };
}

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ definitions: DEFINITIONS, content: CONTENT, security: security(await hashOf(PW)) });
});
afterAll(async () => {
  await t?.close();
});

const as = (user: string) => ({ authorization: basic(user, PW) });

function expectUnauthenticated(res: Res, label: string): void {
  expectErrorShape(res, 401, 'notAuthorized', label);
  expect(String(res.headers['www-authenticate']), label).toMatch(/^Basic realm=/);
}

describe('anonymous callers: rest-anonymous makes /.rest/delivery/* public (GET)', () => {
  it('serves delivery endpoints to anonymous GET and HEAD', async () => {
    const res = await get(t.app, '/.rest/delivery/pages/page1');
    expect(res.status, res.raw).toBe(200);
    expect(res.body['@path']).toBe('/site/public/page1');
    const head = await req(t.app, { method: 'HEAD', url: '/.rest/delivery/pages/page1' });
    expect(head.status).toBe(200);
  });

  it('answers 401 notAuthorized with WWW-Authenticate outside /.rest/delivery/*', async () => {
    for (const url of ['/.rest/private/docs/site', '/.rest/private/x', '/.rest/nodes/v1/website/', '/somewhere', '/', '/.rest', '/.rest/']) {
      expectUnauthenticated(await get(t.app, url), url);
    }
  });

  it('denies the protected endpoint itself to anonymous callers (control for the path tricks)', async () => {
    for (const url of ['/.rest/delivery/secret', '/.rest/delivery/secret/', '/.rest/delivery/secret/doc', '/.rest/delivery/secret/doc@nodes']) {
      expectUnauthenticated(await get(t.app, url), url);
    }
  });

  it('needs getAndPost for every method but GET and HEAD (rest-anonymous only has get)', async () => {
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const) {
      const res = await req(t.app, { method, url: '/.rest/delivery/pages/page1', payload: method === 'OPTIONS' ? undefined : '{}', headers: { 'content-type': 'application/json' } });
      expectUnauthenticated(res, `anonymous ${method}`);
    }
  });

  it('never lets an unknown or unusual method through as a read', async () => {
    for (const method of ['PROPFIND', 'PURGE', 'TRACE', 'MKCOL', 'LOCK', 'SEARCH', 'REPORT'] as const) {
      for (const [who, headers] of [['anonymous', {}], ['reader', as('reader')]] as const) {
        const url = who === 'anonymous' ? '/.rest/delivery/pages/page1' : '/.rest/private/docs/site';
        const res = await req(t.app, { method, url, headers });
        expect(res.status, `${who} ${method}: ${res.raw}`).toBeGreaterThanOrEqual(400);
        expect(res.status, `${who} ${method}: ${res.raw}`).toBeLessThan(500);
        expect([401, 403, 404, 405], `${who} ${method}: ${res.raw}`).toContain(res.status);
        expect(res.raw).not.toContain('Public page');
      }
    }
  });

  it('does not let X-HTTP-Method-Override turn a GET into a write, or a write into a GET', async () => {
    const res = await get(t.app, '/.rest/delivery/pages/page1', { 'x-http-method-override': 'DELETE' });
    expect(res.status).toBe(200);
    const post = await req(t.app, { method: 'POST', url: '/.rest/private/docs/site', headers: { ...as('reader'), 'x-http-method-override': 'GET' } });
    expectErrorShape(post, 403, 'accessDenied', 'POST with override GET');
  });
});

describe('authenticated callers', () => {
  it('answers 403 accessDenied (not 401) to a user without the right, 200 to one with it', async () => {
    expectErrorShape(await get(t.app, '/.rest/private/docs/site', as('plain')), 403, 'accessDenied', 'plain');
    const ok = await get(t.app, '/.rest/private/docs/site', as('reader'));
    expect(ok.status, ok.raw).toBe(200);
    expect(ok.body['@path']).toBe('/site');
  });

  it('denies when no pattern matches (deny by default), for users too', async () => {
    for (const url of ['/somewhere', '/.rest/other/x', '/.rest']) {
      expectErrorShape(await get(t.app, url, as('reader')), 403, 'accessDenied', `reader ${url}`);
    }
  });

  it('requires getAndPost for writes: get-only → 403, getAndPost → passes to the route (405, read-only API)', async () => {
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const) {
      const denied = await req(t.app, { method, url: '/.rest/private/docs/site', headers: as('reader') });
      expectErrorShape(denied, 403, 'accessDenied', `reader ${method}`);
      const passed = await req(t.app, { method, url: '/.rest/private/docs/site', headers: as('writer') });
      expectErrorShape(passed, 405, 'methodNotAllowed', `writer ${method}`);
    }
  });

  it('on a tie between roles (same pattern) the most permissive wins: get + getAndPost → writes pass', async () => {
    const res = await req(t.app, { method: 'POST', url: '/.rest/private/docs/site', headers: as('both') });
    expectErrorShape(res, 405, 'methodNotAllowed', 'both POST');
  });

  it('on a tie between a deny and a get of the same pattern in two roles, get wins', async () => {
    const res = await get(t.app, '/.rest/delivery/secret/doc', as('tie'));
    expect(res.status, res.raw).toBe(200);
    expect(res.raw).toContain(MARKER);
    expect((await get(t.app, '/.rest/delivery/secret', as('tie'))).status).toBe(200);
    // The same deny without the tying role still denies a signed-in user (403, not 401).
    expectErrorShape(await get(t.app, '/.rest/delivery/secret/doc', as('reader')), 403, 'accessDenied', 'reader on secret');
  });

  it('the longest matching pattern wins across roles, in both directions', async () => {
    // A longer deny in one role beats a shorter getAndPost in another.
    expectErrorShape(await get(t.app, '/.rest/private/docs/site/public', as('layered')), 403, 'accessDenied', 'layered public');
    expectErrorShape(await get(t.app, '/.rest/private/docs/site/public/page1', as('layered')), 403, 'accessDenied', 'layered page1');
    expect((await get(t.app, '/.rest/private/docs/site/secret', as('layered'))).status).toBe(200);
    // A longer get in one role beats a shorter deny in another.
    expect((await get(t.app, '/.rest/private/docs/site', as('longer'))).status).toBe(200);
    expectErrorShape(await get(t.app, '/.rest/private/other', as('longer')), 403, 'accessDenied', 'longer other');
  });
});

describe('path tricks never turn the denied endpoint into an allowed one', () => {
  /**
   * Each URL tries to reach /.rest/delivery/secret (denied to anonymous by `/.rest/delivery/secret`
   * and `/.rest/delivery/secret/*`, while `/.rest/delivery/*` is public).
   */
  const TRICKS = [
    // dot-dot, plain and encoded, escaping the public endpoint
    '/.rest/delivery/pages/../secret/doc',
    '/.rest/delivery/pages/../../delivery/secret/doc',
    '/.rest/delivery/pages/%2e%2e/secret/doc',
    '/.rest/delivery/pages/%2E%2E/secret/doc',
    '/.rest/delivery/pages/.%2e/secret/doc',
    '/.rest/delivery/pages/%2e./secret/doc',
    '/.rest/delivery/pages/%252e%252e/secret/doc',
    '/.rest/delivery/pages/..;/secret/doc',
    '/.rest/delivery/pages/..;x=1/secret/doc',
    '/.rest/delivery/x/%2e%2e/secret/doc',
    // encoded slashes
    '/.rest/delivery%2fsecret/doc',
    '/.rest/delivery%2Fsecret%2Fdoc',
    '/.rest%2fdelivery%2fsecret%2fdoc',
    '/.rest/delivery/pages%2f..%2fsecret/doc',
    '/.rest/delivery/pages/..%2fsecret/doc',
    '/.rest/delivery%252fsecret/doc',
    // doubled and dot segments
    '/.rest//delivery//secret//doc',
    '/.rest/delivery//secret/doc',
    '/.rest/delivery///secret///doc',
    '/.rest/./delivery/./secret/./doc',
    '/.rest/delivery/./secret/doc',
    // ;params (Tomcat / AEM dispatcher style)
    '/.rest/delivery/secret;jsessionid=x/doc',
    '/.rest/delivery;x=1/secret/doc',
    '/.rest/delivery/secret/doc;jsessionid=x',
    '/.rest/delivery/secret;%0a.css',
    '/.rest/delivery/secret/doc;x=\'a/b.css/c\'',
    // backslashes, raw and encoded
    '/.rest/delivery\\secret\\doc',
    '/.rest/delivery/pages\\..\\secret/doc',
    '/.rest/delivery%5csecret%5cdoc',
    '/.rest/delivery/pages%5c..%5csecret/doc',
    // overlong UTF-8 for '.' and '/'
    '/.rest/delivery/pages/%C0%AE%C0%AE/secret/doc',
    '/.rest/delivery%C0%AFsecret/doc',
    '/.rest/delivery/pages/%C0%AE%C0%AE%C0%AFsecret/doc',
    '/.rest/delivery/pages/%E0%80%AE%E0%80%AE/secret/doc',
    // NUL and other controls
    '/.rest/delivery/secret%00/doc',
    '/.rest/delivery/pages/%00/../secret/doc',
    '/.rest/delivery/pages%00.css/../secret/doc',
    '/.rest/delivery/secret%0a/doc',
    '/.rest/delivery/secret%09/doc',
    // suffixes and case variants (AEM dispatcher lessons)
    '/.rest/delivery/secret/doc.json',
    '/.rest/delivery/secret/doc/a.css',
    '/.rest/delivery/secret.json/doc',
    '/.REST/delivery/secret/doc',
    '/.rest/DELIVERY/secret/doc',
    '/.rest/delivery/SECRET/doc',
    '/.rest/delivery/Secret/doc',
    // percent-encoded ordinary characters decode to the denied path
    '/%2erest/delivery/secret/doc',
    '/.rest/delivery/sec%72et/doc',
    '/.rest/delivery/%73ecret/doc',
    // trailing junk after the endpoint name
    '/.rest/delivery/secret./doc',
    '/.rest/delivery/secret%20/doc',
    '/.rest/delivery/secret%2e/doc',
    '/.rest/delivery/secret/',
    '/.rest/delivery/secret?x=/../pages',
    // the auth prefix skips URI rules: it must not be a way around them
    '/.auth/../.rest/delivery/secret/doc',
    '/.auth/%2e%2e/.rest/delivery/secret/doc',
    '/.auth/..%2f.rest/delivery/secret/doc',
    '/.auth%2f..%2f.rest/delivery/secret/doc',
    '/.auth/me/../../.rest/delivery/secret/doc',
  ];

  it.each(TRICKS)('anonymous %s → never 200 with the secret content', async (url) => {
    const res = await get(t.app, url);
    expect(res.raw, url).not.toContain(MARKER);
    expect(res.raw, url).not.toContain('Secret root');
    expect(res.status, `${url}: ${res.raw}`).not.toBe(200);
    expect([400, 401, 404], `${url}: ${res.raw}`).toContain(res.status);
    expectErrorShape(res, res.status, res.body?.error?.code, url);
  });

  it.each(TRICKS)('signed-in user without the right %s → never 200 with the secret content', async (url) => {
    const res = await get(t.app, url, as('reader'));
    expect(res.raw, url).not.toContain(MARKER);
    expect(res.raw, url).not.toContain('Secret root');
    expect([400, 403, 404], `${url}: ${res.raw}`).toContain(res.status);
  });

  it('a query string or fragment is never part of the path: they reach the public endpoint only', async () => {
    for (const url of ['/.rest/delivery/pages?/../secret/doc', '/.rest/delivery/pages#/../secret/doc', '/.rest/delivery/pages?x=%2F..%2Fsecret%2Fdoc']) {
      const res = await get(t.app, url);
      expect(res.raw, url).not.toContain(MARKER);
      expect([200, 400], `${url}: ${res.raw}`).toContain(res.status);
      if (res.status === 200) for (const r of res.body.results) expect(r['@path']).toMatch(/^\/site\/public\//);
    }
  });

  // `<endpoint>@nodes` (no slash) is no alias of `<endpoint>/@nodes`: URI rules see the path as
  // written, so serving it would bypass a deny on `<endpoint>` and `<endpoint>/*`. It is a 404.
  it('`<endpoint>@nodes` never serves what a deny on the endpoint hides', async () => {
    for (const url of ['/.rest/delivery/secret@nodes', '/.rest/delivery/secret%40nodes']) {
      const res = await get(t.app, url);
      expect(res.raw, url).not.toContain(MARKER);
      expect(res.status, url).toBe(404);
    }
  });
});
