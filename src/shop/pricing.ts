// Shop layer: live prices and totals. A product's price is the one in the cart currency that is valid
// now (validFrom ≤ now < validTo) with the highest minimum quantity not above the line quantity.
// Tax is rounded once per line; totals are sums of line amounts, so they always add up.
import type { CatalogSnapshot, Price, Product, ShippingMethod, ShippingRate } from './catalog-model.js';
import { formatTaxRate, money, splitTax, type Money } from './money.js';

export function selectPrice(product: Product, currency: string, quantity: number, now: number): Price | undefined {
  let best: Price | undefined;
  for (const p of product.prices) {
    if (p.currency !== currency || p.minQuantity > quantity) continue;
    if (p.validFrom !== null && Date.parse(p.validFrom) > now) continue;
    if (p.validTo !== null && Date.parse(p.validTo) <= now) continue;
    if (best === undefined || p.minQuantity > best.minQuantity) best = p;
  }
  return best;
}

export interface LineInput {
  readonly productId: string;
  readonly quantity: number;
}

export interface PricedLine {
  readonly productId: string;
  readonly sku: string | null;
  readonly title: string | null;
  readonly quantity: number;
  /** False when the product is gone (or not readable) or has no valid price: such lines cannot be ordered. */
  readonly available: boolean;
  readonly unitPrice: Money | null;
  readonly taxRate: string | null;
  readonly net: Money | null;
  readonly tax: Money | null;
  readonly total: Money | null;
}

export interface Totals {
  /** Sum of the line totals (what the items cost, tax included). */
  readonly subtotal: Money;
  readonly shipping: Money;
  /** The tax contained in subtotal and shipping. */
  readonly tax: Money;
  readonly total: Money;
}

export interface PricedCart {
  readonly lines: readonly PricedLine[];
  readonly totals: Totals;
  readonly itemCount: number;
}

export function priceLine(snapshot: CatalogSnapshot | undefined, line: LineInput, currency: string, now: number): PricedLine {
  const product = snapshot?.productById.get(line.productId);
  const price = product && selectPrice(product, currency, line.quantity, now);
  if (!product || !price || !snapshot) {
    return {
      productId: line.productId, sku: product?.sku ?? null, title: product?.title ?? null, quantity: line.quantity,
      available: false, unitPrice: null, taxRate: null, net: null, tax: null, total: null,
    };
  }
  const a = splitTax(price.amount * line.quantity, product.taxRateBp, snapshot.catalog.pricesIncludeTax);
  return {
    productId: product.id, sku: product.sku, title: product.title, quantity: line.quantity, available: true,
    unitPrice: money(price.amount, currency), taxRate: formatTaxRate(product.taxRateBp),
    net: money(a.net, currency), tax: money(a.tax, currency), total: money(a.gross, currency),
  };
}

export interface ShippingCharge {
  readonly method: ShippingMethod;
  readonly rate: ShippingRate;
  readonly net: number;
  readonly tax: number;
  readonly gross: number;
}

/** The first rate of the method (natural order) for this currency, subtotal and country. */
export function selectRate(method: ShippingMethod, currency: string, subtotal: number, country: string): ShippingRate | undefined {
  return method.rates.find((r) => r.currency === currency
    && (r.minSubtotal === null || subtotal >= r.minSubtotal)
    && (r.maxSubtotal === null || subtotal < r.maxSubtotal)
    && (r.countries.length === 0 || r.countries.includes(country)));
}

export function shippingCharge(method: ShippingMethod, rate: ShippingRate, pricesIncludeTax: boolean): ShippingCharge {
  const a = splitTax(rate.amount, method.taxRateBp, pricesIncludeTax);
  return { method, rate, net: a.net, tax: a.tax, gross: a.gross };
}

export function priceCart(
  snapshot: CatalogSnapshot | undefined,
  lines: readonly LineInput[],
  currency: string,
  now: number,
  shipping?: ShippingCharge,
): PricedCart {
  const priced = lines.map((l) => priceLine(snapshot, l, currency, now));
  let subtotal = 0;
  let tax = 0;
  let itemCount = 0;
  for (const l of priced) {
    itemCount += l.quantity;
    if (!l.available) continue;
    subtotal += l.total!.amount;
    tax += l.tax!.amount;
  }
  const ship = shipping?.gross ?? 0;
  tax += shipping?.tax ?? 0;
  return {
    lines: priced, itemCount,
    totals: { subtotal: money(subtotal, currency), shipping: money(ship, currency), tax: money(tax, currency), total: money(subtotal + ship, currency) },
  };
}
