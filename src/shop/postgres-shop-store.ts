// Shop layer (records, PostgreSQL): carts, wishlists and orders in the content store's database,
// through its primary pool. Every change locks the cart row first (SELECT … FOR UPDATE), so changes
// to one cart are serialized across all Petal instances; UNIQUE (cart_id) on orders and the
// idempotency-key primary key make a second order for one cart impossible even if a lock were missed.
// Transactions that lose a race (unique violation, serialization failure, deadlock) are retried.
import type pg from 'pg';
import { migrateShop } from './postgres-shop-migrations.js';
import { Refusal, refusable } from './refusal.js';
import { guardPool } from '../store/postgres/guard-pool.js';
import { isActiveFor, planItemChange } from './cart-rules.js';
import { planMerge, usableBy, wishlistAdditions } from './merge-rule.js';
import { PURGE_BATCH, purgeInBatches, PurgeSchedule, type PurgeOptions } from './purge-schedule.js';
import {
  formatOrderNumber,
  type AddToWishlistResult, type CartLimits, type CartRecord, type ChangeItemInput, type ChangeItemResult, type NewCart, type OrderDocument, type OrderRecord,
  type PlaceOrderInput, type PlaceOrderResult, type PurgeResult, type ShopStore, type ShopStoreHooks, type StockLevel, type WishlistRecord,
} from './shop-store.js';
import { stockCount, unitsLeft, type StockCount } from './stock-count.js';

type Db = pg.Pool | pg.PoolClient;
interface CartRow {
  id: string; user_id: string | null; catalog_id: string | null; currency: string | null; state: CartRecord['state'];
  version: number; created_at: string; updated_at: string; expires_at: string;
}
interface OrderRow { id: string; number: string; cart_id: string; user_id: string | null; created_at: string; document: OrderDocument }
interface WishlistRow { id: string; user_id: string | null; created_at: string; updated_at: string; expires_at: string }
interface StockRow { product_id: string; on_hand: number; sold: number; generation: string }
const toCount = (r: StockRow | undefined): StockCount | undefined => r && { onHand: r.on_hand, sold: r.sold, generation: Number(r.generation) };

const RETRYABLE = new Set(['23505', '40001', '40P01']);
const ATTEMPTS = 5;

export class PostgresShopStore implements ShopStore {
  readonly name = 'postgres' as const;
  readonly #pool: pg.Pool;
  readonly #hooks: ShopStoreHooks;
  readonly #purgeOptions: PurgeOptions;
  #purges: PurgeSchedule | undefined;

  /** `pool`: the content store's primary pool (its search_path already names the schema). */
  constructor(options: { pool: pg.Pool; hooks?: ShopStoreHooks; purge?: PurgeOptions }) {
    // A backend terminated while an order's transaction holds its client must fail that request, not the process.
    this.#pool = guardPool(options.pool);
    this.#hooks = options.hooks ?? {};
    this.#purgeOptions = options.purge ?? {};
  }

