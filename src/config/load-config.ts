// Config layer: merges petal.yaml, PETAL_* environment variables and CLI flags (in that order of
// strength, flags strongest) into one resolved PetalConfig with absolute paths.
import type { SiteCorsRule } from './site-cors.js';
import { existsSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Namespace } from '../model/names.js';
import { ConfigError } from './config-error.js';
import {
  DEFAULT_CDN, type CacheControlConfig, type CdnConfig, type MetricsConfig, type RateLimitClass, type RateLimitConfig,
  type RateLimitRule, type WebhookConfig,
} from './notify-config.js';
import type { RawConfig } from './config-schema.js';
import { readConfigFile } from './read-config-file.js';
import { loadSecurity } from './security-config.js';
import type { SecurityConfig } from './security-schema.js';
import type { LinkConfig } from './link-config.js';
import { DEFAULT_SCHEDULE_HORIZON_DAYS } from './schedule-horizon.js';

export interface SiteConfig {
  readonly name: string;
  readonly locales: readonly string[];
  readonly defaultLocale: string;
  readonly theme?: string;
  /** CORS rules of the site definition of a light module (site-cors.ts). */
  readonly cors?: readonly SiteCorsRule[];
  /** What of the site's CORS rules is ignored, and why (logged at start). */
  readonly corsProblems?: readonly string[];
}

/** petal.yaml `graphql:` as written (README: GraphQL). */
export interface GraphqlConfig {
  readonly enabled?: boolean;
  readonly introspection?: boolean;
  readonly graphiql?: boolean;
  readonly maxDepth?: number;
  readonly maxComplexity?: number;
  readonly maxAliases?: number;
  readonly maxRootFields?: number;
  readonly defaultLimit?: number;
  readonly maxLimit?: number;
  readonly maxItems?: number;
  readonly automaticPersistedQueries?: boolean;
}

/** Limits of the /shop/v1 API (petal.yaml `shop:`). */
export interface ShopConfig {
  /** Units of one product a cart line, and so an order, may hold. */
  readonly maxUnitsPerOrderLine: number;
  /** Per client address and minute; `clients`: how many addresses are remembered at most. */
  readonly rateLimit: { readonly cartsPerMinute: number; readonly ordersPerMinute: number; readonly clients: number };
}

export const DEFAULT_SHOP_CONFIG: ShopConfig = {
  maxUnitsPerOrderLine: 20,
  rateLimit: { cartsPerMinute: 30, ordersPerMinute: 10, clients: 10_000 },
};

