// HTTP layer: the delivery API routes under `/.rest/`. Decodes the URL, finds the endpoint, hands the
// request to delivery/, and writes its JSON; other methods than GET/HEAD answer 405.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { PetalError } from '../../errors.js';
import type { SiteConfig } from '../../config/load-config.js';
import { compileEndpoint } from '../../delivery/compile-endpoint.js';
import { getChildren, queryNodes, readNode, type DeliveryEnv, type DeliveryResponse } from '../../delivery/deliver.js';
import type { EndpointRegistry } from '../../delivery/endpoint-registry.js';
import { checkQueryText, firstValue, parseMethod, type QueryParams } from '../../delivery/parse-request.js';
import type { Repository } from '../../repository/session.js';
import { errorBody, sendError } from '../error-handler.js';
import type { SecurityService } from '../../security/security-service.js';
import { DEFAULT_LINKS, type LinkConfig } from '../../config/link-config.js';
import type { ThemeInfo } from '../../delivery/resolvers/reference-renderer.js';
import { LIMITS } from '../limits.js';
import { etagOf, ifNoneMatchHits } from '../etag.js';
import { canonicalQuery, languageKey, type CachedResponse, type ResponseCache, type StaleResponse } from '../response-cache.js';
import { isStoreUnreachable } from '../../store/store-faults.js';
import type { PagesRegistry } from '../../delivery/pages/pages-registry.js';
import { traitValuesOf, traitKey } from '../trait-values.js';
import { templateAnnotations } from '../../delivery/pages/template-annotations.js';
import { Dependencies, endpointKey } from '../../repository/dependencies.js';
import { LONGEST_CACHED_PATH } from '../../cache/digest-key.js';
import { isPetalError, type ErrorCode } from '../../errors.js';
import { isPreviewRequest, PREVIEW_CACHE_CONTROL } from '../content-state.js';
import { cacheControlOf } from '../cache-control.js';
import { tagHeaders, tagsOf } from '../cache-tags.js';
import type { CacheControlConfig, TagHeader } from '../../config/notify-config.js';

export interface DeliveryRouteOptions {
  readonly registry: EndpointRegistry;
  readonly repository: Repository;
  readonly security: SecurityService;
  readonly site: () => SiteConfig;
  readonly outName: (name: string) => string;
  readonly contextPath: string;
  readonly links?: LinkConfig;
  readonly theme?: () => ThemeInfo | undefined;
  /** Rendered answers by request and role set; null = render every request. */
  readonly cache?: ResponseCache | null;
  /** Templates and traits of the light modules (pages features); none when absent. */
  readonly pages?: PagesRegistry;
  /** Inheritance and autogeneration on plain endpoints too (petal.yaml `pages.allEndpoints`). */
  readonly pagesOnAllEndpoints?: boolean;
  /** CORS is on: answers differ by `Origin` (its headers), so caches must know. */
  readonly varyByOrigin?: boolean;
  /** Publishing on: where the working content is served (its answers link there, and are never cached). */
  readonly previewContextPath?: string;
  /** petal.yaml `cacheControl`: the Cache-Control of endpoints that give none. */
  readonly cacheControl?: CacheControlConfig;
  /** petal.yaml `cdn.tagHeader`: which header lists an answer's cache tags ('none' by default). */
  readonly tagHeader?: TagHeader;
}


const REST_PREFIX = '/.rest';

/** The path after `/.rest` of a canonical path (see security/canonical-path: decoded exactly once). */
export function restPathOf(canonical: string): string {
  const rest = canonical.slice(REST_PREFIX.length);
  return rest === '' ? '/' : rest;
}

/** An answer as sent: cached answers hold bytes; one rendered without a cache may stay a string. */
type Answer = Omit<CachedResponse, 'body'> & { readonly body: Buffer | string };

/** Writes an answer (fresh or cached): ETag and caching headers, then the body or a 304. */
function sendAnswer(request: FastifyRequest, reply: FastifyReply, a: Answer): FastifyReply {
  if (a.tagHeaders !== undefined) reply.headers(a.tagHeaders);
  if (a.error !== undefined) return sendError(reply, a.error.code, a.error.message);
  reply.headers(a.cacheControl === undefined
    ? { etag: a.etag, 'content-language': a.contentLanguage, vary: a.vary }
    : { etag: a.etag, 'content-language': a.contentLanguage, vary: a.vary, 'cache-control': a.cacheControl });
  if (ifNoneMatchHits(request.headers['if-none-match'], a.etag)) return reply.code(304).send();
  return reply.header('content-type', 'application/json; charset=utf-8').send(a.body);
}

/** The `Warning` of an answer served from the cache while the store cannot be reached (RFC 7234 §5.5.1). */
export const STALE_WARNING = '110 - "Response is Stale"';

/**
 * A cached answer served while the store cannot be reached (stale-if-error): `Warning: 110` and `Age`
 * say it may be out of date, and `no-store` keeps browsers and shared caches from keeping it.
 */
