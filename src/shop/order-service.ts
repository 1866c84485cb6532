// Shop layer: POST /order and GET /orders. An order is priced from the cart as read, then written in
// one store transaction that re-checks the cart (still active, still the version priced, still the
// caller's), decrements tracked stock, inserts the order (UNIQUE cart id) and marks the cart ordered.
// A cart that changed in between is priced again (a few times, then 409 cartConflict).
import { createHash, randomUUID } from 'node:crypto';
import { DEFAULT_SHOP_CONFIG, type ShopConfig } from '../config/load-config.js';
import { PetalError } from '../errors.js';
import { cookieId, type CartService, type ShopContext } from './cart-service.js';
import { MAX_CART_AMOUNT } from './money.js';
import { priceCart, selectRate, shippingCharge } from './pricing.js';
import { parseBody, orderBody, type OrderBody } from './shop-input.js';
import type { CartRecord, OrderDocument, OrderLine, OrderRecord, StockNeed } from './shop-store.js';
import { parsePage, type RawPageParams } from './product-list.js';
import { RateLimit } from './rate-limit.js';
import { orderView, type OrderView, type Page } from './views.js';

const ATTEMPTS = 5;
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

export interface OrderResult {
  readonly order: OrderView;
  /** True when an earlier request with the same Idempotency-Key produced it. */
  readonly replayed: boolean;
}

