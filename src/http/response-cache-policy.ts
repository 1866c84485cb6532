// HTTP layer: the response-cache policy of the delivery API. Given the facts of a request and a
// function that renders its answer, it decides whether the cache is asked at all (never for the
// preview), the key (response-cache-key.ts), the content generation the cache is caught up to first,
// a stale answer while the store cannot be reached (stale-if-error), which errors are cached as
// answers, the cache tags (cache-tags.ts), Cache-Control (cache-control.ts) and Vary, and what the
// route sends. Plain values in and out: the route turns a Fastify request into facts and writes the result.
import { LONGEST_CACHED_PATH } from '../cache/digest-key.js';
import type { CacheControlConfig, TagHeader } from '../config/notify-config.js';
import { isPetalError, type ErrorCode } from '../errors.js';
import { Dependencies, endpointKey } from '../repository/dependencies.js';
import { isStoreUnreachable } from '../store/store-faults.js';
import { cacheControlOf } from './cache-control.js';
import { tagHeaders, tagsOf } from './cache-tags.js';
import { errorBody } from './error-handler.js';
import { etagOf, ifNoneMatchHits } from './etag.js';
import { cacheKey, type CacheKeyFacts } from './response-cache-key.js';
import type { CachedResponse, ResponseCache, StaleResponse } from './response-cache.js';

/** What of an endpoint definition the policy reads. */
export interface CachedEndpoint {
  readonly endpointPath: string;
  readonly cacheControl?: CacheControlConfig;
  readonly timeToLive?: number;
}

export interface DeliveryRequestFacts extends CacheKeyFacts {
  /**
   * The endpoint definition object: a hit needs the same one, so a reloaded definition never serves
   * its previous version's answers.
   */
  readonly endpoint: CachedEndpoint;
  /** The path after `/.rest`: errors of absurdly long ones are not cached. */
  readonly restPath: string;
  /** Publishing on and the working content read (content-state.ts). */
  readonly preview: boolean;
  /** The headers the trait values are read from (pages registry `varyHeaders`): Vary of personalized answers. */
  readonly traitHeaders: string;
  readonly ifNoneMatch: string | readonly string[] | undefined;
}

/** What rendering gives: the JSON text and the language it is in. */
export interface RenderedAnswer {
  readonly body: string;
  readonly contentLanguage: string;
}

/** Renders the answer; given `deps`, records into it what it reads (the changes that drop the answer). */
export type Render = (deps: Dependencies | undefined) => Promise<RenderedAnswer>;

/** What the route sends: `headers` first, then the JSON body, a 304, or an error sent as any error is. */
export type Outgoing =
  | { readonly kind: 'json'; readonly headers: Readonly<Record<string, string>>; readonly body: Buffer | string }
  | { readonly kind: 'notModified'; readonly headers: Readonly<Record<string, string>> }
  | { readonly kind: 'error'; readonly headers: Readonly<Record<string, string>>; readonly code: ErrorCode; readonly message: string };

/** The store's generation and the change feed that catches the caches up to it (the repository). */
export interface ContentClock {
  readonly store: { generationHint?(): number | undefined; generation(): Promise<number> };
  readonly changes: { sync(generation: number): Promise<void> | undefined; caughtUp(generation: number): boolean };
}

export interface ResponseCachePolicyOptions {
  /** null = render every request. */
  readonly cache: ResponseCache | null;
  readonly clock: ContentClock;
  /** The security configuration in force: a new one (by identity) drops every cached answer. */
  readonly securityConfig: () => unknown;
  /** petal.yaml `cdn.tagHeader` ('none' by default). */
  readonly tagHeader?: TagHeader;
  /** petal.yaml `cacheControl`: the Cache-Control of endpoints that give none. */
  readonly cacheControl?: CacheControlConfig;
  /** CORS is on: answers differ by `Origin`. */
  readonly varyByOrigin?: boolean;
}

/** The `Warning` of an answer served from the cache while the store cannot be reached (RFC 7234 §5.5.1). */
export const STALE_WARNING = '110 - "Response is Stale"';

/** Errors that depend on content only, cached as answers are (and dropped when the content comes). */
const CACHED_ERRORS: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['pathNotFound', 'versionNotFound']);

/** An answer as sent: cached answers hold bytes; one rendered without a cache may stay a string. */
type Answer = Omit<CachedResponse, 'body'> & { readonly body: Buffer | string };

