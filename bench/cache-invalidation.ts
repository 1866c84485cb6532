// Hit ratio of the response cache under a mixed read load while small writes run: before (every
// write drops every cached answer, as Petal did until the change feed) and after (a write drops the
// answers that depend on what it changed). In process through Fastify's inject, on a fresh SQLite
// file: ratios, not throughput. Usage:
//   node --import tsx bench/cache-invalidation.ts [reads=20000] [readsPerWrite=50] [pages=500]
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../src/http/build-app.js';
import { EndpointRegistry } from '../src/delivery/endpoint-registry.js';
import { loadDefinitions } from '../src/delivery/load-definitions.js';
import { outputNameFor } from '../src/model/names.js';
import { NodeTypeRegistry } from '../src/repository/node-types.js';
import { Repository } from '../src/repository/session.js';
import { loadSecurity } from '../src/config/security-config.js';
import { SecurityService } from '../src/security/security-service.js';
import { SqliteStore } from '../src/store/sqlite/store.js';
import type { ImportDocument, NodeDraft } from '../src/repository/import-document.js';
import { importDocuments } from '../src/repository/writes.js';

const [reads = 20_000, readsPerWrite = 50, pageCount = 500] = process.argv.slice(2).map(Number);
const OPEN = {
  roles: {
    anonymous: {
      uriPermissions: [{ path: '/*', permission: 'get' }],
      workspacePermissions: { website: [{ path: '/', permission: 'read' }, { path: '/*', permission: 'read' }] },
    },
  },
};

function page(i: number, title: string): NodeDraft {
  const text = (name: string): NodeDraft => ({ name, type: 'cms:component', mixins: [], properties: [['text', 'String', `${name} of page ${i}`]], children: [] });
  return {
    name: `p${i}`, type: 'cms:page', mixins: [], properties: [['title', 'String', title]],
    children: [{ name: 'main', type: 'cms:area', mixins: [], properties: [], children: [text('c1'), text('c2'), text('c3')] }],
  };
}
const doc = (roots: NodeDraft[]): ImportDocument => ({ source: 'bench', workspace: 'website', parentPath: '/site', roots, blobs: [] });

/** A deterministic pseudo-random sequence (the same load for both modes). */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

async function run(mode: 'all' | 'keys'): Promise<{ ratio: number; hits: number; misses: number; ms: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'petal-bench-inval-'));
  const endpoints = join(dir, 'modules', 'bench', 'restEndpoints', 'delivery');
  mkdirSync(endpoints, { recursive: true });
  writeFileSync(join(endpoints, 'pages.yaml'), '$type: jcrDeliveryEndpoint_v2\nworkspace: website\ndepth: 2\n');
  const store = new SqliteStore({ file: join(dir, 'bench.db') });
  await store.open();
  await importDocuments(store, [doc(Array.from({ length: pageCount }, (_, i) => page(i, `Page ${i}`)))], { onUuidCollision: 'new' });
  const registry = new EndpointRegistry();
  registry.applyLoad(await loadDefinitions([join(dir, 'modules')]));
  const repository = new Repository(store, new NodeTypeRegistry());
  const site = { name: 'fallback', locales: ['en'], defaultLocale: 'en' };
  const app = await buildApp({
    registry, repository, security: new SecurityService(loadSecurity(OPEN, dir)), site: () => site,
    outName: outputNameFor('cms'), logger: false,
  });
  const cache = app.responseCache!;
  // Before the change feed: any committed write dropped every answer.
  if (mode === 'all') repository.changes.subscribe(() => cache.clear());
  const next = random(42);
  // Popular pages are read more (a skewed load, as real sites have).
  const pick = () => Math.floor(pageCount * next() ** 2);
  const started = Date.now();
  let writes = 0;
  for (let r = 0; r < reads; r++) {
    if (r > 0 && r % readsPerWrite === 0) {
      const i = Math.floor(pageCount * next());
      await importDocuments(store, [doc([page(i, `Page ${i} v${++writes}`)])], { onUuidCollision: 'replace' });
    }
    const x = next();
    const url = x < 0.8 ? `/.rest/delivery/pages/site/p${pick()}`
      : x < 0.95 ? `/.rest/delivery/pages/site/p${pick()}/main@nodes`
        : `/.rest/delivery/pages?title=Page%20${pick()}`;
    const res = await app.inject({ method: 'GET', url });
    if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
  }
  const ms = Date.now() - started;
  const { hits, misses } = cache.stats();
  await app.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
  return { ratio: hits / (hits + misses), hits, misses, ms };
}

console.log(`${reads} reads (80 % Read node, 15 % Get children, 5 % Query nodes over ${pageCount} pages, skewed), one small import every ${readsPerWrite} reads`);
for (const mode of ['all', 'keys'] as const) {
  const r = await run(mode);
  const label = mode === 'all' ? 'before: a write drops everything' : 'after: a write drops what depends on it';
  console.log(`${label.padEnd(42)} hit ratio ${(100 * r.ratio).toFixed(1)} % (${r.hits} hits, ${r.misses} misses), ${(r.ms / reads * 1000).toFixed(0)} µs per read`);
}
