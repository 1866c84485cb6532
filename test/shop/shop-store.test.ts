// The shop records' contract, through the ShopStore interface, once per backend: SQLite always,
// PostgreSQL (a fresh schema) when PETAL_TEST_PG is set.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createShopStore } from '../../src/main.js';
import type { OrderDocument, PlaceOrderInput, PurgeResult, ShopStore } from '../../src/shop/shop-store.js';
import { PostgresStore } from '../../src/store/postgres/store.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import type { ContentStore } from '../../src/store/content-store.js';

interface Fixture { name: string; create(): Promise<{ content: ContentStore; dispose(): Promise<void> }> }

const FIXTURES: Fixture[] = [{
  name: 'sqlite',
  async create() {
    const dir = mkdtempSync(join(tmpdir(), 'petal-shop-store-'));
    const content = new SqliteStore({ file: join(dir, 'petal.db') });
    await content.open();
    return { content, dispose: async () => { await content.close(); rmSync(dir, { recursive: true, force: true }); } };
  },
}];
const PG = process.env.PETAL_TEST_PG;
if (PG) {
  FIXTURES.push({
    name: 'postgres',
    async create() {
      const schema = `petal_shop_${randomBytes(6).toString('hex')}`;
      const content = new PostgresStore({ url: PG, schema });
      await content.open();
      return {
        content,
        dispose: async () => {
          await content.close();
          const c = new pg.Client({ connectionString: PG });
          await c.connect();
          await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
          await c.end();
        },
      };
    },
  });
}

const TTL = 3_600_000;
const LIMITS = { maxQuantity: 999, maxLines: 100 };
const money = (amount: number) => ({ amount, currency: 'EUR' });
const DOC: OrderDocument = {
  catalogId: 'c', currency: 'EUR', email: null, items: [],
  billingAddress: { firstName: 'A', lastName: 'B', street: 'S', postalCode: '1', city: 'C', country: 'DE' },
  shippingAddress: { firstName: 'A', lastName: 'B', street: 'S', postalCode: '1', city: 'C', country: 'DE' },
  shipping: { methodId: 'm', title: 'M', rateId: 'r', price: money(0), tax: money(0) },
  totals: { subtotal: money(0), shipping: money(0), tax: money(0), total: money(0) },
};

