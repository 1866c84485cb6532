// Issue 17 and the shop API: with publishing on, /shop/v1 under the context path reads the published
// catalogs, under the preview path the working ones (the catalog caches kept apart per state).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { NodeTypeRegistry } from '../../src/repository/node-types.js';
import { takenAlongBy } from '../../src/repository/publish-rules.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { BASE, IDS, SHOP_FILES, shopSecurity } from './helpers.js';
import { publishState, unpublishState } from '../../src/repository/writes.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({
    contentPaths: SHOP_FILES, shop: true, security: await shopSecurity(),
    publishing: { previewContextPath: '/preview', previewRoles: ['anonymous'] },
  });
});
afterAll(async () => t?.close());

const status = async (url: string) => (await t.app.inject({ method: 'GET', url })).statusCode;

it('serves the published catalog publicly and the working one in preview', async () => {
  const catalog = `${BASE}/catalog/${IDS.catalog}`;
  expect(await status(`/preview${catalog}`)).toBe(200);
  expect(await status(catalog)).toBe(404); // nothing published yet (and that answer is not the preview's)
  const takenAlong = takenAlongBy(new NodeTypeRegistry());
  const roots: [string, string][] = [
    ['shopCatalogs', '/petal-gardens'], ['shopCategories', '/petal-gardens'], ['shopProducts', '/petal-gardens'],
    ['shopCurrencies', '/EUR'], ['shopCurrencies', '/CHF'], ['shopShippingMethods', '/standard'], ['shopShippingMethods', '/express'],
  ];
  for (const [workspace, path] of roots) await publishState(t.store, { workspace, path, recursive: true, takenAlong, by: 'test' });
  expect(await status(catalog)).toBe(200);
  const products = async (base: string) => {
    const res = await t.app.inject({ method: 'GET', url: `${base}${catalog}/products?limit=50` });
    return res.json() as { items: { id: string }[] };
  };
  const ids = async (base: string) => (await products(base)).items.map((p) => p.id).sort();
  expect(await ids('')).toEqual(await ids('/preview'));
  expect(await ids('')).toContain(IDS.rose);
  // A product taken out of the published state leaves the public list only.
  await unpublishState(t.store, { workspace: 'shopProducts', path: '/petal-gardens/rose-amber-morning', recursive: true, takenAlong, by: 'test' });
  expect(await ids('')).not.toContain(IDS.rose);
  expect(await ids('/preview')).toContain(IDS.rose);
});
