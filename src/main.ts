// Composition root: config → store → repository → endpoint registry → HTTP app. The only module that
// picks a store backend.
import { CHECKPOINT_INTERVAL_MS } from './store/sqlite/wal-checkpointer.js';
import type { FastifyInstance } from 'fastify';
import pino, { type Logger } from 'pino';
import { existsSync, mkdirSync } from 'node:fs';
import { DEFAULT_LIMITS, loadConfig, type LimitsConfig, type PetalConfig } from './config/load-config.js';
import type { HttpTimeouts } from './http/limits.js';
import { closeGracefully } from './http/graceful-close.js';
import type { RateLimitOptions } from './http/rate-limits.js';
import { ConfigError } from './config/config-error.js';
import { SecurityService } from './security/security-service.js';
import { pickSite } from './config/pick-site.js';
import { watchModules, type ModuleWatcher } from './config/watch-modules.js';
import { EndpointRegistry } from './delivery/endpoint-registry.js';
import type { EndpointDefinition } from './delivery/endpoint-definition.js';
import { PagesRegistry } from './delivery/pages/pages-registry.js';
import { loadDefinitions, type DefinitionProblem } from './delivery/load-definitions.js';
import { buildApp } from './http/build-app.js';
import type { MetricsOptions } from './metrics/metrics-route.js';
import type { ResponseCache } from './http/response-cache.js';
import { bootstrapContent } from './ingest/bootstrap.js';
import { sweepAbandonedSpoolFolders } from './ingest/spool-folder.js';
import { outputNameFor } from './model/names.js';
import { NodeTypeRegistry } from './repository/node-types.js';
import { Repository } from './repository/session.js';
import { ChangeFollower } from './repository/change-follower.js';
import type { ContentStore } from './store/content-store.js';
import type { SqliteStore } from './store/sqlite/store.js';
import { loadStore } from './store/load-store.js';
import type { PostgresStore } from './store/postgres/store.js';
import { ThemeRegistry } from './assets/themes.js';
import type { ShopStore, ShopStoreHooks } from './shop/shop-store.js';
import type { PurgeOptions } from './shop/purge-schedule.js';
import { ShopService } from './shop/shop-api.js';
import { RenditionService } from './assets/render-rendition.js';
import { PublishScheduler } from './publishing/scheduler.js';
import { publishingStore } from './publishing/publisher.js';
import { WebhookSender } from './notify/webhook-sender.js';
import { webhookTargets, WebhookSecretError, type WebhookTarget } from './notify/post-webhook.js';
import { takenAlongBy } from './repository/publish-rules.js';
import { defaultRenditionCacheDir, RenditionFolderError } from './assets/rendition-cache.js';
import { Purger } from './notify/purger.js';
import { endpointKey } from './repository/dependencies.js';
import { purgeSenders } from './notify/purge-targets.js';
import { explorerEnabled } from './http/routes/explorer.js';
import { GraphqlApi, graphqlSettingsOf } from './graphql/graphql-api.js';
import { graphiqlEnabled } from './http/routes/graphiql.js';

/** JSON lines for machines; readable lines on a terminal (unless PETAL_LOG_FORMAT=json). */
export function createLogger(level: string): Logger {
  const pretty = process.stdout.isTTY && process.env.PETAL_LOG_FORMAT !== 'json';
  return pretty
    ? pino({ level, transport: { target: 'pino-pretty', options: { translateTime: 'HH:MM:ss.l', ignore: 'pid,hostname' } } })
    // Written asynchronously: a line per request written synchronously is a write(2) per request,
    // which halved a loaded server's answers per second. Lines written while one write is in flight go
    // out together; pino flushes what is left synchronously when the process exits.
    : pino({ level }, pino.destination({ dest: 1, sync: false }));
}

/**
 * The shop records (carts, wishlists, orders) in the same database as the open content store. By the
 * backend's name, and loaded then: a server loads only the backend its store URL names (pg and its
 * driver are 3 MB of a SQLite server's heap).
 */
export async function createShopStore(store: ContentStore, options: { hooks?: ShopStoreHooks; purge?: PurgeOptions } = {}): Promise<ShopStore> {
  const name = store.capabilities.name;
  if (name === 'sqlite') {
    const { SqliteShopStore } = await import('./shop/sqlite-shop-store.js');
    return new SqliteShopStore({ file: (store as SqliteStore).databaseFile, ...options });
  }
  if (name === 'postgres') {
    const { PostgresShopStore } = await import('./shop/postgres-shop-store.js');
    return new PostgresShopStore({ pool: (store as PostgresStore).primaryPool, ...options });
  }
  throw new Error(`No shop store for the ${name} content store`);
}

