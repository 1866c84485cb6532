// /shop/v1 carts and wishlists through HTTP: cookies, identity rules (another user's or a forged cart
// looks missing), items (add increments, put sets, 0 removes), errors, concurrent additions, CSRF and
// the merge of an anonymous cart on login.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/test-app.js';
import { basic } from '../security-http/helpers.js';
import { shopCookiePath } from '../../src/http/routes/shop-cookies.js';
import { createShopApp, IDS, PASSWORD, ShopClient } from './helpers.js';

const basicOf = (user: string): string => basic(user, PASSWORD);

let t: TestApp;
beforeAll(async () => { t = await createShopApp(); });
afterAll(async () => { await t.close(); });

const expectError = (r: { status: number; body: any; headers: Record<string, unknown> }, status: number, code: string) => {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(r.body.error.code).toBe(code);
  expect(r.headers.deprecation).toBe('true');
};
const lines = (cart: any) => cart.items.map((i: any) => [i.productId, i.quantity]);

describe('POST /cart', () => {
  it('creates an anonymous cart and sets an HttpOnly, SameSite=Lax cookie with a 128-bit id and Max-Age', async () => {
    const c = new ShopClient(t);
    const r = await c.post('/cart');
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ state: 'active', items: [], itemCount: 0, version: 1 });
    const cookie = r.setCookies.find((s) => s.startsWith('petal_cart='))!;
    expect(cookie).toMatch(/^petal_cart=[A-Za-z0-9_-]{22};/);
    expect(Buffer.from(cookie.slice('petal_cart='.length, cookie.indexOf(';')), 'base64url')).toHaveLength(16);
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; SameSite=Lax/);
    expect(cookie).toMatch(/; Max-Age=2592000/);
    expect(cookie).toMatch(/; Path=\/(;|$)/); // pages carry it too: templates find the visitor's cart
    expect(cookie).not.toMatch(/Secure/); // plain HTTP; behind TLS (trustProxy) it gets Secure
    expect(r.body.id).toBe(c.jar.get('petal_cart'));
  });

  it('returns the existing cart when the cookie holds a valid one; a signed-in user keeps one cart', async () => {
    const c = new ShopClient(t);
    const first = await c.post('/cart');
    const again = await c.post('/cart');
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    const alice = new ShopClient(t, 'alice');
    const a1 = await alice.post('/cart');
    const a2 = await new ShopClient(t, 'alice').post('/cart'); // another device, no cookie
    expect(a2.body.id).toBe(a1.body.id);
  });

  it('gives an empty anonymous cart or wishlist a day to live; an item makes it 30 days (the purge deletes expired ones)', async () => {
    const day = 24 * 3600_000;
    const ttl = (body: any) => Date.parse(body.expiresAt) - Date.parse(body.updatedAt);
    const c = new ShopClient(t);
    expect(ttl((await c.post('/cart')).body)).toBe(day);
    expect(ttl((await c.post('/cart/item', { productId: IDS.lavender })).body)).toBe(30 * day);
    expect(ttl((await c.post('/wishlist')).body)).toBe(day);
    expect(ttl((await c.post('/wishlist', { productId: IDS.lavender })).body)).toBe(30 * day);
    const alice = new ShopClient(t, 'alice'); // one cart per user: no need to hurry
    expect(ttl((await alice.post('/cart')).body)).toBe(30 * day);
  });

  it('takes an optional catalog and currency, and rejects unknown ones naming the field', async () => {
    const c = new ShopClient(t);
    const r = await c.post('/cart', { catalogId: IDS.catalog, currency: 'chf' });
    expect(r.body).toMatchObject({ catalogId: IDS.catalog, currency: 'CHF' });
    await c.post('/cart/item', { productId: IDS.lavender, quantity: 1 });
    expect((await c.get('/cart')).body.items[0].unitPrice).toEqual({ amount: 750, currency: 'CHF' });
    const bad = new ShopClient(t);
    expectError(await bad.post('/cart', { catalogId: 'nope' }), 400, 'invalidField');
    expect((await bad.post('/cart', { catalogId: IDS.catalog, currency: 'USD' })).body.error.message).toMatch(/^currency:/);
    expect((await bad.post('/cart', { colour: 'red' })).body.error.message).toMatch(/colour/);
    expect((await bad.post('/cart', [1, 2])).body.error.code).toBe('invalidField');
  });
});

