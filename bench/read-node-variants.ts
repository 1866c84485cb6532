// Bench helper: one cached Read node measured under several app configurations in one run: a SQLite
// store with 500 pages (page, area, 3 components) under /site, one `pages_v1` endpoint (depth 2), open
// anonymous read, and an app per variant listening on its own port; 50 pages read in turn, rounds
// alternating between the variants (autocannon-rate.ts). Returns the mean req/s of each variant.
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { AppOptions } from '../src/http/build-app.js';
import type { NodeDraft } from '../src/repository/import-document.js';
import { rate } from './autocannon-rate.js';
import { load } from './bench-store.js';
import { budget } from './smoke.js';
import { importDocuments } from '../src/repository/writes.js';

const { buildApp } = await load<typeof import('../src/http/build-app.js')>('http/build-app.js');
const { EndpointRegistry } = await load<typeof import('../src/delivery/endpoint-registry.js')>('delivery/endpoint-registry.js');
const { loadDefinitions } = await load<typeof import('../src/delivery/load-definitions.js')>('delivery/load-definitions.js');
const { outputNameFor } = await load<typeof import('../src/model/names.js')>('model/names.js');
const { NodeTypeRegistry } = await load<typeof import('../src/repository/node-types.js')>('repository/node-types.js');
const { Repository } = await load<typeof import('../src/repository/session.js')>('repository/session.js');
const { loadSecurity } = await load<typeof import('../src/config/security-config.js')>('config/security-config.js');
const { SecurityService } = await load<typeof import('../src/security/security-service.js')>('security/security-service.js');
const { SqliteStore } = await load<typeof import('../src/store/sqlite/store.js')>('store/sqlite/store.js');

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

/** Pages under /site (the paths below read every seventh). */
const PAGES = budget(500, 50);

export const PATHS = Array.from({ length: budget(50, 5) }, (_, i) => `/.rest/delivery/pages/v1/site/p${i * 7}`);

/**
 * Req/s of each variant (its extra app options), `rounds` × `seconds` each; `inspect` sees the apps
 * before they close (a scrape, a check).
 */
export async function measureVariants(
  variants: Readonly<Record<string, Partial<AppOptions>>>, seconds: number, rounds: number,
  inspect?: (apps: ReadonlyMap<string, FastifyInstance>) => Promise<void>,
): Promise<Map<string, number>> {
  const dir = mkdtempSync(join(tmpdir(), 'petal-bench-variants-'));
  const endpoints = join(dir, 'modules', 'bench', 'restEndpoints', 'delivery');
  mkdirSync(endpoints, { recursive: true });
  writeFileSync(join(endpoints, 'pages_v1.yaml'), '$type: jcrDeliveryEndpoint_v2\nworkspace: website\ndepth: 2\n');
  const store = new SqliteStore({ file: join(dir, 'bench.db') });
  await store.open();
  const apps = new Map<string, FastifyInstance>();
  try {
    await importDocuments(store, [{ source: 'bench', workspace: 'website', parentPath: '/site', roots: Array.from({ length: PAGES }, (_, i) => page(i)), blobs: [] }], { onUuidCollision: 'new' });
    const registry = new EndpointRegistry();
    registry.applyLoad(await loadDefinitions([join(dir, 'modules')]));
    const security = new SecurityService(loadSecurity(OPEN, dir));
    const site = { name: 'fallback', locales: ['en'], defaultLocale: 'en' };
    for (const [name, extra] of Object.entries(variants)) {
      const app = await buildApp({
        registry, repository: new Repository(store, new NodeTypeRegistry()), security, site: () => site, outName: outputNameFor('cms'),
        logger: false, cache: { maxBytes: 64 * 1024 * 1024 }, ...extra,
      });
      await app.listen({ port: 0, host: '127.0.0.1' });
      await rate(app, PATHS, 1); // warm: statements, the caches, connections
      apps.set(name, app);
    }
    const sums = new Map<string, number>();
    for (let round = 0; round < rounds; round++) {
      for (const [name, app] of apps) sums.set(name, (sums.get(name) ?? 0) + await rate(app, PATHS, seconds));
    }
    await inspect?.(apps);
    return new Map([...sums].map(([name, sum]) => [name, sum / rounds]));
  } finally {
    for (const app of apps.values()) await app.close();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
