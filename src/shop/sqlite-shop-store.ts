// Shop layer (records, SQLite): carts, wishlists and orders in the content store's database file,
// through a connection of their own. Orders commit with synchronous = FULL (an acknowledged order
// survives a power loss; the fsync also covers every earlier commit); cart and wishlist changes with
// NORMAL (WAL: they survive a process crash, a power loss may take the last ones). BEGIN IMMEDIATE
// transactions (the write lock is taken before the first read, so two
// processes can never both read a cart as active and both order it). better-sqlite3 is synchronous:
// each transaction runs to its end without yielding to other requests of this process.
import type { Database as Connection } from 'better-sqlite3';
import Database from '../store/sqlite/driver.js';
import { migrateShop } from './sqlite-shop-migrations.js';
import { Refusal, refusable } from './refusal.js';
import { isActiveFor, planItemChange } from './cart-rules.js';
import { planMerge, usableBy, wishlistAdditions } from './merge-rule.js';
import { PURGE_BATCH, purgeInBatches, PurgeSchedule, type PurgeOptions } from './purge-schedule.js';
import {
  formatOrderNumber,
  type AddToWishlistResult, type CartLimits, type CartRecord, type ChangeItemInput, type ChangeItemResult, type NewCart, type OrderDocument, type OrderRecord,
  type PlaceOrderInput, type PlaceOrderResult, type PurgeResult, type ShopStore, type ShopStoreHooks, type StockLevel, type WishlistRecord,
} from './shop-store.js';
import { stockCount, unitsLeft, type StockCount } from './stock-count.js';

interface CartRow {
  id: string; user_id: string | null; catalog_id: string | null; currency: string | null; state: CartRecord['state'];
  version: number; created_at: number; updated_at: number; expires_at: number;
}
interface OrderRow { id: string; number: string; cart_id: string; user_id: string | null; created_at: number; document: string }
interface WishlistRow { id: string; user_id: string | null; created_at: number; updated_at: number; expires_at: number }
const STOCK_SELECT = 'SELECT on_hand AS onHand, sold, generation FROM shop_stock WHERE product_id = ?';

export class SqliteShopStore implements ShopStore {
  readonly name = 'sqlite' as const;
  readonly #file: string;
  readonly #hooks: ShopStoreHooks;
  readonly #purgeOptions: PurgeOptions;
  #db: Connection | undefined;
  #synchronous: 'FULL' | 'NORMAL' = 'FULL';
  #purges: PurgeSchedule | undefined;

  constructor(options: { file: string; hooks?: ShopStoreHooks; purge?: PurgeOptions }) {
    this.#file = options.file;
    this.#hooks = options.hooks ?? {};
    this.#purgeOptions = options.purge ?? {};
  }

  async open(): Promise<void> {
    if (this.#db) return;
    const db = new Database(this.#file);
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = FULL');
    db.pragma('busy_timeout = 10000');
    migrateShop(db);
    this.#db = db;
    this.#purges = new PurgeSchedule((before) => this.purgeExpired(before), this.#purgeOptions);
    this.#purges.start();
  }

  async close(): Promise<void> {
    await this.#purges?.stop();
    this.#purges = undefined;
    this.#db?.close();
    this.#db = undefined;
  }

  get #d(): Connection {
    if (!this.#db) throw new Error('SqliteShopStore is not open');
    return this.#db;
  }

  /** Runs `fn` in a BEGIN IMMEDIATE transaction; `FULL`: fsync on commit (orders). */
  #tx<T>(fn: (db: Connection) => T, synchronous: 'FULL' | 'NORMAL' = 'NORMAL'): T {
    const db = this.#d;
    if (this.#synchronous !== synchronous) {
      db.pragma(`synchronous = ${synchronous}`); // only outside a transaction; better-sqlite3 calls never interleave
      this.#synchronous = synchronous;
    }
    return db.transaction(() => fn(db)).immediate();
  }

  #cart(db: Connection, id: string): CartRecord | undefined {
    const row = db.prepare('SELECT * FROM shop_carts WHERE id = ?').get(id) as CartRow | undefined;
    if (!row) return undefined;
    const items = db.prepare('SELECT product_id, quantity FROM shop_cart_items WHERE cart_id = ? ORDER BY seq').all(id) as { product_id: string; quantity: number }[];
    return {
      id: row.id, userId: row.user_id, catalogId: row.catalog_id, currency: row.currency, state: row.state,
      version: row.version, createdAt: row.created_at, updatedAt: row.updated_at, expiresAt: row.expires_at,
      items: items.map((i) => ({ productId: i.product_id, quantity: i.quantity })),
    };
  }