describe('cookies of earlier releases', () => {
  it('expires a cookie scoped to /shop/v1 when the browser sends it besides the current one', async () => {
    const c = new ShopClient(t);
    await c.post('/cart');
    const id = c.jar.get('petal_cart')!;
    // Under /shop/v1 the browser sends the longer path first: the old cookie, then the current one.
    const r = await c.post('/cart/item', { productId: IDS.lavender }, { cookie: `petal_cart=${id}; petal_cart=${id}` });
    expect(r.status).toBe(200);
    const [legacy, current] = r.setCookies.filter((s) => s.startsWith('petal_cart='));
    expect(legacy).toMatch(/^petal_cart=;.*Path=\/shop\/v1(;|$)/);
    expect(current).toMatch(new RegExp(`^petal_cart=${id};.*Path=/(;|$)`));
    const single = await c.post('/cart/item', { productId: IDS.lavender });
    expect(single.setCookies.filter((s) => s.startsWith('petal_cart='))).toHaveLength(1);
  });

  it('scopes the cookies to the context path', () => {
    expect(shopCookiePath('')).toBe('/');
    expect(shopCookiePath('/petal')).toBe('/petal'); // matches /petal and /petal/…, not /petalx
  });
});

describe('GET and DELETE /cart', () => {
  it('answers 404 cartNotFound without a cookie, with a forged or malformed id, and for another user\'s cart', async () => {
    const missing = await new ShopClient(t).get('/cart');
    expectError(missing, 404, 'cartNotFound');
    const likeMissing = (r: { status: number; body: any; headers: Record<string, unknown> }) => {
      expectError(r, 404, 'cartNotFound');
      expect(r.body).toEqual(missing.body);
      expect(r.headers['set-cookie']).toBeUndefined();
    };
    const forged = new ShopClient(t);
    forged.jar.set('petal_cart', 'AAAAAAAAAAAAAAAAAAAAAA');
    likeMissing(await forged.get('/cart'));
    forged.jar.set('petal_cart', "x' OR 1=1 --");
    expectError(await forged.get('/cart'), 404, 'cartNotFound');

    const bob = new ShopClient(t, 'bob');
    await bob.post('/cart');
    await bob.post('/cart/item', { productId: IDS.hellebore });
    const thief = new ShopClient(t); // anonymous, with bob's cookie
    thief.jar.set('petal_cart', bob.jar.get('petal_cart')!);
    likeMissing(await thief.get('/cart'));
    likeMissing(await thief.post('/cart/item', { productId: IDS.lavender }));
    likeMissing(await thief.put('/cart/item', { productId: IDS.hellebore, quantity: 5 }));
    likeMissing(await thief.del('/cart'));
    const alice = new ShopClient(t, 'alice'); // signed in as someone else, with bob's cookie
    alice.jar.set('petal_cart', bob.jar.get('petal_cart')!);
    const r = await alice.get('/cart');
    if (r.status === 200) expect(r.body.id).not.toBe(bob.jar.get('petal_cart')); // alice's own cart, never bob's
    else expectError(r, 404, 'cartNotFound');
    expect(lines((await bob.get('/cart')).body)).toEqual([[IDS.hellebore, 1]]);
  });

  it('answers 404 cartNotFound for an expired cart', async () => {
    const id = 'EXPIREDcartEXPIREDcart'; // 22 base64url characters, as a real id
    await t.shopStore!.createCart({ id, userId: null, catalogId: null, currency: null, now: Date.now() - 31 * 24 * 3600_000, ttlMs: 30 * 24 * 3600_000 });
    const c = new ShopClient(t);
    c.jar.set('petal_cart', id);
    const missing = await new ShopClient(t).get('/cart');
    const expired = await c.get('/cart');
    expectError(expired, 404, 'cartNotFound');
    expect(expired.body).toEqual(missing.body);
    expectError(await c.post('/cart/item', { productId: IDS.lavender }), 404, 'cartNotFound');
    const fresh = await c.post('/cart'); // a new cart replaces it
    expect(fresh.status).toBe(201);
    expect(fresh.body.id).not.toBe(id);
  });

  it('returns the cart with live prices and computed totals in minor units', async () => {
    const c = new ShopClient(t);
    await c.post('/cart');
    await c.post('/cart/item', { productId: IDS.lavender, quantity: 10 });
    await c.post('/cart/item', { productId: IDS.shears, quantity: 1 });
    const r = await c.get('/cart');
    expect(r.status).toBe(200);
    expect(r.headers['cache-control']).toBe('no-store');
    const [lav, shears] = r.body.items;
    // Tier price for 10+ units, tax included (7 %): 5900 gross = 5514 net + 386 tax.
    expect(lav).toMatchObject({ quantity: 10, available: true, unitPrice: { amount: 590, currency: 'EUR' }, taxRate: '7', net: { amount: 5514 }, tax: { amount: 386 }, total: { amount: 5900 } });
    expect(shears).toMatchObject({ total: { amount: 3450 }, tax: { amount: 551 } });
    expect(r.body.totals).toEqual({
      subtotal: { amount: 9350, currency: 'EUR' }, shipping: { amount: 0, currency: 'EUR' },
      tax: { amount: 937, currency: 'EUR' }, total: { amount: 9350, currency: 'EUR' },
    });
    expect(r.body.itemCount).toBe(11);
  });

  it('deletes the cart and clears the cookie', async () => {
    const c = new ShopClient(t);
    await c.post('/cart');
    const id = c.jar.get('petal_cart')!;
    const r = await c.del('/cart');
    expect(r.status).toBe(204);
    const cleared = r.setCookies.filter((s) => s.startsWith('petal_cart=;'));
    expect(cleared.find((s) => /; Path=\/(;|$)/.test(s))).toMatch(/Expires=Thu, 01 Jan 1970|Max-Age=0/);
    // The cookie of earlier releases (Path=/shop/v1) goes too, so it can never shadow a new one.
    expect(cleared.find((s) => /; Path=\/shop\/v1(;|$)/.test(s))).toMatch(/Expires=Thu, 01 Jan 1970|Max-Age=0/);
    expect(c.jar.has('petal_cart')).toBe(false);
    c.jar.set('petal_cart', id);
    expectError(await c.get('/cart'), 404, 'cartNotFound');
    expectError(await c.del('/cart'), 404, 'cartNotFound');
  });
});

