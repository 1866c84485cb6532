// Shop layer: carts and wishlists for a caller. Identity rules: a cart (or wishlist) is found by the
// id of its cookie and must belong to the caller (anonymous carts to anonymous callers, user carts to
// that user) and be active and unexpired; anything else looks exactly like no cart. A signed-in
// caller without a usable cookie gets their own active cart. A signed-in caller presenting the
// cookie of an anonymous cart gets it merged (merge-rule.ts): that is the merge on login.
import { randomBytes } from 'node:crypto';
import { DEFAULT_SHOP_CONFIG, type ShopConfig } from '../config/load-config.js';
import { PetalError } from '../errors.js';
import type { Caller } from '../security/security-service.js';
import type { CatalogReader, CatalogService } from './catalog.js';
import { MAX_CART_AMOUNT } from './money.js';
import { priceCart, selectPrice } from './pricing.js';
import { RateLimit } from './rate-limit.js';
import {
  cartItemBody, cartItemUpdateBody, MAX_CART_LINES, MAX_WISHLIST_ITEMS, newCartBody, newWishlistBody, parseBody,
} from './shop-input.js';
import type { CartLimits, CartRecord, ShopStore, WishlistRecord } from './shop-store.js';
import { cartView, wishlistView, type CartView, type WishlistView } from './views.js';

/** Carts and wishlists live 30 days after their last change (and so do their cookies). */
export const SHOP_TTL_MS = 30 * 24 * 3600 * 1000;
/**
 * Until its first item, an anonymous cart or wishlist lives one day: anyone can create them without
 * limit (a POST without a cookie), and the purge deletes the many that never get an item sooner.
 */
export const EMPTY_ANONYMOUS_TTL_MS = 24 * 3600 * 1000;
const newTtl = (ctx: ShopContext): number => (ownerOf(ctx) === null ? EMPTY_ANONYMOUS_TTL_MS : SHOP_TTL_MS);
const TOO_MANY_LINES = `productId: a cart holds at most ${MAX_CART_LINES} different products`;
/** 128 random bits, base64url: 22 characters. Anything else in a cookie is not looked up. */
const ID_FORMAT = /^[A-Za-z0-9_-]{22}$/;

export function newShopId(): string {
  return randomBytes(16).toString('base64url');
}

/** Who asks, and the ids their cookies hold. */
export interface ShopContext {
  readonly caller: Caller;
  readonly reader: CatalogReader;
  readonly cartId?: string | undefined;
  readonly wishlistId?: string | undefined;
  /** The client's address, for the rate limits of writes (absent in-process: not limited). */
  readonly client?: string | undefined;
}

const ownerOf = (ctx: ShopContext): string | null => ctx.caller.user ?? null;
/** The id a cookie holds if it has the shape of one; anything else is never looked up. */
export const cookieId = (v: string | undefined): string | undefined => (v !== undefined && ID_FORMAT.test(v) ? v : undefined);

export class CartService {
  readonly limits: CartLimits;
  readonly #newCarts: RateLimit;
  readonly #newWishlists: RateLimit;

  constructor(readonly catalogs: CatalogService, readonly store: ShopStore, config: ShopConfig = DEFAULT_SHOP_CONFIG) {
    // A cart line holds no more than an order line may: one anonymous order cannot empty the stock.
    this.limits = { maxQuantity: config.maxUnitsPerOrderLine, maxLines: MAX_CART_LINES };
    const { cartsPerMinute, clients } = config.rateLimit;
    this.#newCarts = new RateLimit(cartsPerMinute, clients, 'carts created');
    this.#newWishlists = new RateLimit(cartsPerMinute, clients, 'wishlists created');
  }

  /** The line quantity refused at cart changes and orders. */
  tooManyUnits(field: string): PetalError {
    return new PetalError('quantityLimitExceeded', `${field}: a line holds at most ${this.limits.maxQuantity} units`);
  }

  /** The caller's usable cart (merging an anonymous one on login), or undefined. */
  findCart(ctx: ShopContext): Promise<CartRecord | undefined> {
    return findOwned(ctx, ctx.cartId, {
      get: (id) => this.store.getCart(id),
      usable: (c, now) => c.state === 'active' && c.expiresAt > now,
      merge: (id, owner, now) => this.store.mergeCart(id, owner, now, SHOP_TTL_MS, this.limits),
      activeOf: (owner, now) => this.store.activeCartOf(owner, now),
    });
  }