export interface PetalConfig {
  /** The petal.yaml used, if any. */
  readonly configFile?: string;
  /** `sqlite:<absolute file>` or a `postgres://` URL. */
  readonly store: string;
  /** Read replicas (`postgres://` URLs) of a PostgreSQL store. */
  readonly replicas?: readonly string[];
  readonly modules: readonly string[];
  /** Content exports imported at a start when new or changed (ingest/bootstrap.ts). */
  readonly content: readonly string[];
  /** A changed `content:` file: write only nodes no write changed since (`seed`, absent) or all of it. */
  readonly contentPolicy?: 'seed' | 'overwrite';
  readonly baseDir?: string; // the config file's folder: `content:` files are recorded relative to it
  readonly port: number;
  readonly host: string;
  readonly namespace: Namespace;
  readonly baseUrl?: string;
  readonly contextPath: string;
  /** Sites from petal.yaml; empty means "discover them in the light modules". */
  readonly sites: readonly SiteConfig[];
  readonly corsOrigins: readonly string[];
  /** Proxies whose X-Forwarded-* are believed: false (none), a number of hops, or their addresses. */
  readonly trustProxy: TrustProxy;
  /** How links to pages, assets and renditions are written. */
  readonly links: LinkConfig;
  readonly logLevel: string;
  readonly onUuidCollision: 'new' | 'replace' | 'fail';
  /** Extra node types with their super types (added to the built-in hierarchy). */
  readonly nodeTypes: Readonly<Record<string, readonly string[]>>;
  /** Users, groups, roles and sessions (built-in roles only when petal.yaml has no `security:`). */
  readonly security: SecurityConfig;
  /** The response cache's budget (`cache.maxBytes`; absent = the default, 64 MiB; 0 = no cache). */
  readonly cache?: { readonly maxBytes: number };
  /** Image transforms and the rendition cache (`imaging:`; loadConfig always sets it, absent = the defaults). */
  readonly imaging?: ImagingConfig;
  /** The repository's subtree cache budget (`cache.subtreeMaxBytes`; absent = 64 MiB; 0 = off). */
  readonly subtreeCacheMaxBytes?: number;
  /** The query index's budget for what requests choose (`cache.queryIndexMaxBytes`; absent = 1 GiB). */
  readonly queryIndexMaxBytes?: number;
  /** SQLite: workspaces below this many nodes answer queries by SQL (`cache.queryIndexThreshold`; absent = 0, none). */
  readonly queryIndexThreshold?: number;
  /** False: the query index's segments are not persisted in the database (`cache.persistQueryIndex`; absent = true). */
  readonly persistQueryIndex?: boolean;
  /** Inheritance and autogeneration also on plain `jcrDeliveryEndpoint_v2` endpoints (`pages.allEndpoints`). */
  readonly pagesOnAllEndpoints?: boolean;
  /** Cache-Control of delivery answers whose endpoint gives none (`cacheControl:`). */
  readonly cacheControl?: CacheControlConfig;
  /** Cache tags and CDN purges (`cdn:`; DEFAULT_CDN when absent). */
  readonly cdn?: CdnConfig;
  /** Signed change notifications (`webhooks:`). */
  readonly webhooks?: readonly WebhookConfig[];
  /** Prometheus metrics (`metrics:`); absent = the defaults (on, for roles with `get` on /.metrics). */
  readonly metrics?: MetricsConfig;
  /** Rate limits (`rateLimit:`); absent = the defaults. */
  readonly rateLimit?: RateLimitConfig;
  /** The API explorer page (`explorer:`); absent = on, except when NODE_ENV=production. */
  readonly explorer?: boolean;
  /** The GraphQL API (`graphql:`): only the keys petal.yaml sets (graphql/graphql-api.ts has the defaults). */
  readonly graphql?: GraphqlConfig;
  /** Working and published content (`publishing:`); absent = off (the working content is served). */
  readonly publishing?: PublishingConfig;
  /** Shop limits (absent = DEFAULT_SHOP_CONFIG). */
  readonly shop?: ShopConfig;
  /** Client timeouts and the shutdown grace (`limits:`): only the keys petal.yaml sets. */
  readonly limits?: LimitsConfig;
  readonly isDemo: boolean;
  /** No --store, PETAL_STORE nor store: chose the store: it is DEFAULT_STORE_FILE beside petal.yaml (or in the current folder without one). */
  readonly storeIsDefault?: true;
}

export interface PublishingConfig {
  /** Where the working content is served (preview); the published content is served under `contextPath`. */
  readonly previewContextPath: string;
  /** Roles that may read the preview (`anonymous` lets everyone). */
  readonly previewRoles: readonly string[];
  readonly scheduleIntervalMs: number;
  /** How far ahead a publication may be scheduled (`publishing.scheduleHorizonDays`). */
  readonly scheduleHorizonDays: number;
}

/** The preview's defaults: the original's author instance path, and its editor role. */
export const DEFAULT_PREVIEW_CONTEXT_PATH = '/preview';
export const DEFAULT_PREVIEW_ROLES: readonly string[] = ['superuser', 'editor'];

export type ImageFit = 'cover' | 'contain' | 'inside' | 'outside';
export type ImagePresetFormat = 'jpeg' | 'png' | 'webp' | 'avif' | 'auto';

/** A named transform of `imaging.presets`, requested as `?preset=<name>`. */
export interface ImagePreset {
  readonly width?: number;
  readonly height?: number;
  readonly fit?: ImageFit;
  readonly format?: ImagePresetFormat;
  readonly quality?: number;
}

export interface ImagingConfig {
  /** `presets` (default): only theme variations and named presets; `free`: any parameters within limits. */
  readonly transforms: 'presets' | 'free';
  readonly presets: Readonly<Record<string, ImagePreset>>;
  /** The rendition cache folder (absolute); absent = beside the store (rendition-cache.ts). */
  readonly cacheDir?: string;
  /** The rendition cache's disk budget; absent = 1 GiB. */
  readonly cacheMaxBytes?: number;
}

