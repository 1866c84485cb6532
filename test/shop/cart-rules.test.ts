// Rules a cart's first item and its size must keep: a currency chosen without a catalog must be one of
// the catalog's when the first item comes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/test-app.js';
import { createShopApp, ShopClient } from './helpers.js';

const CATALOG = '5b0c0000-0000-4000-8000-000000000001';
/** Priced in EUR and USD; the catalog sells in EUR only. */
const DUAL = '5b0c2000-0000-4000-8000-000000000001';

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
    'usd': { 'jcr:primaryType': 'shop:price', 'currency': 'USD', 'amount': 110 }
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
