// HTTP layer: builds the Fastify app (routes, limits, error mapping, request logging); it is handed
// services from the composition root and never sees a store or SQL.
import { PRESETS_ONLY, type TransformPolicy } from '../assets/image-transform.js';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { normalizeTrustProxy, type SiteConfig, type TrustProxy } from '../config/load-config.js';
import type { EndpointRegistry } from '../delivery/endpoint-registry.js';
import type { Repository } from '../repository/session.js';
import { handleError, sendError } from './error-handler.js';
import { answerConnect, answerExpectation, clientErrorHandler, connectionsCheckingIntervalMs, DEFAULT_TIMEOUTS, LIMITS, type HttpTimeouts } from './limits.js';
import { registerDeliveryRoutes } from './routes/delivery.js';
import { registerOpsRoutes } from './routes/ops.js';
import { registerExplorerRoutes } from './routes/explorer.js';
import { registerGraphqlRoutes } from './routes/graphql.js';
import { registerGraphiqlRoutes } from './routes/graphiql.js';
import type { GraphqlApi } from '../graphql/graphql-api.js';
import type { GraphqlTheme } from '../graphql/read-context.js';
import { registerAuthRoutes } from './routes/auth.js';
import { registerDamRoutes } from './routes/dam.js';
import { registerImagingRoutes } from './routes/imaging.js';
import { registerExportRoutes } from './routes/export.js';
import { registerImportRoutes } from './routes/import.js';
import { registerNodesRoutes } from './routes/nodes.js';
import { registerPropertiesRoutes } from './routes/properties.js';
import { registerCommandsRoutes } from './routes/commands.js';
import { registerOpenApiRoutes } from './routes/openapi.js';
import type { UuidCollisionPolicy } from '../repository/import-document.js';
import { ThemeRegistry } from '../assets/themes.js';
import { RenditionService } from '../assets/render-rendition.js';
import { defaultRenditionCacheDir } from '../assets/rendition-cache.js';
import { registerSecurityHook } from './security-hook.js';
import { registerRequestGuard } from './request-guard.js';
import { registerGracefulClose } from './graceful-close.js';
import { registerJsonBodyParser } from './json-body.js';
import { DEFAULT_CACHE_MAX_BYTES, ResponseCache } from './response-cache.js';
import fastifyCookie from '@fastify/cookie';
import { registerCors } from './cors.js';
import { previewRewrite, registerContentState, requestedUrl, servedState, type PublishingOptions } from './content-state.js';
import type { CacheControlConfig, TagHeader } from '../config/notify-config.js';
import type { PagesRegistry } from '../delivery/pages/pages-registry.js';
import type { SecurityService } from '../security/security-service.js';
import type { LinkConfig } from '../config/link-config.js';
import type { ThemeInfo } from '../delivery/resolvers/reference-renderer.js';
import type { ShopService } from '../shop/shop-api.js';
import { registerShopRoutes } from './routes/shop.js';
import { registerRateLimits, type RateLimitOptions } from './rate-limits.js';
import { registerMetrics, scrapeGateOf, type MetricsOptions } from '../metrics/metrics-route.js';
import type { RecordAnswer } from '../metrics/http-metrics.js';
import { CachedHits } from './cached-hits.js';
import { CanonicalPaths } from './canonical-paths.js';
import { parseQueryString } from './query-string.js';
import { requestIdOf } from './request-id.js';
import { logRequest } from './request-log.js';