for (const f of FIXTURES) {
  describe(`ShopStore (${f.name})`, () => {
    let s: ShopStore;
    let content: ContentStore;
    let dispose: () => Promise<void>;
    beforeEach(async () => {
      const c = await f.create();
      content = c.content;
      s = await createShopStore(c.content);
      await s.open();
      await s.open(); // migrations are idempotent
      dispose = async () => { await s.close(); await c.dispose(); };
    });
    afterEach(async () => { await dispose(); });

    const cart = async (id: string, userId: string | null = null) =>
      (await s.createCart({ id, userId, catalogId: null, currency: null, now: Date.now(), ttlMs: TTL })).cart;
    const add = (cartId: string, productId: string, quantity: number, owner: string | null = null, mode: 'add' | 'set' = 'add') =>
      s.changeItem({ cartId, owner, productId, mode, quantity, limits: LIMITS, catalogId: 'c', currency: 'EUR', now: Date.now(), ttlMs: TTL });
    const order = (cartId: string, version: number, extra: Partial<PlaceOrderInput> = {}) =>
      s.placeOrder({ cartId, owner: null, expectedVersion: version, now: Date.now(), orderId: randomBytes(8).toString('hex'), document: DOC, stock: [], ...extra });

    it('serializes concurrent additions to one cart: no update lost', async () => {
      await cart('c1');
      await Promise.all(Array.from({ length: 40 }, (_, i) => add('c1', `p${i % 4}`, 1)));
      const c = (await s.getCart('c1'))!;
      // Lines are in the order they were first added, which depends on who got the lock first.
      expect(c.items.map((i) => [i.productId, i.quantity]).sort()).toEqual([['p0', 10], ['p1', 10], ['p2', 10], ['p3', 10]]);
      expect(c.version).toBe(41);
      expect(c.catalogId).toBe('c');
    });

    it('checks owner, catalog, limit and lines inside the transaction', async () => {
      await cart('c2', 'alice');
      expect((await add('c2', 'p', 1)).kind).toBe('cartNotFound'); // anonymous caller, alice's cart
      expect((await add('c2', 'p', 1, 'bob')).kind).toBe('cartNotFound');
      expect((await add('c2', 'p', 999, 'alice')).kind).toBe('ok');
      expect((await add('c2', 'p', 1, 'alice')).kind).toBe('limit');
      expect((await add('c2', 'q', 1, 'alice', 'set')).kind).toBe('itemNotFound');
      expect((await s.changeItem({ cartId: 'c2', owner: 'alice', productId: 'x', mode: 'add', quantity: 1, limits: LIMITS, catalogId: 'other', currency: 'EUR', now: Date.now(), ttlMs: TTL })).kind).toBe('catalogMismatch');
      expect((await add('c2', 'p', 0, 'alice', 'set')).kind).toBe('ok');
      expect((await s.getCart('c2'))!.items).toEqual([]);
      expect((await s.createCart({ id: 'c2b', userId: 'alice', catalogId: null, currency: null, now: Date.now(), ttlMs: TTL })).created).toBe(false);
    });

    it('places exactly one order per cart, even concurrently; stale versions are refused', async () => {
      await cart('c3');
      await add('c3', 'p', 2);
      expect((await order('c3', 1)).kind).toBe('stale');
      const results = await Promise.all(Array.from({ length: 5 }, () => order('c3', 2)));
      expect(results.filter((r) => r.kind === 'created')).toHaveLength(1);
      expect(results.filter((r) => r.kind === 'alreadyOrdered')).toHaveLength(4);
      expect((await s.getCart('c3'))!.state).toBe('ordered');
      expect((await add('c3', 'p', 1)).kind).toBe('cartNotFound');
    });

    it('keeps idempotency keys: same hash replays, another hash is refused', async () => {
      await cart('c4');
      await add('c4', 'p', 1);
      const key = { key: 'k', requestHash: 'h1' };
      const [a, b] = await Promise.all([order('c4', 2, { idempotency: key }), order('c4', 2, { idempotency: key })]);
      const kinds = [a.kind, b.kind].sort();
      expect(kinds).toEqual(['created', 'replayed']);
      const ids = [a, b].map((r) => ('order' in r ? r.order.id : ''));
      expect(ids[0]).toBe(ids[1]);
      expect((await order('c4', 2, { idempotency: { key: 'k', requestHash: 'h2' } })).kind).toBe('keyReused');
      expect((await s.findIdempotent('k'))?.order.id).toBe(ids[0]);
      expect(await s.findIdempotent('nope')).toBeUndefined();
    });

    it('never sells more than the stock, and another count in newer content starts over', async () => {
      for (const id of ['s1', 's2', 's3']) {
        await cart(id);
        await add(id, 'p', 2);
      }
      const stock = [{ productId: 'p', quantity: 2, onHand: 5, generation: 1 }];
      const r = await Promise.all(['s1', 's2', 's3'].map((id) => order(id, 2, { stock })));
      expect(r.map((x) => x.kind).sort()).toEqual(['created', 'created', 'insufficientStock']);
      const left = async (onHand: number, generation: number) => (await s.available([{ productId: 'p', onHand, generation }])).get('p');
      expect(await left(5, 1)).toBe(1);
      expect(await left(20, 2)).toBe(20); // a restock
      expect(await left(5, 2)).toBe(1); // the same count in newer content goes on
      expect(await left(20, 1)).toBe(1); // another count in content no newer than the recorded one does not restart it
      expect(await left(20, 0)).toBe(1);
    });

    it('rolls a refused order back whole: earlier lines keep their stock, the cart stays active', async () => {
      await cart('r1');
      await add('r1', 'a-lavender', 2);
      await add('r1', 'b-rose', 1);
      // Lines in product order, so the first line is counted before the second is refused (both stores).
      const stock = [
        { productId: 'a-lavender', quantity: 2, onHand: 10, generation: 1 },
        { productId: 'b-rose', quantity: 1, onHand: 0, generation: 1 },
      ];
      for (let i = 0; i < 3; i++) {
        expect(await order('r1', 3, { stock })).toEqual({ kind: 'insufficientStock', productId: 'b-rose', available: 0 });
      }
      expect((await s.available(stock)).get('a-lavender')).toBe(10);
      expect((await s.getCart('r1'))?.state).toBe('active');
      expect((await order('r1', 3, { stock: [stock[0]!] })).kind).toBe('created');
      expect((await s.available(stock)).get('a-lavender')).toBe(8);
    });

    it('restarts a count only once when two instances\' catalogs disagree: never more sold than the new count', async () => {
      const other = await createShopStore(content); // a second instance on the same database
      await other.open();
      try {
        const before = { productId: 'p', onHand: 5, generation: 1 }; // a catalog cached before the restock
        const after = { productId: 'p', onHand: 10, generation: 2 }; // the catalog after it
        let n = 0;
        const sell = async (store: ShopStore, level: typeof before) => {
          const id = `i${n++}`;
          await cart(id);
          await add(id, 'p', 1);
          return (await store.placeOrder({
            cartId: id, owner: null, expectedVersion: 2, now: Date.now(), orderId: `o-${id}`, document: DOC, stock: [{ ...level, quantity: 1 }],
          })).kind;
        };
        expect(await sell(s, before)).toBe('created'); // 4 of 5 left
        const kinds: string[] = [];
        for (let i = 0; i < 16; i++) kinds.push(i % 2 === 0 ? await sell(other, after) : await sell(s, before));
        expect(kinds.slice(0, 10)).toEqual(Array(10).fill('created')); // the 10 of the restock, sold through both
        expect(kinds.slice(10)).toEqual(Array(6).fill('insufficientStock'));
        expect((await s.available([before])).get('p')).toBe(0);
        expect((await other.available([after])).get('p')).toBe(0);
      } finally {
        await other.close();
      }
    });

    it('merges an anonymous cart into the user cart (larger quantity), or assigns it', async () => {
      await cart('anon1');
      await add('anon1', 'p', 3);
      const assigned = await s.mergeCart('anon1', 'carol', Date.now(), TTL, LIMITS);
      expect(assigned).toMatchObject({ id: 'anon1', userId: 'carol' });
      await cart('anon2');
      await add('anon2', 'p', 1);
      await add('anon2', 'q', 2);
      const merged = await s.mergeCart('anon2', 'carol', Date.now(), TTL, LIMITS);
      expect(merged!.id).toBe('anon1');
      expect(merged!.items.map((i) => [i.productId, i.quantity])).toEqual([['p', 3], ['q', 2]]);
      expect((await s.getCart('anon2'))!.state).toBe('merged');
      expect(await s.mergeCart('anon2', 'carol', Date.now(), TTL, LIMITS)).toBeUndefined();
      expect((await s.activeCartOf('carol', Date.now()))!.id).toBe('anon1');
      // Another catalog: the anonymous cart (just shopped) becomes the active one, the older is merged away.
      await cart('anon3');
      await s.changeItem({ cartId: 'anon3', owner: null, productId: 'z', mode: 'add', quantity: 1, limits: LIMITS, catalogId: 'other', currency: 'CHF', now: Date.now(), ttlMs: TTL });
      const replaced = await s.mergeCart('anon3', 'carol', Date.now(), TTL, LIMITS);
      expect(replaced).toMatchObject({ id: 'anon3', userId: 'carol', catalogId: 'other', items: [{ productId: 'z', quantity: 1 }] });
      expect((await s.getCart('anon1'))!.state).toBe('merged');
      expect((await s.activeCartOf('carol', Date.now()))!.id).toBe('anon3');
    });

    it('caps the lines of a cart and the products of a wishlist, also under concurrency and in merges', async () => {
      const few = { maxQuantity: 999, maxLines: 3 };
      const addTo = (cartId: string, productId: string, owner: string | null = null) =>
        s.changeItem({ cartId, owner, productId, mode: 'add', quantity: 1, limits: few, catalogId: 'c', currency: 'EUR', now: Date.now(), ttlMs: TTL });
      await cart('l1');
      const kinds = (await Promise.all(['a', 'b', 'c', 'd', 'e', 'f'].map((p) => addTo('l1', p)))).map((r) => r.kind);
      expect(kinds.filter((k) => k === 'ok')).toHaveLength(3);
      expect(kinds.filter((k) => k === 'tooManyLines')).toHaveLength(3);
      const held = (await s.getCart('l1'))!.items.map((i) => i.productId);
      expect(held).toHaveLength(3);
      expect((await addTo('l1', held[0]!)).kind).toBe('ok'); // more of a product already held
      // A login merge keeps the user's lines and adds anonymous ones while there is room.
      await cart('l2', 'gina');
      await addTo('l2', 'x', 'gina');
      await addTo('l2', 'y', 'gina');
      await cart('l3');
      for (const p of ['y', 'z', 'w']) await addTo('l3', p);
      const merged = await s.mergeCart('l3', 'gina', Date.now(), TTL, few);
      expect(merged!.items.map((i) => i.productId)).toEqual(['x', 'y', 'z']);

      await s.createWishlist('wl', null, Date.now(), TTL);
      const added = await Promise.all(['a', 'b', 'c', 'd'].map((p) => s.addToWishlist('wl', null, p, Date.now(), TTL, 2)));
      expect(added.map((r) => r.kind).sort()).toEqual(['ok', 'ok', 'tooManyItems', 'tooManyItems']);
      const kept = (await s.getWishlist('wl'))!.productIds;
      expect((await s.addToWishlist('wl', null, kept[0]!, Date.now(), TTL, 2)).kind).toBe('ok'); // already held
      await s.createWishlist('wu', 'hank', Date.now(), TTL);
      await s.addToWishlist('wu', 'hank', 'p', Date.now(), TTL, 2);
      expect((await s.mergeWishlist('wl', 'hank', Date.now(), TTL, 2))!.productIds).toEqual(['p', kept[0]]);
    });

    it('purges expired carts (with their items) and wishlists; orders, their carts and keys stay', async () => {
      const long = Date.now() - 10 * TTL;
      const at = (id: string, userId: string | null = null) => s.createCart({ id, userId, catalogId: null, currency: null, now: long, ttlMs: TTL });
      for (const id of ['e1', 'e2', 'e3', 'e4', 'e5']) await at(id);
      await at('e6', 'jo');
      expect(await s.activeCartOf('jo', Date.now())).toBeUndefined(); // marks it merged
      await s.createCart({ id: 'live', userId: null, catalogId: null, currency: null, now: Date.now(), ttlMs: TTL });
      await add('live', 'p', 1);
      // An order placed from a cart that has expired since: the cart is kept with its order.
      await s.createCart({ id: 'bought', userId: 'ida', catalogId: null, currency: null, now: Date.now(), ttlMs: TTL });
      await add('bought', 'p', 2, 'ida');
      const placed = await s.placeOrder({
        cartId: 'bought', owner: 'ida', expectedVersion: 2, now: Date.now(), orderId: 'o-bought', document: DOC, stock: [],
        idempotency: { key: 'k-bought', requestHash: 'h' },
      });
      expect(placed.kind).toBe('created');
      await s.createWishlist('w-gone', null, long, TTL);
      await s.createWishlist('w-live', 'ida', Date.now(), TTL);
      await s.addToWishlist('w-live', 'ida', 'p', Date.now(), TTL, 200);

      const later = Date.now() + 2 * TTL; // 'live', 'bought' and 'w-live' have expired by then
      expect(await s.purgeExpired(Date.now(), 2)).toEqual({ carts: 6, wishlists: 1 }); // batches of 2
      for (const id of ['e1', 'e2', 'e3', 'e4', 'e5', 'e6']) expect(await s.getCart(id)).toBeUndefined();
      expect(await s.getWishlist('w-gone')).toBeUndefined();
      expect((await s.getCart('live'))!.items).toHaveLength(1);
      expect(await s.getWishlist('w-live')).toBeDefined();

      expect(await s.purgeExpired(later)).toEqual({ carts: 1, wishlists: 1 });
      expect(await s.purgeExpired(later)).toEqual({ carts: 0, wishlists: 0 });
      expect(await s.getCart('live')).toBeUndefined();
      // Its items went with it: a cart of the same id made afterwards starts empty.
      await s.createCart({ id: 'live', userId: null, catalogId: null, currency: null, now: Date.now(), ttlMs: TTL });
      expect((await s.getCart('live'))!.items).toEqual([]);
      expect((await s.getCart('bought'))!.state).toBe('ordered');
      expect((await s.findIdempotent('k-bought'))!.order.id).toBe('o-bought');
      expect((await s.ordersOf('ida', 10, 0)).total).toBe(1);
    });

    it('purges when it opens and then on schedule, until it is closed', async () => {
      await s.createCart({ id: 'stale', userId: null, catalogId: null, currency: null, now: Date.now() - 10 * TTL, ttlMs: TTL });
      const runs: PurgeResult[] = [];
      const other = await createShopStore(content, { purge: { intervalMs: 20, onPurged: (r) => runs.push(r) } });
      await other.open();
      await vi.waitFor(() => expect(runs.length).toBeGreaterThanOrEqual(3), { timeout: 10_000, interval: 10 });
      expect(runs[0]).toEqual({ carts: 1, wishlists: 0 });
      expect(await s.getCart('stale')).toBeUndefined();
      await other.close();
      const after = runs.length;
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(runs.length).toBe(after);
    });

    it('treats expired carts and wishlists as gone', async () => {
      const past = Date.now() - 10 * TTL;
      await s.createCart({ id: 'old', userId: 'dave', catalogId: null, currency: null, now: past, ttlMs: TTL });
      expect(await s.activeCartOf('dave', Date.now())).toBeUndefined();
      expect((await add('old', 'p', 1, 'dave')).kind).toBe('cartNotFound');
      await s.createWishlist('w-old', null, past, TTL);
      expect(await s.addToWishlist('w-old', null, 'p', Date.now(), TTL, 200)).toEqual({ kind: 'wishlistNotFound' });
      const w = await s.createWishlist('w1', 'erin', Date.now(), TTL);
      expect(w.created).toBe(true);
      await s.addToWishlist('w1', 'erin', 'p', Date.now(), TTL, 200);
      await s.addToWishlist('w1', 'erin', 'p', Date.now(), TTL, 200);
      expect((await s.getWishlist('w1'))!.productIds).toEqual(['p']);
      expect(await s.deleteWishlist('w1', 'frank', Date.now())).toBe(false);
      expect(await s.deleteWishlist('w1', 'erin', Date.now())).toBe(true);
    });
  });
}

if (!PG) {
  // Skipped without PETAL_TEST_PG: it needs a PostgreSQL server (.ci/run always sets it).
  describe.skip('ShopStore (postgres): set PETAL_TEST_PG=postgres://… to run it', () => {
    it('skipped', () => undefined);
  });
}
