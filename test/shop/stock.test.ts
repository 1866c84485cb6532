// Tracked stock: only an absent `stock` means "not tracked"; a negative or malformed value in content
// means none on hand (it can stop sales, never unlimit them).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/test-app.js';
import { createShopApp, ShopClient } from './helpers.js';

const CATALOG = '5a0c0000-0000-4000-8000-000000000001';
const MINUS = '5a0c2000-0000-4000-8000-000000000001';
const BOGUS = '5a0c2000-0000-4000-8000-000000000002';
const UNTRACKED = '5a0c2000-0000-4000-8000-000000000003';
const HUGE = '5a0c2000-0000-4000-8000-000000000004';

const product = (name: string, uuid: string, stock: string | undefined) => `
  '${name}':
    'jcr:primaryType': 'shop:product'
    'jcr:uuid': '${uuid}'${stock === undefined ? '' : `\n    'stock': ${stock}`}
    'eur': { 'jcr:primaryType': 'shop:price', 'currency': 'EUR', 'amount': 100 }`;

const content = {
  'shopCatalogs.depot.yaml': `
'depot':
  'jcr:primaryType': 'shop:catalog'
  'jcr:uuid': '${CATALOG}'
  'currencies': ['EUR']
`,
  'shopProducts.depot.yaml': `
'depot':
  'jcr:primaryType': 'mgnl:folder'
  'jcr:uuid': '5a0c1000-0000-4000-8000-0000000000f2'${product('minus', MINUS, '-3')}${product('bogus', BOGUS, "'2.5'")}${product('untracked', UNTRACKED, undefined)}${product('huge', HUGE, '99999999999')}
`,
};

let t: TestApp;
beforeAll(async () => { t = await createShopApp({ content }); });
afterAll(async () => { await t.close(); });

describe('stock in content', () => {
  it('counts a negative or malformed stock as none on hand, an absent one as not tracked', async () => {
    const c = new ShopClient(t);
    const stock = Object.fromEntries((await c.get(`/catalog/${CATALOG}/products`)).body.items.map((p: any) => [p.id, p.stock]));
    expect(stock).toEqual({ [MINUS]: 0, [BOGUS]: 0, [UNTRACKED]: null, [HUGE]: 1_000_000_000 });
    await c.post('/cart');
    for (const id of [MINUS, BOGUS]) {
      const r = await c.post('/cart/item', { productId: id });
      expect([r.status, r.body.error.code]).toEqual([409, 'insufficientStock']);
      expect(r.body.error.message).toMatch(/only 0 units/);
    }
    expect((await c.post('/cart/item', { productId: UNTRACKED, quantity: 999 })).status).toBe(200);
    expect((await c.post('/cart/item', { productId: HUGE, quantity: 5 })).status).toBe(200);
  });
});
