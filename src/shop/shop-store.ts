// Shop layer (records): the transactional contract for carts, wishlists and orders. Both backends
// (sqlite-shop-store.ts, postgres-shop-store.ts) keep these records in the content store's database
// and pass the same suite (test/shop/shop-store.test.ts). Every method is one transaction; methods
// that change a cart lock it first, so concurrent changes to one cart are serialized, never lost.
import type { Money } from './money.js';
import type { Totals } from './pricing.js';
import type { StockLevel } from './stock-count.js';

export type { StockCount, StockLevel } from './stock-count.js';

export type CartState = 'active' | 'ordered' | 'merged';

export interface CartItemRecord {
  readonly productId: string;
  readonly quantity: number;
}

export interface CartRecord {
  readonly id: string;
  /** Null for an anonymous cart. */
  readonly userId: string | null;
  /** Set by the first item (or at creation); every item comes from this catalog. */
  readonly catalogId: string | null;
  readonly currency: string | null;
  readonly state: CartState;
  /** Increases with every change. */
  readonly version: number;
  readonly createdAt: number;
  readonly updatedAt: number;
  /** Epoch ms; the cart is gone for every purpose after it. */
  readonly expiresAt: number;
  /** In the order they were first added. */
  readonly items: readonly CartItemRecord[];
}

export interface WishlistRecord {
  readonly id: string;
  readonly userId: string | null;
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly expiresAt: number;
  readonly productIds: readonly string[];
}

export interface Address {
  readonly firstName: string;
  readonly lastName: string;
  readonly company?: string;
  readonly street: string;
  readonly street2?: string;
  readonly postalCode: string;
  readonly city: string;
  readonly region?: string;
  /** ISO 3166-1 alpha-2. */
  readonly country: string;
  readonly email?: string;
  readonly phone?: string;
}

export interface OrderLine {
  readonly productId: string;
  readonly sku: string | null;
  readonly title: string;
  readonly quantity: number;
  readonly unitPrice: Money;
  readonly taxRate: string;
  readonly net: Money;
  readonly tax: Money;
  readonly total: Money;
}

/** What an order freezes: everything a customer was shown when they ordered. */
export interface OrderDocument {
  readonly catalogId: string;
  readonly currency: string;
  readonly email: string | null;
  readonly items: readonly OrderLine[];
  readonly billingAddress: Address;
  readonly shippingAddress: Address;
  readonly shipping: {
    readonly methodId: string;
    readonly title: string;
    readonly rateId: string;
    readonly price: Money;
    readonly tax: Money;
  };
  readonly totals: Totals;
}

export interface OrderRecord {
  readonly id: string;
  /** Unique, human-friendly, from a sequence: `ORD-00000042`. */
  readonly number: string;
  readonly cartId: string;
  readonly userId: string | null;
  readonly createdAt: number;
  readonly document: OrderDocument;
}

export interface StockNeed extends StockLevel {
  readonly quantity: number;
}

export interface PlaceOrderInput {
  readonly cartId: string;
  /** The caller's user id (null = anonymous): the cart must still belong to them. */
  readonly owner: string | null;
  /** The version the order was priced from; another version = the cart changed meanwhile. */
  readonly expectedVersion: number;
  readonly now: number;
  readonly orderId: string;
  readonly document: OrderDocument;
  readonly stock: readonly StockNeed[];
  readonly idempotency?: { readonly key: string; readonly requestHash: string };
}

export type PlaceOrderResult =
  | { readonly kind: 'created'; readonly order: OrderRecord }
  | { readonly kind: 'replayed'; readonly order: OrderRecord }
  | { readonly kind: 'keyReused' }
  | { readonly kind: 'cartNotFound' }
  | { readonly kind: 'alreadyOrdered' }
  | { readonly kind: 'stale' }
  | { readonly kind: 'insufficientStock'; readonly productId: string; readonly available: number };

/** Size limits of a cart, enforced inside the store's transactions (so concurrent adds cannot pass them). */
export interface CartLimits {
  /** Units of one line. */
  readonly maxQuantity: number;
  /** Distinct products of one cart. */
  readonly maxLines: number;
}

export interface ChangeItemInput {
  readonly cartId: string;
  readonly owner: string | null;
  readonly productId: string;
  /** `add` adds to the line (creating it); `set` sets it (0 removes it). */
  readonly mode: 'add' | 'set';
  readonly quantity: number;
  readonly limits: CartLimits;
  /** The product's catalog and the currency to fix when the cart has none yet. */
  readonly catalogId: string;
  readonly currency: string;
  readonly now: number;
  readonly ttlMs: number;
}

