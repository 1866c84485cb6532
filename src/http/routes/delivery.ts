// HTTP layer: the delivery API routes under `/.rest/`. Finds the endpoint of the decoded path, checks
// the query, and hands the request's facts and its rendering by delivery/ to the response-cache policy
// (response-cache-policy.ts), then writes what it says; other methods than GET/HEAD answer 405.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SiteConfig } from '../../config/load-config.js';
import { compileEndpoint } from '../../delivery/compile-endpoint.js';
import { getChildren, queryNodes, readNode, type DeliveryEnv, type DeliveryResponse } from '../../delivery/deliver.js';
import type { EndpointRegistry } from '../../delivery/endpoint-registry.js';
import { parseMethod, type QueryParams } from '../../delivery/parse-request.js';
import type { Repository } from '../../repository/session.js';
import { sendError } from '../error-handler.js';
import type { SecurityService } from '../../security/security-service.js';
import { DEFAULT_LINKS, type LinkConfig } from '../../config/link-config.js';
import type { ThemeInfo } from '../../delivery/resolvers/reference-renderer.js';
import { etagOf, ifNoneMatchHits } from '../etag.js';
import type { ResponseCache } from '../response-cache.js';
import { ResponseCachePolicy } from '../response-cache-policy.js';
import { sendOutgoing } from '../send-outgoing.js';
import type { PagesRegistry } from '../../delivery/pages/pages-registry.js';
import { traitValuesOf } from '../trait-values.js';
import { deliveryFacts, REST_PREFIX, restPathOf } from '../delivery-facts.js';
import { templateAnnotations } from '../../delivery/pages/template-annotations.js';
import { isPreviewRequest, PREVIEW_CACHE_CONTROL } from '../content-state.js';
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


const NO_TRAITS: ReadonlyMap<string, string> = new Map();

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

/** Registers the routes; returns their cache policy (cached-hits.ts answers hits with it). */
export function registerDeliveryRoutes(app: FastifyInstance, o: DeliveryRouteOptions): ResponseCachePolicy {
  const policy = new ResponseCachePolicy({
    cache: o.cache ?? null, clock: o.repository, securityConfig: () => o.security.config,
    tagHeader: o.tagHeader, cacheControl: o.cacheControl, varyByOrigin: o.varyByOrigin,
  });
  const previewLinks = o.previewContextPath !== undefined
    ? { ...(o.links ?? DEFAULT_LINKS), contextPath: o.previewContextPath } : undefined;
  // Not async: a cached answer is sent before the handler returns, without a promise (Fastify takes
  // undefined as "sent", a promise as an answer to come; an error thrown here reaches the error handler).
  const handler = (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> | undefined => {
    const state = request.contentState;
    // Publishing on and the working content read: the preview (content-state.ts).
    const preview = previewLinks !== undefined && state === 'working';
    const resolved = deliveryFacts(o, {
      canonicalPath: request.canonicalPath, query: request.query as QueryParams, acceptLanguage: request.headers['accept-language'],
      ifNoneMatch: request.headers['if-none-match'], caller: request.caller, preview, traits: (pages) => traitValuesOf(pages.traits, request),
    });
    if (resolved === undefined) {
      const restPath = restPathOf(request.canonicalPath);
      if (restPath.startsWith(ANNOTATIONS_PREFIX) && o.pages !== undefined) {
        return sendAnnotations(request, reply, o, restPath.slice(ANNOTATIONS_PREFIX.length - 1));
      }
      sendError(reply, 'notFound', `No endpoint at ${REST_PREFIX}${restPath}`);
      return undefined;
    }
    const { facts } = resolved;
    const { definition, rest } = resolved.match;
    const { query, acceptLanguage, site, traits } = facts;
    const pages = o.pages;
    const out = policy.answer(facts, async (deps): Promise<DeliveryResponse> => {
      const endpoint = compileEndpoint(definition, o.repository.types);
      const method = parseMethod(rest);
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
      switch (method.kind) {
        case 'read': return readNode({ endpoint, path: method.path, query, acceptLanguage }, env);
        case 'children': return getChildren({ endpoint, path: method.path, query, acceptLanguage }, env);
        case 'query': return queryNodes({ endpoint, path: '/', query, acceptLanguage }, env);
      }
    });
    if (out instanceof Promise) return out.then((o) => sendOutgoing(reply, o));
    sendOutgoing(reply, out);
    return undefined;
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
  return policy;
}
