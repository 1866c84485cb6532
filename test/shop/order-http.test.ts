// /shop/v1 orders through HTTP: the cart becomes an order with frozen prices, taxes and shipping; stock
// decrements; Idempotency-Key; exactly one order under a concurrent double checkout; validation errors
// name the field; GET /orders for users only.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/test-app.js';
import { ADDRESS, createShopApp, IDS, ORDER_BODY, ShopClient } from './helpers.js';

let t: TestApp;
beforeEach(async () => { t = await createShopApp(); });
afterEach(async () => { await t.close(); });

const expectError = (r: { status: number; body: any; headers: Record<string, unknown> }, status: number, code: string) => {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(r.body.error.code).toBe(code);
  expect(r.headers.deprecation).toBe('true');
};

async function filledCart(user?: string): Promise<ShopClient> {
  const c = new ShopClient(t, user);
  await c.post('/cart');
  await c.post('/cart/item', { productId: IDS.lavender, quantity: 2 });
  await c.post('/cart/item', { productId: IDS.rose, quantity: 1 });
  return c;
}

describe('POST /order', () => {
  it('converts the cart into an order: frozen prices, taxes and shipping, a unique number, the cart ordered', async () => {
    const c = await filledCart();
    const r = await c.post('/order', ORDER_BODY);
    expect(r.status).toBe(201);
    expect(r.headers.deprecation).toBe('true');
    const o = r.body;
    expect(o.number).toMatch(/^ORD-\d{8}$/);
    expect(o).toMatchObject({ status: 'placed', currency: 'EUR', catalogId: IDS.catalog, email: 'ada@example.com' });
    expect(o.items.map((i: any) => [i.productId, i.quantity, i.unitPrice.amount, i.total.amount])).toEqual([
      [IDS.lavender, 2, 690, 1380], [IDS.rose, 1, 2490, 2490],
    ]);
    // 3870 subtotal (< 5000: standard rate 490, 19 % tax included = 78); line taxes 90 + 163.
    expect(o.shipping).toMatchObject({ methodId: IDS.standard, price: { amount: 490, currency: 'EUR' }, tax: { amount: 78 } });
    expect(o.totals).toEqual({
      subtotal: { amount: 3870, currency: 'EUR' }, shipping: { amount: 490, currency: 'EUR' },
      tax: { amount: 331, currency: 'EUR' }, total: { amount: 4360, currency: 'EUR' },
    });
    expect(o.shippingAddress).toEqual(ADDRESS);
    // The cart cookie is cleared; the cart is no longer usable.
    expect(r.setCookies.some((s) => s.startsWith('petal_cart=;'))).toBe(true);
    expect(c.jar.has('petal_cart')).toBe(false);
    // Stock of tracked products went down.
    const products = (await c.get(`/catalog/${IDS.catalog}/products`)).body.items;
    expect(products.find((p: any) => p.id === IDS.lavender).stock).toBe(46);
    expect(products.find((p: any) => p.id === IDS.rose).stock).toBe(2);
    // A second order gets the next number.
    const d = await filledCart();
    expect((await d.post('/order', ORDER_BODY)).body.number).not.toBe(o.number);
  });

  it('answers an ordered cart with 409 cartAlreadyOrdered, and a missing cart with 404', async () => {
    const c = await filledCart();
    const id = c.jar.get('petal_cart')!;
    expect((await c.post('/order', ORDER_BODY)).status).toBe(201);
    c.jar.set('petal_cart', id);
    expectError(await c.post('/order', ORDER_BODY), 409, 'cartAlreadyOrdered');
    expectError(await c.post('/cart/item', { productId: IDS.lavender }), 404, 'cartNotFound');
    expectError(await new ShopClient(t).post('/order', ORDER_BODY), 404, 'cartNotFound');
  });

  it('honours Idempotency-Key: same key and body → the same order; another body → 422', async () => {
    const c = await filledCart();
    const id = c.jar.get('petal_cart')!;
    const first = await c.post('/order', ORDER_BODY, { 'idempotency-key': 'order-1' });
    expect(first.status).toBe(201);
    c.jar.set('petal_cart', id); // the client never saw the first answer and retries
    const again = await c.post('/order', ORDER_BODY, { 'idempotency-key': 'order-1' });
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    c.jar.set('petal_cart', id); // the replay cleared the cookie again
    const other = { ...ORDER_BODY, shippingMethodId: IDS.express };
    expectError(await c.post('/order', other, { 'idempotency-key': 'order-1' }), 422, 'idempotencyKeyReused');
    expectError(await c.post('/order', ORDER_BODY, { 'idempotency-key': 'bad key with spaces' }), 400, 'badRequest');
  });

  it('scopes Idempotency-Key to the customer: a signed-in user, or the anonymous cart\'s cookie', async () => {
    const anon = await filledCart();
    const first = await anon.post('/order', ORDER_BODY, { 'idempotency-key': 'shared-key' });
    expect(first.status).toBe(201);
    // A stranger with the same key and body gets neither that order (its addresses) nor a 422.
    expectError(await new ShopClient(t).post('/order', ORDER_BODY, { 'idempotency-key': 'shared-key' }), 404, 'cartNotFound');
    const other = await filledCart(); // another anonymous customer whose client reuses the key
    const second = await other.post('/order', ORDER_BODY, { 'idempotency-key': 'shared-key' });
    expect(second.status).toBe(201);
    expect(second.body.id).not.toBe(first.body.id);
    // Users: the key is theirs alone, and a retry from another device (no cart cookie) replays.
    const alice = await filledCart('alice');
    const a1 = await alice.post('/order', ORDER_BODY, { 'idempotency-key': 'shared-key' });
    expect(a1.status).toBe(201);
    const again = await new ShopClient(t, 'alice').post('/order', ORDER_BODY, { 'idempotency-key': 'shared-key' });
    expect([again.status, again.body.id]).toEqual([200, a1.body.id]);
    const bob = await filledCart('bob');
    expect((await bob.post('/order', ORDER_BODY, { 'idempotency-key': 'shared-key' })).status).toBe(201);
  });

  it('creates exactly one order when two requests for one cart race (with and without a shared key)', async () => {
    for (const key of [undefined, 'race-key']) {
      const c = await filledCart();
      const headers: Record<string, string> = key ? { 'idempotency-key': key } : {};
      const results = await Promise.all([c.post('/order', ORDER_BODY, headers), c.post('/order', ORDER_BODY, headers), c.post('/order', ORDER_BODY, headers)]);
      const created = results.filter((r) => r.status === 201);
      expect(created).toHaveLength(1);
      for (const r of results.filter((x) => x.status !== 201)) {
        if (key) {
          expect(r.status).toBe(200);
          expect(r.body.id).toBe(created[0]!.body.id);
        } else {
          expectError(r, 409, 'cartAlreadyOrdered');
        }
      }
    }
    const user = await filledCart('alice');
    const both = await Promise.all([user.post('/order', ORDER_BODY), user.post('/order', ORDER_BODY)]);
    expect(both.map((r) => r.status).sort()).toEqual([201, 409]);
    expect((await user.get('/orders')).body.total).toBe(1);
  });

  it('names the field of every validation error', async () => {
    const c = await filledCart();
    const cases: [unknown, string][] = [
      [{ ...ORDER_BODY, billingAddress: undefined }, 'billingAddress'],
      [{ ...ORDER_BODY, shippingAddress: { ...ADDRESS, city: '' } }, 'shippingAddress.city'],
      [{ ...ORDER_BODY, shippingAddress: { ...ADDRESS, country: 'Germany' } }, 'shippingAddress.country'],
      [{ ...ORDER_BODY, billingAddress: { ...ADDRESS, email: 'not-mail' } }, 'billingAddress.email'],
      [{ ...ORDER_BODY, shippingMethodId: undefined }, 'shippingMethodId'],
      [{ ...ORDER_BODY, shippingMethodId: 'nope' }, 'shippingMethodId'],
      [{ ...ORDER_BODY, coupon: 'X' }, 'unknown field(s) coupon'],
      [{ billingAddress: { ...ADDRESS, email: undefined }, shippingAddress: ADDRESS, shippingMethodId: IDS.standard }, 'email'],
    ];
    for (const [body, field] of cases) {
      const r = await c.post('/order', body);
      expectError(r, 400, 'invalidField');
      expect(r.body.error.message.startsWith(field), `${r.body.error.message} names ${field}`).toBe(true);
    }
    expect((await c.get('/cart')).body.state).toBe('active'); // nothing happened to the cart
  });

  it('refuses empty carts, shipping without a rate, and stock sold out meanwhile', async () => {
    const empty = new ShopClient(t);
    await empty.post('/cart');
    expectError(await empty.post('/order', ORDER_BODY), 422, 'cartEmpty');

    const c = await filledCart();
    expectError(await c.post('/order', { ...ORDER_BODY, shippingMethodId: IDS.express, shippingAddress: { ...ADDRESS, country: 'FR' } }), 422, 'shippingNotAvailable');
    const express = await c.post('/order', { ...ORDER_BODY, shippingMethodId: IDS.express });
    expect(express.body.shipping.price.amount).toBe(1290);

    // Two carts each hold 2 of the 3 roses; the second order finds too few left.
    const a = new ShopClient(t);
    const b = new ShopClient(t);
    for (const x of [a, b]) {
      await x.post('/cart');
      await x.post('/cart/item', { productId: IDS.rose, quantity: 1 }); // 1 rose sold above: 2 left
    }
    await b.put('/cart/item', { productId: IDS.rose, quantity: 2 });
    expect((await a.post('/order', ORDER_BODY)).status).toBe(201);
    const r = await b.post('/order', ORDER_BODY);
    expectError(r, 409, 'insufficientStock');
    expect(r.body.error.message).toMatch(/Only 1 units/);
    expect((await b.get('/cart')).body.state).toBe('active');
  });
});

