// /shop/v1 catalog reads through HTTP: catalog, categories, product lists (limit, offset, sort),
// shipping methods; unknown ids 404, bad parameters 400, workspace ACLs, and the Deprecation header.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/test-app.js';
import { loadSecurity } from '../../src/config/security-config.js';
import { createShopApp, IDS, shopSecurity, ShopClient } from './helpers.js';

let t: TestApp;
let hidden: TestApp;
beforeAll(async () => {
  t = await createShopApp();
  hidden = await createShopApp({ hiddenTools: true });
});
afterAll(async () => {
  await t.close();
  await hidden.close();
});

const expectError = (r: { status: number; body: any; headers: Record<string, unknown> }, status: number, code: string) => {
  expect(r.status).toBe(status);
  expect(r.body.error.code).toBe(code);
  expect(r.headers.deprecation).toBe('true');
};

describe('GET /catalog/<id>', () => {
  it('returns the catalog with its currencies, category tree and shipping methods', async () => {
    const r = await new ShopClient(t).get(`/catalog/${IDS.catalog}`);
    expect(r.status).toBe(200);
    expect(r.headers.deprecation).toBe('true');
    expect(r.body).toMatchObject({ id: IDS.catalog, name: 'petal-gardens', defaultCurrency: 'EUR', pricesIncludeTax: true });
    expect(r.body.currencies.map((c: any) => c.code)).toEqual(['EUR', 'CHF']);
    expect(r.body.currencies[0]).toEqual({ code: 'EUR', title: 'Euro', symbol: '€', fractionDigits: 2 });
    expect(r.body.categories.map((c: any) => c.name)).toEqual(['plants', 'tools']);
    expect(r.body.categories[0].children.map((c: any) => c.name)).toEqual(['perennials', 'roses']);
    expect(r.body.shippingMethods.map((m: any) => m.id)).toEqual([IDS.standard, IDS.express]);
    expect(r.body.shippingMethods[0].rates[0]).toMatchObject({ price: { amount: 490, currency: 'EUR' }, maxSubtotal: 5000 });
  });

  it('answers 404 catalogNotFound for an unknown id and for the id of another kind of node', async () => {
    const c = new ShopClient(t);
    expectError(await c.get('/catalog/00000000-0000-4000-8000-000000000000'), 404, 'catalogNotFound');
    expectError(await c.get(`/catalog/${IDS.lavender}`), 404, 'catalogNotFound');
    expectError(await c.get(`/catalog/${IDS.catalog}/products?limit=0`), 400, 'invalidQuery');
    expectError(await c.get('/catalog/00000000-0000-4000-8000-000000000000/products'), 404, 'catalogNotFound');
    expectError(await c.get(`/catalog/${IDS.plants}/products`), 404, 'catalogNotFound');
  });
});

describe('product lists', () => {
  it('lists the catalog products in natural order with {items,total,limit,offset} and no linked objects', async () => {
    const r = await new ShopClient(t).get(`/catalog/${IDS.catalog}/products`);
    expect(r.status).toBe(200);
    expect(r.body.total).toBe(5);
    expect(r.body.limit).toBe(20);
    expect(r.body.offset).toBe(0);
    expect(r.body.items.map((p: any) => p.name)).toEqual(['lavender-hidcote', 'rose-amber-morning', 'hellebore-snow', 'pruning-shears', 'seed-tin']);
    const lavender = r.body.items[0];
    expect(lavender.categories).toEqual([IDS.perennials]); // ids, not category objects
    expect(lavender).toMatchObject({ sku: 'PG-LAV-001', taxRate: '7', stock: 48, customFields: { latinName: 'Lavandula angustifolia' } });
    expect(lavender.prices).toContainEqual({ price: { amount: 590, currency: 'EUR' }, minQuantity: 10, validFrom: null, validTo: null });
    expect(r.body.items[2].stock).toBeNull(); // not tracked
  });

  it('pages with limit and offset and clamps limit to 100', async () => {
    const c = new ShopClient(t);
    const r = await c.get(`/catalog/${IDS.catalog}/products?limit=2&offset=1`);
    expect(r.body.items.map((p: any) => p.name)).toEqual(['rose-amber-morning', 'hellebore-snow']);
    expect(r.body).toMatchObject({ total: 5, limit: 2, offset: 1 });
    expect((await c.get(`/catalog/${IDS.catalog}/products?limit=5000`)).body.limit).toBe(100);
    expect((await c.get(`/catalog/${IDS.catalog}/products?offset=10`)).body.items).toEqual([]);
  });

  it('sorts by the whitelisted fields, both ways, missing values last', async () => {
    const c = new ShopClient(t);
    const names = async (sort: string) => (await c.get(`/catalog/${IDS.catalog}/products?sort=${sort}`)).body.items.map((p: any) => p.name);
    expect(await names('price:asc')).toEqual(['lavender-hidcote', 'hellebore-snow', 'rose-amber-morning', 'pruning-shears', 'seed-tin']);
    expect(await names('price:desc')).toEqual(['pruning-shears', 'rose-amber-morning', 'hellebore-snow', 'lavender-hidcote', 'seed-tin']);
    expect(await names('name:asc')).toEqual(['pruning-shears', 'hellebore-snow', 'lavender-hidcote', 'rose-amber-morning', 'seed-tin']);
    expect(await names('date:desc')).toEqual(['rose-amber-morning', 'lavender-hidcote', 'pruning-shears', 'hellebore-snow', 'seed-tin']);
    expect(await names('sku:desc')).toEqual(['pruning-shears', 'seed-tin', 'rose-amber-morning', 'lavender-hidcote', 'hellebore-snow']);
  });

  it('answers 400 invalidQuery naming the parameter for bad limit, offset or sort', async () => {
    const c = new ShopClient(t);
    for (const q of ['limit=0', 'limit=-1', 'limit=abc', 'offset=-3', 'offset=1.5', 'sort=price', 'sort=internalNotes:asc', 'sort=price:up', 'limit=1&limit=2']) {
      const r = await c.get(`/catalog/${IDS.catalog}/products?${q}`);
      expectError(r, 400, 'invalidQuery');
      expect(r.body.error.message).toMatch(/limit|offset|sort/);
    }
  });

  it('lists the products of a category and of its sub-categories', async () => {
    const c = new ShopClient(t);
    const plants = await c.get(`/category/${IDS.plants}/products`);
    expect(plants.body.items.map((p: any) => p.name)).toEqual(['lavender-hidcote', 'rose-amber-morning', 'hellebore-snow', 'seed-tin']);
    const perennials = await c.get(`/category/${IDS.perennials}/products?sort=price:desc&limit=1`);
    expect(perennials.body).toMatchObject({ total: 2, limit: 1, offset: 0 });
    expect(perennials.body.items[0].name).toBe('hellebore-snow');
    expectError(await c.get('/category/nope/products'), 404, 'categoryNotFound');
    expectError(await c.get(`/category/${IDS.plants}/products?sort=x:asc`), 400, 'invalidQuery');
  });
});

