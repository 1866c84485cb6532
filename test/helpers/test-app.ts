// Test helper: a Petal app over a fresh SQLite store (or, with PETAL_TEST_PG set, a fresh schema of that
// PostgreSQL database), with endpoint definitions written to a temporary light module and content
// imported through the real import pipeline.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { ShopConfig, SiteConfig } from '../../src/config/load-config.js';
import { EndpointRegistry } from '../../src/delivery/endpoint-registry.js';
import { loadDefinitions, type LoadResult } from '../../src/delivery/load-definitions.js';
import { buildApp } from '../../src/http/build-app.js';
import type { HttpTimeouts } from '../../src/http/limits.js';
import type { RateLimitOptions } from '../../src/http/rate-limits.js';
import type { PublishingOptions } from '../../src/http/content-state.js';
import type { CacheControlConfig, TagHeader } from '../../src/config/notify-config.js';
import { importPaths } from '../../src/ingest/run-import.js';
import { outputNameFor, type Namespace } from '../../src/model/names.js';
import { NodeTypeRegistry } from '../../src/repository/node-types.js';
import { Repository } from '../../src/repository/session.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import { PostgresStore } from '../../src/store/postgres/store.js';
import type { ContentStore } from '../../src/store/content-store.js';
import pg from 'pg';
import type { Logger } from 'pino';
import { createShopStore } from '../../src/main.js';
import { ShopService } from '../../src/shop/shop-api.js';
import type { ShopStore, ShopStoreHooks } from '../../src/shop/shop-store.js';
import { loadSecurity } from '../../src/config/security-config.js';
import { SecurityService } from '../../src/security/security-service.js';
import { ThemeRegistry } from '../../src/assets/themes.js';
import { PagesRegistry } from '../../src/delivery/pages/pages-registry.js';
import type { LinkConfig } from '../../src/config/link-config.js';
import { RenditionService, type RenditionServiceOptions } from '../../src/assets/render-rendition.js';
import type { TransformPolicy } from '../../src/assets/image-transform.js';
import type { MetricsOptions } from '../../src/metrics/metrics-route.js';
import { publishVersion } from '../../src/repository/writes.js';
import { DEFAULT_GRAPHQL_SETTINGS, GraphqlApi, type GraphqlSettings } from '../../src/graphql/graphql-api.js';

export interface TestAppOptions {
  /** Endpoint definitions by path below `restEndpoints/` (e.g. `delivery/pages_v1.yaml`). */
  readonly definitions?: Record<string, string>;
  /** Content export files by file name (e.g. `website.site.yaml`), as text. */
  readonly content?: Record<string, string>;
  /** Export files or folders to import as they are. */
  readonly contentPaths?: readonly string[];
  /** Light-modules folders to load as they are (instead of or besides `definitions`). */
  readonly moduleRoots?: readonly string[];
  readonly site?: SiteConfig;
  readonly namespace?: Namespace;
  /**
   * The `security:` section of petal.yaml. By default anonymous callers may GET everything and read
   * every workspace, so that tests of other rules need no credentials; security tests pass their own.
   */
  readonly security?: unknown;
  /** How links are written (context path, extension, mappings, base URL). */
  readonly links?: LinkConfig;
  /** Where Petal is mounted (petal.yaml `contextPath`); links follow unless `links` says otherwise. */
  readonly contextPath?: string;
  /** Rendition options besides the cache folder (a fresh one in the test's temporary folder). */
  readonly renditions?: Omit<RenditionServiceOptions, 'cacheDir'>;
  /** petal.yaml `imaging.transforms` and `imaging.presets` (default: presets only, none defined). */
  readonly imaging?: TransformPolicy;
  /** petal.yaml `limits.importMaxBytes` (the import route's body limit). */
  readonly importMaxBytes?: number;
  /** Light-module files besides endpoint definitions, by path below the test module (`templates/pages/a.yaml`). */
  readonly moduleFiles?: Record<string, string>;
  /** petal.yaml `pages.allEndpoints`. */
  readonly pagesOnAllEndpoints?: boolean;
  /** false: no subtree cache in the repository (tests that count store reads to tell renders from cache hits). */
  readonly subtreeCache?: false;
  /** The response cache budget (default as in production: on, 64 MiB). */
  readonly cache?: { readonly maxBytes: number };
  /** Nodes to publish (in this order) once the content is imported: `1.0` of each, `1.1` if listed twice. */
  readonly publish?: readonly { readonly workspace: string; readonly path: string; readonly by?: string }[];
  /** An open store to serve (instead of a fresh one); the caller closes it, `close()` does not. */
  readonly store?: ContentStore;
  /** Serve the deprecated /shop/v1 API, its records in the same database as the content. */
  readonly shop?: boolean;
  /** With `shop: true`: its limits (petal.yaml `shop:`; default ROOMY_SHOP, not production's). */
  readonly shopConfig?: ShopConfig;
  /** With `shop: true`: test hooks of the shop store (e.g. a pause inside POST /order's transaction). */
  readonly shopHooks?: ShopStoreHooks;
  /** The process logger (default: no logs). */
  readonly logger?: Logger;
  /** petal.yaml `cors.origins`. */
  readonly corsOrigins?: readonly string[];
  /** petal.yaml `trustProxy`. */
  readonly trustProxy?: boolean | number | readonly string[];
  /** Client timeouts (petal.yaml `limits:`). */
  readonly timeouts?: Partial<HttpTimeouts>;
  /** petal.yaml `publishing` (on when given): the preview's context path and roles. */
  readonly publishing?: PublishingOptions;
  /** petal.yaml `cacheControl` and `cdn.tagHeader`. */
  readonly cacheControl?: CacheControlConfig;
  readonly tagHeader?: TagHeader;
  /** petal.yaml `rateLimit` (default: no limits). */
  readonly rateLimit?: RateLimitOptions;
  /** Serve the API explorer page (off by default, as buildApp has it). */
  readonly explorer?: boolean;
  /** Prometheus metrics at /.metrics (default: none). */
  readonly metrics?: MetricsOptions;
  /** The GraphQL API at /.graphql over the content types of the modules (off by default); `true` = the defaults. */
  readonly graphql?: true | GraphqlSettings;
  /** With `graphql`: the GraphiQL page at /.graphiql. */
  readonly graphiql?: boolean;
  /** false: every request through Fastify's pipeline (cached-hits.ts off), to compare the two. */
  readonly cachedHitPath?: boolean;
}