export type ChangeItemResult =
  | { readonly kind: 'ok'; readonly cart: CartRecord }
  | { readonly kind: 'cartNotFound' }
  | { readonly kind: 'itemNotFound' }
  | { readonly kind: 'catalogMismatch' }
  | { readonly kind: 'limit' }
  | { readonly kind: 'tooManyLines' };

export type AddToWishlistResult =
  | { readonly kind: 'ok'; readonly wishlist: WishlistRecord }
  | { readonly kind: 'wishlistNotFound' }
  | { readonly kind: 'tooManyItems' };

export interface NewCart {
  readonly id: string;
  readonly userId: string | null;
  readonly catalogId: string | null;
  readonly currency: string | null;
  readonly now: number;
  readonly ttlMs: number;
}

/** What one purge deleted. */
export interface PurgeResult {
  readonly carts: number;
  readonly wishlists: number;
}

/** Test hooks; never set in production. `beforeOrderCommit` runs inside POST /order's transaction. */
export interface ShopStoreHooks {
  readonly beforeOrderCommit?: () => void | Promise<void>;
}

export interface ShopStore {
  readonly name: 'sqlite' | 'postgres';
  open(): Promise<void>;
  close(): Promise<void>;

  /** Creates a cart; a user who already has an active cart gets that one (`created: false`). */
  createCart(c: NewCart): Promise<{ cart: CartRecord; created: boolean }>;
  getCart(id: string): Promise<CartRecord | undefined>;
  /** The user's active, unexpired cart. */
  activeCartOf(userId: string, now: number): Promise<CartRecord | undefined>;
  /** Deletes an active cart of `owner`; false when there is none. */
  deleteCart(id: string, owner: string | null, now: number): Promise<boolean>;
  changeItem(c: ChangeItemInput): Promise<ChangeItemResult>;
  /**
   * Login merge (README): the anonymous cart becomes the user's, or its lines are merged into the
   * user's active cart (same product: the larger quantity) and it is marked `merged`.
   * Undefined when the anonymous cart is not active, anonymous and unexpired. Products that would
   * take the merged cart beyond `limits.maxLines` lines are left out.
   */
  mergeCart(anonymousId: string, userId: string, now: number, ttlMs: number, limits: CartLimits): Promise<CartRecord | undefined>;

  placeOrder(o: PlaceOrderInput): Promise<PlaceOrderResult>;
  /** The order an Idempotency-Key produced, with the hash of the request that produced it. */
  findIdempotent(key: string): Promise<{ requestHash: string; order: OrderRecord } | undefined>;
  ordersOf(userId: string, limit: number, offset: number): Promise<{ orders: OrderRecord[]; total: number }>;
  /** Units left per tracked product (stockCount: the recorded count, or a new one). */
  available(levels: readonly StockLevel[]): Promise<Map<string, number>>;

  createWishlist(id: string, userId: string | null, now: number, ttlMs: number): Promise<{ wishlist: WishlistRecord; created: boolean }>;
  getWishlist(id: string): Promise<WishlistRecord | undefined>;
  activeWishlistOf(userId: string, now: number): Promise<WishlistRecord | undefined>;
  /** Adds a product (once, up to `maxItems` products); `wishlistNotFound` when it is not `owner`'s or expired. */
  addToWishlist(id: string, owner: string | null, productId: string, now: number, ttlMs: number, maxItems: number): Promise<AddToWishlistResult>;
  deleteWishlist(id: string, owner: string | null, now: number): Promise<boolean>;
  /** Login merge for wishlists: assigned to the user, or its products added to the user's (up to `maxItems`). */
  mergeWishlist(anonymousId: string, userId: string, now: number, ttlMs: number, maxItems: number): Promise<WishlistRecord | undefined>;

  /**
   * Deletes carts that expired at or before `before` without becoming an order (active or merged), with
   * their items, and wishlists expired by then, `batchSize` records per transaction. Orders, the carts
   * they were placed from and their idempotency keys stay. Runs when the store opens and then hourly
   * (purge-schedule.ts); an expired record can never be used again, so deleting it changes no answer.
   */
  purgeExpired(before: number, batchSize?: number): Promise<PurgeResult>;
}

/** Order numbers come from a per-database sequence, so they are unique and never reused. */
export function formatOrderNumber(seq: number): string {
  return `ORD-${String(seq).padStart(8, '0')}`;
}
