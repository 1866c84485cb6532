// HTTP layer: the shop's deprecated /shop/v1 API as Fastify routes under `<contextPath>/shop/v1`.
// Handlers only translate HTTP (cookies, status codes, headers) to ShopService calls; every rule lives
// in the services. Every response under the prefix, errors included, carries `Deprecation: true`.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type {} from '@fastify/cookie';
import { SHOP_PREFIX } from '../../config/api-prefixes.js';
import { isSameOrAllowedOrigin } from '../../security/csrf.js';
import { SHOP_TTL_MS, type ShopContext } from '../../shop/cart-service.js';
import type { RawPageParams } from '../../shop/product-list.js';
import type { ShopService } from '../../shop/shop-api.js';
import { sendError } from '../error-handler.js';
import { ShopCookies } from './shop-cookies.js';

export const CART_COOKIE = 'petal_cart';
export const WISHLIST_COOKIE = 'petal_wishlist';

type Params = { id: string };
const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS']);

function pageParams(request: FastifyRequest): RawPageParams {
  const q = request.query as Record<string, string | undefined>;
  return { limit: q.limit, offset: q.offset, sort: q.sort };
}

export function registerShopRoutes(app: FastifyInstance, shop: ShopService, o: { contextPath: string; corsOrigins: readonly string[] }): void {
  const base = `${o.contextPath}${SHOP_PREFIX}`;
  const cookies = new ShopCookies({ contextPath: o.contextPath, legacyPath: base, maxAgeSeconds: SHOP_TTL_MS / 1000 });
  const below = `${SHOP_PREFIX}/`; // built once: the hook below runs on every answer of the app
  const inShop = (request: FastifyRequest): boolean =>
    request.canonicalPath === SHOP_PREFIX || request.canonicalPath.startsWith(below);

  // Global (errors and unknown shop routes too), so it is a callback hook: no promise per request.
  app.addHook('onSend', (request, reply, payload, done) => {
    if (inShop(request)) reply.header('deprecation', 'true');
    done(null, payload);
  });

  const ctx = (request: FastifyRequest): ShopContext => shop.context(request.caller, {
    cartId: request.cookies[CART_COOKIE], wishlistId: request.cookies[WISHLIST_COOKIE], client: request.ip,
  }, request.contentState);
  /** Keeps the cookie pointing at the cart actually used (a login merge may change it). */
  const follow = (request: FastifyRequest, reply: FastifyReply, cookie: string, id: string): void => {
    if (request.cookies[cookie] !== id) cookies.set(request, reply, cookie, id);
  };
  const json = (reply: FastifyReply, status: number, body: unknown, cache = 'no-store'): FastifyReply =>
    reply.code(status).header('cache-control', cache).send(body);

  // The cart and wishlist cookies authenticate writes as much as a session does, and a browser also
  // replays cached Basic credentials on its own: every browser write must come from an allowed origin
  // (isSameOrAllowedOrigin lets clients that are not browsers through).
  const csrf = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> => {
    if (SAFE_METHODS.has(request.method)) return undefined;
    if (!isSameOrAllowedOrigin(request.headers, o.corsOrigins)) {
      return sendError(reply, 'accessDenied', 'Cross-site request refused (check Origin)');
    }
    return undefined;
  };

  app.register(async (shopApp) => {
    // Bodies are JSON: forms and plain text (what a page can post cross-site without CORS) are 415.
    shopApp.removeContentTypeParser(['application/x-www-form-urlencoded', 'text/plain']);
    shopApp.addHook('preHandler', csrf);

    // ---- catalog reads (templating functions) ----
    shopApp.get<{ Params: Params }>('/catalog/:id', async (req, reply) =>
      json(reply, 200, await shop.reads.catalog(ctx(req).reader, req.params.id), 'no-cache'));
    shopApp.get<{ Params: Params }>('/catalog/:id/products', async (req, reply) =>
      json(reply, 200, await shop.reads.catalogProducts(ctx(req).reader, req.params.id, pageParams(req)), 'no-cache'));
    shopApp.get<{ Params: Params }>('/category/:id', async (req, reply) =>
      json(reply, 200, await shop.reads.category(ctx(req).reader, req.params.id), 'no-cache'));
    shopApp.get<{ Params: Params }>('/category/:id/products', async (req, reply) =>
      json(reply, 200, await shop.reads.categoryProducts(ctx(req).reader, req.params.id, pageParams(req)), 'no-cache'));
    shopApp.get<{ Params: Params }>('/shipping/methods/:id', async (req, reply) =>
      json(reply, 200, await shop.reads.shippingMethod(ctx(req).reader, req.params.id), 'no-cache'));

    // ---- cart ----
    // POST creates (or answers the caller's), GET reads, DELETE removes; the id rides in a cookie.
    const listRoutes = <T extends { id: string }>(path: string, cookie: string, calls: {
      create: (c: ShopContext, body: unknown) => Promise<{ created: boolean; list: T }>;
      get: (c: ShopContext) => Promise<T>;
      remove: (c: ShopContext) => Promise<unknown>;
    }): void => {
      shopApp.post(path, async (req, reply) => {
        const r = await calls.create(ctx(req), req.body);
        cookies.set(req, reply, cookie, r.list.id); // refreshes Max-Age too
        return json(reply, r.created ? 201 : 200, r.list);
      });
      shopApp.get(path, async (req, reply) => {
        const list = await calls.get(ctx(req));
        follow(req, reply, cookie, list.id);
        return json(reply, 200, list);
      });
      shopApp.delete(path, async (req, reply) => {
        await calls.remove(ctx(req));
        cookies.clear(reply, cookie);
        return reply.code(204).header('cache-control', 'no-store').send();
      });
    };
    listRoutes('/cart', CART_COOKIE, {
      create: async (c, body) => { const r = await shop.carts.createCart(c, body); return { created: r.created, list: r.cart }; },
      get: (c) => shop.carts.getCart(c),
      remove: (c) => shop.carts.deleteCart(c),
    });
    shopApp.post('/cart/item', async (req, reply) => {
      const cart = await shop.carts.changeItem(ctx(req), req.body, 'add');
      cookies.set(req, reply, CART_COOKIE, cart.id);
      return json(reply, 200, cart);
    });
    shopApp.put('/cart/item', async (req, reply) => {
      const cart = await shop.carts.changeItem(ctx(req), req.body, 'set');
      cookies.set(req, reply, CART_COOKIE, cart.id);
      return json(reply, 200, cart);
    });

    // ---- wishlist ----
    listRoutes('/wishlist', WISHLIST_COOKIE, {
      create: async (c, body) => { const r = await shop.carts.createWishlist(c, body); return { created: r.created, list: r.wishlist }; },
      get: (c) => shop.carts.getWishlist(c),
      remove: (c) => shop.carts.deleteWishlist(c),
    });

    // ---- orders ----
    shopApp.post('/order', async (req, reply) => {
      const key = req.headers['idempotency-key'];
      const r = await shop.orders.placeOrder(ctx(req), req.body, typeof key === 'string' ? key : undefined);
      cookies.clear(reply, CART_COOKIE); // the cart is an order now
      if (r.replayed) reply.header('idempotent-replayed', 'true');
      return json(reply, r.replayed ? 200 : 201, r.order);
    });
    shopApp.get('/orders', async (req, reply) => json(reply, 200, await shop.orders.orders(ctx(req), pageParams(req))));
  }, { prefix: base });
}