export interface LimitsConfig {
  readonly headersTimeoutMs?: number;
  readonly requestTimeoutMs?: number;
  readonly keepAliveTimeoutMs?: number;
  /** After SIGTERM/SIGINT, connections still open after this time are closed (default 10 s). */
  readonly shutdownGraceMs?: number;
  /** Body limit of `POST /.rest/import/v1` (default 1 GiB). */
  readonly importMaxBytes?: number;
}

/** What a key of `limits:` left out stands for (the HTTP layer and the shutdown apply these). */
export const DEFAULT_LIMITS: Required<LimitsConfig> = Object.freeze({
  headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, keepAliveTimeoutMs: 5_000, shutdownGraceMs: 10_000,
  importMaxBytes: 1024 * 1024 * 1024,
});

/** false: no proxy; a number: that many hops in front of Petal; a list: the proxies' addresses/CIDRs. */
export type TrustProxy = false | number | readonly string[];

/** `true` means one proxy: trusting every hop would let a client choose its address (leftmost X-Forwarded-For). */
export function normalizeTrustProxy(value: boolean | number | readonly string[] | undefined): TrustProxy {
  if (value === undefined || value === false || value === 0) return false;
  if (value === true) return 1;
  return value;
}

export interface CliOverrides {
  config?: string;
  store?: string;
  modules?: string[];
  port?: number;
  host?: string;
  logLevel?: string;
  /** `--replica URL`, repeatable. */
  replicas?: string[];
}

/** Root of the installed package (holds `demo/`). */
export function packageRoot(): string {
  return resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
}

export const DEFAULT_STORE_FILE = 'data/petal.db';