/**
 * Shop limits high enough for tests that fill lines of up to 999 units and create many carts and orders
 * from one address; tests of the limits themselves pass DEFAULT_SHOP_CONFIG or their own.
 */
export const ROOMY_SHOP: ShopConfig = { maxUnitsPerOrderLine: 999, rateLimit: { cartsPerMinute: 1_000_000, ordersPerMinute: 1_000_000, clients: 1000 } };

export const OPEN_SECURITY = {
  roles: {
    'rest-anonymous': { uriPermissions: [{ path: '/.rest/delivery/*', permission: 'getAndPost' }] },
    anonymous: {
      uriPermissions: [{ path: '/*', permission: 'getAndPost' }],
      workspacePermissions: { '*': [{ path: '/', permission: 'read' }, { path: '/*', permission: 'read' }] },
    },
  },
};

export interface TestApp {
  readonly app: FastifyInstance;
  readonly store: ContentStore;
  /** The repository the app serves (its subtree cache and change feed). */
  readonly repository: Repository;
  readonly load: LoadResult;
  /** The endpoints the app serves (tests of reloads apply new loads to it). */
  readonly registry: EndpointRegistry;
  readonly dir: string;
  readonly security: SecurityService;
  readonly themes: ThemeRegistry;
  readonly renditions: RenditionService;
  /** With `shop: true`: the shop records' store. */
  readonly shopStore?: ShopStore;
  close(): Promise<void>;
}

export const TWO_LANGUAGE_SITE: SiteConfig = { name: 'fallback', locales: ['en', 'de'], defaultLocale: 'en' };