describe('cart items', () => {
  it('adds items; re-adding increments; PUT sets the quantity and 0 removes the line', async () => {
    const c = new ShopClient(t);
    await c.post('/cart');
    let r = await c.post('/cart/item', { productId: IDS.lavender, quantity: 2 });
    expect(r.status).toBe(200);
    r = await c.post('/cart/item', { productId: IDS.lavender, quantity: 3 });
    r = await c.post('/cart/item', { productId: IDS.hellebore }); // quantity defaults to 1
    expect(lines(r.body)).toEqual([[IDS.lavender, 5], [IDS.hellebore, 1]]);
    r = await c.put('/cart/item', { productId: IDS.lavender, quantity: 1 });
    expect(lines(r.body)).toEqual([[IDS.lavender, 1], [IDS.hellebore, 1]]);
    r = await c.put('/cart/item', { productId: IDS.lavender, quantity: 0 });
    expect(lines(r.body)).toEqual([[IDS.hellebore, 1]]);
    expectError(await c.put('/cart/item', { productId: IDS.lavender, quantity: 2 }), 404, 'cartItemNotFound');
    expectError(await c.put('/cart/item', { productId: IDS.hellebore, quantity: 2, price: 1 }), 400, 'invalidField');
  });

  it('rejects bad bodies naming the field, unknown products, products without a valid price, too much', async () => {
    const c = new ShopClient(t);
    await c.post('/cart');
    const bad = async (body: unknown, field: string) => {
      const r = await c.post('/cart/item', body);
      expectError(r, 400, 'invalidField');
      expect(r.body.error.message.startsWith(field)).toBe(true);
    };
    await bad({ quantity: 1 }, 'productId');
    await bad({ productId: IDS.lavender, quantity: 0 }, 'quantity');
    await bad({ productId: IDS.lavender, quantity: -2 }, 'quantity');
    await bad({ productId: IDS.lavender, quantity: 1.5 }, 'quantity');
    await bad({ productId: IDS.lavender, quantity: '2' }, 'quantity');
    await bad({ productId: IDS.lavender, quantity: 1000 }, 'quantity');
    expectError(await c.put('/cart/item', { productId: IDS.lavender }), 400, 'invalidField');
    expectError(await c.post('/cart/item', { productId: 'no-such-product' }), 422, 'productNotFound');
    expectError(await c.post('/cart/item', { productId: IDS.catalog }), 422, 'productNotFound');
    expectError(await c.post('/cart/item', { productId: IDS.seedTin }), 422, 'priceNotAvailable'); // only a future price
    expectError(await c.post('/cart/item', { productId: IDS.rose, quantity: 4 }), 409, 'insufficientStock'); // 3 in stock
    await c.post('/cart/item', { productId: IDS.hellebore, quantity: 999 });
    expectError(await c.post('/cart/item', { productId: IDS.hellebore, quantity: 1 }), 422, 'quantityLimitExceeded');
    const chf = new ShopClient(t);
    await chf.post('/cart', { catalogId: IDS.catalog, currency: 'CHF' });
    expectError(await chf.post('/cart/item', { productId: IDS.hellebore }), 422, 'priceNotAvailable'); // EUR only
    const none = new ShopClient(t);
    expectError(await none.post('/cart/item', { productId: IDS.lavender }), 404, 'cartNotFound');
    expectError(await none.put('/cart/item', { productId: IDS.lavender, quantity: 1 }), 404, 'cartNotFound');
  });

  it('loses no update when many additions to one cart run concurrently', async () => {
    const c = new ShopClient(t);
    await c.post('/cart');
    const n = 25;
    const results = await Promise.all(Array.from({ length: n }, (_, i) =>
      c.post('/cart/item', { productId: i % 2 === 0 ? IDS.lavender : IDS.hellebore, quantity: 1 })));
    expect(results.every((r) => r.status === 200)).toBe(true);
    const cart = (await c.get('/cart')).body;
    expect(Object.fromEntries(lines(cart))).toEqual({ [IDS.lavender]: 13, [IDS.hellebore]: 12 });
    expect(cart.version).toBe(1 + n);
  });
});

