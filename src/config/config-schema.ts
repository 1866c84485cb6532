// Config layer: the shape of petal.yaml (every key optional), validated with zod.
import { isIP } from 'node:net';
import { z } from 'zod';
import { WORKSPACE_NAME, WORKSPACE_NAME_RULE } from '../model/names.js';

/** True for a serialized origin (`https://host[:port]`), what browsers send in `Origin`. */
function isOrigin(text: string): boolean {
  try {
    const u = new URL(text);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.origin === text;
  } catch {
    return false;
  }
}

/** An IP address, a CIDR range, or one of proxy-addr's names (`loopback`, `linklocal`, `uniquelocal`). */
function isProxyAddress(text: string): boolean {
  if (text === 'loopback' || text === 'linklocal' || text === 'uniquelocal') return true;
  const [address, prefix, extra] = text.split('/');
  const family = isIP(address ?? '');
  if (family === 0 || extra !== undefined) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

const stringList = z.union([z.string(), z.array(z.string())]).transform((v) => (typeof v === 'string' ? [v] : v));

export const siteSchema = z.strictObject({
  locales: z.array(z.string().min(1)).min(1).optional(),
  defaultLocale: z.string().min(1).optional(),
  theme: z.string().optional(),
});

const dimension = z.number().int('a whole number of pixels').min(1, 'at least 1').max(4096, 'at most 4096');

/** A named image transform of `imaging.presets` (limits as for `imaging.transforms: free`). */
const imagePresetSchema = z.strictObject({
  width: dimension.optional(),
  height: dimension.optional(),
  fit: z.enum(['cover', 'contain', 'inside', 'outside']).optional(),
  format: z.enum(['jpeg', 'png', 'webp', 'avif', 'auto']).optional(),
  quality: z.number().int('a whole number').min(1, 'at least 1').max(100, 'at most 100').optional(),
}).refine((p) => Object.keys(p).length > 0, 'a preset needs at least one of width, height, fit, format, quality');

const seconds = z.number().int('a whole number of seconds').min(0, 'at least 0').max(31_536_000, 'at most a year (31536000)');

/** `cacheControl:` of an endpoint definition or of petal.yaml (seconds). */
export const cacheControlSchema = z.strictObject({
  maxAge: seconds.optional(),
  sMaxAge: seconds.optional(),
  staleWhileRevalidate: seconds.optional(),
  staleIfError: seconds.optional(),
});

/** An environment variable's name (secrets are never written in petal.yaml). */
const envName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'the name of an environment variable');
const httpUrl = z.url().refine((u) => /^https?:\/\//.test(u), 'an http:// or https:// URL');

/** One class of routes' limit: `max` requests per client in `windowMs`. */
const rateLimitRule = z.strictObject({
  max: z.number().int('a whole number').min(1, 'at least 1'),
  windowMs: z.number().int('a whole number of milliseconds').min(1_000, 'at least 1000').max(86_400_000, 'at most a day'),
});

const purgeTargetSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('fastly'), serviceId: z.string().min(1), tokenEnv: envName, baseUrl: httpUrl.optional() }),
  z.strictObject({ type: z.literal('cloudflare'), zoneId: z.string().min(1), tokenEnv: envName, baseUrl: httpUrl.optional() }),
  z.strictObject({ type: z.literal('http'), url: httpUrl, secretEnv: envName.optional() }),
]);