/** The rendition service over its private cache folder; a folder that is not safe to use stops the start. */
function openRenditions(store: ContentStore, config: PetalConfig, log: Logger): RenditionService {
  try {
    return new RenditionService(store.blobs, {
      cacheDir: config.imaging?.cacheDir ?? defaultRenditionCacheDir(config.store),
      ...(config.imaging?.cacheMaxBytes !== undefined ? { maxBytes: config.imaging.cacheMaxBytes } : {}),
      onNotice: (message) => log.warn(message),
    });
  } catch (err) {
    if (err instanceof RenditionFolderError) throw new ConfigError(config.configFile, err.message);
    throw err;
  }
}

export function logProblems(log: Logger, problems: readonly DefinitionProblem[]): void {
  for (const p of problems) {
    const where = p.line !== undefined ? `${p.file}:${p.line}` : p.file;
    if (p.severity === 'error') log.error(`endpoint definition ${where}: ${p.reason}`);
    else log.warn(`endpoint definition ${where}: ${p.reason}`);
  }
}

/** The `content:` files: each imported once, again when changed (ingest/bootstrap.ts). */
async function bootstrap(store: ContentStore, config: PetalConfig, log: Logger): Promise<void> {
  const r = await bootstrapContent(store, config.content, {
    baseDir: config.baseDir ?? process.cwd(), policy: config.contentPolicy ?? 'seed', onUuidCollision: config.onUuidCollision,
    ...(config.publishing !== undefined ? { publishing: true } : {}),
  });
  if (r.unchanged > 0) log.info(`${r.unchanged} bootstrap files unchanged`);
  if (r.imported !== undefined) log.info(`imported ${r.imported.nodes} nodes from ${r.imported.files} new or changed files of ${config.content.join(', ')}`);
  for (const w of r.imported?.warnings ?? []) log.warn(w);
  for (const k of r.kept) {
    log.warn(`bootstrap: kept ${k.nodes.length} nodes changed since the last import of ${k.file}: ${k.nodes.join(', ')}`);
  }
}

export interface RunningServer {
  readonly app: FastifyInstance;
  readonly url: string;
  close(): Promise<void>;
}