export interface AppOptions {
  readonly registry: EndpointRegistry;
  readonly repository: Repository;
  readonly site: () => SiteConfig;
  readonly outName: (name: string) => string;
  readonly contextPath?: string;
  readonly security: SecurityService;
  readonly corsOrigins?: readonly string[];
  readonly links?: LinkConfig;
  /**
   * Proxies whose X-Forwarded-* are believed (TLS terminated there: cookies get `Secure`; the client
   * address is the one the last trusted proxy saw): a number of hops (true = 1) or their addresses.
   */
  readonly trustProxy?: boolean | number | readonly string[];
  readonly theme?: () => ThemeInfo | undefined;
  /** Themes of the light modules (image variations); none by default. */
  readonly themes?: ThemeRegistry;
  /** Renditions and their disk cache; by default cached in the OS temporary directory. */
  readonly renditions?: RenditionService;
  /** Image transforms the query may ask for (petal.yaml `imaging:`); by default presets only, none defined. */
  readonly imaging?: TransformPolicy;
  /** The process logger, or false for no logs (tests). */
  readonly logger?: Logger | false;
  /** The in-memory cache of rendered delivery answers: 64 MiB by default; false (or 0 bytes) = none. */
  readonly cache?: { readonly maxBytes: number } | false;
  /** Templates and traits of the light modules (inheritance, autogeneration, personalization). */
  readonly pages?: PagesRegistry;
  /** Inheritance and autogeneration on plain endpoints too (petal.yaml `pages.allEndpoints`). */
  readonly pagesOnAllEndpoints?: boolean;
  /** The deprecated /shop/v1 API; absent = not served. */
  readonly shop?: ShopService;
  /** The API explorer page at /.petal/explorer (petal.yaml `explorer`, see explorerEnabled); absent = off. */
  readonly explorer?: boolean;
  /** The GraphQL API at /.graphql (petal.yaml `graphql`); absent = off. */
  readonly graphql?: GraphqlApi;
  /** The GraphiQL page at /.graphiql (with `graphql` only). */
  readonly graphiql?: boolean;
  /** How long clients may take (petal.yaml `limits:`); DEFAULT_TIMEOUTS for what is not given. */
  readonly timeouts?: Partial<HttpTimeouts>;
  /** Body limit of the import route (petal.yaml `limits.importMaxBytes`); 1 GiB by default. */
  readonly importMaxBytes?: number;
  /** UUID collision policy of HTTP imports when the request names none (petal.yaml `onUuidCollision`). */
  readonly onUuidCollision?: UuidCollisionPolicy;
  /** Working and published content (petal.yaml `publishing`); absent = off, everything reads the working content. */
  readonly publishing?: PublishingOptions;
  /** petal.yaml `cacheControl`: delivery answers' Cache-Control where the endpoint gives none. */
  readonly cacheControl?: CacheControlConfig;
  /** petal.yaml `cdn.tagHeader`: which header lists the cache tags of delivery answers (none by default). */
  readonly tagHeader?: TagHeader;
  /** The light-modules folders (the OpenAPI document reads their content types); none by default. */
  readonly moduleRoots?: readonly string[];
  /** petal.yaml `rateLimit` (rate-limits.ts); absent = no limits (main.ts passes the defaults). */
  readonly rateLimit?: RateLimitOptions;
  /** Prometheus metrics at /.metrics (petal.yaml `metrics:`); absent = none (main passes petal.yaml's, on by default). */
  readonly metrics?: MetricsOptions;
  /**
   * Cached delivery answers for anonymous callers given before Fastify's pipeline (cached-hits.ts);
   * on by default. Tests turn it off to compare the two.
   */
  readonly cachedHitPath?: boolean;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Rendered delivery answers; `clear()` on definition reloads; content changes arrive by the change feed. Null when disabled. */
    responseCache: ResponseCache | null;
  }
}

export const MAX_URL_LENGTH = LIMITS.maxUrlLength;

/** Fastify's form of the option: hops as a function (as Fastify builds for a number), addresses as an array. */
function trustProxyOption(t: TrustProxy): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (t === false) return false;
  if (typeof t === 'number') return (_address: string, hop: number) => hop < t;
  return [...t];
}