function sendStale(request: FastifyRequest, reply: FastifyReply, s: StaleResponse): FastifyReply {
  if (s.value.error !== undefined) return sendAnswer(request, reply, s.value);
  reply.headers({ warning: STALE_WARNING, age: String(s.ageSeconds), 'cache-control': 'no-store' });
  return sendAnswer(request, reply, { ...s.value, cacheControl: undefined });
}

const NO_TRAITS: ReadonlyMap<string, string> = new Map();

/** Errors that depend on content only, cached as answers are (and dropped when the content comes). */
const CACHED_ERRORS: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['pathNotFound', 'versionNotFound']);

function varyOf(anonymous: boolean, traitHeaders: string, byOrigin: boolean): string {
  let base = anonymous ? 'Accept-Language' : 'Accept-Language, Authorization, Cookie';
  if (byOrigin) base += ', Origin';
  if (traitHeaders === '') return base;
  const extra = traitHeaders.split(', ').filter((h) => !base.includes(h));
  return extra.length === 0 ? base : `${base}, ${extra.join(', ')}`;
}

/** The original's templating helpers ask for the page editor's comments here (in preview mode). */
const ANNOTATIONS_PREFIX = '/template-annotations/v1/';
const ANNOTATIONS_WORKSPACE = 'website';

async function sendAnnotations(request: FastifyRequest, reply: FastifyReply, o: DeliveryRouteOptions, path: string): Promise<FastifyReply> {
  const session = o.repository.session(o.security.readAccess(request.caller), undefined, request.contentState);
  const map = await templateAnnotations(session, o.pages!, ANNOTATIONS_WORKSPACE, path);
  if (map === undefined) return sendError(reply, 'pathNotFound', `No page at ${path}`);
  const body = JSON.stringify(map);
  reply.headers({ etag: etagOf(body), 'cache-control': isPreviewRequest(request.raw) ? PREVIEW_CACHE_CONTROL : 'no-cache', vary: 'Authorization, Cookie' });
  if (ifNoneMatchHits(request.headers['if-none-match'], etagOf(body))) return reply.code(304).send();
  return reply.header('content-type', 'application/json; charset=utf-8').send(body);
}

