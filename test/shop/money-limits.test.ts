// Money stays exact integers: prices and rates beyond the documented bound are not prices, a cart
// (and an order) cannot total more than the documented bound, and tax is exact for every amount.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/test-app.js';
import { mulDivRound, splitTax } from '../../src/shop/money.js';
import { ADDRESS, createShopApp, ShopClient } from './helpers.js';

const VAULT = '7a010000-0000-4000-8000-000000000001';
const GOLD = '7a012000-0000-4000-8000-000000000001';
const PLATINUM = '7a012000-0000-4000-8000-000000000002';
const HUGE = '7a012000-0000-4000-8000-000000000003';
const COURIER = '7a01e000-0000-4000-8000-000000000001';

const content = {
  'shopCatalogs.vault.yaml': `
'vault':
  'jcr:primaryType': 'shop:catalog'
  'jcr:uuid': '${VAULT}'
  'currencies': ['EUR']
  'pricesIncludeTax': false
  'shippingMethods': ['${COURIER}']
`,
  'shopProducts.vault.yaml': `
'vault':
  'jcr:primaryType': 'mgnl:folder'
  'jcr:uuid': '7a011000-0000-4000-8000-0000000000f2'
  'gold':
    'jcr:primaryType': 'shop:product'
    'jcr:uuid': '${GOLD}'
    'taxRate': '19'
    'eur': { 'jcr:primaryType': 'shop:price', 'currency': 'EUR', 'amount': 1000000000000 }
  'platinum':
    'jcr:primaryType': 'shop:product'
    'jcr:uuid': '${PLATINUM}'
    'taxRate': '19'
    'eur': { 'jcr:primaryType': 'shop:price', 'currency': 'EUR', 'amount': 999999999999 }
  'huge':
    'jcr:primaryType': 'shop:product'
    'jcr:uuid': '${HUGE}'
    'taxRate': '19'
    'eur': { 'jcr:primaryType': 'shop:price', 'currency': 'EUR', 'amount': 4503599627370497 }
`,
  'shopShippingMethods.courier.yaml': `
'courier':
  'jcr:primaryType': 'shop:shippingMethod'
  'jcr:uuid': '${COURIER}'
  'eur': { 'jcr:primaryType': 'shop:shippingRate', 'currency': 'EUR', 'amount': 0 }
  'eur-huge': { 'jcr:primaryType': 'shop:shippingRate', 'currency': 'EUR', 'amount': 9007199254740991 }
`,
};

let t: TestApp;
beforeAll(async () => { t = await createShopApp({ content }); });
afterAll(async () => { await t.close(); });

describe('money limits', () => {
  it('computes tax exactly for amounts whose product with the rate exceeds 2^53', () => {
    expect(mulDivRound(415716897482192, 1672, 10000)).toBe(69507865259023);
    expect(splitTax(322855132083498, 1107, true).tax).toBe(32177962655662);
    expect(mulDivRound(-415716897482192, 1672, 10000)).toBe(-69507865259023);
  });

  it('ignores prices and rates above 10^12 minor units', async () => {
    const c = new ShopClient(t);
    const products = (await c.get(`/catalog/${VAULT}/products`)).body.items;
    expect(products.find((p: any) => p.id === HUGE).prices).toEqual([]);
    expect(products.find((p: any) => p.id === GOLD).prices[0].price).toEqual({ amount: 1e12, currency: 'EUR' });
    expect((await c.get(`/shipping/methods/${COURIER}`)).body.rates.map((r: any) => r.name)).toEqual(['eur']);
    await c.post('/cart');
    const r = await c.post('/cart/item', { productId: HUGE });
    expect([r.status, r.body.error.code]).toEqual([422, 'priceNotAvailable']);
  });

  it('keeps a cart and its order within 10^15 minor units', async () => {
    const c = new ShopClient(t);
    await c.post('/cart');
    // 500 × 10^12 net + 19 % = 5.95 · 10^14.
    const ok = await c.post('/cart/item', { productId: GOLD, quantity: 500 });
    expect(ok.status).toBe(200);
    expect(ok.body.totals.total).toEqual({ amount: 595_000_000_000_000, currency: 'EUR' });
    const r = await c.post('/cart/item', { productId: PLATINUM, quantity: 400 }); // + 4.76 · 10^14
    expect([r.status, r.body.error.code]).toEqual([422, 'amountLimitExceeded']);
    expect(r.body.error.message).toMatch(/^quantity:/);
    const r2 = await c.put('/cart/item', { productId: GOLD, quantity: 900 });
    expect([r2.status, r2.body.error.code]).toEqual([422, 'amountLimitExceeded']);
    expect((await c.put('/cart/item', { productId: GOLD, quantity: 1 })).status).toBe(200); // going down is fine
    const o = await c.post('/order', { billingAddress: ADDRESS, shippingAddress: ADDRESS, shippingMethodId: COURIER });
    expect(o.status).toBe(201);
    expect(o.body.totals.total).toEqual({ amount: 1_190_000_000_000, currency: 'EUR' });
  });
});