  async #requireCart(ctx: ShopContext): Promise<CartRecord> {
    const c = await this.findCart(ctx);
    if (!c) throw new PetalError('cartNotFound');
    return c;
  }

  async view(ctx: ShopContext, cart: CartRecord): Promise<CartView> {
    const snapshot = cart.catalogId === null ? undefined : (await this.catalogs.catalog(ctx.reader, cart.catalogId));
    return cartView(cart, priceCart(snapshot, cart.items, cart.currency ?? snapshot?.catalog.defaultCurrency ?? '', Date.now()));
  }

  async getCart(ctx: ShopContext): Promise<CartView> {
    return this.view(ctx, await this.#requireCart(ctx));
  }

  /** POST /cart: the caller's cart if they have one, else a new one. */
  async createCart(ctx: ShopContext, body: unknown): Promise<{ cart: CartView; created: boolean }> {
    const input = parseBody(newCartBody, body);
    const existing = await this.findCart(ctx);
    if (existing) return { cart: await this.view(ctx, existing), created: false };
    let catalogId: string | null = null;
    let currency: string | null = null;
    if (input.catalogId !== undefined) {
      const s = await this.catalogs.catalog(ctx.reader, input.catalogId);
      if (!s) throw new PetalError('invalidField', 'catalogId: no such catalog');
      catalogId = s.catalog.id;
      currency = input.currency ?? s.catalog.defaultCurrency;
      if (!s.catalog.currencies.some((c) => c.code === currency)) throw new PetalError('invalidField', `currency: not a currency of catalog ${s.catalog.name}`);
    } else if (input.currency !== undefined) {
      currency = input.currency;
    }
    if (ctx.client !== undefined) this.#newCarts.take(ctx.client);
    const r = await this.store.createCart({ id: newShopId(), userId: ownerOf(ctx), catalogId, currency, now: Date.now(), ttlMs: newTtl(ctx) });
    return { cart: await this.view(ctx, r.cart), created: r.created };
  }

  async deleteCart(ctx: ShopContext): Promise<void> {
    const c = await this.#requireCart(ctx);
    if (!(await this.store.deleteCart(c.id, ownerOf(ctx), Date.now()))) throw new PetalError('cartNotFound');
  }

  /** POST /cart/item (`add`: re-adding a product increases its line) and PUT /cart/item (`set`; 0 removes). */
  async changeItem(ctx: ShopContext, body: unknown, mode: 'add' | 'set'): Promise<CartView> {
    const input = mode === 'add' ? parseBody(cartItemBody, body) : parseBody(cartItemUpdateBody, body);
    const cart = await this.#requireCart(ctx);
    const line = cart.items.find((i) => i.productId === input.productId);
    if (mode === 'set' && !line) throw new PetalError('cartItemNotFound', `The cart has no line for product ${input.productId}`);
    if (!line && cart.items.length >= MAX_CART_LINES) throw new PetalError('tooManyItems', TOO_MANY_LINES);
    const hit = await this.catalogs.product(ctx.reader, input.productId);
    let catalogId = cart.catalogId;
    let currency = cart.currency;
    if (!hit) {
      // A line whose product has gone can still be removed.
      if (!(mode === 'set' && input.quantity === 0)) throw new PetalError('productNotFound', `productId: no product ${JSON.stringify(input.productId)}`);
    } else {
      const { product, snapshot } = hit;
      if (cart.catalogId !== null && cart.catalogId !== snapshot.catalog.id) {
        throw new PetalError('productNotInCatalog', `productId: product ${product.id} belongs to catalog ${snapshot.catalog.name}, not to the cart's`);
      }
      catalogId = snapshot.catalog.id;
      currency = cart.currency ?? snapshot.catalog.defaultCurrency;
      const quantity = mode === 'add' ? (line?.quantity ?? 0) + input.quantity : input.quantity;
      if (quantity > this.limits.maxQuantity) throw this.tooManyUnits('quantity');
      // A currency chosen at POST /cart without a catalog meets its catalog only here (the first item).
      if (quantity > 0 && !snapshot.catalog.currencies.some((c) => c.code === currency)) {
        throw new PetalError('currencyNotInCatalog', `currency: the cart's currency ${currency} is not a currency of catalog ${snapshot.catalog.name} (product ${product.id})`);
      }
      if (quantity > 0 && !selectPrice(product, currency, quantity, Date.now())) {
        throw new PetalError('priceNotAvailable', `productId: product ${product.id} has no valid price in ${currency}`);
      }
      if (quantity > (line?.quantity ?? 0)) {
        const items = line ? cart.items.map((i) => (i === line ? { productId: i.productId, quantity } : i)) : [...cart.items, { productId: product.id, quantity }];
        if (priceCart(snapshot, items, currency, Date.now()).totals.subtotal.amount > MAX_CART_AMOUNT) {
          throw new PetalError('amountLimitExceeded', `quantity: a cart totals at most ${MAX_CART_AMOUNT} minor units`);
        }
      }
      if (product.stock !== null && quantity > (line?.quantity ?? 0)) {
        const level = { productId: product.id, onHand: product.stock, generation: snapshot.generation };
        const left = (await this.store.available([level])).get(product.id) ?? 0;
        if (quantity > left) throw new PetalError('insufficientStock', `quantity: only ${left} units of product ${product.id} are left`);
      }
    }
    const r = await this.store.changeItem({
      cartId: cart.id, owner: ownerOf(ctx), productId: input.productId, mode, quantity: input.quantity, limits: this.limits,
      catalogId: catalogId ?? '', currency: currency ?? '', now: Date.now(), ttlMs: SHOP_TTL_MS,
    });
    switch (r.kind) {
      case 'ok': return this.view(ctx, r.cart);
      case 'cartNotFound': throw new PetalError('cartNotFound');
      case 'itemNotFound': throw new PetalError('cartItemNotFound', `The cart has no line for product ${input.productId}`);
      case 'catalogMismatch': throw new PetalError('productNotInCatalog');
      case 'limit': throw this.tooManyUnits('quantity');
      case 'tooManyLines': throw new PetalError('tooManyItems', TOO_MANY_LINES);
    }
  }

  // ---- wishlists: the same identity rules ----

  findWishlist(ctx: ShopContext): Promise<WishlistRecord | undefined> {
    return findOwned(ctx, ctx.wishlistId, {
      get: (id) => this.store.getWishlist(id),
      usable: (w, now) => w.expiresAt > now,
      merge: (id, owner, now) => this.store.mergeWishlist(id, owner, now, SHOP_TTL_MS, MAX_WISHLIST_ITEMS),
      activeOf: (owner, now) => this.store.activeWishlistOf(owner, now),
    });
  }

  async wishlistView(ctx: ShopContext, w: WishlistRecord): Promise<WishlistView> {
    const found = await Promise.all(w.productIds.map((id) => this.catalogs.product(ctx.reader, id)));
    return wishlistView(w, new Map(found.filter((h) => h !== undefined).map((h) => [h.product.id, h.product])));
  }

  async getWishlist(ctx: ShopContext): Promise<WishlistView> {
    const w = await this.findWishlist(ctx);
    if (!w) throw new PetalError('wishlistNotFound');
    return this.wishlistView(ctx, w);
  }

  /** POST /wishlist: the caller's wishlist (or a new one), with the product of the body added. */
  async createWishlist(ctx: ShopContext, body: unknown): Promise<{ wishlist: WishlistView; created: boolean }> {
    const input = parseBody(newWishlistBody, body);
    if (input.productId !== undefined && !(await this.catalogs.product(ctx.reader, input.productId))) {
      throw new PetalError('productNotFound', `productId: no product ${JSON.stringify(input.productId)}`);
    }
    const now = Date.now();
    let w = await this.findWishlist(ctx);
    let created = false;
    if (!w) {
      if (ctx.client !== undefined) this.#newWishlists.take(ctx.client);
      const r = await this.store.createWishlist(newShopId(), ownerOf(ctx), now, newTtl(ctx));
      w = r.wishlist;
      created = r.created;
    }
    if (input.productId !== undefined) {
      const r = await this.store.addToWishlist(w.id, ownerOf(ctx), input.productId, now, SHOP_TTL_MS, MAX_WISHLIST_ITEMS);
      if (r.kind === 'wishlistNotFound') throw new PetalError('wishlistNotFound');
      if (r.kind === 'tooManyItems') throw new PetalError('tooManyItems', `productId: a wishlist holds at most ${MAX_WISHLIST_ITEMS} products`);
      w = r.wishlist;
    }
    return { wishlist: await this.wishlistView(ctx, w), created };
  }

  async deleteWishlist(ctx: ShopContext): Promise<void> {
    const w = await this.findWishlist(ctx);
    if (!w || !(await this.store.deleteWishlist(w.id, ownerOf(ctx), Date.now()))) throw new PetalError('wishlistNotFound');
  }
}

