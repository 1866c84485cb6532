// Text no store keeps alike (U+0000: PostgreSQL refuses it, SQLite keeps it; unpaired surrogates have
// no UTF-8 form) in any text field of any shop write: 400 invalidField naming the field, on every
// store (PETAL_TEST_PG runs this file against PostgreSQL), and nothing stored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/test-app.js';
import { ADDRESS, createShopApp, IDS, ORDER_BODY, ShopClient } from './helpers.js';

let t: TestApp;
beforeAll(async () => { t = await createShopApp(); });
afterAll(async () => { await t.close(); });

const BAD = { nul: 'a\u0000b', lone: 'a\ud800b', trailing: '\udc00' } as const;
const ADDRESS_FIELDS = ['firstName', 'lastName', 'company', 'street', 'street2', 'postalCode', 'city', 'region', 'country', 'email', 'phone'];

async function expectRefused(r: Promise<{ status: number; body: any }>, field: string): Promise<void> {
  const { status, body } = await r;
  expect([status, body.error?.code], JSON.stringify(body)).toEqual([400, 'invalidField']);
  expect(body.error.message.startsWith(`${field}: `), `${body.error.message} names ${field}`).toBe(true);
}

async function filledCart(): Promise<ShopClient> {
  const c = new ShopClient(t);
  await c.post('/cart');
  await c.post('/cart/item', { productId: IDS.lavender, quantity: 1 });
  return c;
}

describe('unsupported text in shop bodies', () => {
  for (const [kind, bad] of Object.entries(BAD)) {
    it(`refuses ${kind} in carts and wishlists, naming the field`, async () => {
      const c = new ShopClient(t);
      await expectRefused(c.post('/cart', { catalogId: bad }), 'catalogId');
      await expectRefused(c.post('/cart', { currency: bad }), 'currency');
      expect(c.jar.has('petal_cart')).toBe(false); // no cart was created
      await c.post('/cart');
      await expectRefused(c.post('/cart/item', { productId: bad }), 'productId');
      await expectRefused(c.put('/cart/item', { productId: bad, quantity: 0 }), 'productId');
      await expectRefused(c.post('/wishlist', { productId: bad }), 'productId');
      expect((await c.get('/cart')).body.items).toEqual([]);
      expect((await c.get('/wishlist')).status).toBe(404);
    });

    it(`refuses ${kind} in every text field of an order, naming it, and orders nothing`, async () => {
      const c = await filledCart();
      for (const address of ['billingAddress', 'shippingAddress'] as const) {
        for (const field of ADDRESS_FIELDS) {
          await expectRefused(c.post('/order', { ...ORDER_BODY, [address]: { ...ADDRESS, [field]: bad } }), `${address}.${field}`);
        }
      }
      await expectRefused(c.post('/order', { ...ORDER_BODY, shippingMethodId: bad }), 'shippingMethodId');
      await expectRefused(c.post('/order', { ...ORDER_BODY, email: bad }), 'email');
      expect((await c.get('/cart')).body.state).toBe('active');
      expect((await c.post('/order', ORDER_BODY)).status).toBe(201); // the same cart orders once the text is right
    });
  }

  it('accepts well-formed text outside the BMP (a surrogate pair) and keeps it', async () => {
    const c = await filledCart();
    const r = await c.post('/order', { ...ORDER_BODY, shippingAddress: { ...ADDRESS, street: 'Rosenweg 🌹 1' } });
    expect(r.status).toBe(201);
    expect(r.body.shippingAddress.street).toBe('Rosenweg 🌹 1');
  });

  it('refuses an Idempotency-Key that is not visible ASCII, naming the header', async () => {
    const c = await filledCart();
    const r = await c.post('/order', ORDER_BODY, { 'idempotency-key': 'k\u00e9y' });
    expect([r.status, r.body.error.code]).toEqual([400, 'badRequest']);
    expect(r.body.error.message.startsWith('Idempotency-Key')).toBe(true);
  });
});