describe('CSRF', () => {
  it('refuses cookie-bound writes from another origin, allows same-origin ones', async () => {
    const c = new ShopClient(t);
    await c.post('/cart');
    expectError(await c.post('/cart/item', { productId: IDS.lavender }, { origin: 'https://evil.example' }), 403, 'accessDenied');
    expectError(await c.del('/cart', { 'sec-fetch-site': 'cross-site', origin: 'https://evil.example' }), 403, 'accessDenied');
    const ok = await c.post('/cart/item', { productId: IDS.lavender }, { origin: 'http://shop.example', host: 'shop.example' });
    expect(ok.status).toBe(200);
    expect((await c.get('/cart')).body.items).toHaveLength(1);
  });
});

describe('CSRF with ambient credentials other than cookies', () => {
  it('refuses a cross-site form post authenticated by cached Basic credentials; the shop takes JSON only', async () => {
    const alice = new ShopClient(t, 'alice');
    const before = (await alice.post('/cart')).body;
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const cross = await alice.t.app.inject({
      method: 'POST', url: '/shop/v1/cart/item', payload: `productId=${IDS.shears}`,
      headers: { ...form, authorization: basicOf('alice'), origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
    });
    expect(cross.statusCode).toBe(415); // forms are refused before anything else
    expect(cross.headers.deprecation).toBe('true');
    // And a cross-origin write carried by Basic credentials alone is refused like a cookie-bound one.
    const json = await alice.t.app.inject({
      method: 'POST', url: '/shop/v1/cart/item', payload: JSON.stringify({ productId: IDS.shears }),
      headers: { 'content-type': 'application/json', authorization: basicOf('alice'), origin: 'https://evil.example' },
    });
    expect([json.statusCode, JSON.parse(json.body).error.code]).toEqual([403, 'accessDenied']);
    const sameOrigin = await alice.t.app.inject({
      method: 'POST', url: '/shop/v1/cart/item', payload: `productId=${IDS.shears}`, headers: { ...form, authorization: basicOf('alice') },
    });
    expect([sameOrigin.statusCode, JSON.parse(sameOrigin.body).error.code]).toEqual([415, 'unsupportedMediaType']);
    const text = await alice.t.app.inject({
      method: 'POST', url: '/shop/v1/cart/item', payload: JSON.stringify({ productId: IDS.shears }), headers: { 'content-type': 'text/plain', authorization: basicOf('alice') },
    });
    expect(text.statusCode).toBe(415);
    expect((await alice.get('/cart')).body.items).toEqual(before.items);
  });
});

describe('wishlist', () => {
  it('creates (cookie), adds an optional product once, reads, deletes (cookie cleared)', async () => {
    const c = new ShopClient(t);
    expectError(await c.get('/wishlist'), 404, 'wishlistNotFound');
    let r = await c.post('/wishlist', { productId: IDS.rose });
    expect(r.status).toBe(201);
    const cookie = r.setCookies.find((s) => s.startsWith('petal_wishlist='))!;
    expect(cookie).toMatch(/^petal_wishlist=[A-Za-z0-9_-]{22};.*HttpOnly.*SameSite=Lax/);
    expect(cookie).toMatch(/; Path=\/(;|$)/);
    r = await c.post('/wishlist', { productId: IDS.rose });
    expect(r.status).toBe(200);
    r = await c.post('/wishlist', { productId: IDS.lavender });
    expect(r.body.items.map((i: any) => [i.productId, i.title])).toEqual([[IDS.rose, 'Shrub rose Amber Morning'], [IDS.lavender, 'Lavender Hidcote']]);
    expect((await c.get('/wishlist')).body.id).toBe(c.jar.get('petal_wishlist'));
    expectError(await c.post('/wishlist', { productId: 'nope' }), 422, 'productNotFound');
    expectError(await c.post('/wishlist', { productId: 5 }), 400, 'invalidField');
    const bobs = new ShopClient(t, 'bob');
    await bobs.post('/wishlist', { productId: IDS.hellebore });
    const anonymousWithBobs = new ShopClient(t);
    anonymousWithBobs.jar.set('petal_wishlist', bobs.jar.get('petal_wishlist')!);
    const missing = await new ShopClient(t).get('/wishlist');
    const stolen = await anonymousWithBobs.get('/wishlist');
    expectError(stolen, 404, 'wishlistNotFound');
    expect(stolen.body).toEqual(missing.body); // exactly like no wishlist
    expectError(await anonymousWithBobs.del('/wishlist'), 404, 'wishlistNotFound');
    const alice = new ShopClient(t, 'alice'); // signed in as someone else, with bob's cookie
    alice.jar.set('petal_wishlist', bobs.jar.get('petal_wishlist')!);
    const a = await alice.post('/wishlist');
    expect(a.body.id).not.toBe(bobs.jar.get('petal_wishlist'));
    expect(a.body.items.map((i: any) => i.productId)).not.toContain(IDS.hellebore);
    expect((await bobs.get('/wishlist')).body.items.map((i: any) => i.productId)).toEqual([IDS.hellebore]);
    expect((await c.del('/wishlist')).status).toBe(204);
    expect(c.jar.has('petal_wishlist')).toBe(false);
    expectError(await c.del('/wishlist'), 404, 'wishlistNotFound');
  });
});

describe('merge on login', () => {
  it('gives the anonymous cart to a user who logs in (session cookie) and has no cart', async () => {
    const u = await createShopApp();
    try {
      const browser = new ShopClient(u);
      const created = await browser.post('/cart');
      expect(created.body.totals).toBeNull(); // no currency yet
      await browser.post('/cart/item', { productId: IDS.lavender, quantity: 2 });
      const anonId = browser.jar.get('petal_cart')!;
      const login = await u.app.inject({
        method: 'POST', url: '/.auth/login', headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: `mgnlUserId=alice&mgnlUserPSWD=${encodeURIComponent(PASSWORD)}`,
      });
      expect(login.statusCode).toBe(200);
      const session = login.cookies.find((c) => c.name === 'petal_session')!.value;
      browser.jar.set('petal_session', session); // the same browser, now signed in
      const r = await browser.get('/cart');
      expect(r.status).toBe(200);
      expect(r.body.id).toBe(anonId);
      expect(lines(r.body)).toEqual([[IDS.lavender, 2]]);
      // It is alice's now: her other devices find it, anonymous callers with the cookie do not.
      expect((await new ShopClient(u, 'alice').get('/cart')).body.id).toBe(anonId);
      const anonymous = new ShopClient(u);
      anonymous.jar.set('petal_cart', anonId);
      expectError(await anonymous.get('/cart'), 404, 'cartNotFound');
      expect((await browser.post('/cart/item', { productId: IDS.hellebore })).status).toBe(200);
      expect((await new ShopClient(u, 'alice').get('/orders')).body.total).toBe(0);
    } finally {
      await u.close();
    }
  });

  it('merges an anonymous cart into the user\'s cart: the larger quantity per product, new products appended', async () => {
    const u = await createShopApp();
    try {
      const alice = new ShopClient(u, 'alice');
      await alice.post('/cart');
      await alice.post('/cart/item', { productId: IDS.lavender, quantity: 5 });
      await alice.post('/cart/item', { productId: IDS.hellebore, quantity: 1 });
      const aliceCart = alice.jar.get('petal_cart')!;

      const browser = new ShopClient(u); // the same person, not signed in yet
      await browser.post('/cart');
      await browser.post('/cart/item', { productId: IDS.lavender, quantity: 2 });
      await browser.post('/cart/item', { productId: IDS.hellebore, quantity: 4 });
      await browser.post('/cart/item', { productId: IDS.shears, quantity: 1 });
      const anonCart = browser.jar.get('petal_cart')!;

      const loggedIn = new ShopClient(u, 'alice');
      loggedIn.jar.set('petal_cart', anonCart);
      const r = await loggedIn.get('/cart');
      expect(r.status).toBe(200);
      expect(r.body.id).toBe(aliceCart);
      expect(lines(r.body)).toEqual([[IDS.lavender, 5], [IDS.hellebore, 4], [IDS.shears, 1]]);
      expect(loggedIn.jar.get('petal_cart')).toBe(aliceCart); // the cookie follows the merged cart
      expectError(await browser.get('/cart'), 404, 'cartNotFound'); // the anonymous cart is gone (merged)
      // Merging twice changes nothing.
      loggedIn.jar.set('petal_cart', anonCart);
      expect(lines((await loggedIn.get('/cart')).body)).toEqual([[IDS.lavender, 5], [IDS.hellebore, 4], [IDS.shears, 1]]);

      // Wishlists merge too (union).
      const wBrowser = new ShopClient(u);
      await wBrowser.post('/wishlist', { productId: IDS.rose });
      await alice.post('/wishlist', { productId: IDS.lavender });
      const wLogged = new ShopClient(u, 'alice');
      wLogged.jar.set('petal_wishlist', wBrowser.jar.get('petal_wishlist')!);
      const w = await wLogged.get('/wishlist');
      expect(w.body.items.map((i: any) => i.productId)).toEqual([IDS.lavender, IDS.rose]);
    } finally {
      await u.close();
    }
  });
});