describe('refused orders', () => {
  it('take no stock: three refused orders of 2 lavender + 1 sold-out rose leave the lavender count alone', async () => {
    const c = await filledCart(); // 2 lavender + 1 rose
    const other = new ShopClient(t);
    await other.post('/cart');
    await other.post('/cart/item', { productId: IDS.rose, quantity: 3 });
    expect((await other.post('/order', ORDER_BODY)).status).toBe(201); // the roses are gone
    for (let i = 0; i < 3; i++) expectError(await c.post('/order', ORDER_BODY), 409, 'insufficientStock');
    const stock = async (id: string) => (await c.get(`/catalog/${IDS.catalog}/products`)).body.items.find((p: any) => p.id === id).stock;
    expect(await stock(IDS.lavender)).toBe(48);
    expect(await stock(IDS.rose)).toBe(0);
    expect((await c.get('/cart')).body.state).toBe('active');
  });
});

describe('GET /orders', () => {
  it('answers 401 to anonymous callers and lists the signed-in user\'s orders, newest first', async () => {
    expectError(await new ShopClient(t).get('/orders'), 401, 'notAuthorized');
    const alice = await filledCart('alice');
    const o1 = (await alice.post('/order', ORDER_BODY)).body;
    await alice.post('/cart');
    await alice.post('/cart/item', { productId: IDS.shears });
    const o2 = (await alice.post('/order', ORDER_BODY)).body;
    const bob = await filledCart('bob');
    await bob.post('/order', ORDER_BODY);
    const anon = await filledCart();
    await anon.post('/order', ORDER_BODY);

    const r = await alice.get('/orders');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ total: 2, limit: 20, offset: 0 });
    expect(r.body.items.map((o: any) => o.id)).toEqual([o2.id, o1.id]);
    expect((await alice.get('/orders?limit=1&offset=1')).body.items.map((o: any) => o.id)).toEqual([o1.id]);
    expectError(await alice.get('/orders?limit=x'), 400, 'invalidQuery');
    expect((await new ShopClient(t, 'bob').get('/orders')).body.total).toBe(1);
  });
});