  #touch(db: Connection, id: string, now: number, ttlMs: number): void {
    db.prepare('UPDATE shop_carts SET version = version + 1, updated_at = ?, expires_at = ? WHERE id = ?').run(now, now + ttlMs, id);
  }

  async createCart(c: NewCart): Promise<{ cart: CartRecord; created: boolean }> {
    return this.#tx((db) => {
      if (c.userId !== null) {
        const existing = this.#activeCart(db, c.userId, c.now);
        if (existing) return { cart: existing, created: false };
      }
      db.prepare(`INSERT INTO shop_carts (id, user_id, catalog_id, currency, state, version, created_at, updated_at, expires_at)
        VALUES (?, ?, ?, ?, 'active', 1, ?, ?, ?)`).run(c.id, c.userId, c.catalogId, c.currency, c.now, c.now, c.now + c.ttlMs);
      return { cart: this.#cart(db, c.id)!, created: true };
    });
  }

  async getCart(id: string): Promise<CartRecord | undefined> {
    return this.#cart(this.#d, id);
  }

  #activeCart(db: Connection, userId: string, now: number): CartRecord | undefined {
    const row = db.prepare("SELECT id, expires_at FROM shop_carts WHERE user_id = ? AND state = 'active'").get(userId) as { id: string; expires_at: number } | undefined;
    if (!row) return undefined;
    if (row.expires_at <= now) {
      // An expired cart frees the user's single active slot.
      db.prepare("UPDATE shop_carts SET state = 'merged' WHERE id = ?").run(row.id);
      return undefined;
    }
    return this.#cart(db, row.id);
  }

  async activeCartOf(userId: string, now: number): Promise<CartRecord | undefined> {
    return this.#tx((db) => this.#activeCart(db, userId, now));
  }

  async deleteCart(id: string, owner: string | null, now: number): Promise<boolean> {
    return this.#tx((db) => {
      const cart = this.#cart(db, id);
      if (!isActiveFor(cart, owner, now)) return false;
      db.prepare('DELETE FROM shop_cart_items WHERE cart_id = ?').run(id);
      db.prepare('DELETE FROM shop_carts WHERE id = ?').run(id);
      return true;
    });
  }

  async changeItem(c: ChangeItemInput): Promise<ChangeItemResult> {
    return this.#tx((db): ChangeItemResult => {
      const cart = this.#cart(db, c.cartId);
      const plan = planItemChange(cart, c);
      if (plan.kind !== 'write') return plan;
      if (plan.line === 'delete') db.prepare('DELETE FROM shop_cart_items WHERE cart_id = ? AND product_id = ?').run(c.cartId, c.productId);
      else if (plan.line === 'update') db.prepare('UPDATE shop_cart_items SET quantity = ? WHERE cart_id = ? AND product_id = ?').run(plan.quantity, c.cartId, c.productId);
      else db.prepare('INSERT INTO shop_cart_items (cart_id, product_id, quantity) VALUES (?, ?, ?)').run(c.cartId, c.productId, plan.quantity);
      if (plan.fixCatalog) {
        db.prepare('UPDATE shop_carts SET catalog_id = ?, currency = COALESCE(currency, ?) WHERE id = ?').run(c.catalogId, c.currency, c.cartId);
      }
      this.#touch(db, c.cartId, c.now, c.ttlMs);
      return { kind: 'ok', cart: this.#cart(db, c.cartId)! };
    });
  }

  async mergeCart(anonymousId: string, userId: string, now: number, ttlMs: number, limits: CartLimits): Promise<CartRecord | undefined> {
    return this.#tx((db) => {
      const anon = this.#cart(db, anonymousId);
      if (!isActiveFor(anon, null, now)) return undefined;
      const mine = this.#activeCart(db, userId, now);
      const plan = planMerge(anon, mine, limits);
      if (plan.kind === 'mergeInto' && mine) {
        db.prepare("UPDATE shop_carts SET state = 'merged', version = version + 1 WHERE id = ?").run(anon.id);
        const upsert = db.prepare(`INSERT INTO shop_cart_items (cart_id, product_id, quantity) VALUES (?, ?, ?)
          ON CONFLICT (cart_id, product_id) DO UPDATE SET quantity = excluded.quantity`);
        for (const l of plan.lines) upsert.run(mine.id, l.productId, l.quantity);
        db.prepare('UPDATE shop_carts SET catalog_id = ?, currency = ? WHERE id = ?').run(plan.catalogId, plan.currency, mine.id);
        this.#touch(db, mine.id, now, ttlMs);
        return this.#cart(db, mine.id);
      }
      if (plan.kind === 'replace' && mine) db.prepare("UPDATE shop_carts SET state = 'merged', version = version + 1 WHERE id = ?").run(mine.id);
      db.prepare('UPDATE shop_carts SET user_id = ? WHERE id = ?').run(userId, anon.id);
      this.#touch(db, anon.id, now, ttlMs);
      return this.#cart(db, anon.id);
    });
  }

  #order(row: OrderRow): OrderRecord {
    return { id: row.id, number: row.number, cartId: row.cart_id, userId: row.user_id, createdAt: row.created_at, document: JSON.parse(row.document) as OrderDocument };
  }

  async placeOrder(o: PlaceOrderInput): Promise<PlaceOrderResult> {
    return refusable(async () => this.#tx((db): PlaceOrderResult => {
      if (o.idempotency) {
        const k = db.prepare('SELECT request_hash, order_id FROM shop_idempotency_keys WHERE key = ?').get(o.idempotency.key) as { request_hash: string; order_id: string } | undefined;
        if (k) {
          if (k.request_hash !== o.idempotency.requestHash) return { kind: 'keyReused' };
          return { kind: 'replayed', order: this.#order(db.prepare('SELECT * FROM shop_orders WHERE id = ?').get(k.order_id) as OrderRow) };
        }
      }
      const cart = this.#cart(db, o.cartId);
      if (!cart || cart.userId !== o.owner) return { kind: 'cartNotFound' };
      if (cart.state === 'ordered') return { kind: 'alreadyOrdered' };
      if (cart.state !== 'active' || cart.expiresAt <= o.now) return { kind: 'cartNotFound' };
      if (cart.version !== o.expectedVersion) return { kind: 'stale' };
      const getStock = db.prepare(STOCK_SELECT);
      const putStock = db.prepare(`INSERT INTO shop_stock (product_id, on_hand, sold, generation) VALUES (?, ?, ?, ?)
        ON CONFLICT (product_id) DO UPDATE SET on_hand = excluded.on_hand, sold = excluded.sold, generation = excluded.generation`);
      for (const s of o.stock) {
        const count = stockCount(getStock.get(s.productId) as StockCount | undefined, s);
        const left = unitsLeft(count);
        // Earlier lines are already counted as sold: only a rollback undoes them.
        if (s.quantity > left) throw new Refusal<PlaceOrderResult>({ kind: 'insufficientStock', productId: s.productId, available: left });
        putStock.run(s.productId, count.onHand, count.sold + s.quantity, count.generation);
      }
      const seq = Number(db.prepare('INSERT INTO shop_orders (id, cart_id, user_id, created_at, document) VALUES (?, ?, ?, ?, ?)')
        .run(o.orderId, o.cartId, o.owner, o.now, JSON.stringify(o.document)).lastInsertRowid);
      db.prepare('UPDATE shop_orders SET number = ? WHERE seq = ?').run(formatOrderNumber(seq), seq);
      if (o.idempotency) {
        db.prepare('INSERT INTO shop_idempotency_keys (key, request_hash, order_id, created_at) VALUES (?, ?, ?, ?)')
          .run(o.idempotency.key, o.idempotency.requestHash, o.orderId, o.now);
      }
      db.prepare("UPDATE shop_carts SET state = 'ordered', version = version + 1, updated_at = ? WHERE id = ?").run(o.now, o.cartId);
      void this.#hooks.beforeOrderCommit?.(); // test hook (crash test): must be synchronous here
      return { kind: 'created', order: this.#order(db.prepare('SELECT * FROM shop_orders WHERE seq = ?').get(seq) as OrderRow) };
    }, 'FULL'));
  }

  async findIdempotent(key: string): Promise<{ requestHash: string; order: OrderRecord } | undefined> {
    const row = this.#d.prepare(`SELECT k.request_hash, o.* FROM shop_idempotency_keys k JOIN shop_orders o ON o.id = k.order_id
      WHERE k.key = ?`).get(key) as (OrderRow & { request_hash: string }) | undefined;
    return row && { requestHash: row.request_hash, order: this.#order(row) };
  }

  async ordersOf(userId: string, limit: number, offset: number): Promise<{ orders: OrderRecord[]; total: number }> {
    const db = this.#d;
    const rows = db.prepare('SELECT * FROM shop_orders WHERE user_id = ? ORDER BY seq DESC LIMIT ? OFFSET ?').all(userId, limit, offset) as OrderRow[];
    const { n } = db.prepare('SELECT count(*) AS n FROM shop_orders WHERE user_id = ?').get(userId) as { n: number };
    return { orders: rows.map((r) => this.#order(r)), total: n };
  }

  async available(levels: readonly StockLevel[]): Promise<Map<string, number>> {
    const get = this.#d.prepare(STOCK_SELECT);
    return new Map(levels.map((l) => [l.productId, unitsLeft(stockCount(get.get(l.productId) as StockCount | undefined, l))]));
  }

  #wishlist(db: Connection, id: string): WishlistRecord | undefined {
    const row = db.prepare('SELECT * FROM shop_wishlists WHERE id = ?').get(id) as WishlistRow | undefined;
    if (!row) return undefined;
    const items = db.prepare('SELECT product_id FROM shop_wishlist_items WHERE wishlist_id = ? ORDER BY seq').all(id) as { product_id: string }[];
    return { id: row.id, userId: row.user_id, createdAt: row.created_at, updatedAt: row.updated_at, expiresAt: row.expires_at, productIds: items.map((i) => i.product_id) };
  }

  #activeWishlist(db: Connection, userId: string, now: number): WishlistRecord | undefined {
    const row = db.prepare('SELECT id, expires_at FROM shop_wishlists WHERE user_id = ?').get(userId) as { id: string; expires_at: number } | undefined;
    if (!row) return undefined;
    if (row.expires_at <= now) {
      this.#dropWishlist(db, row.id);
      return undefined;
    }
    return this.#wishlist(db, row.id);
  }

  #dropWishlist(db: Connection, id: string): void {
    db.prepare('DELETE FROM shop_wishlist_items WHERE wishlist_id = ?').run(id);
    db.prepare('DELETE FROM shop_wishlists WHERE id = ?').run(id);
  }

  async createWishlist(id: string, userId: string | null, now: number, ttlMs: number): Promise<{ wishlist: WishlistRecord; created: boolean }> {
    return this.#tx((db) => {
      if (userId !== null) {
        const existing = this.#activeWishlist(db, userId, now);
        if (existing) return { wishlist: existing, created: false };
      }
      db.prepare('INSERT INTO shop_wishlists (id, user_id, created_at, updated_at, expires_at) VALUES (?, ?, ?, ?, ?)').run(id, userId, now, now, now + ttlMs);
      return { wishlist: this.#wishlist(db, id)!, created: true };
    });
  }

  async getWishlist(id: string): Promise<WishlistRecord | undefined> {
    return this.#wishlist(this.#d, id);
  }

  async activeWishlistOf(userId: string, now: number): Promise<WishlistRecord | undefined> {
    return this.#tx((db) => this.#activeWishlist(db, userId, now));
  }

  async addToWishlist(id: string, owner: string | null, productId: string, now: number, ttlMs: number, maxItems: number): Promise<AddToWishlistResult> {
    return this.#tx((db): AddToWishlistResult => {
      const w = this.#wishlist(db, id);
      if (!w || !usableBy(w, owner, now)) return { kind: 'wishlistNotFound' };
      if (!w.productIds.includes(productId) && w.productIds.length >= maxItems) return { kind: 'tooManyItems' };
      db.prepare('INSERT INTO shop_wishlist_items (wishlist_id, product_id) VALUES (?, ?) ON CONFLICT DO NOTHING').run(id, productId);
      db.prepare('UPDATE shop_wishlists SET updated_at = ?, expires_at = ? WHERE id = ?').run(now, now + ttlMs, id);
      return { kind: 'ok', wishlist: this.#wishlist(db, id)! };
    });
  }

  async deleteWishlist(id: string, owner: string | null, now: number): Promise<boolean> {
    return this.#tx((db) => {
      const w = this.#wishlist(db, id);
      if (!w || !usableBy(w, owner, now)) return false;
      this.#dropWishlist(db, id);
      return true;
    });
  }

  async mergeWishlist(anonymousId: string, userId: string, now: number, ttlMs: number, maxItems: number): Promise<WishlistRecord | undefined> {
    return this.#tx((db) => {
      const anon = this.#wishlist(db, anonymousId);
      if (!anon || !usableBy(anon, null, now)) return undefined;
      const mine = this.#activeWishlist(db, userId, now);
      if (!mine) {
        db.prepare('UPDATE shop_wishlists SET user_id = ?, updated_at = ?, expires_at = ? WHERE id = ?').run(userId, now, now + ttlMs, anon.id);
        return this.#wishlist(db, anon.id);
      }
      const add = db.prepare('INSERT INTO shop_wishlist_items (wishlist_id, product_id) VALUES (?, ?) ON CONFLICT DO NOTHING');
      for (const p of wishlistAdditions(mine.productIds, anon.productIds, maxItems)) add.run(mine.id, p);
      this.#dropWishlist(db, anon.id);
      db.prepare('UPDATE shop_wishlists SET updated_at = ?, expires_at = ? WHERE id = ?').run(now, now + ttlMs, mine.id);
      return this.#wishlist(db, mine.id);
    });
  }

  async purgeExpired(before: number, batchSize = PURGE_BATCH): Promise<PurgeResult> {
    return purgeInBatches((size) => Promise.resolve(this.#tx((db) => purgeBatch(db, before, size))), batchSize, () => this.#purges?.stopped ?? false);
  }
}

/** One batch of purgeExpired, in the caller's transaction. */
function purgeBatch(db: Connection, before: number, size: number): PurgeResult {
  const carts = JSON.stringify((db.prepare(`SELECT id FROM shop_carts c WHERE state <> 'ordered' AND expires_at <= ?
    AND NOT EXISTS (SELECT 1 FROM shop_orders o WHERE o.cart_id = c.id) LIMIT ?`).pluck().all(before, size)));
  db.prepare('DELETE FROM shop_cart_items WHERE cart_id IN (SELECT value FROM json_each(?))').run(carts);
  const c = db.prepare('DELETE FROM shop_carts WHERE id IN (SELECT value FROM json_each(?))').run(carts).changes;
  const wishlists = JSON.stringify(db.prepare('SELECT id FROM shop_wishlists WHERE expires_at <= ? LIMIT ?').pluck().all(before, size));
  db.prepare('DELETE FROM shop_wishlist_items WHERE wishlist_id IN (SELECT value FROM json_each(?))').run(wishlists);
  const w = db.prepare('DELETE FROM shop_wishlists WHERE id IN (SELECT value FROM json_each(?))').run(wishlists).changes;
  return { carts: c, wishlists: w };
}