function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v !== null && typeof v === 'object') {
    return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

export class OrderService {
  readonly #orders: RateLimit;

  constructor(readonly carts: CartService, config: ShopConfig = DEFAULT_SHOP_CONFIG) {
    this.#orders = new RateLimit(config.rateLimit.ordersPerMinute, config.rateLimit.clients, 'orders');
  }

  async placeOrder(ctx: ShopContext, rawBody: unknown, idempotencyKey?: string): Promise<OrderResult> {
    const body = parseBody(orderBody, rawBody) as OrderBody;
    const owner = ctx.caller.user ?? null;
    if (owner === null && body.email === undefined && body.billingAddress.email === undefined) {
      throw new PetalError('invalidField', 'email: required for orders of anonymous customers (or billingAddress.email)');
    }
    let idempotency: { key: string; requestHash: string } | undefined;
    if (idempotencyKey !== undefined) {
      if (!IDEMPOTENCY_KEY.test(idempotencyKey)) throw new PetalError('badRequest', 'Idempotency-Key: 1-255 visible ASCII characters');
      const requestHash = createHash('sha256').update(canonical({ owner, body: rawBody })).digest('hex');
      // Keys belong to one customer (a user, or whoever holds the anonymous cart's cookie): a key
      // alone, even with the body, must never replay someone else's order (their addresses).
      const scope = owner !== null ? `user:${owner}` : `cart:${cookieId(ctx.cartId) ?? ''}`;
      idempotency = { key: `${scope}\n${idempotencyKey}`, requestHash };
      const earlier = await this.carts.store.findIdempotent(idempotency.key);
      if (earlier) return this.#replay(earlier.requestHash, requestHash, earlier.order);
    }
    // Replays above are free; every attempt to place an order counts (a refused one costs a transaction too).
    if (ctx.client !== undefined) this.#orders.take(ctx.client);
    try {
      return await this.#place(ctx, body, owner, idempotency);
    } catch (err) {
      // A concurrent request with the same key may have just ordered this cart: answer as it did.
      if (idempotency && err instanceof PetalError && (err.code === 'cartAlreadyOrdered' || err.code === 'cartNotFound')) {
        const earlier = await this.carts.store.findIdempotent(idempotency.key);
        if (earlier) return this.#replay(earlier.requestHash, idempotency.requestHash, earlier.order);
      }
      throw err;
    }
  }

  async #place(ctx: ShopContext, body: OrderBody, owner: string | null, idempotency: { key: string; requestHash: string } | undefined): Promise<OrderResult> {
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const cart = await this.#cartToOrder(ctx);
      const priced = await this.#price(ctx, cart, body);
      const r = await this.carts.store.placeOrder({
        cartId: cart.id, owner, expectedVersion: cart.version, now: Date.now(), orderId: randomUUID(),
        document: priced.document, stock: priced.stock, ...(idempotency ? { idempotency } : {}),
      });
      switch (r.kind) {
        case 'created': return { order: orderView(r.order), replayed: false };
        case 'replayed': return this.#replay(idempotency!.requestHash, idempotency!.requestHash, r.order);
        case 'keyReused': throw new PetalError('idempotencyKeyReused');
        case 'cartNotFound': throw new PetalError('cartNotFound');
        case 'alreadyOrdered': throw new PetalError('cartAlreadyOrdered');
        case 'insufficientStock': throw new PetalError('insufficientStock', `Only ${r.available} units of product ${r.productId} are left`);
        case 'stale': continue;
      }
    }
    throw new PetalError('cartConflict');
  }

  #replay(stored: string, given: string, order: OrderRecord): OrderResult {
    if (stored !== given) throw new PetalError('idempotencyKeyReused');
    return { order: orderView(order), replayed: true };
  }

  /** The caller's cart; the cookie of a cart that has just become an order answers 409, not 404. */
  async #cartToOrder(ctx: ShopContext): Promise<CartRecord> {
    const cart = await this.carts.findCart(ctx);
    if (cart) return cart;
    if (ctx.cartId !== undefined) {
      const c = await this.carts.store.getCart(ctx.cartId);
      if (c && c.userId === (ctx.caller.user ?? null) && c.state === 'ordered') throw new PetalError('cartAlreadyOrdered');
    }
    throw new PetalError('cartNotFound');
  }

  async #price(ctx: ShopContext, cart: CartRecord, body: OrderBody): Promise<{ document: OrderDocument; stock: StockNeed[] }> {
    if (cart.items.length === 0 || cart.catalogId === null) throw new PetalError('cartEmpty');
    // A cart filled under a larger limit (or before one was configured) still orders no more per line.
    const large = cart.items.find((i) => i.quantity > this.carts.limits.maxQuantity);
    if (large) throw this.carts.tooManyUnits(`items: product ${large.productId}`);
    const snapshot = await this.carts.catalogs.catalog(ctx.reader, cart.catalogId);
    if (!snapshot) throw new PetalError('productNotFound', 'The catalog of this cart no longer exists');
    const currency = cart.currency ?? snapshot.catalog.defaultCurrency;
    const now = Date.now();
    const items = priceCart(snapshot, cart.items, currency, now);
    for (const l of items.lines) {
      if (l.available) continue;
      if (!snapshot.productById.has(l.productId)) throw new PetalError('productNotFound', `items: product ${l.productId} no longer exists`);
      throw new PetalError('priceNotAvailable', `items: product ${l.productId} has no valid price in ${currency}`);
    }
    const method = snapshot.shippingMethodById.get(body.shippingMethodId);
    if (!method) throw new PetalError('invalidField', `shippingMethodId: not a shipping method of catalog ${snapshot.catalog.name}`);
    const rate = selectRate(method, currency, items.totals.subtotal.amount, body.shippingAddress.country);
    if (!rate) throw new PetalError('shippingNotAvailable', `shippingMethodId: ${method.name} has no rate for ${currency}, this subtotal and ${body.shippingAddress.country}`);
    const ship = shippingCharge(method, rate, snapshot.catalog.pricesIncludeTax);
    const totals = priceCart(snapshot, cart.items, currency, now, ship).totals;
    if (totals.total.amount > MAX_CART_AMOUNT) throw new PetalError('amountLimitExceeded', `items: an order totals at most ${MAX_CART_AMOUNT} minor units`);
    const lines: OrderLine[] = items.lines.map((l) => ({
      productId: l.productId, sku: l.sku, title: l.title ?? l.productId, quantity: l.quantity,
      unitPrice: l.unitPrice!, taxRate: l.taxRate!, net: l.net!, tax: l.tax!, total: l.total!,
    }));
    const stock: StockNeed[] = [];
    for (const i of cart.items) {
      const p = snapshot.productById.get(i.productId)!;
      if (p.stock !== null) stock.push({ productId: p.id, quantity: i.quantity, onHand: p.stock, generation: snapshot.generation });
    }
    return {
      stock,
      document: {
        catalogId: snapshot.catalog.id, currency, email: body.email ?? body.billingAddress.email ?? null, items: lines,
        billingAddress: body.billingAddress, shippingAddress: body.shippingAddress,
        shipping: {
          methodId: method.id, title: method.title, rateId: rate.id,
          price: { amount: ship.gross, currency }, tax: { amount: ship.tax, currency },
        },
        totals,
      },
    };
  }

  /** GET /orders: the signed-in user's orders, newest first. */
  async orders(ctx: ShopContext, raw: RawPageParams = {}): Promise<Page<OrderView>> {
    const page = parsePage(raw, false);
    const user = ctx.caller.user;
    if (user === undefined) throw new PetalError('notAuthorized', 'Orders are listed for signed-in users only');
    const r = await this.carts.store.ordersOf(user, page.limit, page.offset);
    return { items: r.orders.map(orderView), total: r.total, limit: page.limit, offset: page.offset };
  }
}
