// Shop layer: the catalog as content. Turns the nodes of the shop workspaces into typed catalog
// objects (no I/O here); catalog.ts reads the nodes through the caller's repository Session.
//
// Workspaces and node types (documented in README "Shop API (deprecated)"):
//   shopCatalogs:/<catalog>                         shop:catalog
//   shopCategories:/<catalog>/<category>/<sub>…     shop:category
//   shopProducts:/<catalog>/<product>               shop:product, children shop:price and customFields
//   shopCurrencies:/<code>                          shop:currency
//   shopShippingMethods:/<method>                   shop:shippingMethod, children shop:shippingRate
import type { NodeRecord } from '../store/rows.js';
import type { ScalarValue } from '../model/property-type.js';
import { CURRENCY_CODE, MAX_UNIT_AMOUNT, parseTaxRate } from './money.js';

export const WS = {
  catalogs: 'shopCatalogs',
  categories: 'shopCategories',
  products: 'shopProducts',
  currencies: 'shopCurrencies',
  shippingMethods: 'shopShippingMethods',
} as const;

export const TYPES = {
  catalog: 'shop:catalog',
  category: 'shop:category',
  product: 'shop:product',
  price: 'shop:price',
  customFields: 'shop:customFields',
  currency: 'shop:currency',
  shippingMethod: 'shop:shippingMethod',
  shippingRate: 'shop:shippingRate',
} as const;

export interface Currency {
  readonly code: string;
  readonly title: string | null;
  readonly symbol: string | null;
  readonly fractionDigits: number;
}

export interface Price {
  readonly currency: string;
  /** Minor units. */
  readonly amount: number;
  readonly minQuantity: number;
  /** ISO timestamps; null = unbounded. `validTo` is exclusive. */
  readonly validFrom: string | null;
  readonly validTo: string | null;
}

export interface Product {
  readonly id: string;
  readonly name: string;
  readonly catalogId: string;
  readonly sku: string | null;
  readonly title: string;
  readonly description: string | null;
  readonly date: string | null;
  /** Basis points. */
  readonly taxRateBp: number;
  /** Units on hand as imported, 0 to MAX_STOCK; null = stock not tracked (no `stock` property). */
  readonly stock: number | null;
  readonly categoryIds: readonly string[];
  readonly prices: readonly Price[];
  readonly customFields: Readonly<Record<string, ScalarValue | readonly ScalarValue[]>>;
  /** Natural order in the catalog (the default sort). */
  readonly position: number;
}

export interface Category {
  readonly id: string;
  readonly name: string;
  readonly title: string;
  readonly description: string | null;
  readonly parentId: string | null;
  readonly children: readonly Category[];
}

export interface ShippingRate {
  readonly id: string;
  readonly name: string;
  readonly currency: string;
  readonly amount: number;
  /** Inclusive lower bound of the cart subtotal (minor units), or null. */
  readonly minSubtotal: number | null;
  /** Exclusive upper bound, or null. */
  readonly maxSubtotal: number | null;
  /** ISO 3166-1 alpha-2 codes; empty = every country. */
  readonly countries: readonly string[];
}

export interface ShippingMethod {
  readonly id: string;
  readonly name: string;
  readonly title: string;
  readonly description: string | null;
  readonly taxRateBp: number;
  readonly rates: readonly ShippingRate[];
}

export interface Catalog {
  readonly id: string;
  readonly name: string;
  readonly title: string;
  readonly description: string | null;
  readonly defaultCurrency: string;
  readonly pricesIncludeTax: boolean;
  readonly currencies: readonly Currency[];
  readonly categories: readonly Category[];
  readonly shippingMethods: readonly ShippingMethod[];
}

/** A catalog with everything below it, indexed: what one cache entry holds. */
export interface CatalogSnapshot {
  /** The content generation read before the catalog was: its content is that generation or newer. */
  readonly generation: number;
  readonly catalog: Catalog;
  readonly products: readonly Product[];
  readonly productById: ReadonlyMap<string, Product>;
  readonly categoryById: ReadonlyMap<string, Category>;
  readonly shippingMethodById: ReadonlyMap<string, ShippingMethod>;
}

type Props = ReadonlyMap<string, ScalarValue | readonly ScalarValue[]>;

function propsOf(n: NodeRecord): Props {
  return new Map(n.properties.map(([name, , value]) => [name, value]));
}
function str(p: Props, name: string): string | null {
  const v = p.get(name);
  return typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : null;
}
function int(p: Props, name: string): number | null {
  const v = p.get(name);
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v) : NaN;
  return Number.isSafeInteger(n) ? n : null;
}
function list(p: Props, name: string): string[] {
  const v = p.get(name);
  if (Array.isArray(v)) return v.map(String);
  return typeof v === 'string' && v !== '' ? [v] : [];
}
function date(p: Props, name: string): string | null {
  const v = str(p, name);
  if (v === null) return null;
  const t = Date.parse(v);
  return Number.isNaN(t) ? null : new Date(t).toISOString();
}

function childrenByParent(rows: readonly NodeRecord[]): Map<string, NodeRecord[]> {
  const m = new Map<string, NodeRecord[]>();
  for (const r of rows) {
    const list = m.get(r.parentPath);
    if (list) list.push(r);
    else m.set(r.parentPath, [r]);
  }
  for (const list of m.values()) list.sort((a, b) => a.position - b.position);
  return m;
}

export function toCurrency(n: NodeRecord): Currency | undefined {
  const p = propsOf(n);
  const code = (str(p, 'code') ?? n.name).toUpperCase();
  if (!CURRENCY_CODE.test(code)) return undefined;
  const digits = int(p, 'fractionDigits');
  return { code, title: str(p, 'title'), symbol: str(p, 'symbol'), fractionDigits: digits !== null && digits >= 0 && digits <= 4 ? digits : 2 };
}

