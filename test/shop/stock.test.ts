// Tracked stock: only an absent `stock` means "not tracked"; a negative or malformed value in content
// means none on hand (it can stop sales, never unlimit them). Two instances, one of them still serving
// the catalog it cached before a restock, sell no more than the restocked count.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PetalError } from '../../src/errors.js';
import { importPaths } from '../../src/ingest/run-import.js';
import { NodeTypeRegistry } from '../../src/repository/node-types.js';
import { Repository } from '../../src/repository/session.js';
import { ShopService } from '../../src/shop/shop-api.js';
import type { ContentStore } from '../../src/store/content-store.js';
import type { TestApp } from '../helpers/test-app.js';
import { createShopApp, DEMO_CONTENT, IDS, ORDER_BODY, ShopClient } from './helpers.js';

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

/** The store as an instance sees it that has not yet noticed any content change after `generation`. */
function frozenAt(store: ContentStore, generation: number): ContentStore {
  return new Proxy(store, {
    get(target, key) {
      if (key === 'generation') return async () => generation;
      if (key === 'generationHint') return () => generation;
      const v: unknown = Reflect.get(target, key, target);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}

describe('two instances whose cached catalogs disagree', () => {
  it('restart the count once on a restock and never sell more than it', async () => {
    const service = (store: ContentStore) => new ShopService(new Repository(store, new NodeTypeRegistry()), t.security, t.shopStore!);
    const stale = service(frozenAt(t.store, await t.store.generation()));
    const roses = async (shop: ShopService) => {
      const page = await shop.reads.catalogProducts(shop.context(t.security.anonymous()).reader, IDS.catalog);
      return page.items.find((p) => p.id === IDS.rose)!.stock;
    };
    expect(await roses(stale)).toBe(3); // cached before the restock
    const file = join(t.dir, 'shopProducts.petal-gardens.yaml');
    writeFileSync(file, readFileSync(join(DEMO_CONTENT, 'shopProducts.petal-gardens.yaml'), 'utf8').replace("'stock': 3", "'stock': 10"));
    await importPaths(t.store, [file], { onUuidCollision: 'new' });
    const fresh = service(t.store);
    expect(await roses(fresh)).toBe(10);
    expect(await roses(stale)).toBe(3);

    const sell = async (shop: ShopService, user: string): Promise<string> => {
      const ctx = shop.context({ ...t.security.anonymous(), user, via: 'basic' });
      try {
        await shop.carts.createCart(ctx, {});
        await shop.carts.changeItem(ctx, { productId: IDS.rose, quantity: 1 }, 'add');
        await shop.orders.placeOrder(ctx, ORDER_BODY);
        return 'ordered';
      } catch (err) {
        if (err instanceof PetalError) return err.code;
        throw err;
      }
    };
    const results: string[] = [];
    for (let i = 0; i < 14; i++) results.push(i % 2 === 0 ? await sell(fresh, 'fresh-buyer') : await sell(stale, 'stale-buyer'));
    expect(results.slice(0, 10)).toEqual(Array(10).fill('ordered'));
    expect(results.slice(10)).toEqual(Array(4).fill('insufficientStock'));
    expect(await roses(stale)).toBe(0);
    expect(await roses(fresh)).toBe(0);
  });
});
