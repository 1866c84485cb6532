// HTTP layer: rendered delivery answers kept in memory (LRU bounded by bytes), keyed by request and
// the caller's role set. Each answer is stored with the keys of what it read (cache/dependencies.ts):
// a committed change, as the repository's change feed hands it out, drops only the answers holding
// one of the keys it hits; a change of the security configuration or of the site drops everything. A
// hit is one Map lookup and a write: no rendering, no hashing. While the store cannot be reached,
// answers already here are served as possibly stale (stale-if-error).
import type { SiteConfig } from '../config/load-config.js';
import { resolveLocale } from '../delivery/resolve-locale.js';
import type { QueryParams, QueryValue } from '../delivery/parse-request.js';
import type { ChangeBatch } from '../store/change-feed.js';
import type { ErrorCode } from '../errors.js';
import { changeKeys } from '../cache/dependencies.js';
import { DependencyIndex, RecentDrops } from '../cache/dependency-index.js';

export const DEFAULT_CACHE_MAX_BYTES = 64 * 1024 * 1024;

/** Bookkeeping counted for each entry on top of its body and key (Map slot, object, header strings). */
const ENTRY_OVERHEAD = 256;
/** Bookkeeping counted for each dependency key of an entry (its string and its slot in the index). */
const KEY_OVERHEAD = 96;

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
  /** Set when the answer is an error that depends on content only (a missing node): sent as errors are. */
  readonly error?: { readonly code: ErrorCode; readonly message: string };
  /** The headers of its cache tags (http/cache-tags.ts), when petal.yaml `cdn.tagHeader` asks for them. */
  readonly tagHeaders?: Readonly<Record<string, string>>;
}

interface Entry {
  readonly value: CachedResponse;
  readonly size: number;
  /** When it was stored (ms since the epoch): the `Age` of a stale answer. */
  readonly storedAt: number;
  /** The dependency keys it was stored with. */
  readonly deps: readonly string[];
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
  /** Answers dropped by content changes (not counting those dropped by a whole clear). */
  readonly dropped: number;
  /** Whole clears: configuration changes, and changes whose events could not be read. */
  readonly clears: number;
}

export class ResponseCache {
  readonly maxBytes: number;
  /** Bodies larger than this are not kept (1/8 of the budget): one answer never empties the cache. */
  readonly maxEntryBytes: number;
  #map = new Map<string, Entry>();
  readonly #index = new DependencyIndex<string>();
  readonly #drops = new RecentDrops();
  #bytes = 0;
  /** Increases on every drop: an answer rendered across one is stored only if the drop missed it. */
  #epoch = 0;
  #security: unknown = undefined;
  #site: unknown = undefined;
  #hits = 0;
  #misses = 0;
  #evictions = 0;
  #staleHits = 0;
  #dropped = 0;
  #clears = 0;

  constructor(o: { maxBytes: number }) {
    if (!(o.maxBytes > 0)) throw new RangeError('ResponseCache: maxBytes must be positive');
    this.maxBytes = o.maxBytes;
    this.maxEntryBytes = Math.floor(o.maxBytes / 8);
  }

  /**
   * Called once per request before `get` (after the change feed caught up with the content), with the
   * identity of the security configuration and of the site: when either changed, everything is
   * dropped. Returns the epoch to hand to `set` for an answer rendered from now on.
   */
  observe(security: unknown, site: unknown): number {
    if (security !== this.#security || site !== this.#site) {
      this.clear();
      this.#security = security;
      this.#site = site;
    }
    return this.#epoch;
  }

  /** Applies what the change feed hands out: drops the answers the changes hit (all, on a reset). */
  apply(batch: ChangeBatch): void {
    if (batch.kind === 'reset') return this.clear();
    for (const event of batch.events) {
      const keys = changeKeys(event);
      this.#drops.record(++this.#epoch, keys);
      for (const key of this.#index.hit(keys)) {
        if (this.#remove(key)) this.#dropped++;
      }
    }
  }

  /** A stored answer for a request made while the store is unreachable. */
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
   * Stores an answer rendered since `observe` returned `epoch`, with the keys of what it read;
   * ignored when a drop since then hit one of them (the answer may hold what the change replaced),
   * or when the body is too large.
   */
  set(key: string, value: CachedResponse, epoch: number, deps: readonly string[]): boolean {
    if (value.body.length > this.maxEntryBytes || this.#drops.hitSince(epoch, this.#epoch, deps)) return false;
    const size = value.body.length + 2 * key.length + 2 * tagBytes(value.tagHeaders) + ENTRY_OVERHEAD + deps.length * KEY_OVERHEAD;
    if (size > this.maxBytes) return false;
    this.#remove(key);
    this.#map.set(key, { value, size, storedAt: Date.now(), deps });
    this.#index.add(key, deps);
    this.#bytes += size;
    if (this.#bytes > this.maxBytes) {
      for (const k of this.#map.keys()) { // least recently used first
        if (this.#bytes <= this.maxBytes) break;
        this.#remove(k);
        this.#evictions++;
      }
    }
    return true;
  }

  #remove(key: string): boolean {
    const entry = this.#map.get(key);
    if (entry === undefined) return false;
    this.#map.delete(key);
    this.#index.remove(key, entry.deps);
    this.#bytes -= entry.size;
    return true;
  }

  has(key: string): boolean {
    return this.#map.has(key);
  }

  /** Drops every entry (endpoint definitions reloaded, configuration changed, events unreadable). */
  clear(): void {
    this.#map.clear();
    this.#index.clear();
    this.#bytes = 0;
    this.#clears++;
    this.#drops.record(++this.#epoch, undefined);
  }

  stats(): CacheStats {
    return {
      entries: this.#map.size, bytes: this.#bytes, maxBytes: this.maxBytes,
      hits: this.#hits, misses: this.#misses, evictions: this.#evictions, staleHits: this.#staleHits,
      dropped: this.#dropped, clears: this.#clears,
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

function tagBytes(headers: Readonly<Record<string, string>> | undefined): number {
  let n = 0;
  if (headers !== undefined) for (const k in headers) n += headers[k]!.length;
  return n;
}