/** How one kind of customer list (cart, wishlist) is found, merged and looked up by owner. */
interface OwnedLists<T extends { userId: string | null }> {
  get(id: string): Promise<T | undefined>;
  /** Still usable at `now` (not expired; a cart also not ordered). */
  usable(list: T, now: number): boolean;
  /** Takes an anonymous list over for `owner` (merging it into theirs); undefined when it cannot. */
  merge(id: string, owner: string, now: number): Promise<T | undefined>;
  activeOf(owner: string, now: number): Promise<T | undefined>;
}

/**
 * The caller's usable list: the one its cookie names when it is theirs, or an anonymous one merged
 * into theirs on login; else, signed in, their active one; undefined otherwise.
 */
async function findOwned<T extends { userId: string | null }>(ctx: ShopContext, cookie: string | undefined, lists: OwnedLists<T>): Promise<T | undefined> {
  const owner = ownerOf(ctx);
  const now = Date.now();
  const id = cookieId(cookie);
  if (id !== undefined) {
    const list = await lists.get(id);
    if (list && lists.usable(list, now)) {
      if (list.userId === owner) return list;
      if (list.userId === null && owner !== null) {
        const merged = await lists.merge(id, owner, now);
        if (merged) return merged;
      }
    }
  }
  return owner === null ? undefined : lists.activeOf(owner, now);
}