export class ResponseCachePolicy {
  readonly #o: ResponseCachePolicyOptions;
  readonly #tagHeader: TagHeader;

  constructor(o: ResponseCachePolicyOptions) {
    this.#o = o;
    this.#tagHeader = o.tagHeader ?? 'none';
  }

  /**
   * The answer to the request: from the cache, or rendered (and kept when the cache may keep it). A
   * hit whose generation the store knows at once, with the caches caught up to it (the common case),
   * is answered without a promise; everything else returns one.
   */
  answer(f: DeliveryRequestFacts, render: Render): Outgoing | Promise<Outgoing> {
    // Preview answers never meet public ones: they are not cached at all.
    const cache = f.preview ? null : this.#o.cache;
    if (cache === null) return this.#render(f, render, null, '', 0);
    // The generation is read on every request (its hint: a statement at most every 100 ms on SQLite),
    // so a write by any process is seen; the security configuration and the site are compared by identity.
    const { store, changes } = this.#o.clock;
    const generation = store.generationHint?.();
    if (generation === undefined) return this.#answerFromStore(cache, f, render);
    // Every change committed up to this generation reaches the cache (dropping what it hit) first.
    const behind = changes.sync(generation);
    if (behind !== undefined) return behind.then(() => this.#fromCache(cache, f, render));
    return this.#fromCache(cache, f, render);
  }

  /**
   * A cached answer the cache can give right now, or undefined: not cacheable (the preview), no
   * generation known without asking the store, changes not yet applied, or no entry. Nothing is
   * rendered; the caller answers any other way (answer()) when this gives nothing.
   */
  hit(f: DeliveryRequestFacts): Outgoing | undefined {
    const cache = f.preview ? null : this.#o.cache;
    if (cache === null) return undefined;
    const generation = this.#o.clock.store.generationHint?.();
    if (generation === undefined || !this.#o.clock.changes.caughtUp(generation)) return undefined;
    cache.observe(this.#o.securityConfig(), f.site);
    const hit = cache.get(cacheKey(f), f.endpoint);
    return hit !== undefined ? outgoing(hit, f.ifNoneMatch) : undefined;
  }

  /** The generation asked of the store: while it cannot be reached, only cached answers are served. */
  async #answerFromStore(cache: ResponseCache, f: DeliveryRequestFacts, render: Render): Promise<Outgoing> {
    const { store, changes } = this.#o.clock;
    let generation: number;
    try {
      generation = await store.generation();
    } catch (err) {
      if (!isStoreUnreachable(err)) throw err;
      cache.observe(this.#o.securityConfig(), f.site);
      const stale = cache.getStale(cacheKey(f), f.endpoint);
      if (stale === undefined) throw err; // 503 (error-handler.ts)
      return staleOutgoing(stale, f.ifNoneMatch);
    }
    const behind = changes.sync(generation);
    if (behind !== undefined) await behind;
    return this.#fromCache(cache, f, render);
  }

  /** A hit, or the answer rendered and stored under the key (the caches are caught up). */
  #fromCache(cache: ResponseCache, f: DeliveryRequestFacts, render: Render): Outgoing | Promise<Outgoing> {
    const epoch = cache.observe(this.#o.securityConfig(), f.site);
    const key = cacheKey(f);
    const hit = cache.get(key, f.endpoint);
    return hit !== undefined ? outgoing(hit, f.ifNoneMatch) : this.#render(f, render, cache, key, epoch);
  }

  /** Renders the answer; with a cache, stores it under `key` unless a drop since `epoch` hit what it read. */
  async #render(f: DeliveryRequestFacts, render: Render, cache: ResponseCache | null, key: string, epoch: number): Promise<Outgoing> {
    // What the answer reads, recorded for the cache and the CDN's tags: the changes that drop it.
    const tagging = this.#tagHeader !== 'none' && !f.preview;
    const deps = cache !== null || tagging ? new Dependencies() : undefined;
    const tags = (keys: readonly string[]): Record<string, string> | undefined => (tagging && deps !== undefined
      ? tagHeaders(this.#tagHeader, tagsOf(keys, () => deps.workspaceKeys(), endpointKey(f.endpoint.endpointPath))) : undefined);
    let result: RenderedAnswer;
    try {
      result = await render(deps);
    } catch (err) {
      // A missing node is an answer like another: kept until the node (or version) is created.
      if (deps === undefined || !isPetalError(err) || !CACHED_ERRORS.has(err.code)) throw err;
      const keys = deps.keys();
      const t = tags(keys);
      const missing: CachedResponse = {
        body: Buffer.from(errorBody(err.code, err.message), 'utf8'), etag: '', contentLanguage: '', cacheControl: undefined,
        vary: '', owner: f.endpoint, error: { code: err.code, message: err.message }, headers: t ?? NO_HEADERS,
        ...(t !== undefined ? { tagHeaders: t } : {}),
      };
      // Not for an absurd path: a flood of random long ones would only push real answers out.
      if (f.restPath.length <= LONGEST_CACHED_PATH) cache?.set(key, missing, epoch, keys);
      return outgoing(missing, f.ifNoneMatch);
    }
    // Encoded once for the cache (its budget counts bytes); otherwise the socket write encodes it.
    const body = cache !== null ? Buffer.from(result.body, 'utf8') : result.body;
    const keys = deps?.keys() ?? [];
    const t = tags(keys);
    const etag = etagOf(body);
    const contentLanguage = result.contentLanguage.replace('_', '-');
    // Answers for signed-in callers must never be stored by shared caches (cache-control.ts).
    const cacheControl = cacheControlOf({
      ...(f.endpoint.cacheControl !== undefined ? { endpoint: f.endpoint.cacheControl } : {}),
      ...(this.#o.cacheControl !== undefined ? { defaults: this.#o.cacheControl } : {}),
      ...(f.endpoint.timeToLive !== undefined ? { timeToLive: f.endpoint.timeToLive } : {}),
      anonymous: f.anonymous, preview: f.preview,
    });
    const vary = varyOf(f.anonymous && !f.preview, f.traits !== undefined ? f.traitHeaders : '', this.#o.varyByOrigin ?? false);
    const answer: Answer = {
      body, etag, contentLanguage, cacheControl, vary, owner: f.endpoint,
      // Built once: a hit sends this very object.
      headers: answerHeaders(t, etag, contentLanguage, vary, cacheControl),
      ...(t !== undefined ? { tagHeaders: t } : {}),
    };
    if (cache !== null) cache.set(key, answer as CachedResponse, epoch, keys);
    return outgoing(answer, f.ifNoneMatch);
  }
}

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/** The headers an answer is sent with (200 and 304 alike): its cache tags, ETag and caching headers. */
function answerHeaders(
  tags: Readonly<Record<string, string>> | undefined, etag: string, contentLanguage: string, vary: string, cacheControl: string | undefined,
): Readonly<Record<string, string>> {
  const headers: Record<string, string> = { ...tags, etag, 'content-language': contentLanguage, vary };
  if (cacheControl !== undefined) headers['cache-control'] = cacheControl;
  return Object.freeze(headers);
}

/**
 * An answer (fresh or cached) as sent: its headers (built when it was rendered), then the body or a
 * 304. An error goes out as any error does, with its cache tags only.
 */
function outgoing(a: Answer, ifNoneMatch: DeliveryRequestFacts['ifNoneMatch']): Outgoing {
  if (a.error !== undefined) return { kind: 'error', headers: a.tagHeaders ?? NO_HEADERS, code: a.error.code, message: a.error.message };
  if (ifNoneMatchHits(ifNoneMatch, a.etag)) return { kind: 'notModified', headers: a.headers };
  return { kind: 'json', headers: a.headers, body: a.body };
}

/**
 * A cached answer served while the store cannot be reached (stale-if-error): `Warning: 110` and `Age`
 * say it may be out of date, and `no-store` keeps browsers and shared caches from keeping it.
 */
function staleOutgoing(s: StaleResponse, ifNoneMatch: DeliveryRequestFacts['ifNoneMatch']): Outgoing {
  // A cached missing node goes out as the error it is: `outgoing` sends errors without these headers.
  const v = s.value;
  const headers = { warning: STALE_WARNING, age: String(s.ageSeconds), 'cache-control': 'no-store', ...answerHeaders(v.tagHeaders, v.etag, v.contentLanguage, v.vary, undefined) };
  return outgoing({ ...v, headers }, ifNoneMatch);
}

function varyOf(anonymous: boolean, traitHeaders: string, byOrigin: boolean): string {
  let base = anonymous ? 'Accept-Language' : 'Accept-Language, Authorization, Cookie';
  if (byOrigin) base += ', Origin';
  if (traitHeaders === '') return base;
  const extra = traitHeaders.split(', ').filter((h) => !base.includes(h));
  return extra.length === 0 ? base : `${base}, ${extra.join(', ')}`;
}
