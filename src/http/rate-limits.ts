// HTTP layer: requests per client address and class of routes (petal.yaml `rateLimit:`), counted by
// @fastify/rate-limit in memory or, with `redis`, in Redis so that several instances share them. The
// class of a route is decided here, once, when the route is registered (an onRoute hook); only
// delivery GETs wait for the request to tell a Query nodes request from a read.
import fastifyRateLimit, { normalizeIP } from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { Redis } from 'ioredis';
import { DAM_PREFIX, IMAGING_PREFIX } from '../assets/links.js';
import { COMMANDS_PREFIX, GRAPHQL_PATH, IMPORT_PATH, NODES_PREFIX, PROPERTIES_PREFIX } from '../config/api-prefixes.js';
import type { RateLimitClass, RateLimitConfig, RateLimitRule } from '../config/notify-config.js';
import type { EndpointRegistry } from '../delivery/endpoint-registry.js';
import { parseMethod } from '../delivery/parse-request.js';
import { PetalError } from '../errors.js';
import { exemptionOf } from './rate-limit-exempt.js';
import { restPathOf } from './delivery-facts.js';

/**
 * Per client address and minute, for the classes limited by default. Delivery reads and queries are
 * not: behind a CDN every miss comes from a few edge addresses, and behind an SSR server from one, so a
 * per-address count would throttle a healthy site (peers such as Directus leave reads unlimited too);
 * a deployment open to scripts sets `deliveryReads`/`queries` itself. Shop writes are a click each
 * (add, change, order); logins are rare (failed ones are throttled apart by login-throttle.ts). Writes
 * come from editors' tools: 5 a second sustained; bulk loads go through one import request.
 */
export const DEFAULT_RATE_LIMITS: Readonly<Partial<Record<RateLimitClass, RateLimitRule>>> = {
  shopWrites: { max: 60, windowMs: 60_000 },
  logins: { max: 30, windowMs: 60_000 },
  writes: { max: 300, windowMs: 60_000 },
};

/** What the 429's message calls the requests of a class. */
const NOUNS: Readonly<Record<RateLimitClass, string>> = {
  deliveryReads: 'delivery reads', queries: 'Query nodes and GraphQL requests', shopWrites: 'shop writes', logins: 'logins', writes: 'writes',
};

export interface RateLimitOptions extends Omit<RateLimitConfig, 'exemptSecretEnv'> {
  /** The value of `exemptSecretEnv`'s variable. */
  readonly exemptSecret?: string;
  /** Prefix of the Redis keys (default `petal-rl:`); tests use one per run. */
  readonly keyPrefix?: string;
}

/** Client addresses remembered per class in memory (least recently seen forgotten first). */
const LOCAL_CLIENTS = 10_000;
/** A Redis that does not answer within this is treated as down (see the fail-open note below). */
const REDIS_TIMEOUT_MS = 250;

const READS: ReadonlySet<string> = new Set(['GET', 'HEAD']);
const WRITES: ReadonlySet<string> = new Set(['POST', 'PUT', 'DELETE', 'PATCH']);
const WRITE_PREFIXES = [NODES_PREFIX, PROPERTIES_PREFIX, IMPORT_PATH, COMMANDS_PREFIX];

const under = (path: string, prefix: string): boolean => path === prefix || path.startsWith(`${prefix}/`);

/**
 * The class of one method of a route (its URL without the context path): `delivery` when only the
 * request tells (read or query); undefined = not limited (health, 405 answers, exports, the Nodes API's reads).
 */
export function routeClass(method: string, url: string): RateLimitClass | 'delivery' | undefined {
  // Every GraphQL request may run queries (a POST reads too): counted as queries.
  if (url === GRAPHQL_PATH) return READS.has(method) || method === 'POST' ? 'queries' : undefined;
  if (READS.has(method)) {
    if (url === '/.rest' || url === '/.rest/*') return 'delivery';
    if (under(url, DAM_PREFIX) || under(url, IMAGING_PREFIX)) return 'deliveryReads';
    return undefined;
  }
  if (!WRITES.has(method)) return undefined;
  if (method === 'POST' && url === '/.auth/login') return 'logins';
  if (under(url, '/shop/v1')) return 'shopWrites';
  if (WRITE_PREFIXES.some((p) => under(url, p))) return 'writes';
  return undefined;
}