export function loadConfig(overrides: CliOverrides = {}, env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): PetalConfig {
  let file = overrides.config ?? env.PETAL_CONFIG;
  let isDemo = false;
  if (file === undefined) {
    const local = join(cwd, 'petal.yaml');
    if (existsSync(local)) file = local;
    else if (overrides.modules === undefined && overrides.store === undefined && env.PETAL_MODULES === undefined && env.PETAL_STORE === undefined) {
      file = join(packageRoot(), 'demo', 'petal.yaml');
      isDemo = true;
    }
  }
  let raw: RawConfig = {};
  let baseDir = cwd;
  if (file !== undefined) {
    file = resolve(cwd, file);
    if (!existsSync(file)) throw new ConfigError(file, 'file not found');
    raw = readConfigFile(file);
    baseDir = dirname(file);
  }
  const abs = (p: string, base: string) => (isAbsolute(p) ? p : resolve(base, p));
  const envModules = env.PETAL_MODULES?.split(/[,:]/).filter(Boolean);

  const store = overrides.store !== undefined ? normalizeStore(overrides.store, cwd)
    : env.PETAL_STORE !== undefined && env.PETAL_STORE !== '' ? normalizeStore(env.PETAL_STORE, cwd)
    // Like modules: and content:, the store of a petal.yaml (set or default) lies beside that file.
    : normalizeStore(raw.store, baseDir);
  const storeIsDefault = overrides.store === undefined && (env.PETAL_STORE === undefined || env.PETAL_STORE === '') && raw.store === undefined;
  const modules = overrides.modules?.map((m) => abs(m, cwd)) ?? envModules?.map((m) => abs(m, cwd)) ?? (raw.modules ?? []).map((m) => abs(m, baseDir));
  const portText = env.PETAL_PORT?.trim();
  const envPort = portText !== undefined && portText !== '' ? (/^\d+$/.test(portText) ? Number(portText) : NaN) : undefined;
  if (envPort !== undefined && (!Number.isInteger(envPort) || envPort < 0 || envPort > 65535)) {
    throw new ConfigError('PETAL_PORT', `expected a port number, got ${JSON.stringify(portText)}`);
  }

  const replicas = overrides.replicas !== undefined ? checkReplicas(overrides.replicas, '--replica')
    : env.PETAL_REPLICAS !== undefined && env.PETAL_REPLICAS.trim() !== ''
      ? checkReplicas(env.PETAL_REPLICAS.split(',').map((u) => u.trim()).filter(Boolean), 'PETAL_REPLICAS')
      : raw.replicas ?? [];
  if (replicas.length > 0 && store.startsWith('sqlite:')) {
    throw new ConfigError(file, `replicas: read replicas need a postgres:// store, not ${store}`);
  }

  const sites: SiteConfig[] = Object.entries(raw.sites ?? {}).map(([name, s]) => {
    const locales = s.locales ?? [s.defaultLocale ?? 'en'];
    const defaultLocale = s.defaultLocale ?? locales[0]!;
    if (!locales.includes(defaultLocale)) {
      throw new ConfigError(file, `sites.${name}.defaultLocale: ${defaultLocale} is not one of its locales (${locales.join(', ')})`);
    }
    return { name, locales, defaultLocale, ...(s.theme !== undefined ? { theme: s.theme } : {}) };
  });

  return {
    ...(file !== undefined ? { configFile: file } : {}),
    store,
    ...(replicas.length > 0 ? { replicas } : {}),
    modules,
    content: (raw.content ?? []).map((c) => abs(c, baseDir)),
    contentPolicy: raw.contentPolicy ?? 'seed', baseDir,
    port: overrides.port ?? envPort ?? raw.port ?? 8080,
    host: overrides.host ?? env.PETAL_HOST ?? raw.host ?? '0.0.0.0',
    namespace: raw.namespace ?? 'cms',
    ...(raw.baseUrl !== undefined ? { baseUrl: raw.baseUrl.replace(/\/$/, '') } : {}),
    contextPath: raw.contextPath ?? '',
    sites,
    corsOrigins: raw.cors?.origins ?? [],
    trustProxy: normalizeTrustProxy(raw.trustProxy),
    links: {
      contextPath: raw.contextPath ?? '',
      extension: raw.links?.extension ?? '',
      mappings: Object.entries(raw.links?.mappings ?? {}).map(([from, to]) => ({ from: from.replace(/\/$/, '') || '/', to }))
        .sort((a, b) => b.from.length - a.from.length),
      ...(raw.baseUrl !== undefined ? { baseUrl: raw.baseUrl.replace(/\/$/, '') } : {}),
    },
    logLevel: overrides.logLevel ?? env.PETAL_LOG_LEVEL ?? raw.logLevel ?? 'info',
    onUuidCollision: raw.onUuidCollision ?? 'new',
    nodeTypes: raw.nodeTypes ?? {},
    // The demo reads users and tokens from ./security of the working folder, where `petal user add`
    // writes them when there is no petal.yaml.
    security: loadSecurity(raw.security ?? {}, isDemo ? cwd : baseDir, file),
    ...(raw.cache?.maxBytes !== undefined ? { cache: { maxBytes: raw.cache.maxBytes } } : {}),
    ...(raw.cache?.subtreeMaxBytes !== undefined ? { subtreeCacheMaxBytes: raw.cache.subtreeMaxBytes } : {}),
    ...(raw.cache?.queryIndexMaxBytes !== undefined ? { queryIndexMaxBytes: raw.cache.queryIndexMaxBytes } : {}),
    ...(raw.cache?.queryIndexThreshold !== undefined ? { queryIndexThreshold: raw.cache.queryIndexThreshold } : {}),
    ...(raw.cache?.persistQueryIndex !== undefined ? { persistQueryIndex: raw.cache.persistQueryIndex } : {}),
    pagesOnAllEndpoints: raw.pages?.allEndpoints ?? false,
    ...(raw.publishing?.enabled === true ? { publishing: publishingOf(raw, file) } : {}),
    ...(raw.cacheControl !== undefined ? { cacheControl: raw.cacheControl } : {}),
    ...(raw.cdn !== undefined ? { cdn: { tagHeader: raw.cdn.tagHeader ?? DEFAULT_CDN.tagHeader, purge: raw.cdn.purge ?? DEFAULT_CDN.purge } } : {}),
    ...(raw.webhooks !== undefined ? { webhooks: raw.webhooks } : {}),
    ...(raw.metrics !== undefined ? { metrics: { enabled: raw.metrics.enabled ?? true, ...(raw.metrics.tokenEnv !== undefined ? { tokenEnv: raw.metrics.tokenEnv } : {}) } } : {}),
    ...(raw.rateLimit !== undefined ? { rateLimit: rateLimitOf(raw.rateLimit) } : {}),
    ...(raw.explorer !== undefined ? { explorer: raw.explorer } : {}),
    ...(raw.graphql !== undefined ? { graphql: raw.graphql } : {}),
    shop: {
      maxUnitsPerOrderLine: raw.shop?.maxUnitsPerOrderLine ?? DEFAULT_SHOP_CONFIG.maxUnitsPerOrderLine,
      rateLimit: { ...DEFAULT_SHOP_CONFIG.rateLimit, ...raw.shop?.rateLimit },
    },
    imaging: {
      transforms: raw.imaging?.transforms ?? 'presets',
      presets: raw.imaging?.presets ?? {},
      ...(raw.imaging?.cacheDir !== undefined ? { cacheDir: abs(raw.imaging.cacheDir, baseDir) } : {}),
      ...(raw.imaging?.cacheMaxBytes !== undefined ? { cacheMaxBytes: raw.imaging.cacheMaxBytes } : {}),
    },
    limits: checkLimits(raw.limits ?? {}, file),
    isDemo,
    ...(storeIsDefault ? { storeIsDefault: true as const } : {}),
  };
}

