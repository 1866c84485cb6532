// Issue 19: what rate limits cost on a cached Read node, in one run: the same app without limits, with
// counters in memory and with counters in Redis (127.0.0.1:6379), limits high enough never to refuse;
// 50 pages read in turn with autocannon (one client address), rounds alternating.
// Usage: node --import tsx bench/rate-limits.ts [seconds=5] [rounds=2] [--dist]
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RateLimitOptions } from '../src/http/rate-limits.js';
import type { NodeDraft } from '../src/store/rows.js';
import { rate } from './autocannon-rate.js';
import { load } from './bench-store.js';

const { buildApp } = await load<typeof import('../src/http/build-app.js')>('http/build-app.js');
const { EndpointRegistry } = await load<typeof import('../src/delivery/endpoint-registry.js')>('delivery/endpoint-registry.js');
const { loadDefinitions } = await load<typeof import('../src/delivery/load-definitions.js')>('delivery/load-definitions.js');
const { outputNameFor } = await load<typeof import('../src/repository/names.js')>('repository/names.js');
const { NodeTypeRegistry } = await load<typeof import('../src/repository/node-types.js')>('repository/node-types.js');
const { Repository } = await load<typeof import('../src/repository/session.js')>('repository/session.js');
const { loadSecurity } = await load<typeof import('../src/security/security-config.js')>('security/security-config.js');
const { SecurityService } = await load<typeof import('../src/security/security-service.js')>('security/security-service.js');
const { SqliteStore } = await load<typeof import('../src/store/sqlite/sqlite-store.js')>('store/sqlite/sqlite-store.js');

const [seconds = 5, rounds = 2] = process.argv.slice(2).filter((a) => a !== '--dist').map(Number);
const OPEN = {
  roles: {
    anonymous: {
      uriPermissions: [{ path: '/*', permission: 'get' }],
      workspacePermissions: { website: [{ path: '/', permission: 'read' }, { path: '/*', permission: 'read' }] },
    },
  },
};
const HIGH = { deliveryReads: { max: 1_000_000_000, windowMs: 86_400_000 } };
const VARIANTS: Record<string, RateLimitOptions | undefined> = {
  off: undefined,
  memory: { enabled: true, rules: HIGH },
  redis: { enabled: true, redis: 'redis://127.0.0.1:6379', keyPrefix: `petal-rl-bench-${process.pid}:`, rules: HIGH },
};

function page(i: number): NodeDraft {
  return { name: `p${i}`, type: 'cms:page', mixins: [], properties: [['title', 'String', `Page ${i}`]], children: [] };
}

const dir = mkdtempSync(join(tmpdir(), 'petal-bench-rate-'));
const endpoints = join(dir, 'modules', 'bench', 'restEndpoints', 'delivery');
mkdirSync(endpoints, { recursive: true });
writeFileSync(join(endpoints, 'pages_v1.yaml'), '$type: jcrDeliveryEndpoint_v2\nworkspace: website\ndepth: 2\n');
const store = new SqliteStore({ file: join(dir, 'bench.db') });
await store.open();
try {
  await store.importDocuments([{ source: 'bench', workspace: 'website', parentPath: '/site', roots: Array.from({ length: 50 }, (_, i) => page(i)), blobs: [] }], { onUuidCollision: 'new' });
  const registry = new EndpointRegistry();
  registry.applyLoad(await loadDefinitions([join(dir, 'modules')]));
  const security = new SecurityService(loadSecurity(OPEN, dir));
  const site = { name: 'fallback', locales: ['en'], defaultLocale: 'en' };
  const paths = Array.from({ length: 50 }, (_, i) => `/.rest/delivery/pages/v1/site/p${i}`);
  const apps = new Map<string, Awaited<ReturnType<typeof buildApp>>>();
  for (const [name, rateLimit] of Object.entries(VARIANTS)) {
    const app = await buildApp({
      registry, repository: new Repository(store, new NodeTypeRegistry()), security, site: () => site, outName: outputNameFor('cms'),
      logger: false, cache: { maxBytes: 64 * 1024 * 1024 }, ...(rateLimit !== undefined ? { rateLimit } : {}),
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    await rate(app, paths, 1); // warm: statements, the cache, the Redis connection
    apps.set(name, app);
  }
  const sums = new Map<string, number>();
  for (let round = 0; round < rounds; round++) {
    for (const [name, app] of apps) sums.set(name, (sums.get(name) ?? 0) + await rate(app, paths, seconds));
  }
  const off = sums.get('off')! / rounds;
  for (const [name, sum] of sums) console.log(`read node, cached, limits ${name}: ${(sum / rounds).toFixed(0)} req/s (${(sum / rounds / off).toFixed(2)} of off)`);
  for (const app of apps.values()) await app.close();
} finally {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}
