// Shop layer: the product lists' `limit`, `offset` and `sort` (a whitelist of fields), validated and
// applied in memory over a cached catalog. Every bad value is a 400 naming the parameter.
import { PetalError } from '../errors.js';
import type { Product } from './catalog-model.js';
import { selectPrice } from './pricing.js';

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 100;
/** `sort=<field>:asc|desc`; `date` is the product's `date` (else its creation date), `price` the price for one unit now. */
export const SORT_FIELDS = ['name', 'sku', 'price', 'date'] as const;
export type SortField = (typeof SORT_FIELDS)[number];

export interface PageParams {
  readonly limit: number;
  readonly offset: number;
  readonly sort: { readonly field: SortField; readonly desc: boolean } | null;
}

/** Raw values as they come from a query string or a caller of the in-process API. */
export interface RawPageParams {
  readonly limit?: string | number | undefined;
  readonly offset?: string | number | undefined;
  readonly sort?: string | undefined;
}

function integer(name: string, v: string | number | undefined, min: number): number | undefined {
  if (v === undefined || v === '') return undefined;
  const n = typeof v === 'number' ? v : /^\d{1,9}$/.test(v) ? Number(v) : NaN;
  if (!Number.isSafeInteger(n) || n < min) throw new PetalError('invalidQuery', `${name} must be an integer ≥ ${min}`);
  return n;
}

export function parsePage(raw: RawPageParams, sortable = true): PageParams {
  if (Array.isArray(raw.limit) || Array.isArray(raw.offset) || Array.isArray(raw.sort)) {
    throw new PetalError('invalidQuery', 'limit, offset and sort may each be given once');
  }
  const limit = Math.min(integer('limit', raw.limit, 1) ?? DEFAULT_LIMIT, MAX_LIMIT);
  const offset = integer('offset', raw.offset, 0) ?? 0;
  let sort: PageParams['sort'] = null;
  if (raw.sort !== undefined && raw.sort !== '') {
    const m = /^([a-zA-Z]+):(asc|desc)$/.exec(raw.sort);
    if (!sortable || !m || !(SORT_FIELDS as readonly string[]).includes(m[1]!)) {
      throw new PetalError('invalidQuery', `sort must be <field>:asc or <field>:desc with field one of ${SORT_FIELDS.join(', ')}`);
    }
    sort = { field: m[1] as SortField, desc: m[2] === 'desc' };
  }
  return { limit, offset, sort };
}

type Key = string | number | null;

function keyOf(p: Product, field: SortField, currency: string, now: number): Key {
  switch (field) {
    case 'name': return p.title.toLowerCase();
    case 'sku': return p.sku;
    case 'price': return selectPrice(p, currency, 1, now)?.amount ?? null;
    case 'date': return p.date;
  }
}

/** A sorted list is reused for this long (prices have validity windows, so not forever). */
const SORT_REUSE_MS = 1_000;
/** Sorted lists per product list (a cached catalog's, so they go with it) and sort. */
const sortedLists = new WeakMap<readonly Product[], Map<string, { at: number; sorted: Product[] }>>();

/** Sorted (missing values last, ties in natural order) and sliced. */
export function pageOf(products: readonly Product[], page: PageParams, currency: string, now: number): Product[] {
  if (page.sort === null) return products.slice(page.offset, page.offset + page.limit);
  const key = `${page.sort.field}:${page.sort.desc ? 'desc' : 'asc'}:${currency}`;
  let bySort = sortedLists.get(products);
  if (bySort === undefined) sortedLists.set(products, (bySort = new Map()));
  let hit = bySort.get(key);
  if (hit === undefined || now - hit.at > SORT_REUSE_MS || now < hit.at) {
    hit = { at: now, sorted: sortProducts(products, page.sort, currency, now) };
    bySort.set(key, hit);
  }
  return hit.sorted.slice(page.offset, page.offset + page.limit);
}

function sortProducts(products: readonly Product[], sort: NonNullable<PageParams['sort']>, currency: string, now: number): Product[] {
  const { field, desc } = sort;
  const keyed = products.map((p) => ({ p, k: keyOf(p, field, currency, now) }));
  keyed.sort((a, b) => {
    if (a.k === null || b.k === null) return a.k === b.k ? a.p.position - b.p.position : a.k === null ? 1 : -1;
    const c = a.k < b.k ? -1 : a.k > b.k ? 1 : 0;
    return (desc ? -c : c) || a.p.position - b.p.position;
  });
  return keyed.map((x) => x.p);
}