describe('GET /category/<id> and /shipping/methods/<id>', () => {
  it('returns a category with its subtree', async () => {
    const r = await new ShopClient(t).get(`/category/${IDS.plants}`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: IDS.plants, title: 'Plants', parentId: null, catalogId: IDS.catalog });
    expect(r.body.children.map((c: any) => [c.name, c.parentId])).toEqual([['perennials', IDS.plants], ['roses', IDS.plants]]);
    expectError(await new ShopClient(t).get(`/category/${IDS.catalog}`), 404, 'categoryNotFound');
  });

  it('returns a shipping method with its rates', async () => {
    const r = await new ShopClient(t).get(`/shipping/methods/${IDS.express}`);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: IDS.express, title: 'Express (next day)', taxRate: '19' });
    expect(r.body.rates).toEqual([expect.objectContaining({ price: { amount: 1290, currency: 'EUR' }, countries: ['DE', 'AT'] })]);
    expectError(await new ShopClient(t).get('/shipping/methods/unknown'), 404, 'shippingMethodNotFound');
  });
});

describe('security', () => {
  it('hides products the caller may not read (workspace ACLs), in lists and totals', async () => {
    const c = new ShopClient(hidden);
    const r = await c.get(`/catalog/${IDS.catalog}/products`);
    expect(r.body.total).toBe(4);
    expect(r.body.items.map((p: any) => p.name)).not.toContain('pruning-shears');
    expect((await c.get(`/category/${IDS.tools}/products`)).body).toMatchObject({ total: 0, items: [] });
    await c.post('/cart');
    expectError(await c.post('/cart/item', { productId: IDS.shears }), 422, 'productNotFound');
  });

  it('drops cached catalogs when security reloads: a product denied since is no longer shown, nor sold', async () => {
    const app = await createShopApp();
    try {
      const c = new ShopClient(app);
      const names = async () => (await c.get(`/catalog/${IDS.catalog}/products`)).body.items.map((p: any) => p.name);
      expect(await names()).toContain('pruning-shears'); // cached for the anonymous role set
      expect((await c.get(`/category/${IDS.tools}/products`)).body.total).toBe(1);
      expect((await c.post('/wishlist', { productId: IDS.shears })).status).toBe(201);
      await c.post('/cart');

      app.security.reload(loadSecurity(await shopSecurity({ hiddenTools: true }), app.dir));
      expect(await names()).not.toContain('pruning-shears');
      expect((await c.get(`/category/${IDS.tools}/products`)).body).toMatchObject({ total: 0, items: [] });
      expectError(await c.post('/cart/item', { productId: IDS.shears }), 422, 'productNotFound');
      expect((await c.get('/wishlist')).body.items).toEqual([{ productId: IDS.shears, title: null, sku: null, available: false }]);

      app.security.reload(loadSecurity(await shopSecurity(), app.dir));
      expect(await names()).toContain('pruning-shears');
    } finally {
      await app.close();
    }
  });

  it('carries the Deprecation header on unknown shop routes and wrong methods too', async () => {
    const r = await new ShopClient(t).send('PATCH', '/cart');
    expect(r.status).toBe(404);
    expect(r.headers.deprecation).toBe('true');
    expect((await t.app.inject({ url: '/.health' })).headers.deprecation).toBeUndefined();
  });
});