export async function startServer(config: PetalConfig, log: Logger = createLogger(config.logLevel)): Promise<RunningServer> {
  const hooks = resolveWebhooks(config); // a missing secret stops the start before anything opens
  const metrics = metricsOptionsOf(config);
  // Only the backend the URL names is loaded: pg and its driver are 3 MB of a SQLite server's heap.
  const store = await loadStore(config.store, {
    ...(config.replicas !== undefined ? { replicas: config.replicas } : {}),
    ...(config.queryIndexMaxBytes !== undefined ? { queryIndexMaxBytes: config.queryIndexMaxBytes } : {}),
    ...(config.queryIndexThreshold !== undefined ? { queryIndexThreshold: config.queryIndexThreshold } : {}),
    ...(config.persistQueryIndex !== undefined ? { persistQueryIndex: config.persistQueryIndex } : {}),
    onNotice: (message) => log.warn(message),
    // A server writes while it serves: SQLite's checkpoints leave the main thread (wal-checkpointer.ts).
    walCheckpointIntervalMs: CHECKPOINT_INTERVAL_MS,
    // Full loads (or their absence) show what a write cost: one line per load, application, rebuild.
    onIndexEvent: (event) => log.info({ queryIndex: event.kind, workspace: event.workspace }, event.message),
  });
  // A purge target without its token is a configuration error: found before anything is opened.
  const senders = purgeSenders(config.cdn?.purge ?? []);
  await store.open();
  // The one follower of the change events (repository/change-follower.ts): the caches, the purger, the
  // webhook sender and the metrics get each batch from it. It polls (on PostgreSQL it is also woken by
  // the commit's notification) only when something must hear of changes that no request asks about.
  const changes = new ChangeFollower(store, {
    ...(store.capabilities.name === 'postgres' ? { wake: (poke: () => void) => (store as PostgresStore).onChange(poke) } : {}),
    onError: (err) => log.warn({ err }, 'reading the change events failed (read again from the same event)'),
  });
  const background = senders.length > 0 || hooks.length > 0;
  if (background) await changes.start();
  // Started before the `content:` import, whose changes the CDN must hear of too. Every instance purges
  // the keys of every change it reads (the CDNs take a repeated purge as one).
  const purger = senders.length > 0 ? new Purger(changes, senders, { log }) : undefined;
  purger?.start();
  // Decoded binaries of imports killed earlier (`petal import` or a start): tens of MB each.
  for (const f of await sweepAbandonedSpoolFolders()) log.info(`removed ${f}, left by an import that was killed`);
  if (config.content.length > 0) await bootstrap(store, config, log);
  // The import's events go to the purger now, before the caches and the metrics follow too.
  if (background) await changes.poll();
  const types = new NodeTypeRegistry(config.nodeTypes);
  const repository = new Repository(store, types, config.subtreeCacheMaxBytes !== undefined ? { maxBytes: config.subtreeCacheMaxBytes } : {}, changes);
  const registry = new EndpointRegistry();
  const initial = await loadDefinitions([...config.modules]);
  registry.applyLoad(initial);
  logProblems(log, initial.problems);

  let site = pickSite(config);
  const themes = ThemeRegistry.load(config.modules);
  const { registry: pages, problems: pageProblems } = PagesRegistry.load(config.modules);
  for (const p of pageProblems) log.warn(`${p.file}: ${p.reason}`);
  for (const p of themes.problems) log.warn(`theme ${p.file}: ${p.reason}`);
  for (const p of site.corsProblems ?? []) log.warn(`CORS: ${p}`);
  const renditions = openRenditions(store, config, log);
  const graphql = config.graphql?.enabled === false ? undefined : new GraphqlApi(config.modules, graphqlSettingsOf(config.graphql, process.env.NODE_ENV));
  for (const p of graphql?.current.problems ?? []) log.warn(p);
  let security: SecurityService;
  let responseCache: ResponseCache | null = null; // set once the app exists
  let watcher: ModuleWatcher | undefined;
  if (config.modules.length > 0) {
    watcher = watchModules([...config.modules], () => {
      loadDefinitions([...config.modules]).then((result) => {
        const kept = registry.applyLoad(result);
        site = pickSite(config);
        for (const p of site.corsProblems ?? []) log.warn(`CORS: ${p}`);
        responseCache?.clear(); // answers rendered with the previous definitions, site or theme
        // …and the CDN's copies of them: every answer carries its endpoint's key.
        purger?.purgeKeys(registry.list().map((d) => endpointKey(d.endpointPath)));
        for (const p of themes.reload(config.modules)) log.warn(`theme ${p.file}: ${p.reason}`);
        for (const p of pages.reload(config.modules)) log.warn(`${p.file}: ${p.reason}`);
        for (const p of graphql?.reload() ?? []) log.warn(p);
        purger?.purgeKeys(graphql !== undefined ? [endpointKey(graphql.current.endpoint.endpointPath)] : []);
        logProblems(log, result.problems);
        for (const f of kept) log.warn(`endpoint definition ${f}: still serving its last good version`);
        log.info(`endpoint definitions reloaded: ${registry.size} endpoints`);
        warnAboutAccess(registry, security, log);
      }, (err: unknown) => log.error({ err }, 'reloading endpoint definitions failed'));
    }, { onError: (err) => log.error({ err }, 'watching light modules failed') });
    await watcher.ready;
  }

  security = new SecurityService(config.security, { warn: (message) => log.warn(message) });
  const securityWatcher = watchSecurity(config, security, log);
  // A user or token changed right after the start (a deploy script's next step) must not go unseen.
  await securityWatcher?.ready;
  warnAboutAccess(registry, security, log);

  const shopStore = await createShopStore(store, {
    purge: {
      onPurged: (r) => { if (r.carts + r.wishlists > 0) log.info(`shop: purged ${r.carts} expired carts and ${r.wishlists} expired wishlists`); },
      onError: (err) => log.error({ err }, 'shop: purging expired carts and wishlists failed (retried in an hour)'),
    },
  });
  await shopStore.open();
  const shop = new ShopService(repository, security, shopStore, config.shop);
  // Every instance polls; the store lets exactly one run each due schedule (publishing/scheduler.ts),
  // with its author's rights as the security service has them when it runs (reloaded with its files).
  const rights = { guardFor: (user: string | undefined) => security.writeAccessOf(user) };
  const scheduler = config.publishing !== undefined
    ? new PublishScheduler(publishingStore(store), { takenAlong: takenAlongBy(types), rights, log, intervalMs: config.publishing.scheduleIntervalMs }) : undefined;

  const app = await buildApp({
    registry, repository, security, shop, site: () => site, outName: outputNameFor(config.namespace), moduleRoots: config.modules,
    contextPath: config.contextPath, corsOrigins: config.corsOrigins, links: config.links, trustProxy: config.trustProxy, logger: log,
    themes, renditions, ...(config.imaging !== undefined ? { imaging: config.imaging } : {}), theme: () => themes.themeFor(site), pages, pagesOnAllEndpoints: config.pagesOnAllEndpoints ?? false, ...(config.cache !== undefined ? { cache: config.cache } : {}),
    timeouts: timeoutsOf(config.limits ?? {}),
    importMaxBytes: config.limits?.importMaxBytes ?? DEFAULT_LIMITS.importMaxBytes,
    onUuidCollision: config.onUuidCollision,
    ...(config.publishing !== undefined ? { publishing: config.publishing } : {}),
    ...(config.cacheControl !== undefined ? { cacheControl: config.cacheControl } : {}),
    ...(config.cdn !== undefined ? { tagHeader: config.cdn.tagHeader } : {}),
    rateLimit: rateLimitOptionsOf(config),
    explorer: explorerEnabled(config.explorer, process.env.NODE_ENV),
    ...(graphql !== undefined ? { graphql, graphiql: graphiqlEnabled(config.graphql?.graphiql, process.env.NODE_ENV) } : {}),
    metrics,
  });
  responseCache = app.responseCache;
  const closeWatchers = async () => {
    await watcher?.close();
    await securityWatcher?.close();
  };
  const closeStores = async () => {
    await purger?.stop(); // after the last write it could miss, before the store goes
    await changes.stop();
    await shopStore.close();
    await store.close();
  };
  let address: string;
  try {
    address = await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    // What the start opened would keep the process alive, printing its error and serving nothing
    // (a port in use did): everything is closed before the error goes up.
    await closeWatchers();
    await app.close();
    await closeStores();
    if ((err as { code?: unknown }).code === 'EADDRINUSE') {
      throw new Error(`Port ${config.port} on ${config.host} is in use by another process: start with another --port (or port: in petal.yaml)`, { cause: err });
    }
    throw err;
  }
  scheduler?.start(); // once serving: a start that failed has run no schedule
  // Every instance runs one; a lease per webhook lets one at a time send it (webhook-sender.ts).
  const sender = hooks.length > 0 ? new WebhookSender(store, changes, hooks, { publishing: config.publishing !== undefined, log }) : undefined;
  await sender?.start();
  const shownHost = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  const port = new URL(address).port;
  const url = `http://${shownHost}:${port}${config.contextPath}`;
  const nodes = await store.reads.countNodes();
  log.info(`Petal serving ${registry.size} endpoints and ${nodes} nodes at ${url} (store ${config.store})`);
  for (const def of registry.list()) log.info(`  ${url}/.rest${def.endpointPath}  (${def.kind}, workspace ${def.workspace})`);
  if (graphql !== undefined) log.info(`  ${url}/.graphql  (GraphQL over ${graphql.current.built.types.size} content types)`);

  return {
    app,
    url,
    close: async () => {
      await closeWatchers();
      await closeGracefully(app, config.limits?.shutdownGraceMs ?? DEFAULT_LIMITS.shutdownGraceMs);
      await scheduler?.stop();
      await sender?.stop(); // lets a delivery in flight end and record its outcome
      await closeStores();
    },
  };
}