export async function createTestApp(o: TestAppOptions = {}): Promise<TestApp> {
  const dir = mkdtempSync(join(tmpdir(), 'petal-test-'));
  const modules = join(dir, 'light-modules');
  for (const [rel, text] of Object.entries(o.definitions ?? {})) {
    const file = join(modules, 'test-module', 'restEndpoints', rel);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
  for (const [rel, text] of Object.entries(o.moduleFiles ?? {})) {
    const file = join(modules, 'test-module', rel);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
  }
  const contentDir = join(dir, 'content');
  mkdirSync(contentDir, { recursive: true });
  for (const [name, text] of Object.entries(o.content ?? {})) writeFileSync(join(contentDir, name), text);

  const given = o.store;
  const { store, dispose } = given ? { store: given, dispose: async () => undefined } : await createTestStore(dir);
  const paths = [...(o.content ? [contentDir] : []), ...(o.contentPaths ?? [])];
  if (paths.length > 0) await importPaths(store, paths, { onUuidCollision: 'new', ...(o.publishing !== undefined ? { publishing: true } : {}) });
  for (const p of o.publish ?? []) {
    if ((await publishVersion(store, p.workspace, p.path, p.by ?? 'test')) === undefined) throw new Error(`publish: no node ${p.workspace}:${p.path}`);
  }

  const registry = new EndpointRegistry();
  const moduleRoots = [...(o.definitions || o.moduleFiles ? [modules] : []), ...(o.moduleRoots ?? [])];
  const load = await loadDefinitions(moduleRoots);
  registry.applyLoad(load);
  const repository = new Repository(store, new NodeTypeRegistry(), o.subtreeCache === false ? { maxBytes: 0 } : {});
  const site = o.site ?? TWO_LANGUAGE_SITE;
  const security = new SecurityService(loadSecurity(o.security ?? OPEN_SECURITY, dir));
  const themes = ThemeRegistry.load(moduleRoots);
  const pages = PagesRegistry.load(moduleRoots).registry;
  const renditions = new RenditionService(store.blobs, { ...o.renditions, cacheDir: join(dir, 'renditions') });
  let shopStore: ShopStore | undefined;
  if (o.shop) {
    shopStore = await createShopStore(store, o.shopHooks ? { hooks: o.shopHooks } : {});
    await shopStore.open();
  }
  const app = await buildApp({
    ...(shopStore ? { shop: new ShopService(repository, security, shopStore, o.shopConfig ?? ROOMY_SHOP) } : {}),
    registry, repository, security, site: () => site, outName: outputNameFor(o.namespace ?? 'cms'), logger: o.logger ?? false, moduleRoots,
    themes, renditions, theme: () => themes.themeFor(site), pages, pagesOnAllEndpoints: o.pagesOnAllEndpoints ?? false,
    ...(o.cache !== undefined ? { cache: o.cache } : {}),
    ...(o.imaging !== undefined ? { imaging: o.imaging } : {}),
    ...(o.explorer !== undefined ? { explorer: o.explorer } : {}),
    ...(o.corsOrigins !== undefined ? { corsOrigins: o.corsOrigins } : {}),
    ...(o.links !== undefined ? { links: o.links } : o.contextPath !== undefined ? { links: { contextPath: o.contextPath, extension: '', mappings: [] } } : {}),
    ...(o.contextPath !== undefined ? { contextPath: o.contextPath } : {}),
    ...(o.trustProxy !== undefined ? { trustProxy: o.trustProxy } : {}),
    ...(o.timeouts !== undefined ? { timeouts: o.timeouts } : {}),
    ...(o.importMaxBytes !== undefined ? { importMaxBytes: o.importMaxBytes } : {}),
    ...(o.publishing !== undefined ? { publishing: o.publishing } : {}),
    ...(o.cacheControl !== undefined ? { cacheControl: o.cacheControl } : {}),
    ...(o.tagHeader !== undefined ? { tagHeader: o.tagHeader } : {}),
    ...(o.rateLimit !== undefined ? { rateLimit: o.rateLimit } : {}),
    ...(o.metrics !== undefined ? { metrics: o.metrics } : {}),
    ...(o.cachedHitPath !== undefined ? { cachedHitPath: o.cachedHitPath } : {}),
    ...(o.graphql !== undefined ? { graphql: new GraphqlApi(moduleRoots, o.graphql === true ? DEFAULT_GRAPHQL_SETTINGS : o.graphql), graphiql: o.graphiql ?? false } : {}),
  });
  return {
    app, store, repository, load, registry, dir, security, themes, renditions, ...(shopStore ? { shopStore } : {}),
    close: async () => {
      await app.close();
      await shopStore?.close();
      if (!given) await store.close();
      await dispose();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The store of a test app: SQLite in `dir` (queries through the in-memory query index, the default;
 * PETAL_QUERY_INDEX_THRESHOLD=Infinity runs them through SQL instead, the second run of `npm test`),
 * or with PETAL_TEST_PG=postgres://… a fresh schema there.
 */
async function createTestStore(dir: string): Promise<{ store: ContentStore; dispose: () => Promise<void> }> {
  const pgUrl = process.env.PETAL_TEST_PG;
  if (pgUrl !== undefined && pgUrl !== '') {
    const schema = `petal_app_${randomBytes(6).toString('hex')}`;
    const dropSchema = async () => {
      const client = new pg.Client({ connectionString: pgUrl });
      await client.connect();
      try {
        await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      } finally {
        await client.end();
      }
    };
    const store = new PostgresStore({ url: pgUrl, schema });
    await store.open();
    return { store, dispose: dropSchema };
  }
  const threshold = process.env.PETAL_QUERY_INDEX_THRESHOLD;
  const store = new SqliteStore({
    file: join(dir, 'petal.db'),
    ...(threshold !== undefined ? { queryIndexThreshold: Number(threshold) } : {}),
  });
  await store.open();
  return { store, dispose: async () => undefined };
}

/** GET through Fastify's inject; returns status, headers and the parsed JSON body. */
export async function getJson(app: FastifyInstance, url: string, headers: Record<string, string> = {}) {
  const res = await app.inject({ method: 'GET', url, headers });
  let body: unknown;
  try {
    body = JSON.parse(res.body);
  } catch {
    body = res.body;
  }
  return { status: res.statusCode, headers: res.headers, body: body as any, raw: res.body };
}