type Limiter = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

/**
 * Registers the limits; call before any route. Redis failures fail open: counting is protection, not
 * correctness, so a Redis outage must not become an outage of the site (each request then passes
 * uncounted, and the outage is logged once, not per request).
 */
export async function registerRateLimits(
  app: FastifyInstance,
  o: RateLimitOptions,
  routes: { readonly contextPath: string; readonly registry: EndpointRegistry },
): Promise<void> {
  if (!o.enabled) return;
  const redis = o.redis !== undefined ? await connectRedis(app, o.redis) : undefined;
  await app.register(fastifyRateLimit, {
    global: false,
    enableDraftSpec: true,
    skipOnError: true,
    ...(redis !== undefined ? { redis, nameSpace: o.keyPrefix ?? 'petal-rl:' } : {}),
  });
  const allowList = exemptionOf(o);
  const limiters: Partial<Record<RateLimitClass, Limiter>> = {};
  for (const cls of Object.keys(NOUNS) as RateLimitClass[]) {
    const rule = o.rules[cls] ?? DEFAULT_RATE_LIMITS[cls];
    if (rule === undefined) continue; // not limited
    limiters[cls] = app.rateLimit({
      ...(allowList !== undefined ? { allowList } : {}),
      max: rule.max,
      timeWindow: rule.windowMs,
      cache: LOCAL_CLIENTS,
      // The class is part of the key: the plugin's stores would otherwise share one counter per client.
      keyGenerator: (request) => `${cls}:${normalizeIP(request.ip)}`,
      errorResponseBuilder: (_request, ctx) => new PetalError('tooManyRequests',
        `Rate limit: at most ${rule.max} ${NOUNS[cls]} per ${windowText(rule.windowMs)} from one client; retry in ${ctx.after}`),
    }) as Limiter;
  }

  const { queries, deliveryReads } = limiters;
  const deliveryLimiter: Limiter | undefined = queries === undefined && deliveryReads === undefined ? undefined
    : async (request, reply) => {
      const match = routes.registry.match(restPathOf(request.canonicalPath));
      const query = match?.rest !== undefined && parseMethod(match.rest).kind === 'query';
      return (query ? queries : deliveryReads)?.(request, reply);
    };
  const ctx = routes.contextPath;
  app.addHook('onRoute', (route: RouteOptions) => {
    const url = ctx !== '' && route.url.startsWith(ctx) ? route.url.slice(ctx.length) : route.url;
    const byMethod = new Map<string, Limiter>();
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      const cls = routeClass(method, url);
      const limiter = cls === undefined ? undefined : cls === 'delivery' ? deliveryLimiter : limiters[cls];
      if (limiter !== undefined) byMethod.set(method, limiter);
    }
    if (byMethod.size === 0) return; // nothing per request on unlimited routes
    // Most routes have one class for all their methods (GET and HEAD): then the limiter is the hook.
    const distinct = new Set(byMethod.values());
    const hook: Limiter = distinct.size === 1 && byMethod.size === methods.length ? [...distinct][0]!
      : async (request, reply) => byMethod.get(request.method)?.(request, reply);
    route.onRequest = route.onRequest === undefined ? [hook] : [...[route.onRequest].flat(), hook];
  });
}

function windowText(ms: number): string {
  if (ms === 60_000) return 'minute';
  if (ms % 60_000 === 0) return `${ms / 60_000} minutes`;
  return `${ms / 1000} s`;
}

/**
 * One client for the app's life, closed with it; commands fail at once while it is disconnected.
 * ioredis is loaded only here: a server counting in memory does not carry it (2 MB of heap).
 */
async function connectRedis(app: FastifyInstance, url: string): Promise<Redis> {
  const { Redis } = await import('ioredis');
  const client = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 0, commandTimeout: REDIS_TIMEOUT_MS });
  let down = false;
  client.on('error', (err: Error) => {
    if (down) return;
    down = true;
    app.log.warn({ reason: err.message }, 'rate limit counters: Redis unreachable; requests pass uncounted');
  });
  client.on('ready', () => {
    if (down) app.log.info('rate limit counters: Redis reachable again');
    down = false;
  });
  app.addHook('onClose', async () => {
    if (client.status === 'ready') await client.quit().catch(() => client.disconnect());
    else client.disconnect();
  });
  return client;
}
