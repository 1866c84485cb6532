// HTTP layer: the key a delivery answer is cached under. It holds everything an answer may differ by
// besides the content itself: the caller's role set and whether they signed in, the language the
// request resolves to, the canonical path, the query as the route parsed it, and a personalized
// endpoint's trait values. Two requests share an entry only when all of these are equal.
import type { SiteConfig } from '../config/load-config.js';
import { firstValue, type QueryParams, type QueryValue } from '../delivery/parse-request.js';
import { resolveLocale } from '../delivery/resolve-locale.js';
import type { TraitValues } from '../delivery/pages/traits.js';
import { traitKey } from './trait-values.js';

/** What of a request its cache key is made of. */
export interface CacheKeyFacts {
  /** The caller's role set (security-service.ts `roleKey`). */
  readonly roleKey: string;
  /** No credentials: its answers differ in Cache-Control and Vary from a signed-in caller's. */
  readonly anonymous: boolean;
  readonly site: SiteConfig;
  readonly acceptLanguage: string | undefined;
  /** The decoded path (security/canonical-path), as the URI permissions saw it. */
  readonly canonicalPath: string;
  readonly query: QueryParams;
  /** A personalized endpoint's trait values; undefined for other endpoints. */
  readonly traits?: TraitValues;
}

/**
 * The key: role set first, so that answers of different role sets never share an entry. No part but
 * the last can hold a newline (canonical paths reject control characters; role names are plain).
 */
export function cacheKey(f: CacheKeyFacts): string {
  const key = `${f.roleKey}\n${f.anonymous ? 'a' : 's'}\n${languageKey(firstValue(f.query.lang), f.acceptLanguage, f.site)}\n${f.canonicalPath}\n${canonicalQuery(f.query)}`;
  return f.traits === undefined ? key : `${key}\n${traitKey(f.traits)}`;
}

/**
 * The query as the route reads it (Fastify's one parse of the target), in a canonical form: names in
 * order, each with its value or values as parsed. So `a=1&b=2` and `b=2&a=1`, `x=a+b` and `x=a%20b`,
 * `a=1` and `%61=1` share an entry, while repeated names keep their order (it decides the first value).
 * Never derived from the raw URL: a second parser could read another query than the route did.
 */
export function canonicalQuery(query: QueryParams): string {
  const names = Object.keys(query);
  if (names.length === 0) return '';
  names.sort();
  const entries: [string, QueryValue][] = new Array<[string, QueryValue]>(names.length);
  for (let i = 0; i < names.length; i++) entries[i] = [names[i]!, query[names[i]!]];
  return JSON.stringify(entries);
}

const MAX_REMEMBERED_HEADERS = 512;
/** Longer `Accept-Language` values are resolved every time: 512 of them would otherwise hold 8 MB. */
const LONGEST_REMEMBERED_HEADER = 256;
const localeByHeader = new WeakMap<SiteConfig, Map<string, string>>();

/**
 * The part of the cache key that stands for the response language: nothing when the query has a
 * non-blank `lang` (the query string is in the key already); otherwise the locale `Accept-Language`
 * resolves to on this site, remembered per header value (browsers send few distinct ones, and short ones).
 */
export function languageKey(lang: string | undefined, acceptLanguage: string | undefined, site: SiteConfig): string {
  if (lang !== undefined && lang.trim() !== '') return '';
  if (acceptLanguage === undefined || acceptLanguage === '') return site.defaultLocale;
  if (acceptLanguage.length > LONGEST_REMEMBERED_HEADER) return resolveLocale(undefined, acceptLanguage, site).locale;
  let memo = localeByHeader.get(site);
  if (memo === undefined) {
    memo = new Map();
    localeByHeader.set(site, memo);
  }
  let locale = memo.get(acceptLanguage);
  if (locale === undefined) {
    locale = resolveLocale(undefined, acceptLanguage, site).locale;
    if (memo.size >= MAX_REMEMBERED_HEADERS) memo.clear();
    memo.set(acceptLanguage, locale);
  }
  return locale;
}
