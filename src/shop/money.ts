// Shop layer: money as integer minor units with an ISO 4217 currency; no floating point ever touches
// an amount. Tax rates are basis points (19 % = 1900) so that every product is an integer too.

export interface Money {
  /** Integer amount in minor units of `currency` (cents for EUR). */
  readonly amount: number;
  readonly currency: string;
}

export const CURRENCY_CODE = /^[A-Z]{3}$/;

/** The largest price or shipping rate in content (minor units); a larger amount is not a price. */
export const MAX_UNIT_AMOUNT = 1e12;
/**
 * The largest total of a cart or an order (minor units). With MAX_UNIT_AMOUNT and 999 units a line,
 * every line, sum and tax stays far below 2^53, so amounts are always exact integers.
 */
export const MAX_CART_AMOUNT = 1e15;

export function money(amount: number, currency: string): Money {
  return { amount, currency };
}

/** `a * num / den` (den > 0) rounded half away from zero, exact for all safe integers. */
export function mulDivRound(a: number, num: number, den: number): number {
  const product = a * num;
  if (!Number.isSafeInteger(product)) return exactMulDivRound(a, num, den);
  const q = Math.trunc(product / den);
  const r = product - q * den;
  if (Math.abs(r) * 2 >= den) return q + Math.sign(product);
  return q;
}

function exactMulDivRound(a: number, num: number, den: number): number {
  const product = BigInt(a) * BigInt(num);
  const d = BigInt(den);
  const q = product / d; // truncates toward zero
  const r = product - q * d;
  return Number((r < 0n ? -r : r) * 2n >= d ? q + (product < 0n ? -1n : 1n) : q);
}

/**
 * A percentage as written in content (`19`, `"7.7"`, `"2.5"`) → basis points; undefined when it is not
 * a number between 0 and 100 with at most two decimals.
 */
export function parseTaxRate(value: unknown): number | undefined {
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : '';
  const m = /^(\d{1,3})(?:\.(\d{1,2}))?$/.exec(text);
  if (!m) return undefined;
  const bp = Number(m[1]) * 100 + Number((m[2] ?? '').padEnd(2, '0'));
  return bp <= 10_000 ? bp : undefined;
}

/** Basis points → the percentage string shown in JSON (`1900` → `"19"`, `770` → `"7.7"`). */
export function formatTaxRate(bp: number): string {
  const whole = Math.trunc(bp / 100);
  const frac = bp % 100;
  if (frac === 0) return String(whole);
  return `${whole}.${String(frac).padStart(2, '0').replace(/0$/, '')}`;
}

export interface LineAmounts {
  readonly net: number;
  readonly tax: number;
  readonly gross: number;
}

/**
 * Net, tax and gross of `amount` (minor units) at `rateBp`, when `amount` is gross (tax included) or
 * net. Tax is rounded once per line, half away from zero; net + tax = gross exactly.
 */
export function splitTax(amount: number, rateBp: number, taxIncluded: boolean): LineAmounts {
  if (taxIncluded) {
    const tax = mulDivRound(amount, rateBp, 10_000 + rateBp);
    return { net: amount - tax, tax, gross: amount };
  }
  const tax = mulDivRound(amount, rateBp, 10_000);
  return { net: amount, tax, gross: amount + tax };
}