export async function buildApp(o: AppOptions): Promise<FastifyInstance> {
  const timeouts: HttpTimeouts = { ...DEFAULT_TIMEOUTS, ...o.timeouts };
  // Set once the app is built: the server asks it first for every request (cached-hits.ts).
  let cachedHits: CachedHits | undefined;
  const app = Fastify({
    ...(o.logger ? { loggerInstance: o.logger as FastifyBaseLogger } : { logger: false }),
    // One log line per request, written by the onResponse hook below.
    logController: new LogController({ disableRequestLogging: true }),
    // No child logger per request (1.8 % of a cached answer): every line we log names reqId itself.
    childLoggerFactory: (logger) => logger,
    genReqId: (req) => requestIdOf(req.headers),
    // Fastify's own server, as it makes it (server.js), with a listener that lets cached answers skip the pipeline.
    serverFactory: (handler, opts) => {
      const server: Server = createServer(opts.http ?? {}, (req: IncomingMessage, res: ServerResponse) => {
        if (cachedHits === undefined || !cachedHits.answer(req, res)) handler(req, res);
      });
      server.keepAliveTimeout = timeouts.keepAliveTimeoutMs;
      server.requestTimeout = timeouts.requestTimeoutMs;
      server.setTimeout(0);
      return server;
    },
    bodyLimit: LIMITS.maxBodyBytes,
    requestTimeout: timeouts.requestTimeoutMs,
    keepAliveTimeout: timeouts.keepAliveTimeoutMs,
    http: {
      maxHeaderSize: LIMITS.maxHeaderBytes,
      headersTimeout: timeouts.headersTimeoutMs,
      connectionsCheckingInterval: connectionsCheckingIntervalMs(timeouts),
    },
    clientErrorHandler,
    // While draining, requests on open connections are answered (with `Connection: close`, see
    // graceful-close.ts), not refused with a 503 of another shape.
    return503OnClosing: false,
    trustProxy: trustProxyOption(normalizeTrustProxy(o.trustProxy)),
    // Errors Fastify raises before routing (malformed URL, bad content type) get our JSON shape too.
    frameworkErrors: (error, request, reply) => {
      handleError(error, request, reply);
    },
    routerOptions: { ignoreDuplicateSlashes: true, maxParamLength: MAX_URL_LENGTH, querystringParser: parseQueryString },
    ...(o.publishing !== undefined ? { rewriteUrl: previewRewrite(o.publishing.previewContextPath, o.contextPath ?? '') } : {}),
  });

  // A client may half-close its side once its request is sent (`shutdown(SHUT_WR)`, curl's and
  // netcat's way): Node then aborted the request, so an answer computed asynchronously (the 401 after
  // hashing a wrong Basic password) was never written. With this (undocumented, but kept by Node for
  // this very purpose) the answer is written and the connection closed after it.
  (app.server as typeof app.server & { httpAllowHalfOpen: boolean }).httpAllowHalfOpen = true;
  app.server.on('connect', answerConnect);
  app.server.on('checkExpectation', answerExpectation);

  // One log line per request, only when someone reads it (no hook at all otherwise).
  if (o.logger && o.logger.isLevelEnabled('info')) {
    const publishing = o.publishing !== undefined;
    app.addHook('onResponse', (request, reply, done) => {
      const state = servedState(request, publishing);
      logRequest(request.log as Logger, {
        reqId: request.id, method: request.method, url: requestedUrl(request.raw), ...(state !== undefined ? { state } : {}), status: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10,
      });
      done();
    });
  }

  registerRequestGuard(app); // first: its header is on every answer, and `#` never reaches a route
  const renditions = o.renditions ?? new RenditionService(o.repository.store.blobs, { cacheDir: defaultRenditionCacheDir() });
  let record: RecordAnswer | undefined;
  if (o.metrics?.enabled === true) { // before the security hook: refused requests are timed and counted too
    record = registerMetrics(app, { registry: o.registry, contextPath: o.contextPath ?? '', repository: o.repository, renditions, responseCache: () => app.responseCache }).record;
  }
  const draining = registerGracefulClose(app);
  registerJsonBodyParser(app);
  await app.register(fastifyCookie);
  // Before the security hook: preflights carry no credentials and must not meet a 401.
  await registerCors(app, o.corsOrigins ?? [], { rules: () => o.site().cors ?? [], contextPath: o.contextPath ?? '' });
  const gate = { contextPath: o.contextPath ?? '', corsOrigins: o.corsOrigins ?? [], maxUrlLength: MAX_URL_LENGTH };
  const canonicalPaths = new CanonicalPaths(o.contextPath ?? '');
  registerContentState(app, o.publishing);
  const scrapeGate = scrapeGateOf(o.metrics);
  registerSecurityHook(app, o.security, {
    ...gate, ...(o.publishing !== undefined ? { previewRoles: o.publishing.previewRoles } : {}),
    ...(scrapeGate !== undefined ? { ownCredential: scrapeGate } : {}), canonicalPaths,
  });

  app.setErrorHandler(handleError);
  app.setNotFoundHandler((request, reply) => sendError(reply, 'notFound', `No route for ${request.method} ${requestedUrl(request.raw).split('?')[0]}`));

  const maxBytes = o.cache === false ? 0 : o.cache?.maxBytes ?? DEFAULT_CACHE_MAX_BYTES;
  const cache = maxBytes > 0 ? new ResponseCache({ maxBytes }) : null;
  app.decorate('responseCache', cache);
  if (cache !== null) {
    // Content changes reach the cache through the repository's change feed (read once per process).
    const stop = o.repository.changes.subscribe((batch) => cache.apply(batch));
    app.addHook('onClose', async () => stop());
  }

  // Before the routes: their class is decided as each is registered.
  if (o.rateLimit !== undefined) await registerRateLimits(app, o.rateLimit, { contextPath: o.contextPath ?? '', registry: o.registry });
  registerOpsRoutes(app, o.repository, o.contextPath ?? '');
  if (o.explorer === true) registerExplorerRoutes(app, { contextPath: o.contextPath ?? '' });
  registerAuthRoutes(app, o.security, gate);
  const deliveryPolicy = registerDeliveryRoutes(app, {
    ...(o.pages !== undefined ? { pages: o.pages, pagesOnAllEndpoints: o.pagesOnAllEndpoints ?? false } : {}),
    registry: o.registry,
    repository: o.repository,
    security: o.security,
    site: o.site,
    outName: o.outName,
    contextPath: o.contextPath ?? '',
    ...(o.links !== undefined ? { links: o.links } : {}),
    ...(o.theme !== undefined ? { theme: o.theme } : {}),
    ...(o.publishing !== undefined ? { previewContextPath: o.publishing.previewContextPath } : {}),
    ...(o.cacheControl !== undefined ? { cacheControl: o.cacheControl } : {}),
    ...(o.tagHeader !== undefined ? { tagHeader: o.tagHeader } : {}),
    cache,
    varyByOrigin: (o.corsOrigins ?? []).length > 0 || (o.site().cors ?? []).some((r) => r.origins !== '*'),
  });
  if (o.graphql !== undefined) {
    const themes = o.themes;
    registerGraphqlRoutes(app, {
      api: o.graphql, repository: o.repository, security: o.security, site: o.site, outName: o.outName, contextPath: o.contextPath ?? '',
      ...(o.links !== undefined ? { links: o.links } : {}),
      ...(themes !== undefined ? { theme: () => graphqlThemeOf(themes.themeFor(o.site())) } : {}),
      ...(o.publishing !== undefined ? { previewContextPath: o.publishing.previewContextPath } : {}),
      ...(o.cacheControl !== undefined ? { cacheControl: o.cacheControl } : {}),
      ...(o.tagHeader !== undefined ? { tagHeader: o.tagHeader } : {}),
      cache,
      varyByOrigin: (o.corsOrigins ?? []).length > 0 || (o.site().cors ?? []).some((r) => r.origins !== '*'),
    });
    if (o.graphiql === true) {
      registerGraphiqlRoutes(app, { contextPath: o.contextPath ?? '', ...(o.publishing !== undefined ? { previewContextPath: o.publishing.previewContextPath } : {}) });
    }
  }
  const assets = {
    repository: o.repository, security: o.security, contextPath: o.contextPath ?? '', imaging: o.imaging ?? PRESETS_ONLY,
    renditions,
  };
  registerDamRoutes(app, assets);
  registerImagingRoutes(app, { ...assets, themes: o.themes ?? new ThemeRegistry() });
  registerExportRoutes(app, { repository: o.repository, security: o.security, contextPath: o.contextPath ?? '' });
  const nodesApi = {
    repository: o.repository, security: o.security, contextPath: o.contextPath ?? '', outName: o.outName,
    ...(o.publishing !== undefined ? { publishing: true } : {}),
  };
  registerNodesRoutes(app, nodesApi);
  registerPropertiesRoutes(app, nodesApi);
  await registerImportRoutes(app, {
    repository: o.repository, security: o.security, contextPath: o.contextPath ?? '',
    ...(o.importMaxBytes !== undefined ? { maxBytes: o.importMaxBytes } : {}),
    ...(o.onUuidCollision !== undefined ? { onUuidCollision: o.onUuidCollision } : {}),
    ...(o.publishing !== undefined ? { publishing: true } : {}),
  });
  registerCommandsRoutes(app, {
    repository: o.repository, security: o.security, contextPath: o.contextPath ?? '', publishing: o.publishing !== undefined,
    ...(o.publishing?.scheduleHorizonDays !== undefined ? { scheduleHorizonDays: o.publishing.scheduleHorizonDays } : {}),
  });
  if (o.shop) registerShopRoutes(app, o.shop, gate);
  registerOpenApiRoutes(app, {
    registry: o.registry, security: o.security, site: o.site, contextPath: o.contextPath ?? '',
    publishing: o.publishing !== undefined, shop: o.shop !== undefined, ...(o.moduleRoots !== undefined ? { moduleRoots: o.moduleRoots } : {}),
  });
  await app.ready();
  // Only where the pipeline adds nothing to a cached anonymous GET but what cached-hits.ts writes: no
  // CORS headers (registered only when origins or site rules are configured), no rate limit counting
  // delivery requests (off by default: behind a CDN every miss comes from a few edge addresses).
  const corsRegistered = (o.corsOrigins ?? []).length > 0 || (o.site().cors ?? []).length > 0;
  const deliveryLimited = o.rateLimit?.enabled === true && (o.rateLimit.rules.deliveryReads !== undefined || o.rateLimit.rules.queries !== undefined);
  if (cache !== null && o.cachedHitPath !== false && !corsRegistered && !deliveryLimited) {
    const logger = o.logger && o.logger.isLevelEnabled('info') ? o.logger : undefined;
    cachedHits = new CachedHits({
      policy: deliveryPolicy, facts: { registry: o.registry, site: o.site, ...(o.pages !== undefined ? { pages: o.pages } : {}) },
      security: o.security, canonicalPaths, contextPath: o.contextPath ?? '', draining,
      ...(o.publishing !== undefined ? { previewContextPath: o.publishing.previewContextPath } : {}),
      ...(record !== undefined ? { record } : {}),
      ...(logger !== undefined ? { log: (line) => logRequest(logger, line) } : {}),
    });
  }
  return app;
}

type ThemeLike = { readonly name: string; readonly variations: ReadonlyMap<string, unknown>; hasVariation(n: string): boolean };
const graphqlThemes = new WeakMap<ThemeLike, GraphqlTheme>();

/** The site's theme as GraphQL's rendition links need it (every variation's name), made once per theme. */
function graphqlThemeOf(t: ThemeLike | undefined): GraphqlTheme | undefined {
  if (t === undefined) return undefined;
  let g = graphqlThemes.get(t);
  if (g === undefined) graphqlThemes.set(t, (g = { name: t.name, variations: [...t.variations.keys()], hasVariation: (n) => t.hasVariation(n) }));
  return g;
}
