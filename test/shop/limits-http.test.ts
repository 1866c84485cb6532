// Shop limits (petal.yaml `shop:`) through HTTP with the production defaults: per-client rate limits for
// creating carts and wishlists and for orders (429 with Retry-After; other clients unaffected), and
// at most `maxUnitsPerOrderLine` units per cart line and order line.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SHOP_CONFIG } from '../../src/config/load-config.js';
import { PetalError } from '../../src/errors.js';
import { NodeTypeRegistry } from '../../src/repository/node-types.js';
import { Repository } from '../../src/repository/session.js';
import { ShopService } from '../../src/shop/shop-api.js';
import type { TestApp } from '../helpers/test-app.js';
import { createShopApp, IDS, ORDER_BODY, ShopClient, type ShopRes } from './helpers.js';

let t: TestApp;
beforeAll(async () => { t = await createShopApp({ shopConfig: DEFAULT_SHOP_CONFIG }); });
afterAll(async () => { await t.close(); });

const { cartsPerMinute, ordersPerMinute } = DEFAULT_SHOP_CONFIG.rateLimit;

function expectLimited(r: ShopRes): void {
  expect([r.status, r.body.error.code]).toEqual([429, 'tooManyRequests']);
  const wait = Number(r.headers['retry-after']);
  expect(wait).toBeGreaterThanOrEqual(1);
  expect(wait).toBeLessThanOrEqual(60);
  expect(r.headers.deprecation).toBe('true');
}

describe('rate limits per client', () => {
  it(`creates at most ${cartsPerMinute} carts a minute for one client; another client still gets one`, async () => {
    const statuses: number[] = [];
    for (let i = 0; i < cartsPerMinute; i++) statuses.push((await new ShopClient(t, undefined, '203.0.113.1').post('/cart')).status);
    expect(statuses).toEqual(Array(cartsPerMinute).fill(201));
    const refused = await new ShopClient(t, undefined, '203.0.113.1').post('/cart');
    expectLimited(refused);
    expect(refused.body.error.message).toMatch(/carts created per minute/);
    expect(refused.setCookies).toEqual([]); // no cart
    expect((await new ShopClient(t, undefined, '203.0.113.2').post('/cart')).status).toBe(201);
  });

  it('counts only creations: a client with a cart gets it back, whatever its count', async () => {
    const c = new ShopClient(t, undefined, '203.0.113.3');
    expect((await c.post('/cart')).status).toBe(201);
    for (let i = 0; i < cartsPerMinute + 5; i++) expect((await c.post('/cart')).status).toBe(200);
  });

  it(`limits wishlists created the same way`, async () => {
    for (let i = 0; i < cartsPerMinute; i++) expect((await new ShopClient(t, undefined, '203.0.113.4').post('/wishlist')).status).toBe(201);
    expectLimited(await new ShopClient(t, undefined, '203.0.113.4').post('/wishlist'));
    expect((await new ShopClient(t, undefined, '203.0.113.5').post('/wishlist')).status).toBe(201);
  });

  it(`takes at most ${ordersPerMinute} order attempts a minute from one client, refused ones included`, async () => {
    const c = new ShopClient(t, undefined, '203.0.113.6');
    await c.post('/cart'); // empty: every order is refused with 422, and counted
    for (let i = 0; i < ordersPerMinute; i++) expect((await c.post('/order', ORDER_BODY)).body.error.code).toBe('cartEmpty');
    await c.post('/cart/item', { productId: IDS.hellebore, quantity: 1 });
    expectLimited(await c.post('/order', ORDER_BODY));
    expect((await c.get('/cart')).body.state).toBe('active');
    const other = new ShopClient(t, undefined, '203.0.113.7');
    await other.post('/cart');
    await other.post('/cart/item', { productId: IDS.hellebore, quantity: 1 });
    expect((await other.post('/order', ORDER_BODY)).status).toBe(201);
  });
});

describe('maxUnitsPerOrderLine', () => {
  const max = DEFAULT_SHOP_CONFIG.maxUnitsPerOrderLine;

  it(`keeps a cart line at ${max} units: 422 quantityLimitExceeded naming the quantity`, async () => {
    const c = new ShopClient(t, undefined, '198.51.100.1');
    await c.post('/cart');
    const over = await c.post('/cart/item', { productId: IDS.lavender, quantity: max + 1 });
    expect([over.status, over.body.error.code]).toEqual([422, 'quantityLimitExceeded']);
    expect(over.body.error.message).toBe(`quantity: a line holds at most ${max} units`);
    expect((await c.post('/cart/item', { productId: IDS.lavender, quantity: max })).status).toBe(200);
    expect((await c.post('/cart/item', { productId: IDS.lavender, quantity: 1 })).body.error.code).toBe('quantityLimitExceeded');
    expect((await c.put('/cart/item', { productId: IDS.lavender, quantity: max + 1 })).body.error.code).toBe('quantityLimitExceeded');
    expect((await c.get('/cart')).body.items[0].quantity).toBe(max);
  });

  it('refuses to order a line filled under a larger limit, and takes no stock', async () => {
    const roomy = await createShopApp(); // the test default: 999 units a line
    try {
      const c = new ShopClient(roomy, 'alice');
      await c.post('/cart');
      expect((await c.post('/cart/item', { productId: IDS.lavender, quantity: max + 5 })).status).toBe(200);
      const strict = new ShopService(new Repository(roomy.store, new NodeTypeRegistry()), roomy.security, roomy.shopStore!, DEFAULT_SHOP_CONFIG);
      const ctx = strict.context({ ...roomy.security.anonymous(), user: 'alice', via: 'basic' });
      const err = await strict.orders.placeOrder(ctx, ORDER_BODY).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(PetalError);
      expect([(err as PetalError).code, (err as PetalError).message]).toEqual(['quantityLimitExceeded', `items: product ${IDS.lavender}: a line holds at most ${max} units`]);
      const products = (await c.get(`/catalog/${IDS.catalog}/products`)).body.items;
      expect(products.find((p: any) => p.id === IDS.lavender).stock).toBe(48);
    } finally {
      await roomy.close();
    }
  });
});