const webhookSchema = z.strictObject({
  name: z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'letters, digits, - and _ (at most 64)'),
  url: httpUrl,
  events: z.array(z.enum(['published', 'unpublished', 'changed', 'imported'])).min(1).optional(),
  workspaces: z.array(z.string().regex(WORKSPACE_NAME, WORKSPACE_NAME_RULE)).optional(),
  /** Node paths; `*` matches within a segment, a trailing `/*` the whole subtree (as in ACL rules). */
  paths: z.array(z.string().regex(/^\//, 'an absolute path')).optional(),
  nodeTypes: z.array(z.string().min(1)).optional(),
  secretEnv: envName,
  timeoutMs: z.number().int().min(100, 'at least 100').max(60_000, 'at most 60000').optional(),
});

export const configSchema = z.strictObject({
  store: z.string().min(1).optional(),
  /** Read replicas of a PostgreSQL store: reads go to them, writes and read-after-write to `store`. */
  replicas: z.array(z.string().regex(/^postgres(ql)?:\/\//, 'expected a postgres:// URL')).optional(),
  modules: stringList.optional(),
  content: stringList.optional(),
  /** What a start does with a `content:` file changed since its last import (ingest/bootstrap.ts). */
  contentPolicy: z.enum(['seed', 'overwrite']).optional(),
  port: z.number().int().min(0).max(65535).optional(),
  host: z.string().min(1).optional(),
  namespace: z.enum(['cms', 'mgnl']).optional(),
  baseUrl: z.url().optional(),
  contextPath: z.string().regex(/^(\/[^/]+)*$/, 'must be empty or start with / and not end with /').optional(),
  sites: z.record(z.string(), siteSchema).optional(),
  links: z.strictObject({
    extension: z.string().regex(/^(\.[\w-]+)?$/, 'must be empty or like .html').optional(),
    mappings: z.record(z.string().regex(/^\//), z.string().regex(/^\//)).optional(),
  }).optional(),
  cors: z.strictObject({
    origins: z.array(z.string().refine(isOrigin, 'must be an origin such as https://www.example.com (scheme, host, port; no path, no *)')).default([]),
  }).optional(),
  /**
   * Behind reverse proxies: how many of them (true = 1) or which addresses to believe in
   * X-Forwarded-For/-Proto. The client is the address the last trusted proxy saw.
   */
  trustProxy: z.union([
    z.boolean(),
    z.number().int('expected a whole number of proxy hops').min(0, 'expected a number of proxy hops from 0 to 32').max(32, 'expected a number of proxy hops from 0 to 32'),
    z.array(z.string().refine(isProxyAddress, 'expected an IP address, a CIDR range (10.0.0.0/8) or loopback, linklocal, uniquelocal')).min(1),
  ], { error: 'expected true/false, a number of proxy hops (0-32), or a list of proxy addresses or CIDR ranges' }).optional(),
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).optional(),
  timeZone: z.string().optional(),
  onUuidCollision: z.enum(['new', 'replace', 'fail']).optional(),
  /** Extra node types and their super types, e.g. `{ 'cms:product': ['cms:content'] }`. */
  nodeTypes: z.record(z.string().min(1), z.array(z.string().min(1))).optional(),
  // Sections filled in by later capabilities; accepted now so one file works across versions.
  security: z.record(z.string(), z.unknown()).optional(),
  /**
   * Memory budgets in bytes: `maxBytes` the rendered delivery answers (0 turns it off),
   * `subtreeMaxBytes` the decoded subtree reads (0 turns it off), `queryIndexMaxBytes` what the query
   * index keeps per property name, condition and result row (at least 1 MiB); `queryIndexThreshold`
   * the node count below which a SQLite workspace answers queries by SQL instead (default 0: none); `persistQueryIndex`
   * false keeps the query index's segments out of the database (every start reads SQL).
   */
  cache: z.strictObject({
    maxBytes: z.number().int().min(0).optional(),
    subtreeMaxBytes: z.number().int().min(0).optional(),
    queryIndexMaxBytes: z.number().int().min(1024 * 1024).optional(),
    queryIndexThreshold: z.number().int().min(0).optional(),
    persistQueryIndex: z.boolean().optional(),
  }).optional(),
  pages: z.strictObject({ allEndpoints: z.boolean().optional() }).optional(),
  /**
   * Two states per workspace (working and published): `contextPath` serves the published content,
   * `preview.contextPath` the working content to callers holding one of `preview.roles`.
   */
  publishing: z.strictObject({
    enabled: z.boolean().optional(),
    preview: z.strictObject({
      contextPath: z.string().regex(/^(\/[^/]+)+$/, 'must start with / and not end with / (such as /magnoliaAuthor)').optional(),
      roles: z.array(z.string().min(1)).optional(),
    }).optional(),
    /** How often due schedules are looked for (milliseconds). */
    scheduleIntervalMs: z.number().int().min(100, 'at least 100').max(3_600_000, 'at most 3600000').optional(),
    /** How far ahead a publication may be scheduled (days). */
    scheduleHorizonDays: z.number().int().min(1, 'at least 1').max(36_600, 'at most 36600').optional(),
  }).optional(),
  /** Cache-Control of delivery answers when an endpoint says nothing (README: Cache tags and purge). */
  cacheControl: cacheControlSchema.optional(),
  /** Cache tags on delivery answers and purges of the CDN on every change (README: Cache tags and purge). */
  cdn: z.strictObject({
    tagHeader: z.enum(['surrogate-key', 'cache-tag', 'both', 'none']).optional(),
    purge: z.array(purgeTargetSchema).optional(),
  }).optional(),
  /** Prometheus metrics at /.metrics (README: Metrics): for a role with `get` on /.metrics, or this bearer token. */
  metrics: z.strictObject({
    enabled: z.boolean().optional(),
    tokenEnv: envName.optional(),
  }).optional(),
  /** Requests per client and class of routes (README: Rate limits); `redis` shares the counters between instances. */
  rateLimit: z.strictObject({
    enabled: z.boolean().optional(),
    redis: z.string().regex(/^rediss?:\/\//, 'a redis:// URL').optional(),
    deliveryReads: rateLimitRule.optional(),
    queries: rateLimitRule.optional(),
    shopWrites: rateLimitRule.optional(),
    logins: rateLimitRule.optional(),
    writes: rateLimitRule.optional(),
    exempt: z.array(z.string().refine(isProxyAddress, 'expected an IP address, a CIDR range (10.0.0.0/8) or loopback, linklocal, uniquelocal')).optional(),
    exemptSecretEnv: envName.optional(),
  }).optional(),
  /** The API explorer page at /.petal/explorer (README: OpenAPI); off by default when NODE_ENV=production. */
  explorer: z.boolean().optional(),
  /** The GraphQL API at /.graphql over the content types of the light modules (README: GraphQL). */
  graphql: z.strictObject({
    enabled: z.boolean().optional(),
    /** Introspection queries; off by default when NODE_ENV=production. */
    introspection: z.boolean().optional(),
    /** The GraphiQL page at /.graphiql; off by default when NODE_ENV=production. */
    graphiql: z.boolean().optional(),
    maxDepth: z.number().int('an integer').min(1, 'at least 1').max(100, 'at most 100').optional(),
    maxComplexity: z.number().int('an integer').min(1, 'at least 1').max(100_000, 'at most 100000').optional(),
    maxAliases: z.number().int('an integer').min(0, 'at least 0').max(10_000, 'at most 10000').optional(),
    maxRootFields: z.number().int('an integer').min(1, 'at least 1').max(1_000, 'at most 1000').optional(),
    defaultLimit: z.number().int('an integer').min(1, 'at least 1').max(1_000, 'at most 1000').optional(),
    maxLimit: z.number().int('an integer').min(1, 'at least 1').max(1_000, 'at most 1000').optional(),
    /** Most items (content items and assets, references included) one answer may hold. */
    maxItems: z.number().int('an integer').min(1, 'at least 1').max(1_000_000, 'at most 1000000').optional(),
    /** Automatic persisted queries (a query registered by its SHA-256, then sent by hash: cacheable GETs). */
    automaticPersistedQueries: z.boolean().optional(),
  }).refine((g) => g.defaultLimit === undefined || g.maxLimit === undefined || g.defaultLimit <= g.maxLimit,
    { message: 'defaultLimit must not exceed maxLimit', path: ['defaultLimit'] }).optional(),
  /** Signed POSTs of change events, at least once and in order per webhook (README: Webhooks). */
  webhooks: z.array(webhookSchema).superRefine((hooks, ctx) => {
    const seen = new Set<string>();
    hooks.forEach((h, i) => {
      if (seen.has(h.name)) ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `another webhook is named ${h.name}` });
      seen.add(h.name);
    });
  }).optional(),
  /** Limits of the /shop/v1 API against cheap writes anyone can repeat (README: Shop limits). */
  shop: z.strictObject({
    maxUnitsPerOrderLine: z.number().int('an integer').min(1, 'at least 1').max(999, 'at most 999 (the largest cart line)').optional(),
    rateLimit: z.strictObject({
      cartsPerMinute: z.number().int('an integer').min(1, 'at least 1').optional(),
      ordersPerMinute: z.number().int('an integer').min(1, 'at least 1').optional(),
      clients: z.number().int('an integer').min(1, 'at least 1').max(10_000_000, 'at most 10000000').optional(),
    }).optional(),
  }).optional(),
  /** Image transforms (`?width=…`, `?preset=…`) and the disk cache of renditions (private folder, 0700). */
  imaging: z.strictObject({
    transforms: z.enum(['presets', 'free']).optional(),
    presets: z.record(z.string(), imagePresetSchema).superRefine((presets, ctx) => {
      // Checked here, not on the record's key: zod would report only "Invalid key in record".
      for (const name of Object.keys(presets)) {
        if (!/^[A-Za-z0-9_-]{1,64}$/.test(name)) ctx.addIssue({ code: 'custom', path: [name], message: 'preset names are letters, digits, - and _ (at most 64)' });
      }
    }).optional(),
    cacheDir: z.string().min(1).optional(),
    cacheMaxBytes: z.number().int().min(1024 * 1024, 'must be at least 1048576 (1 MiB)').optional(),
  }).optional(),
  /** Renamed before release: a clear message instead of "unknown key". */
  renditions: z.unknown().refine((v) => v === undefined, 'moved under imaging: write imaging.cacheDir and imaging.cacheMaxBytes (was renditions.maxBytes)').optional(),
  /** How long clients may take, and how long a stopping server waits for them (milliseconds). */
  limits: z.strictObject({
    headersTimeoutMs: z.number().int().min(1).optional(),
    requestTimeoutMs: z.number().int().min(1).optional(),
    keepAliveTimeoutMs: z.number().int().min(1).optional(),
    shutdownGraceMs: z.number().int().min(0).optional(),
    importMaxBytes: z.number().int().min(1024, 'must be at least 1024 bytes').max(Number.MAX_SAFE_INTEGER).optional(),
  }).optional(),
});

export type RawConfig = z.infer<typeof configSchema>;
