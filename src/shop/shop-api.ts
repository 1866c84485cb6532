// Shop layer: the shop as one object (ShopService, what the HTTP routes use) and the typed in-process
// API of SPEC.md's templating functions (ShopApi), for server-side rendering code running beside
// Petal. Both call the same operations, so a template sees exactly what /shop/v1 answers.
import { DEFAULT_SHOP_CONFIG, type ShopConfig } from '../config/load-config.js';
import { PetalError } from '../errors.js';
import type { ContentState, Repository } from '../repository/session.js';
import type { Caller, SecurityService } from '../security/security-service.js';
import { CatalogService } from './catalog.js';
import { CatalogReads } from './catalog-reads.js';
import { CartService, type ShopContext } from './cart-service.js';
import { OrderService } from './order-service.js';
import type { RawPageParams } from './product-list.js';
import type { ShopStore } from './shop-store.js';
import type { CartView, CatalogView, CategoryView, OrderView, Page, ProductView, ShippingMethodView, WishlistView } from './views.js';

export class ShopService {
  readonly reads: CatalogReads;
  readonly carts: CartService;
  readonly orders: OrderService;

  constructor(readonly repository: Repository, readonly security: SecurityService, readonly store: ShopStore, config: ShopConfig = DEFAULT_SHOP_CONFIG) {
    // Cached catalogs are views of one role set's permissions: a security reload drops them.
    const catalogs = new CatalogService(repository.store, () => security.config);
    this.reads = new CatalogReads(catalogs, store);
    this.carts = new CartService(catalogs, store, config);
    this.orders = new OrderService(this.carts, config);
  }

  /** The context of one request: the caller's ACL-filtered view of the catalogs and their cookie ids. */
  context(
    caller: Caller,
    ids: { cartId?: string | undefined; wishlistId?: string | undefined; client?: string | undefined } = {},
    state: ContentState = 'working',
  ): ShopContext {
    const security = this.security.config;
    // The catalogs' caches are per role set and per state (publishing: public and preview views differ).
    const roleKey = state === 'working' ? caller.roleKey : `${caller.roleKey}\u0000${state}`;
    return {
      caller,
      reader: { session: this.repository.session(this.security.readAccess(caller), undefined, state), roleKey, security },
      cartId: ids.cartId, wishlistId: ids.wishlistId, client: ids.client,
    };
  }
}

/** What identifies the visitor of a page being rendered: forwarded from their request. */
export interface VisitorCredentials {
  /** The `Authorization` header, if any. */
  readonly authorization?: string;
  /** The Petal session cookie (`petal_session`). */
  readonly sessionId?: string;
  /** The cart and wishlist cookies (`petal_cart`, `petal_wishlist`). */
  readonly cartId?: string;
  readonly wishlistId?: string;
  /** Client address (for the login throttle of Basic credentials). */
  readonly client?: string;
}

/**
 * The templating functions of SPEC.md's shop table, typed. Failures throw PetalError with the same
 * codes the HTTP API answers with (`catalogNotFound`, `cartNotFound`, `notAuthorized`, …).
 */
export interface ShopApi {
  catalog(visitor: VisitorCredentials, catalogId: string): Promise<CatalogView>;
  catalogProducts(visitor: VisitorCredentials, catalogId: string, page?: RawPageParams): Promise<Page<ProductView>>;
  category(visitor: VisitorCredentials, categoryId: string): Promise<CategoryView & { catalogId: string }>;
  categoryProducts(visitor: VisitorCredentials, categoryId: string, page?: RawPageParams): Promise<Page<ProductView>>;
  shippingMethod(visitor: VisitorCredentials, methodId: string): Promise<ShippingMethodView>;
  cart(visitor: VisitorCredentials): Promise<CartView>;
  wishlist(visitor: VisitorCredentials): Promise<WishlistView>;
  orders(visitor: VisitorCredentials, page?: RawPageParams): Promise<Page<OrderView>>;
}

export function createShopApi(shop: ShopService): ShopApi {
  const ctx = async (v: VisitorCredentials): Promise<ShopContext> => {
    const id = await shop.security.identify({
      ...(v.authorization !== undefined ? { authorization: v.authorization } : {}),
      ...(v.sessionId !== undefined ? { sessionId: v.sessionId } : {}),
      client: v.client ?? 'in-process',
    });
    if (!id.ok) throw new PetalError('notAuthorized', 'The credentials are not valid');
    return shop.context(id.caller, { cartId: v.cartId, wishlistId: v.wishlistId });
  };
  return {
    catalog: async (v, id) => shop.reads.catalog((await ctx(v)).reader, id),
    catalogProducts: async (v, id, page) => shop.reads.catalogProducts((await ctx(v)).reader, id, page),
    category: async (v, id) => shop.reads.category((await ctx(v)).reader, id),
    categoryProducts: async (v, id, page) => shop.reads.categoryProducts((await ctx(v)).reader, id, page),
    shippingMethod: async (v, id) => shop.reads.shippingMethod((await ctx(v)).reader, id),
    cart: async (v) => shop.carts.getCart(await ctx(v)),
    wishlist: async (v) => shop.carts.getWishlist(await ctx(v)),
    orders: async (v, page) => shop.orders.orders(await ctx(v), page),
  };
}
