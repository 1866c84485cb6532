// Rules a cart's first item and its size must keep: a currency chosen without a catalog must be one of
// the catalog's when the first item comes; a cart holds at most 100 products, a wishlist 200.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/test-app.js';
import { createShopApp, ShopClient } from './helpers.js';

const CATALOG = '5b0c0000-0000-4000-8000-000000000001';
/** Priced in EUR and USD; the catalog sells in EUR only. */
const DUAL = '5b0c2000-0000-4000-8000-000000000001';
/** 201 more products, `item-0` … `item-200`. */
const ITEMS = Array.from({ length: 201 }, (_, i) => `5b0c3000-0000-4000-8000-${String(i).padStart(12, '0')}`);
const items = ITEMS.map((uuid, i) => `
  'item-${i}':
    'jcr:primaryType': 'shop:product'
    'jcr:uuid': '${uuid}'
    'eur': { 'jcr:primaryType': 'shop:price', 'currency': 'EUR', 'amount': 100 }`).join('');

const content = {
  'shopCatalogs.bazaar.yaml': `
'bazaar':
  'jcr:primaryType': 'shop:catalog'
  'jcr:uuid': '${CATALOG}'
  'currencies': ['EUR']
`,
  'shopProducts.bazaar.yaml': `
'bazaar':
  'jcr:primaryType': 'mgnl:folder'
  'jcr:uuid': '5b0c1000-0000-4000-8000-0000000000f2'
  'dual':
    'jcr:primaryType': 'shop:product'
    'jcr:uuid': '${DUAL}'
    'eur': { 'jcr:primaryType': 'shop:price', 'currency': 'EUR', 'amount': 100 }
    'usd': { 'jcr:primaryType': 'shop:price', 'currency': 'USD', 'amount': 110 }${items}
`,
};

let t: TestApp;
beforeAll(async () => { t = await createShopApp({ content }); });
afterAll(async () => { await t.close(); });

describe('the cart currency', () => {
  it('must be a currency of the catalog of the first item, even when chosen without a catalog', async () => {
    const c = new ShopClient(t);
    expect((await c.post('/cart', { currency: 'USD' })).status).toBe(201);
    const r = await c.post('/cart/item', { productId: DUAL });
    expect([r.status, r.body.error.code]).toEqual([422, 'currencyNotInCatalog']);
    expect(r.body.error.message).toMatch(/^currency: .*USD/);
    expect((await c.get('/cart')).body).toMatchObject({ catalogId: null, currency: 'USD', items: [] });

    const eur = new ShopClient(t);
    await eur.post('/cart', { currency: 'EUR' });
    const ok = await eur.post('/cart/item', { productId: DUAL });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ catalogId: CATALOG, currency: 'EUR' });
  });
});

describe('size limits', () => {
  it('refuses a 101st product in a cart (422 tooManyItems naming productId); more of a held one is fine', async () => {
    const c = new ShopClient(t);
    await c.post('/cart');
    for (const id of ITEMS.slice(0, 100)) expect((await c.post('/cart/item', { productId: id })).status).toBe(200);
    const r = await c.post('/cart/item', { productId: ITEMS[100] });
    expect([r.status, r.body.error.code]).toEqual([422, 'tooManyItems']);
    expect(r.body.error.message).toMatch(/^productId: .*100/);
    expect((await c.post('/cart/item', { productId: ITEMS[0], quantity: 2 })).body.items[0].quantity).toBe(3);
    expect((await c.put('/cart/item', { productId: ITEMS[1], quantity: 0 })).body.items).toHaveLength(99);
    expect((await c.post('/cart/item', { productId: ITEMS[100] })).status).toBe(200);
  });

  it('refuses a 201st product in a wishlist (422 tooManyItems naming productId)', async () => {
    const c = new ShopClient(t);
    for (const id of ITEMS.slice(0, 200)) expect((await c.post('/wishlist', { productId: id })).status).toBeLessThan(300);
    const r = await c.post('/wishlist', { productId: ITEMS[200] });
    expect([r.status, r.body.error.code]).toEqual([422, 'tooManyItems']);
    expect(r.body.error.message).toMatch(/^productId: .*200/);
    expect((await c.post('/wishlist', { productId: ITEMS[0] })).status).toBe(200); // already there
    expect((await c.get('/wishlist')).body.items).toHaveLength(200);
  });

  it('keeps the largest quantity of a line at 999', async () => {
    const c = new ShopClient(t);
    await c.post('/cart');
    const r = await c.post('/cart/item', { productId: DUAL, quantity: 1e9 });
    expect([r.status, r.body.error.code]).toEqual([400, 'invalidField']);
    expect(r.body.error.message).toMatch(/^quantity: at most 999/);
  });
});
