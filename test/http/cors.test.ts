// CORS (petal.yaml `cors.origins`): front ends on listed origins may call Petal from the browser with
// credentials and their own headers (personalization traits); preflights are answered before any
// authentication; other origins get no CORS headers; answers vary by Origin; without origins, no CORS.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, OPEN_SECURITY, type TestApp } from '../helpers/test-app.js';
import { SHOP_FILES, IDS } from '../shop/helpers.js';

const FRONT = 'http://localhost:3000';
const STRANGER = 'https://evil.example';
const PAGES = `$type: jcrDeliveryEndpoint_v2\nworkspace: website\ndepth: 1\n`;
const SITE = 'site:\n  jcr:primaryType: mgnl:page\n  title: Site\n';
// The private endpoint needs a role nobody anonymous holds: its preflight must still be answered.
const SECURITY = {
  roles: {
    ...OPEN_SECURITY.roles,
    anonymous: { ...OPEN_SECURITY.roles.anonymous, uriPermissions: [{ path: '/*', permission: 'getAndPost' }, { path: '/.rest/private/*', permission: 'deny' }] },
  },
};

function preflight(url: string, origin: string, method = 'GET', headers = 'x-mgnl-age') {
  return { method: 'OPTIONS' as const, url, headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': headers } };
}

function varyOf(headers: Record<string, unknown>): string[] {
  return String(headers.vary ?? '').toLowerCase().split(/,\s*/);
}

describe('CORS with listed origins', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      corsOrigins: [FRONT], security: SECURITY, shop: true, contentPaths: SHOP_FILES,
      definitions: { 'delivery/pages_v1.yaml': PAGES, 'private/pages_v1.yaml': PAGES },
      content: { 'website.site.yaml': SITE },
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('answers a preflight from a listed origin with 204, the origin, credentials, methods and the asked headers', async () => {
    const res = await t.app.inject(preflight('/.rest/delivery/pages/v1/site', FRONT));
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe(FRONT);
    expect(res.headers['access-control-allow-credentials']).toBe('true');
    expect(String(res.headers['access-control-allow-methods'])).toMatch(/GET.*POST.*PUT.*DELETE/);
    expect(res.headers['access-control-allow-headers']).toBe('x-mgnl-age');
    expect(res.headers['access-control-max-age']).toBe('600');
    expect(varyOf(res.headers)).toContain('origin');
  });

  it('answers a preflight before authentication (browsers send none), even where the URI needs a role', async () => {
    const res = await t.app.inject(preflight('/.rest/private/pages/v1/site', FRONT));
    expect(res.statusCode).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe(FRONT);
    // The request itself is still refused.
    const get = await t.app.inject({ url: '/.rest/private/pages/v1/site', headers: { origin: FRONT } });
    expect(get.statusCode).toBe(401);
  });

  it('gives an unlisted origin no CORS headers, on preflights and on requests', async () => {
    const pre = await t.app.inject(preflight('/.rest/delivery/pages/v1/site', STRANGER));
    expect(pre.headers['access-control-allow-origin']).toBeUndefined();
    const get = await t.app.inject({ url: '/.rest/delivery/pages/v1/site', headers: { origin: STRANGER } });
    expect(get.statusCode).toBe(200);
    expect(get.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('lets a listed origin read delivery answers and their validators, fresh and cached, varying by Origin', async () => {
    for (const round of ['rendered', 'cached']) {
      const res = await t.app.inject({ url: '/.rest/delivery/pages/v1/site?cors=1', headers: { origin: FRONT } });
      expect(res.statusCode, round).toBe(200);
      expect(res.headers['access-control-allow-origin'], round).toBe(FRONT);
      expect(res.headers['access-control-allow-credentials'], round).toBe('true');
      expect(String(res.headers['access-control-expose-headers']), round).toMatch(/ETag.*Content-Language.*X-Request-Id/);
      expect(varyOf(res.headers), round).toEqual(expect.arrayContaining(['accept-language', 'origin']));
    }
    // The cached answer does not carry the first caller's origin to another.
    const other = await t.app.inject({ url: '/.rest/delivery/pages/v1/site?cors=1', headers: { origin: STRANGER } });
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('lets a listed origin use the shop with its cookie: preflight, then a credentialed POST past the CSRF rule', async () => {
    const pre = await t.app.inject(preflight('/shop/v1/cart/item', FRONT, 'POST', 'content-type'));
    expect(pre.statusCode).toBe(204);
    const created = await t.app.inject({ method: 'POST', url: '/shop/v1/cart', headers: { origin: FRONT, 'sec-fetch-site': 'same-site' }, payload: { catalogId: IDS.catalog } });
    expect(created.statusCode).toBe(201);
    expect(created.headers['access-control-allow-origin']).toBe(FRONT);
    const cookie = String(created.headers['set-cookie']).split(';')[0]!;
    const added = await t.app.inject({
      method: 'POST', url: '/shop/v1/cart/item', headers: { origin: FRONT, 'sec-fetch-site': 'same-site', cookie },
      payload: { productId: IDS.lavender, quantity: 1 },
    });
    expect(added.statusCode).toBe(200);
    const refused = await t.app.inject({
      method: 'POST', url: '/shop/v1/cart/item', headers: { origin: STRANGER, 'sec-fetch-site': 'cross-site', cookie },
      payload: { productId: IDS.lavender, quantity: 1 },
    });
    expect(refused.statusCode).toBe(403);
  });
});

describe('CORS without origins', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ definitions: { 'delivery/pages_v1.yaml': PAGES }, content: { 'website.site.yaml': SITE } });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('answers no preflight (OPTIONS on the read-only API is 405) and adds no CORS headers nor Vary: Origin', async () => {
    const pre = await t.app.inject(preflight('/.rest/delivery/pages/v1/site', FRONT));
    expect(pre.statusCode).toBe(405);
    expect(pre.json().error.code).toBe('methodNotAllowed');
    expect(pre.headers['access-control-allow-origin']).toBeUndefined();
    const get = await t.app.inject({ url: '/.rest/delivery/pages/v1/site', headers: { origin: FRONT } });
    expect(get.headers['access-control-allow-origin']).toBeUndefined();
    expect(varyOf(get.headers)).not.toContain('origin');
  });
});
