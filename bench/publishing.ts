// Issue 17: what publishing costs, in one run on one store: publishing a 1,000-node subtree (the
// first time, and again over its published copy), and reading the published state against reading the
// working content (the same pages and queries, public and preview URLs, the response cache off so that
// both read the store), with autocannon (8 connections, in this process) on a listening server, public
// and preview alternating. Usage:
//   node --import tsx bench/publishing.ts [sqlite | postgres://…] [rounds=10] [seconds=5] [--dist]
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rate } from './autocannon-rate.js';
import { benchStore, load } from './bench-store.js';
import { budget } from './smoke.js';
import type { ImportDocument, NodeDraft } from '../src/repository/import-document.js';
import { importDocuments, publishState } from '../src/repository/writes.js';

const { buildApp } = await load<typeof import('../src/http/build-app.js')>('http/build-app.js');
const { EndpointRegistry } = await load<typeof import('../src/delivery/endpoint-registry.js')>('delivery/endpoint-registry.js');
const { loadDefinitions } = await load<typeof import('../src/delivery/load-definitions.js')>('delivery/load-definitions.js');
const { outputNameFor } = await load<typeof import('../src/model/names.js')>('model/names.js');
const { NodeTypeRegistry } = await load<typeof import('../src/repository/node-types.js')>('repository/node-types.js');
const { takenAlongBy } = await load<typeof import('../src/repository/publish-rules.js')>('repository/publish-rules.js');
const { Repository } = await load<typeof import('../src/repository/session.js')>('repository/session.js');
const { loadSecurity } = await load<typeof import('../src/config/security-config.js')>('config/security-config.js');
const { SecurityService } = await load<typeof import('../src/security/security-service.js')>('security/security-service.js');

const [target = 'sqlite', roundsText = '10', secondsText = '5'] = process.argv.slice(2).filter((a) => a !== '--dist');
const rounds = Number(roundsText);
const seconds = Number(secondsText);
const OPEN = {
  roles: {
    anonymous: {
      uriPermissions: [{ path: '/*', permission: 'get' }],
      workspacePermissions: { website: [{ path: '/', permission: 'read' }, { path: '/*', permission: 'read' }] },
    },
  },
};
/** Pages of the published subtree: with its root and each page's area and component, 1,000 nodes. */
const PAGES = budget(333, 10);

function page(i: number, prefix: string): NodeDraft {
  return {
    name: `p${i}`, type: 'cms:page', mixins: [], properties: [['title', 'String', `${prefix} page ${i}`], ['rank', 'Long', i]],
    children: [{
      name: 'main', type: 'cms:area', mixins: [], properties: [],
      children: [{ name: 'c0', type: 'cms:component', mixins: [], properties: [['text', 'String', `Text of ${prefix} page ${i}, `.repeat(8)]], children: [] }],
    }],
  };
}
const site = (name: string, pages: number): NodeDraft => ({
  name, type: 'cms:page', mixins: [], properties: [['title', 'String', name]], children: Array.from({ length: pages }, (_, i) => page(i, name)),
});
const doc = (roots: NodeDraft[]): ImportDocument => ({ source: 'bench', workspace: 'website', parentPath: '/', roots, blobs: [] });


const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'petal-bench-publishing-'));
  const endpoints = join(dir, 'modules', 'bench', 'restEndpoints', 'delivery');
  mkdirSync(endpoints, { recursive: true });
  writeFileSync(join(endpoints, 'pages_v1.yaml'), '$type: jcrDeliveryEndpoint_v2\nworkspace: website\ndepth: 2\n');
  const { store, dispose } = await benchStore(target, dir, 'pub');
  try {
    // The subtree to publish, and 10,000 other working nodes around it.
    await importDocuments(store, [doc([site('site', PAGES), ...Array.from({ length: budget(10, 1) }, (_, i) => site(`other${i}`, PAGES))])], { onUuidCollision: 'new' });
    const types = new NodeTypeRegistry();
    const request = { workspace: 'website', path: '/site', recursive: true, takenAlong: takenAlongBy(types), by: 'bench' };
    const first = performance.now();
    const result = await publishState(store, request);
    const firstMs = performance.now() - first;
    const again: number[] = [];
    for (let i = 0; i < rounds; i++) {
      const t0 = performance.now();
      await publishState(store, request);
      again.push(performance.now() - t0);
    }
    const onePage: number[] = [];
    for (let i = 0; i < rounds; i++) {
      const t0 = performance.now();
      await publishState(store, { ...request, path: `/site/p${i}`, recursive: false });
      onePage.push(performance.now() - t0);
    }
    console.log(`store ${store.capabilities.name}: publish of ${result.nodes} nodes (recursive): first ${firstMs.toFixed(0)} ms, again median ${median(again).toFixed(0)} ms (${rounds} rounds); one page (non-recursive) median ${median(onePage).toFixed(1)} ms`);

    const registry = new EndpointRegistry();
    registry.applyLoad(await loadDefinitions([join(dir, 'modules')]));
    const security = new SecurityService(loadSecurity(OPEN, dir));
    const siteConfig = { name: 'fallback', locales: ['en'], defaultLocale: 'en' };
    const build = async () => buildApp({
      registry, repository: new Repository(store, types), security, site: () => siteConfig, outName: outputNameFor('cms'), logger: false,
      cache: false,
      // Anonymous may preview: the comparison is of reading, not of checking a password.
      publishing: { previewContextPath: '/preview', previewRoles: ['anonymous'] },
    });
    const uncached = await build();
    await uncached.listen({ port: 0, host: '127.0.0.1' });
    const pagesOf = (base: string) => Array.from({ length: 50 }, (_, i) => `${base}/.rest/delivery/pages/v1/site/p${(i * 7) % PAGES}`);
    const queriesOf = (base: string) => Array.from({ length: 50 }, (_, i) => `${base}/.rest/delivery/pages/v1?title=site%20page%20${(i * 7) % PAGES}&limit=5`);
    const rows: string[] = [];
    for (const [what, urls] of [['read node', pagesOf], ['query', queriesOf]] as const) {
      await rate(uncached, urls(''), 1); // warm both: the query index of each workspace, the statements
      await rate(uncached, urls('/preview'), 1);
      const pub: number[] = [];
      const work: number[] = [];
      for (let round = 0; round < 2; round++) {
        pub.push(await rate(uncached, urls(''), seconds));
        work.push(await rate(uncached, urls('/preview'), seconds));
      }
      const p = pub.reduce((a, b) => a + b) / pub.length;
      const w = work.reduce((a, b) => a + b) / work.length;
      rows.push(`${what}, no response cache: published ${p.toFixed(0)} req/s, working ${w.toFixed(0)} req/s, ratio ${(p / w).toFixed(2)}`);
    }
    await uncached.close();
    for (const r of rows) console.log(r);
  } finally {
    await store.close();
    await dispose();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
