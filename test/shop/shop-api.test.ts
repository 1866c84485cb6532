// The typed in-process API (SPEC.md's templating functions) answers exactly what /shop/v1 answers,
// with the same identity rules and the same error codes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PetalError } from '../../src/errors.js';
import { createShopApi, ShopService, type ShopApi } from '../../src/shop/shop-api.js';
import { NodeTypeRegistry } from '../../src/repository/node-types.js';
import { Repository } from '../../src/repository/session.js';
import { formatTaxRate, mulDivRound, parseTaxRate, splitTax } from '../../src/shop/money.js';
import type { TestApp } from '../helpers/test-app.js';
import { basic } from '../security-http/helpers.js';
import { createShopApp, IDS, ORDER_BODY, PASSWORD, ShopClient } from './helpers.js';

let t: TestApp;
let api: ShopApi;
beforeAll(async () => {
  t = await createShopApp();
  api = createShopApi(new ShopService(new Repository(t.store, new NodeTypeRegistry()), t.security, t.shopStore!));
});
afterAll(async () => { await t.close(); });

async function rejects(p: Promise<unknown>, code: string): Promise<void> {
  const err = await p.then(() => undefined, (e: unknown) => e);
  expect(err).toBeInstanceOf(PetalError);
  expect((err as PetalError).code).toBe(code);
}

describe('ShopApi (templating functions)', () => {
  it('returns what the HTTP API returns for the catalog reads', async () => {
    const http = new ShopClient(t);
    expect(await api.catalog({}, IDS.catalog)).toEqual((await http.get(`/catalog/${IDS.catalog}`)).body);
    expect(await api.category({}, IDS.plants)).toEqual((await http.get(`/category/${IDS.plants}`)).body);
    expect(await api.categoryProducts({}, IDS.plants, { sort: 'price:desc', limit: 2 }))
      .toEqual((await http.get(`/category/${IDS.plants}/products?sort=price:desc&limit=2`)).body);
    expect(await api.catalogProducts({}, IDS.catalog)).toEqual((await http.get(`/catalog/${IDS.catalog}/products`)).body);
    expect(await api.shippingMethod({}, IDS.standard)).toEqual((await http.get(`/shipping/methods/${IDS.standard}`)).body);
    await rejects(api.catalog({}, 'nope'), 'catalogNotFound');
    await rejects(api.categoryProducts({}, IDS.plants, { limit: 0 }), 'invalidQuery');
  });

  it('reads the visitor\'s cart, wishlist and orders with the same identity rules', async () => {
    const alice = new ShopClient(t, 'alice');
    await alice.post('/cart');
    await alice.post('/cart/item', { productId: IDS.lavender, quantity: 3 });
    await alice.post('/wishlist', { productId: IDS.rose });
    const visitor = { authorization: basic('alice', PASSWORD), cartId: alice.jar.get('petal_cart')!, wishlistId: alice.jar.get('petal_wishlist')! };
    expect(await api.cart(visitor)).toEqual((await alice.get('/cart')).body);
    expect(await api.wishlist(visitor)).toEqual((await alice.get('/wishlist')).body);
    await rejects(api.cart({ cartId: visitor.cartId }), 'cartNotFound'); // anonymous visitor with alice's cookie
    await rejects(api.orders({}), 'notAuthorized');
    await rejects(api.cart({ authorization: basic('alice', 'wrong') }), 'notAuthorized');
    await alice.post('/order', ORDER_BODY);
    expect(await api.orders(visitor)).toEqual((await alice.get('/orders')).body);
  });
});

describe('money', () => {
  it('rounds half away from zero and splits tax exactly', () => {
    expect(mulDivRound(5, 1, 2)).toBe(3);
    expect(mulDivRound(-5, 1, 2)).toBe(-3);
    expect(mulDivRound(4, 1, 3)).toBe(1);
    expect(splitTax(5900, 700, true)).toEqual({ net: 5514, tax: 386, gross: 5900 });
    expect(splitTax(1000, 1900, false)).toEqual({ net: 1000, tax: 190, gross: 1190 });
    for (let a = 0; a < 2000; a += 7) {
      const s = splitTax(a, 770, true);
      expect(s.net + s.tax).toBe(a);
    }
  });

  it('reads tax rates as basis points', () => {
    expect(parseTaxRate('19')).toBe(1900);
    expect(parseTaxRate(7.7)).toBe(770);
    expect(parseTaxRate('2.55')).toBe(255);
    expect(parseTaxRate('101')).toBeUndefined();
    expect(parseTaxRate('-1')).toBeUndefined();
    expect(parseTaxRate('abc')).toBeUndefined();
    expect(formatTaxRate(770)).toBe('7.7');
    expect(formatTaxRate(1900)).toBe('19');
    expect(formatTaxRate(255)).toBe('2.55');
  });
});