/** A price or rate amount: a whole number of minor units in [0, MAX_UNIT_AMOUNT]. */
function amountOf(p: Props): number | null {
  const amount = int(p, 'amount');
  return amount !== null && amount >= 0 && amount <= MAX_UNIT_AMOUNT ? amount : null;
}

function toPrice(n: NodeRecord): Price | undefined {
  const p = propsOf(n);
  const currency = str(p, 'currency')?.toUpperCase();
  const amount = amountOf(p);
  if (currency === undefined || !CURRENCY_CODE.test(currency) || amount === null) return undefined;
  return {
    currency, amount,
    minQuantity: Math.max(1, int(p, 'minQuantity') ?? 1),
    validFrom: date(p, 'validFrom'),
    validTo: date(p, 'validTo'),
  };
}

/** Larger counts are clamped: the sold counts are 32-bit integers in PostgreSQL. */
export const MAX_STOCK = 1_000_000_000;

/**
 * Only an absent `stock` means "not tracked". A present value that is negative or not a whole number
 * is a mistake in content: it counts as none on hand, so a typo can stop sales but never unlimit them.
 */
function stockOf(p: Props): number | null {
  if (!p.has('stock')) return null;
  const stock = int(p, 'stock');
  return stock === null || stock < 0 ? 0 : Math.min(stock, MAX_STOCK);
}

/** Products from the subtree of `shopProducts:/<catalog>` (depth 2: products and their children). */
export function toProducts(catalogId: string, rows: readonly NodeRecord[], catalogPath: string): Product[] {
  const kids = childrenByParent(rows);
  const out: Product[] = [];
  for (const n of kids.get(catalogPath) ?? []) {
    if (n.type !== TYPES.product) continue;
    const p = propsOf(n);
    const prices: Price[] = [];
    let customFields: Record<string, ScalarValue | readonly ScalarValue[]> = {};
    for (const c of kids.get(n.path) ?? []) {
      if (c.type === TYPES.price) {
        const price = toPrice(c);
        if (price) prices.push(price);
      } else if (c.type === TYPES.customFields) {
        customFields = Object.fromEntries(c.properties.filter(([k]) => !k.includes(':')).map(([k, , v]) => [k, v]));
      }
    }
    out.push({
      id: n.id, name: n.name, catalogId,
      sku: str(p, 'sku'), title: str(p, 'title') ?? n.name, description: str(p, 'description'),
      date: date(p, 'date') ?? date(p, 'cms:created'),
      taxRateBp: parseTaxRate(p.get('taxRate')) ?? 0,
      stock: stockOf(p),
      categoryIds: list(p, 'categories'),
      prices, customFields, position: out.length,
    });
  }
  return out;
}

/** The category tree below `shopCategories:/<catalog>`; indexes every category by id. */
export function toCategoryTree(rows: readonly NodeRecord[], catalogPath: string, index: Map<string, Category>): Category[] {
  const kids = childrenByParent(rows);
  const build = (parentPath: string, parentId: string | null): Category[] => {
    const out: Category[] = [];
    for (const n of kids.get(parentPath) ?? []) {
      if (n.type !== TYPES.category) continue;
      const p = propsOf(n);
      const children = build(n.path, n.id);
      const cat: Category = { id: n.id, name: n.name, title: str(p, 'title') ?? n.name, description: str(p, 'description'), parentId, children };
      index.set(n.id, cat);
      out.push(cat);
    }
    return out;
  };
  return build(catalogPath, null);
}

/** Shipping methods from the subtree of `shopShippingMethods:/` (depth 2). */
export function toShippingMethods(rows: readonly NodeRecord[]): ShippingMethod[] {
  const kids = childrenByParent(rows);
  const out: ShippingMethod[] = [];
  for (const n of kids.get('/') ?? []) {
    if (n.type !== TYPES.shippingMethod) continue;
    const p = propsOf(n);
    const rates: ShippingRate[] = [];
    for (const c of kids.get(n.path) ?? []) {
      if (c.type !== TYPES.shippingRate) continue;
      const rp = propsOf(c);
      const currency = str(rp, 'currency')?.toUpperCase();
      const amount = amountOf(rp);
      if (currency === undefined || !CURRENCY_CODE.test(currency) || amount === null) continue;
      rates.push({
        id: c.id, name: c.name, currency, amount,
        minSubtotal: int(rp, 'minSubtotal'), maxSubtotal: int(rp, 'maxSubtotal'),
        countries: list(rp, 'countries').map((c2) => c2.toUpperCase()),
      });
    }
    out.push({ id: n.id, name: n.name, title: str(p, 'title') ?? n.name, description: str(p, 'description'), taxRateBp: parseTaxRate(p.get('taxRate')) ?? 0, rates });
  }
  return out;
}

export function toCatalogHead(n: NodeRecord): { title: string; description: string | null; defaultCurrency: string | null; currencyCodes: string[]; shippingMethodIds: string[]; pricesIncludeTax: boolean } {
  const p = propsOf(n);
  const codes = list(p, 'currencies').map((c) => c.toUpperCase());
  const def = str(p, 'defaultCurrency')?.toUpperCase() ?? codes[0] ?? null;
  return {
    title: str(p, 'title') ?? n.name, description: str(p, 'description'),
    defaultCurrency: def, currencyCodes: codes, shippingMethodIds: list(p, 'shippingMethods'),
    pricesIncludeTax: p.get('pricesIncludeTax') === true || p.get('pricesIncludeTax') === 'true',
  };
}