export function registerDeliveryRoutes(app: FastifyInstance, o: DeliveryRouteOptions): void {
  const responseCache = o.cache ?? null;
  const tagHeader = o.tagHeader ?? 'none';
  const previewLinks = o.previewContextPath !== undefined
    ? { ...(o.links ?? DEFAULT_LINKS), contextPath: o.previewContextPath } : undefined;
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const state = request.contentState;
    // Publishing on and the working content read: the preview (content-state.ts).
    const preview = previewLinks !== undefined && state === 'working';
    const restPath = restPathOf(request.canonicalPath);
    // `{endpoint}@nodes` (without the slash) is not served: URI rules see the path as written, and
    // it must not reach what `{endpoint}/@nodes` reaches under other rules.
    const match = o.registry.match(restPath);
    const rest = match?.rest;
    if (match === undefined || rest === undefined) {
      if (restPath.startsWith(ANNOTATIONS_PREFIX) && o.pages !== undefined) {
        return sendAnnotations(request, reply, o, restPath.slice(ANNOTATIONS_PREFIX.length - 1));
      }
      return sendError(reply, 'notFound', `No endpoint at ${REST_PREFIX}${restPath}`);
    }
    const definition = match.definition;
    const query = request.query as QueryParams;
    let values = 0;
    for (const key in query) {
      const v = query[key];
      values += Array.isArray(v) ? v.length : 1;
    }
    if (values > LIMITS.maxQueryParams) {
      throw new PetalError('badRequest', `At most ${LIMITS.maxQueryParams} query parameters`);
    }
    checkQueryText(query);
    const acceptLanguage = request.headers['accept-language'];
    const site = o.site();
    const anonymous = request.caller.via === 'anonymous';
    // A personalized answer depends on the visitor's traits: they are part of the cache key and of Vary.
    const pages = o.pages;
    const traits = definition.personalized && pages !== undefined ? traitValuesOf(pages.traits, request) : undefined;
    // Preview answers never meet public ones: they are not cached at all.
    const cache = preview ? null : responseCache;
    let key = '';
    let epoch = 0;
    /** Why the generation is unknown (the store is unreachable): then only cached answers are served. */
    let unreachable: unknown;
    if (cache !== null) {
      // The generation is read on every request (a prepared statement on SQLite), so a write by any
      // process is seen at once; the security configuration and the site are compared by identity.
      const store = o.repository.store;
      let generation = store.generationHint?.();
      if (generation === undefined) {
        try {
          generation = await store.generation();
        } catch (err) {
          if (!isStoreUnreachable(err)) throw err;
          unreachable = err;
        }
      }
      // Every change committed up to this generation reaches the cache (dropping what it hit) first.
      const behind = generation === undefined ? undefined : o.repository.changes.sync(generation);
      if (behind !== undefined) await behind;
      epoch = cache.observe(o.security.config, site);
      // Role set first: answers of different role sets never share an entry. No part but the last
      // can hold a newline (canonical paths reject control characters; role names are plain).
      key = `${request.caller.roleKey}\n${anonymous ? 'a' : 's'}\n${languageKey(firstValue(query.lang), acceptLanguage, site)}\n${request.canonicalPath}\n${canonicalQuery(query)}`;
      if (traits !== undefined) key += `\n${traitKey(traits)}`;
      if (unreachable !== undefined) {
        const stale = cache.getStale(key, definition);
        if (stale === undefined) throw unreachable; // 503 (error-handler.ts)
        return sendStale(request, reply, stale);
      }
      const hit = cache.get(key, definition);
      if (hit !== undefined) return sendAnswer(request, reply, hit);
    }

    const endpoint = compileEndpoint(definition, o.repository.types);
    const method = parseMethod(rest);
    // What the answer reads, recorded for the cache and the CDN's tags: the changes that drop it.
    const tagging = tagHeader !== 'none' && !preview;
    const deps = cache !== null || tagging ? new Dependencies() : undefined;
    const tags = (keys: readonly string[]): Record<string, string> | undefined => (tagging && deps !== undefined
      ? tagHeaders(tagHeader, tagsOf(keys, () => deps.workspaceKeys(), endpointKey(definition.endpointPath))) : undefined);
    // bypassWorkspaceAcls skips workspace permissions for this endpoint only; URI rules already ran.
    const session = definition.bypassWorkspaceAcls
      ? o.repository.systemSession(deps, state)
      : o.repository.session(o.security.readAccess(request.caller), deps, state);
    const links = preview ? previewLinks : o.links;
    const theme = o.theme?.();
    const env: DeliveryEnv = {
      session, site, outName: o.outName,
      ...(links !== undefined ? { links } : {}), ...(theme !== undefined ? { theme } : {}),
      ...(pages !== undefined ? { pages: { registry: pages, traits: traits ?? NO_TRAITS, allEndpoints: o.pagesOnAllEndpoints ?? false } } : {}),
    };
    let result: DeliveryResponse;
    try {
      switch (method.kind) {
        case 'read':
          result = await readNode({ endpoint, path: method.path, query, acceptLanguage }, env);
          break;
        case 'children':
          result = await getChildren({ endpoint, path: method.path, query, acceptLanguage }, env);
          break;
        case 'query':
          result = await queryNodes({ endpoint, path: '/', query, acceptLanguage }, env);
          break;
      }
    } catch (err) {
      // A missing node is an answer like another: kept until the node (or version) is created.
      if (deps === undefined || !isPetalError(err) || !CACHED_ERRORS.has(err.code)) throw err;
      const body = Buffer.from(errorBody(err.code, err.message), 'utf8');
      const keys = deps.keys();
      const t = tags(keys);
      const missing: CachedResponse = {
        body, etag: '', contentLanguage: '', cacheControl: undefined, vary: '', owner: definition,
        error: { code: err.code, message: err.message }, ...(t !== undefined ? { tagHeaders: t } : {}),
      };
      // Not for an absurd path: a flood of random long ones would only push real answers out.
      if (restPath.length <= LONGEST_CACHED_PATH) cache?.set(key, missing, epoch, keys);
      return sendAnswer(request, reply, missing);
    }
    // Encoded once for the cache (its budget counts bytes); otherwise the socket write encodes it.
    const body = cache !== null ? Buffer.from(result.body, 'utf8') : result.body;
    const keys = deps?.keys() ?? [];
    const t = tags(keys);
    const answer: Answer = {
      body,
      etag: etagOf(body),
      contentLanguage: result.contentLanguage.replace('_', '-'),
      // Answers for signed-in callers must never be stored by shared caches (cache-control.ts).
      cacheControl: cacheControlOf({
        ...(definition.cacheControl !== undefined ? { endpoint: definition.cacheControl } : {}),
        ...(o.cacheControl !== undefined ? { defaults: o.cacheControl } : {}),
        ...(definition.timeToLive !== undefined ? { timeToLive: definition.timeToLive } : {}),
        anonymous, preview,
      }),
      vary: varyOf(anonymous && !preview, traits !== undefined ? pages!.varyHeaders : '', o.varyByOrigin ?? false),
      owner: definition,
      ...(t !== undefined ? { tagHeaders: t } : {}),
    };
    if (cache !== null) cache.set(key, answer as CachedResponse, epoch, keys);
    return sendAnswer(request, reply, answer);
  };

  const prefix = `${o.contextPath}${REST_PREFIX}`;
  app.get(`${prefix}/*`, handler);
  app.get(prefix, handler);
  const notAllowed = async (_request: FastifyRequest, reply: FastifyReply) => {
    reply.header('allow', 'GET, HEAD');
    return sendError(reply, 'methodNotAllowed', 'The delivery API is read-only: use GET');
  };
  for (const url of [`${prefix}/*`, prefix]) {
    app.route({ method: ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'], url, handler: notAllowed });
  }
}