/** petal.yaml `rateLimit:` (absent: the defaults of rate-limits.ts) with its exemption secret read; a variable named but not set stops the start. */
export function rateLimitOptionsOf(config: PetalConfig, env: NodeJS.ProcessEnv = process.env): RateLimitOptions {
  const { exemptSecretEnv, ...rest } = config.rateLimit ?? { enabled: true, rules: {} };
  if (exemptSecretEnv === undefined || !rest.enabled) return rest;
  const secret = env[exemptSecretEnv];
  if (secret === undefined || secret.length < 16) {
    throw new ConfigError(config.configFile, `rateLimit: the environment variable ${exemptSecretEnv} (its exemptSecretEnv) is ${secret === undefined ? 'not set' : 'shorter than 16 characters'}`);
  }
  return { ...rest, exemptSecret: secret };
}

/** petal.yaml `metrics:` with its token read; a token variable named but not set stops the start. */
export function metricsOptionsOf(config: PetalConfig, env: NodeJS.ProcessEnv = process.env): MetricsOptions {
  const m = config.metrics ?? { enabled: true };
  if (!m.enabled || m.tokenEnv === undefined) return { enabled: m.enabled };
  const token = env[m.tokenEnv];
  if (token === undefined || token === '') {
    throw new ConfigError(config.configFile, `metrics: the environment variable ${m.tokenEnv} (its tokenEnv) is not set`);
  }
  return { enabled: true, token };
}