  async open(): Promise<void> {
    await migrateShop(this.#pool);
    if (this.#purges !== undefined) return;
    this.#purges = new PurgeSchedule((before) => this.purgeExpired(before), this.#purgeOptions);
    this.#purges.start();
  }

  async close(): Promise<void> {
    // The pool belongs to the content store, which closes it (after this).
    await this.#purges?.stop();
    this.#purges = undefined;
  }

  async #tx<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const client = await this.#pool.connect();
      try {
        await client.query('BEGIN');
        const result = await fn(client);
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined);
        const code = (err as { code?: string }).code;
        if (attempt >= ATTEMPTS || code === undefined || !RETRYABLE.has(code)) throw err;
      } finally {
        client.release();
      }
    }
  }

  async #cart(db: Db, id: string, lock = false): Promise<CartRecord | undefined> {
    const { rows } = await db.query<CartRow>(`SELECT * FROM shop_carts WHERE id = $1${lock ? ' FOR UPDATE' : ''}`, [id]);
    const row = rows[0];
    if (!row) return undefined;
    const items = await db.query<{ product_id: string; quantity: number }>('SELECT product_id, quantity FROM shop_cart_items WHERE cart_id = $1 ORDER BY seq', [id]);
    return {
      id: row.id, userId: row.user_id, catalogId: row.catalog_id, currency: row.currency, state: row.state, version: row.version,
      createdAt: Number(row.created_at), updatedAt: Number(row.updated_at), expiresAt: Number(row.expires_at),
      items: items.rows.map((i) => ({ productId: i.product_id, quantity: i.quantity })),
    };
  }

  async #touch(db: Db, id: string, now: number, ttlMs: number): Promise<void> {
    await db.query('UPDATE shop_carts SET version = version + 1, updated_at = $1, expires_at = $2 WHERE id = $3', [now, now + ttlMs, id]);
  }

  async #activeCart(db: Db, userId: string, now: number, lock = false): Promise<CartRecord | undefined> {
    const { rows } = await db.query<{ id: string; expires_at: string }>(
      `SELECT id, expires_at FROM shop_carts WHERE user_id = $1 AND state = 'active'${lock ? ' FOR UPDATE' : ''}`, [userId]);
    const row = rows[0];
    if (!row) return undefined;
    if (Number(row.expires_at) <= now) {
      await db.query("UPDATE shop_carts SET state = 'merged' WHERE id = $1", [row.id]);
      return undefined;
    }
    return this.#cart(db, row.id, lock);
  }

  async createCart(c: NewCart): Promise<{ cart: CartRecord; created: boolean }> {
    return this.#tx(async (db) => {
      if (c.userId !== null) {
        const existing = await this.#activeCart(db, c.userId, c.now, true);
        if (existing) return { cart: existing, created: false };
      }
      await db.query(`INSERT INTO shop_carts (id, user_id, catalog_id, currency, state, version, created_at, updated_at, expires_at)
        VALUES ($1, $2, $3, $4, 'active', 1, $5, $5, $6)`, [c.id, c.userId, c.catalogId, c.currency, c.now, c.now + c.ttlMs]);
      return { cart: (await this.#cart(db, c.id))!, created: true };
    });
  }

  getCart(id: string): Promise<CartRecord | undefined> {
    return this.#cart(this.#pool, id);
  }

  activeCartOf(userId: string, now: number): Promise<CartRecord | undefined> {
    return this.#tx((db) => this.#activeCart(db, userId, now));
  }

  async deleteCart(id: string, owner: string | null, now: number): Promise<boolean> {
    return this.#tx(async (db) => {
      const cart = await this.#cart(db, id, true);
      if (!isActiveFor(cart, owner, now)) return false;
      await db.query('DELETE FROM shop_cart_items WHERE cart_id = $1', [id]);
      await db.query('DELETE FROM shop_carts WHERE id = $1', [id]);
      return true;
    });
  }

  async changeItem(c: ChangeItemInput): Promise<ChangeItemResult> {
    return this.#tx(async (db): Promise<ChangeItemResult> => {
      const cart = await this.#cart(db, c.cartId, true);
      const plan = planItemChange(cart, c);
      if (plan.kind !== 'write') return plan;
      if (plan.line === 'delete') await db.query('DELETE FROM shop_cart_items WHERE cart_id = $1 AND product_id = $2', [c.cartId, c.productId]);
      else if (plan.line === 'update') await db.query('UPDATE shop_cart_items SET quantity = $1 WHERE cart_id = $2 AND product_id = $3', [plan.quantity, c.cartId, c.productId]);
      else await db.query('INSERT INTO shop_cart_items (cart_id, product_id, quantity) VALUES ($1, $2, $3)', [c.cartId, c.productId, plan.quantity]);
      if (plan.fixCatalog) {
        await db.query('UPDATE shop_carts SET catalog_id = $1, currency = COALESCE(currency, $2) WHERE id = $3', [c.catalogId, c.currency, c.cartId]);
      }
      await this.#touch(db, c.cartId, c.now, c.ttlMs);
      return { kind: 'ok', cart: (await this.#cart(db, c.cartId))! };
    });
  }

  async mergeCart(anonymousId: string, userId: string, now: number, ttlMs: number, limits: CartLimits): Promise<CartRecord | undefined> {
    return this.#tx(async (db) => {
      const anon = await this.#cart(db, anonymousId, true);
      if (!isActiveFor(anon, null, now)) return undefined;
      const mine = await this.#activeCart(db, userId, now, true);
      const plan = planMerge(anon, mine, limits);
      if (plan.kind === 'mergeInto' && mine) {
        await db.query("UPDATE shop_carts SET state = 'merged', version = version + 1 WHERE id = $1", [anon.id]);
        for (const l of plan.lines) {
          await db.query(`INSERT INTO shop_cart_items (cart_id, product_id, quantity) VALUES ($1, $2, $3)
            ON CONFLICT (cart_id, product_id) DO UPDATE SET quantity = excluded.quantity`, [mine.id, l.productId, l.quantity]);
        }
        await db.query('UPDATE shop_carts SET catalog_id = $1, currency = $2 WHERE id = $3', [plan.catalogId, plan.currency, mine.id]);
        await this.#touch(db, mine.id, now, ttlMs);
        return this.#cart(db, mine.id);
      }
      if (plan.kind === 'replace' && mine) await db.query("UPDATE shop_carts SET state = 'merged', version = version + 1 WHERE id = $1", [mine.id]);
      await db.query('UPDATE shop_carts SET user_id = $1 WHERE id = $2', [userId, anon.id]);
      await this.#touch(db, anon.id, now, ttlMs);
      return this.#cart(db, anon.id);
    });
  }

  #order(row: OrderRow): OrderRecord {
    return { id: row.id, number: row.number, cartId: row.cart_id, userId: row.user_id, createdAt: Number(row.created_at), document: row.document };
  }

  async placeOrder(o: PlaceOrderInput): Promise<PlaceOrderResult> {
    return refusable(() => this.#tx(async (db): Promise<PlaceOrderResult> => {
      // The cart lock first: a replay of the same request waits here until the first one committed.
      const cart = await this.#cart(db, o.cartId, true);
      if (o.idempotency) {
        const { rows } = await db.query<{ request_hash: string; order_id: string }>('SELECT request_hash, order_id FROM shop_idempotency_keys WHERE key = $1', [o.idempotency.key]);
        const k = rows[0];
        if (k) {
          if (k.request_hash !== o.idempotency.requestHash) return { kind: 'keyReused' };
          const order = await db.query<OrderRow>('SELECT * FROM shop_orders WHERE id = $1', [k.order_id]);
          return { kind: 'replayed', order: this.#order(order.rows[0]!) };
        }
      }
      if (!cart || cart.userId !== o.owner) return { kind: 'cartNotFound' };
      if (cart.state === 'ordered') return { kind: 'alreadyOrdered' };
      if (cart.state !== 'active' || cart.expiresAt <= o.now) return { kind: 'cartNotFound' };
      if (cart.version !== o.expectedVersion) return { kind: 'stale' };
      // Products in a fixed order, so two orders locking the same stock rows cannot deadlock.
      for (const s of [...o.stock].sort((a, b) => (a.productId < b.productId ? -1 : 1))) {
        await db.query('INSERT INTO shop_stock (product_id, on_hand, sold, generation) VALUES ($1, $2, 0, $3) ON CONFLICT (product_id) DO NOTHING',
          [s.productId, s.onHand, s.generation]);
        const { rows } = await db.query<StockRow>('SELECT * FROM shop_stock WHERE product_id = $1 FOR UPDATE', [s.productId]);
        const count = stockCount(toCount(rows[0]), s);
        const left = unitsLeft(count);
        // Earlier lines are already counted as sold: only a rollback undoes them.
        if (s.quantity > left) throw new Refusal<PlaceOrderResult>({ kind: 'insufficientStock', productId: s.productId, available: left });
        await db.query('UPDATE shop_stock SET on_hand = $2, sold = $3, generation = $4 WHERE product_id = $1',
          [s.productId, count.onHand, count.sold + s.quantity, count.generation]);
      }
      const inserted = await db.query<{ seq: string }>('INSERT INTO shop_orders (id, cart_id, user_id, created_at, document) VALUES ($1, $2, $3, $4, $5) RETURNING seq',
        [o.orderId, o.cartId, o.owner, o.now, JSON.stringify(o.document)]);
      const seq = Number(inserted.rows[0]!.seq);
      await db.query('UPDATE shop_orders SET number = $1 WHERE seq = $2', [formatOrderNumber(seq), seq]);
      if (o.idempotency) {
        await db.query('INSERT INTO shop_idempotency_keys (key, request_hash, order_id, created_at) VALUES ($1, $2, $3, $4)',
          [o.idempotency.key, o.idempotency.requestHash, o.orderId, o.now]);
      }
      await db.query("UPDATE shop_carts SET state = 'ordered', version = version + 1, updated_at = $1 WHERE id = $2", [o.now, o.cartId]);
      await this.#hooks.beforeOrderCommit?.(); // test hook (crash test)
      const order = await db.query<OrderRow>('SELECT * FROM shop_orders WHERE seq = $1', [seq]);
      return { kind: 'created', order: this.#order(order.rows[0]!) };
    }));
  }

  async findIdempotent(key: string): Promise<{ requestHash: string; order: OrderRecord } | undefined> {
    const { rows } = await this.#pool.query<OrderRow & { request_hash: string }>(`SELECT k.request_hash, o.* FROM shop_idempotency_keys k
      JOIN shop_orders o ON o.id = k.order_id WHERE k.key = $1`, [key]);
    const row = rows[0];
    return row && { requestHash: row.request_hash, order: this.#order(row) };
  }

  async ordersOf(userId: string, limit: number, offset: number): Promise<{ orders: OrderRecord[]; total: number }> {
    const [page, count] = await Promise.all([
      this.#pool.query<OrderRow>('SELECT * FROM shop_orders WHERE user_id = $1 ORDER BY seq DESC LIMIT $2 OFFSET $3', [userId, limit, offset]),
      this.#pool.query<{ n: string }>('SELECT count(*) AS n FROM shop_orders WHERE user_id = $1', [userId]),
    ]);
    return { orders: page.rows.map((r) => this.#order(r)), total: Number(count.rows[0]!.n) };
  }

  async available(levels: readonly StockLevel[]): Promise<Map<string, number>> {
    if (levels.length === 0) return new Map();
    const { rows } = await this.#pool.query<StockRow>('SELECT * FROM shop_stock WHERE product_id = ANY($1)', [levels.map((l) => l.productId)]);
    const byId = new Map(rows.map((r) => [r.product_id, r]));
    return new Map(levels.map((l) => [l.productId, unitsLeft(stockCount(toCount(byId.get(l.productId)), l))]));
  }

  async #wishlist(db: Db, id: string, lock = false): Promise<WishlistRecord | undefined> {
    const { rows } = await db.query<WishlistRow>(`SELECT * FROM shop_wishlists WHERE id = $1${lock ? ' FOR UPDATE' : ''}`, [id]);
    const row = rows[0];
    if (!row) return undefined;
    const items = await db.query<{ product_id: string }>('SELECT product_id FROM shop_wishlist_items WHERE wishlist_id = $1 ORDER BY seq', [id]);
    return {
      id: row.id, userId: row.user_id, createdAt: Number(row.created_at), updatedAt: Number(row.updated_at), expiresAt: Number(row.expires_at),
      productIds: items.rows.map((i) => i.product_id),
    };
  }

  async #activeWishlist(db: Db, userId: string, now: number, lock = false): Promise<WishlistRecord | undefined> {
    const { rows } = await db.query<{ id: string; expires_at: string }>(`SELECT id, expires_at FROM shop_wishlists WHERE user_id = $1${lock ? ' FOR UPDATE' : ''}`, [userId]);
    const row = rows[0];
    if (!row) return undefined;
    if (Number(row.expires_at) <= now) {
      await this.#dropWishlist(db, row.id);
      return undefined;
    }
    return this.#wishlist(db, row.id);
  }

  async #dropWishlist(db: Db, id: string): Promise<void> {
    await db.query('DELETE FROM shop_wishlist_items WHERE wishlist_id = $1', [id]);
    await db.query('DELETE FROM shop_wishlists WHERE id = $1', [id]);
  }

  createWishlist(id: string, userId: string | null, now: number, ttlMs: number): Promise<{ wishlist: WishlistRecord; created: boolean }> {
    return this.#tx(async (db) => {
      if (userId !== null) {
        const existing = await this.#activeWishlist(db, userId, now, true);
        if (existing) return { wishlist: existing, created: false };
      }
      await db.query('INSERT INTO shop_wishlists (id, user_id, created_at, updated_at, expires_at) VALUES ($1, $2, $3, $3, $4)', [id, userId, now, now + ttlMs]);
      return { wishlist: (await this.#wishlist(db, id))!, created: true };
    });
  }

  getWishlist(id: string): Promise<WishlistRecord | undefined> {
    return this.#wishlist(this.#pool, id);
  }

  activeWishlistOf(userId: string, now: number): Promise<WishlistRecord | undefined> {
    return this.#tx((db) => this.#activeWishlist(db, userId, now));
  }

  addToWishlist(id: string, owner: string | null, productId: string, now: number, ttlMs: number, maxItems: number): Promise<AddToWishlistResult> {
    return this.#tx(async (db): Promise<AddToWishlistResult> => {
      const w = await this.#wishlist(db, id, true);
      if (!w || !usableBy(w, owner, now)) return { kind: 'wishlistNotFound' };
      if (!w.productIds.includes(productId) && w.productIds.length >= maxItems) return { kind: 'tooManyItems' };
      await db.query('INSERT INTO shop_wishlist_items (wishlist_id, product_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [id, productId]);
      await db.query('UPDATE shop_wishlists SET updated_at = $1, expires_at = $2 WHERE id = $3', [now, now + ttlMs, id]);
      return { kind: 'ok', wishlist: (await this.#wishlist(db, id))! };
    });
  }

  deleteWishlist(id: string, owner: string | null, now: number): Promise<boolean> {
    return this.#tx(async (db) => {
      const w = await this.#wishlist(db, id, true);
      if (!w || !usableBy(w, owner, now)) return false;
      await this.#dropWishlist(db, id);
      return true;
    });
  }

  mergeWishlist(anonymousId: string, userId: string, now: number, ttlMs: number, maxItems: number): Promise<WishlistRecord | undefined> {
    return this.#tx(async (db) => {
      const anon = await this.#wishlist(db, anonymousId, true);
      if (!anon || !usableBy(anon, null, now)) return undefined;
      const mine = await this.#activeWishlist(db, userId, now, true);
      if (!mine) {
        await db.query('UPDATE shop_wishlists SET user_id = $1, updated_at = $2, expires_at = $3 WHERE id = $4', [userId, now, now + ttlMs, anon.id]);
        return this.#wishlist(db, anon.id);
      }
      for (const p of wishlistAdditions(mine.productIds, anon.productIds, maxItems)) {
        await db.query('INSERT INTO shop_wishlist_items (wishlist_id, product_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [mine.id, p]);
      }
      await this.#dropWishlist(db, anon.id);
      await db.query('UPDATE shop_wishlists SET updated_at = $1, expires_at = $2 WHERE id = $3', [now, now + ttlMs, mine.id]);
      return this.#wishlist(db, mine.id);
    });
  }

  purgeExpired(before: number, batchSize = PURGE_BATCH): Promise<PurgeResult> {
    return purgeInBatches((size) => this.#tx((db) => purgeBatch(db, before, size)), batchSize, () => this.#purges?.stopped ?? false);
  }
}

/**
 * One batch of purgeExpired, in the caller's transaction. SKIP LOCKED: instances purging at the same
 * time take different rows, and a cart a request holds locked is left for the next purge.
 */
async function purgeBatch(db: pg.PoolClient, before: number, size: number): Promise<PurgeResult> {
  const carts = await db.query<{ id: string }>(`DELETE FROM shop_carts WHERE id IN (
      SELECT id FROM shop_carts c WHERE state <> 'ordered' AND expires_at <= $1
        AND NOT EXISTS (SELECT 1 FROM shop_orders o WHERE o.cart_id = c.id)
      LIMIT $2 FOR UPDATE SKIP LOCKED)
    RETURNING id`, [before, size]);
  await db.query('DELETE FROM shop_cart_items WHERE cart_id = ANY($1)', [carts.rows.map((r) => r.id)]);
  const wishlists = await db.query<{ id: string }>(`DELETE FROM shop_wishlists WHERE id IN (
      SELECT id FROM shop_wishlists WHERE expires_at <= $1 LIMIT $2 FOR UPDATE SKIP LOCKED)
    RETURNING id`, [before, size]);
  await db.query('DELETE FROM shop_wishlist_items WHERE wishlist_id = ANY($1)', [wishlists.rows.map((r) => r.id)]);
  return { carts: carts.rows.length, wishlists: wishlists.rows.length };
}
