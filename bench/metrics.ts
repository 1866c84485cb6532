// Issue 19: what Prometheus metrics cost on the cached Read node, in one run: the same app without
// and with `metrics` (the onResponse hook: a counter and a histogram per request), 50 pages (depth 2)
// read in turn with autocannon, rounds alternating; a scrape at the end shows the requests were counted.
// Usage: node --import tsx bench/metrics.ts [seconds=5] [rounds=2] [--dist]
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
const TOKEN = 'bench-scrape-token';
const OPEN = {
  roles: {
    anonymous: {
      uriPermissions: [{ path: '/*', permission: 'get' }],
      workspacePermissions: { website: [{ path: '/', permission: 'read' }, { path: '/*', permission: 'read' }] },
    },
  },
};

function page(i: number): NodeDraft {
  const component = (n: number): NodeDraft => ({ name: `c${n}`, type: 'cms:component', mixins: [], properties: [['text', 'String', `Text ${n} of page ${i}`]], children: [] });
  return {
    name: `p${i}`, type: 'cms:page', mixins: [], properties: [['title', 'String', `Page ${i}`]],
    children: [{ name: 'main', type: 'cms:area', mixins: [], properties: [], children: [component(0), component(1), component(2)] }],
  };
}

const dir = mkdtempSync(join(tmpdir(), 'petal-bench-metrics-'));
const endpoints = join(dir, 'modules', 'bench', 'restEndpoints', 'delivery');
mkdirSync(endpoints, { recursive: true });
writeFileSync(join(endpoints, 'pages_v1.yaml'), '$type: jcrDeliveryEndpoint_v2\nworkspace: website\ndepth: 2\n');
const store = new SqliteStore({ file: join(dir, 'bench.db') });
await store.open();
try {
  await store.importDocuments([{ source: 'bench', workspace: 'website', parentPath: '/site', roots: Array.from({ length: 500 }, (_, i) => page(i)), blobs: [] }], { onUuidCollision: 'new' });
  const registry = new EndpointRegistry();
  registry.applyLoad(await loadDefinitions([join(dir, 'modules')]));
  const security = new SecurityService(loadSecurity(OPEN, dir));
  const site = { name: 'fallback', locales: ['en'], defaultLocale: 'en' };
  const paths = Array.from({ length: 50 }, (_, i) => `/.rest/delivery/pages/v1/site/p${i * 7}`);
  const modes = ['off', 'on'] as const;
  const apps = new Map<typeof modes[number], Awaited<ReturnType<typeof buildApp>>>();
  for (const mode of modes) {
    const app = await buildApp({
      registry, repository: new Repository(store, new NodeTypeRegistry()), security, site: () => site, outName: outputNameFor('cms'),
      logger: false, cache: { maxBytes: 64 * 1024 * 1024 }, ...(mode === 'on' ? { metrics: { enabled: true, token: TOKEN } } : {}),
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    await rate(app, paths, 1); // warm: statements, the cache
    apps.set(mode, app);
  }
  const sums = { off: 0, on: 0 };
  for (let round = 0; round < rounds; round++) {
    for (const mode of modes) sums[mode] += await rate(apps.get(mode)!, paths, seconds);
  }
  const off = sums.off / rounds;
  const on = sums.on / rounds;
  console.log(`read node, cached: without metrics ${off.toFixed(0)} req/s, with metrics ${on.toFixed(0)} req/s, ratio ${(on / off).toFixed(3)}`);
  const scraped = await apps.get('on')!.inject({ method: 'GET', url: '/.metrics', headers: { authorization: `Bearer ${TOKEN}` } });
  const counted = scraped.body.split('\n').find((l) => l.startsWith('petal_http_requests_total{route="delivery_read",method="GET",status="200"}'));
  console.log(`scrape: ${scraped.statusCode}, ${counted ?? 'no delivery_read series'}`);
  for (const app of apps.values()) await app.close();
} finally {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}