function resolveWebhooks(config: PetalConfig): WebhookTarget[] {
  try {
    return webhookTargets(config.webhooks ?? []);
  } catch (err) {
    if (err instanceof WebhookSecretError) throw new ConfigError(config.configFile, err.message);
    throw err;
  }
}

function timeoutsOf(l: LimitsConfig): Partial<HttpTimeouts> {
  return {
    ...(l.headersTimeoutMs !== undefined ? { headersTimeoutMs: l.headersTimeoutMs } : {}),
    ...(l.requestTimeoutMs !== undefined ? { requestTimeoutMs: l.requestTimeoutMs } : {}),
    ...(l.keepAliveTimeoutMs !== undefined ? { keepAliveTimeoutMs: l.keepAliveTimeoutMs } : {}),
  };
}

/** Security warnings at start and on reload: bypassed ACLs, and endpoints anonymous callers cannot read. */
function warnAboutAccess(registry: EndpointRegistry, security: SecurityService, log: Logger): void {
  for (const def of registry.list()) {
    if (def.bypassWorkspaceAcls) {
      log.warn(`endpoint /.rest${def.endpointPath} sets bypassWorkspaceAcls: workspace permissions are not checked for it (URI permissions still are)`);
    } else if (security.anonymousReadsNothing(def.workspace)) {
      log.info(`endpoint /.rest${def.endpointPath}: anonymous callers may read nothing of workspace ${def.workspace}; grant read in security.roles.anonymous.workspacePermissions to publish it`);
    }
    if (def.references.some((r) => r.resolver.kind === 'assetReferenceResolver') && security.anonymousReadsNothing('dam')) {
      log.info(`endpoint /.rest${def.endpointPath} links assets, but anonymous callers may read nothing of workspace dam: its /dam and /.imaging links answer 404 to them until read is granted`);
    }
  }
  for (const w of anonymousAssetUriWarnings(registry.list(), security)) log.warn(w);
}

/**
 * A configured `anonymous` role replaces the built-in one, which lets anyone GET `/dam/*` and
 * `/.imaging/*`: when endpoints link assets and those URLs are now denied to anonymous callers, every
 * image of their answers is a 401 (a common slip when copying a security example).
 */
export function anonymousAssetUriWarnings(definitions: readonly EndpointDefinition[], security: SecurityService): string[] {
  const linking = definitions.filter((d) => d.references.some((r) => r.resolver.kind === 'assetReferenceResolver' || r.resolver.kind === 'richTextLinkReferenceResolver'));
  if (linking.length === 0) return [];
  const uri = security.uriAccess(security.anonymous());
  const denied = ['/dam/*', '/.imaging/*'].filter((p) => uri.decide(p.replace('*', 'x'), 'GET') === 'deny');
  if (denied.length === 0) return [];
  const names = linking.map((d) => `/.rest${d.endpointPath}`).join(', ');
  return [`anonymous callers may not GET ${denied.join(' or ')} (a configured role replaces the built-in one of the same name, which allowed it), `
    + `but ${names} link assets there: those links answer 401 to them. Add { path: ${denied[0]}, permission: get } to the uriPermissions of security.roles.anonymous (or of another anonymous role) if assets are public.`];
}

/** Reloads users, groups, roles and tokens when petal.yaml or the security folder changes. */
function watchSecurity(config: PetalConfig, security: SecurityService, log: Logger): ModuleWatcher | undefined {
  // The folder is created (owner-only) so that users added later with `petal user add` are seen.
  try {
    mkdirSync(config.security.folder, { recursive: true, mode: 0o700 });
  } catch {
    // read-only location: watch what exists
  }
  const roots = [config.configFile, config.security.folder].filter((p): p is string => p !== undefined && existsSync(p));
  if (roots.length === 0) return undefined;
  return watchModules(roots, () => {
    try {
      // The same resolution as at start: the demo keeps reading ./security of the working folder.
      const fresh = config.isDemo ? loadConfig({}) : loadConfig({ ...(config.configFile !== undefined ? { config: config.configFile } : {}) });
      security.reload(fresh.security);
      log.info('security configuration reloaded');
    } catch (err) {
      log.error(`security configuration not reloaded (the previous one stays): ${err instanceof Error ? err.message : String(err)}`);
    }
  }, { onError: (err) => log.error({ err }, 'watching the security configuration failed') });
}
