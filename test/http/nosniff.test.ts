// `X-Content-Type-Options: nosniff` on every answer (issue 13, point 12): delivery answers and 304s,
// errors of every kind (404, 400, 401, 405, 414, 413, Node's own parser errors), assets, renditions,
// the health probe, the auth routes and the shop.
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANTARCTICA, ASSET_CONTENT, ASSET_MODULES } from '../assets/asset-xml.js';
import { createTestApp, OPEN_SECURITY, type TestApp } from '../helpers/test-app.js';
import { headerOf, rawRequest } from '../helpers/raw-http.js';
import { IDS, SHOP_FILES } from '../shop/helpers.js';

const SECURITY = {
  roles: {
    ...OPEN_SECURITY.roles,
    anonymous: { ...OPEN_SECURITY.roles.anonymous, uriPermissions: [{ path: '/*', permission: 'getAndPost' }, { path: '/.rest/private/*', permission: 'deny' }] },
  },
};
const PAGES = '$type: jcrDeliveryEndpoint_v2\nworkspace: website\n';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({
    security: SECURITY, shop: true, contentPaths: [...SHOP_FILES, ASSET_CONTENT], moduleRoots: [ASSET_MODULES],
    definitions: { 'delivery/pages.yaml': PAGES, 'private/pages.yaml': PAGES },
    content: { 'website.site.yaml': 'site:\n  jcr:primaryType: mgnl:page\n  title: Site\n' },
  });
});
afterAll(async () => {
  await t?.close();
});

describe('X-Content-Type-Options: nosniff', () => {
  const etagOfSite = async () => (await t.app.inject({ url: '/.rest/delivery/pages/site' })).headers.etag as string;

  it.each([
    ['GET', '/.rest/delivery/pages/site', 200],
    ['GET', '/.rest/delivery/pages/site', 200], // a cache hit
    ['GET', '/.rest/delivery/pages/nothing', 404],
    ['GET', '/.rest/delivery/pages?a[zz]=1', 400],
    ['GET', '/.rest/private/pages/site', 401],
    ['POST', '/.rest/delivery/pages/site', 405],
    ['GET', '/no/such/route', 404],
    ['GET', `/x?${'a'.repeat(9000)}`, 414],
    ['GET', '/%E0%A4%A', 400],
    ['GET', '/.health', 200],
    ['GET', '/.auth/me', 200],
    ['GET', `/dam/jcr:${ANTARCTICA.id}/${ANTARCTICA.fileName}`, 200],
    ['GET', '/dam/jcr:00000000-0000-4000-8000-000000000000/x.jpg', 404],
    ['GET', `/.imaging/travel-demo-theme/480/dam/jcr:${ANTARCTICA.id}/${ANTARCTICA.fileName}`, 200],
    ['GET', '/.imaging/x', 404],
    ['GET', `/shop/v1/catalog/${IDS.catalog}`, 200],
    ['GET', '/shop/v1/catalog/nope', 404],
    ['POST', '/shop/v1/cart', 201],
  ] as const)('%s %.60s → %i', async (method, url, status) => {
    const res = await t.app.inject({ method, url, ...(method === 'POST' && url.startsWith('/shop') ? { payload: { currency: 'EUR' } } : {}) });
    expect(res.statusCode, res.body.slice(0, 200)).toBe(status);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });

  it('on a 304', async () => {
    const res = await t.app.inject({ url: '/.rest/delivery/pages/site', headers: { 'if-none-match': await etagOfSite() } });
    expect(res.statusCode).toBe(304);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });

  it("on errors Node's parser raises before any route (real socket)", async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const port = (t.app.server.address() as AddressInfo).port;
    for (const text of [`GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 'GET / HTTP/1.1\r\nHost x\r\n\r\n']) {
      const res = await rawRequest(port, text);
      expect([400, 431]).toContain(res.status);
      expect(headerOf(res.head, 'x-content-type-options')).toBe('nosniff');
    }
  });
});
