// Shop layer: the JSON shapes of the shop API (plain objects; Fastify serializes them). Field order
// here is the order clients see. Money is always `{ amount, currency }` with integer minor units.
import type { Catalog, Category, Product, ShippingMethod } from './catalog-model.js';
import { formatTaxRate, type Money } from './money.js';
import type { PricedCart, PricedLine, Totals } from './pricing.js';
import type { CartRecord, OrderDocument, OrderRecord, WishlistRecord } from './shop-store.js';

export interface CategoryView {
  readonly id: string;
  readonly name: string;
  readonly title: string;
  readonly description: string | null;
  readonly parentId: string | null;
  readonly children: readonly CategoryView[];
}

export interface ShippingMethodView {
  readonly id: string;
  readonly name: string;
  readonly title: string;
  readonly description: string | null;
  readonly taxRate: string;
  readonly rates: readonly {
    readonly id: string; readonly name: string; readonly price: Money;
    readonly minSubtotal: number | null; readonly maxSubtotal: number | null; readonly countries: readonly string[];
  }[];
}

/** A catalog as answered: its categories and shipping methods as views (the JSON's order is catalogView's). */
export interface CatalogView extends Omit<Catalog, 'categories' | 'shippingMethods'> {
  readonly categories: readonly CategoryView[];
  readonly shippingMethods: readonly ShippingMethodView[];
}

/** A product as answered (the JSON's order is productView's). */
export interface ProductView extends Pick<Product, 'id' | 'name' | 'catalogId' | 'sku' | 'title' | 'description' | 'date' | 'customFields'> {
  readonly taxRate: string;
  /** Units left; null when stock is not tracked. */
  readonly stock: number | null;
  /** Ids only: linked objects are not returned. */
  readonly categories: readonly string[];
  readonly prices: readonly {
    readonly price: Money; readonly minQuantity: number; readonly validFrom: string | null; readonly validTo: string | null;
  }[];
}

export interface Page<T> {
  readonly items: readonly T[];
  readonly total: number;
  readonly limit: number;
  readonly offset: number;
}

export interface CartView {
  readonly id: string;
  readonly state: CartRecord['state'];
  readonly catalogId: string | null;
  readonly currency: string | null;
  readonly items: readonly PricedLine[];
  readonly itemCount: number;
  /** Null while the cart has no currency (no item yet and none chosen at creation). */
  readonly totals: Totals | null;
  readonly version: number;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly expiresAt: string;
}

export interface WishlistView {
  readonly id: string;
  readonly items: readonly { readonly productId: string; readonly title: string | null; readonly sku: string | null; readonly available: boolean }[];
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly expiresAt: string;
}

export interface OrderView extends OrderDocument {
  readonly id: string;
  readonly number: string;
  readonly status: 'placed';
  readonly createdAt: string;
}

export function categoryView(c: Category): CategoryView {
  return { id: c.id, name: c.name, title: c.title, description: c.description, parentId: c.parentId, children: c.children.map(categoryView) };
}

export function shippingMethodView(m: ShippingMethod): ShippingMethodView {
  return {
    id: m.id, name: m.name, title: m.title, description: m.description, taxRate: formatTaxRate(m.taxRateBp),
    rates: m.rates.map((r) => ({
      id: r.id, name: r.name, price: { amount: r.amount, currency: r.currency },
      minSubtotal: r.minSubtotal, maxSubtotal: r.maxSubtotal, countries: r.countries,
    })),
  };
}

export function catalogView(c: Catalog): CatalogView {
  return {
    id: c.id, name: c.name, title: c.title, description: c.description, defaultCurrency: c.defaultCurrency,
    pricesIncludeTax: c.pricesIncludeTax, currencies: c.currencies,
    categories: c.categories.map(categoryView), shippingMethods: c.shippingMethods.map(shippingMethodView),
  };
}

export function productView(p: Product, stock: number | null): ProductView {
  return {
    id: p.id, name: p.name, catalogId: p.catalogId, sku: p.sku, title: p.title, description: p.description, date: p.date,
    taxRate: formatTaxRate(p.taxRateBp), stock, categories: p.categoryIds,
    prices: p.prices.map((x) => ({ price: { amount: x.amount, currency: x.currency }, minQuantity: x.minQuantity, validFrom: x.validFrom, validTo: x.validTo })),
    customFields: p.customFields,
  };
}

const iso = (ms: number): string => new Date(ms).toISOString();

export function cartView(c: CartRecord, priced: PricedCart): CartView {
  return {
    id: c.id, state: c.state, catalogId: c.catalogId, currency: c.currency, items: priced.lines, itemCount: priced.itemCount,
    totals: c.currency === null ? null : priced.totals, version: c.version, createdAt: iso(c.createdAt), updatedAt: iso(c.updatedAt), expiresAt: iso(c.expiresAt),
  };
}

export function wishlistView(w: WishlistRecord, products: ReadonlyMap<string, Product>): WishlistView {
  return {
    id: w.id,
    items: w.productIds.map((id) => {
      const p = products.get(id);
      return { productId: id, title: p?.title ?? null, sku: p?.sku ?? null, available: p !== undefined };
    }),
    createdAt: iso(w.createdAt), updatedAt: iso(w.updatedAt), expiresAt: iso(w.expiresAt),
  };
}

export function orderView(o: OrderRecord): OrderView {
  return { id: o.id, number: o.number, status: 'placed', createdAt: iso(o.createdAt), ...o.document };
}
