// HTTP layer: rendered delivery answers kept in memory (LRU bounded by bytes), keyed by request and
// the caller's role set, dropped whenever the content generation, the security configuration or the
// site changes. A hit is one Map lookup and a write: no rendering, no hashing. While the store cannot
// be reached, nothing is dropped for want of a generation, and answers already here are served as
// possibly stale (stale-if-error).
import type { SiteConfig } from '../config/load-config.js';
import { resolveLocale } from '../delivery/resolve-locale.js';
import type { QueryParams, QueryValue } from '../delivery/parse-request.js';

export const DEFAULT_CACHE_MAX_BYTES = 64 * 1024 * 1024;

/** Bookkeeping counted for each entry on top of its body and key (Map slot, object, header strings). */
const ENTRY_OVERHEAD = 256;

export interface CachedResponse {
  /** The encoded JSON body. */
  readonly body: Buffer;
  readonly etag: string;
  readonly contentLanguage: string;
  /** Undefined when the endpoint has no `timeToLive`. */
  readonly cacheControl: string | undefined;
  readonly vary: string;
  /**
   * What the answer was rendered for (the endpoint definition object): a hit requires the same one, so
   * a reloaded definition never serves an answer of its previous version.
   */
  readonly owner: object;
}

interface Entry {
  readonly value: CachedResponse;
  readonly size: number;
  /** When it was stored (ms since the epoch): the `Age` of a stale answer. */
  readonly storedAt: number;
}

/** An answer served while the store cannot be reached: content may have changed since it was stored. */
export interface StaleResponse {
  readonly value: CachedResponse;
  /** Whole seconds since it was stored. */
  readonly ageSeconds: number;
}

export interface CacheStats {
  readonly entries: number;
  readonly bytes: number;
  readonly maxBytes: number;
  readonly hits: number;
  readonly misses: number;
  readonly evictions: number;
  /** Answers served while the store could not be reached. */
  readonly staleHits: number;
}

export class ResponseCache {
  readonly maxBytes: number;
  /** Bodies larger than this are not kept (1/8 of the budget): one answer never empties the cache. */
  readonly maxEntryBytes: number;
  #map = new Map<string, Entry>();
  #bytes = 0;
  /** Increases on every clear: an answer rendered before a clear is never stored after it. */
  #epoch = 0;
  #generation = -1;
  #security: unknown = undefined;
  #site: unknown = undefined;
  #hits = 0;
  #misses = 0;
  #evictions = 0;
  #staleHits = 0;

  constructor(o: { maxBytes: number }) {
    if (!(o.maxBytes > 0)) throw new RangeError('ResponseCache: maxBytes must be positive');
    this.maxBytes = o.maxBytes;
    this.maxEntryBytes = Math.floor(o.maxBytes / 8);
  }

  /**
   * Called once per request before `get`, with the store's current content generation and the identity
   * of the security configuration and of the site: when any of them changed, everything is dropped.
   * Returns the epoch to hand to `set` for an answer rendered from now on.
   */
  observe(generation: number, security: unknown, site: unknown): number {
    if (generation !== this.#generation || security !== this.#security || site !== this.#site) {
      this.clear();
      this.#generation = generation;
      this.#security = security;
      this.#site = site;
    }
    return this.#epoch;
  }

  /**
   * Instead of `observe` when the content generation cannot be read (the store is unreachable): the
   * entries stay, since nothing says the content changed, but a change of the security configuration
   * or of the site still drops them all, as `observe` does. Serve with `getStale`, never `set`.
   */
  observeWithoutGeneration(security: unknown, site: unknown): void {
    if (security !== this.#security || site !== this.#site) {
      this.clear();
      this.#generation = -1;
      this.#security = security;
      this.#site = site;
    }
  }

  /** A stored answer for a request made while the store is unreachable (after `observeWithoutGeneration`). */
  getStale(key: string, owner: object): StaleResponse | undefined {
    const entry = this.#map.get(key);
    if (entry === undefined || entry.value.owner !== owner) {
      this.#misses++;
      return undefined;
    }
    this.#staleHits++;
    return { value: entry.value, ageSeconds: Math.max(0, Math.floor((Date.now() - entry.storedAt) / 1000)) };
  }

  get(key: string, owner: object): CachedResponse | undefined {
    const map = this.#map;
    const entry = map.get(key);
    if (entry === undefined || entry.value.owner !== owner) {
      this.#misses++;
      return undefined;
    }
    this.#hits++;
    // Most recently used last: re-inserting moves it to the end of the Map's order.
    map.delete(key);
    map.set(key, entry);
    return entry.value;
  }

  /**
   * Stores an answer rendered since `observe` returned `epoch`; ignored when the cache was cleared in
   * between (content or configuration changed while it rendered) or when the body is too large.
   */
  set(key: string, value: CachedResponse, epoch: number): boolean {
    if (epoch !== this.#epoch || value.body.length > this.maxEntryBytes) return false;
    const size = value.body.length + 2 * key.length + ENTRY_OVERHEAD;
    const map = this.#map;
    const old = map.get(key);
    if (old !== undefined) {
      map.delete(key);
      this.#bytes -= old.size;
    }
    map.set(key, { value, size, storedAt: Date.now() });
    this.#bytes += size;
    if (this.#bytes > this.maxBytes) {
      for (const [k, e] of map) { // least recently used first
        if (this.#bytes <= this.maxBytes) break;
        map.delete(k);
        this.#bytes -= e.size;
        this.#evictions++;
      }
    }
    return true;
  }

  has(key: string): boolean {
    return this.#map.has(key);
  }

  /** Drops every entry (endpoint definitions reloaded, configuration changed). */
  clear(): void {
    this.#map.clear();
    this.#bytes = 0;
    this.#epoch++;
  }

  /**
   * Drops every entry and forgets the generation: for writers that know content changed (an import in
   * this process, another instance's write announced by the store) before the generation is read again.
   */
  invalidate(): void {
    this.clear();
    this.#generation = -1;
  }

  stats(): CacheStats {
    return {
      entries: this.#map.size, bytes: this.#bytes, maxBytes: this.maxBytes,
      hits: this.#hits, misses: this.#misses, evictions: this.#evictions, staleHits: this.#staleHits,
    };
  }
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
const localeByHeader = new WeakMap<SiteConfig, Map<string, string>>();

/**
 * The part of the cache key that stands for the response language: nothing when the query has a
 * non-blank `lang` (the query string is in the key already); otherwise the locale `Accept-Language`
 * resolves to on this site, remembered per header value (browsers send few distinct ones).
 */
export function languageKey(lang: string | undefined, acceptLanguage: string | undefined, site: SiteConfig): string {
  if (lang !== undefined && lang.trim() !== '') return '';
  if (acceptLanguage === undefined || acceptLanguage === '') return site.defaultLocale;
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