/** The preview must be reachable: a context path of its own, not inside the public one nor around it. */
function publishingOf(raw: RawConfig, file: string | undefined): PublishingConfig {
  const preview = raw.publishing?.preview?.contextPath ?? DEFAULT_PREVIEW_CONTEXT_PATH;
  const ctx = raw.contextPath ?? '';
  const inside = (a: string, b: string) => a === b || a.startsWith(`${b}/`);
  if (ctx !== '' && (inside(preview, ctx) || inside(ctx, preview))) {
    throw new ConfigError(file, `publishing.preview.contextPath (${preview}) must not be contextPath (${ctx}) nor contain it or lie inside it`);
  }
  if (ctx === '' && /^\/(\.|dam$|dam\/)/.test(preview)) {
    throw new ConfigError(file, `publishing.preview.contextPath (${preview}) would hide Petal's own routes (/.rest, /.imaging, /dam); choose another, such as /preview`);
  }
  return {
    previewContextPath: preview,
    previewRoles: raw.publishing?.preview?.roles ?? DEFAULT_PREVIEW_ROLES,
    scheduleIntervalMs: raw.publishing?.scheduleIntervalMs ?? 2_000,
    scheduleHorizonDays: raw.publishing?.scheduleHorizonDays ?? DEFAULT_SCHEDULE_HORIZON_DAYS,
  };
}

/** Headers cannot be given longer than the whole request they belong to (Node refuses to start). */
function checkLimits(limits: LimitsConfig, file: string | undefined): LimitsConfig {
  const headers = limits.headersTimeoutMs ?? DEFAULT_LIMITS.headersTimeoutMs;
  const request = limits.requestTimeoutMs ?? DEFAULT_LIMITS.requestTimeoutMs;
  if (headers > request) {
    throw new ConfigError(file, `limits.headersTimeoutMs (${headers}) must not exceed limits.requestTimeoutMs (${request}): the headers are part of the request`);
  }
  return limits;
}

/** Replica URLs from a flag or the environment (the file's are checked by its schema). */
function checkReplicas(urls: readonly string[], source: string): string[] {
  for (const url of urls) {
    if (!/^postgres(ql)?:\/\//.test(url)) throw new ConfigError(source, `expected a postgres:// URL, got ${JSON.stringify(url)}`);
  }
  return [...urls];
}

function normalizeStore(value: string | undefined, base: string): string {
  if (value === undefined) return `sqlite:${resolve(base, DEFAULT_STORE_FILE)}`;
  if (value.startsWith('postgres://') || value.startsWith('postgresql://')) return value;
  const path = value.startsWith('sqlite:') ? value.slice('sqlite:'.length) : value;
  if (path === ':memory:') return 'sqlite::memory:';
  if (path === '') throw new ConfigError(undefined, 'store: expected sqlite:<file> or a postgres:// URL');
  return `sqlite:${resolve(base, path)}`;
}

function rateLimitOf(raw: NonNullable<RawConfig['rateLimit']>): RateLimitConfig {
  const rules: Partial<Record<RateLimitClass, RateLimitRule>> = {};
  for (const k of ['deliveryReads', 'queries', 'shopWrites', 'logins', 'writes'] as const) {
    const rule = raw[k];
    if (rule !== undefined) rules[k] = rule;
  }
  return {
    enabled: raw.enabled ?? true, rules,
    ...(raw.redis !== undefined ? { redis: raw.redis } : {}),
    ...(raw.exempt !== undefined ? { exempt: raw.exempt } : {}),
    ...(raw.exemptSecretEnv !== undefined ? { exemptSecretEnv: raw.exemptSecretEnv } : {}),
  };
}
