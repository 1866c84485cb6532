// Issue 18 points 1 and 2 through HTTP (SQLite, and PostgreSQL with PETAL_TEST_PG): the cache tag header
// of a delivery answer names what it rendered (the page, its areas and components, an inherited
// component, resolved references and assets, the workspace of a query, the endpoint), in the form
// petal.yaml asks for, from the cache as when rendered; too many keys fall back to the workspace; and
// Cache-Control per endpoint and by default.
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpointKey, idKey, nodeKey, touchedKey, workspaceKey } from '../../src/repository/dependencies.js';
import { MAX_TAG_HEADER_BYTES, tagsOf } from '../../src/http/cache-tags.js';
import { createTestApp, getJson, type TestApp } from '../helpers/test-app.js';
import { basic, hashOf, tempFolder } from '../security-http/helpers.js';

const REFS = fileURLToPath(new URL('../fixtures/references/', import.meta.url));
const DEMO = join(import.meta.dirname, '..', '..', 'demo');
const tagsIn = (header: unknown, sep = ' ') => String(header ?? '').split(sep).filter((t) => t !== '');

describe('cache tags', () => {
  let refs: TestApp;
  let demo: TestApp;
  beforeAll(async () => {
    refs = await createTestApp({
      contentPaths: [`${REFS}content`], moduleRoots: [`${REFS}light-modules`], tagHeader: 'both',
      site: { name: 'fallback', locales: ['en'], defaultLocale: 'en', theme: 'test-theme' },
    });
    demo = await createTestApp({ moduleRoots: [join(DEMO, 'light-modules')], contentPaths: [join(DEMO, 'content')], tagHeader: 'surrogate-key' });
  }, 180_000);
  afterAll(async () => {
    await refs?.close();
    await demo?.close();
  });

  it('name the node, its resolved references and assets, and the endpoint; the same from the cache', async () => {
    const first = await getJson(refs.app, '/.rest/delivery/tours/trips/alps');
    expect(first.status).toBe(200);
    const tags = tagsIn(first.headers['surrogate-key']);
    expect(tags).toContain(endpointKey('/delivery/tours'));
    expect(tags).toContain(nodeKey('tours', '/trips/alps'));
    expect(tags).toContain(idKey('category', 'c0000000-0000-4000-8000-000000000021')); // a resolved reference
    expect(tags).toContain(idKey('dam', 'd0000000-0000-4000-8000-000000000011')); // an asset
    expect(tagsIn(first.headers['cache-tag'], ',')).toEqual(tags);
    const cached = await getJson(refs.app, '/.rest/delivery/tours/trips/alps');
    expect(refs.app.responseCache!.stats().hits).toBeGreaterThan(0);
    expect(cached.headers['surrogate-key']).toBe(first.headers['surrogate-key']);
  });

  it('name a page, its areas and components and an inherited component (pages with inheritance)', async () => {
    const about = await getJson(demo.app, '/.rest/delivery/pages/v2/petal-gardens/about');
    expect(about.status).toBe(200);
    expect(about.headers['cache-tag']).toBeUndefined();
    const tags = tagsIn(about.headers['surrogate-key']);
    for (const path of ['/petal-gardens/about', '/petal-gardens/about/main', '/petal-gardens/about/main/0', '/petal-gardens/footer/0']) {
      expect(tags, path).toContain(nodeKey('website', path));
    }
  });

  it('tag a query with its workspace, and a missing node with its path', async () => {
    const list = await getJson(demo.app, '/.rest/delivery/plants/v1/?limit=2');
    expect(tagsIn(list.headers['surrogate-key'])).toContain(workspaceKey('plants'));
    const missing = await getJson(demo.app, '/.rest/delivery/pages/v1/petal-gardens/nothing-here');
    expect(missing.status).toBe(404);
    expect(tagsIn(missing.headers['surrogate-key'])).toContain(nodeKey('website', '/petal-gardens/nothing-here'));
  });

  it('fall back to the workspace keys when there are too many to list', () => {
    const many = Array.from({ length: 800 }, (_, i) => `n${String(i).padStart(11, '0')}`);
    const fallback = ['tws', 'wws'];
    expect(tagsOf(many, () => fallback, 'e1')).toBe('e1 tws wws');
    expect(tagsOf(many.slice(0, 10), () => fallback, 'e1')).toBe(`e1 ${many.slice(0, 10).join(' ')}`);
    expect(MAX_TAG_HEADER_BYTES).toBeLessThanOrEqual(16_384);
  });

  it('an answer reading more nodes than are listed is tagged by its workspace (and stays under the limit)', async () => {
    const wide = await createTestApp({
      definitions: { 'delivery/wide_v1.yaml': '$type: jcrDeliveryEndpoint_v2\nworkspace: website\ndepth: 1\n' },
      content: { 'website.wide.yaml': `'wide':\n  'jcr:primaryType': 'mgnl:page'\n${Array.from({ length: 600 }, (_, i) => `  'c${i}':\n    'jcr:primaryType': 'mgnl:contentNode'\n`).join('')}` },
      tagHeader: 'cache-tag',
    });
    try {
      const r = await getJson(wide.app, '/.rest/delivery/wide/v1/wide');
      expect(r.status).toBe(200);
      const header = String(r.headers['cache-tag']);
      expect(Buffer.byteLength(header)).toBeLessThanOrEqual(MAX_TAG_HEADER_BYTES);
      expect(header.split(',').sort()).toEqual([endpointKey('/delivery/wide/v1'), touchedKey('website'), workspaceKey('website')].sort());
    } finally {
      await wide.close();
    }
  });
});

describe('Cache-Control', () => {
  let t: TestApp;
  const PW = 'cache-control-password';
  beforeAll(async () => {
    t = await createTestApp({
      definitions: {
        'delivery/own_v1.yaml': '$type: jcrDeliveryEndpoint_v2\nworkspace: website\ncacheControl: {maxAge: 60, sMaxAge: 600, staleWhileRevalidate: 30, staleIfError: 86400}\n',
        'delivery/ttl_v1.yaml': '$type: jcrDeliveryEndpoint_v2\nworkspace: website\ntimeToLive: 45\n',
        'delivery/plain_v1.yaml': '$type: jcrDeliveryEndpoint_v2\nworkspace: website\n',
      },
      content: { 'website.home.yaml': "'home':\n  'jcr:primaryType': 'mgnl:page'\n" },
      cacheControl: { maxAge: 5, sMaxAge: 120 },
      security: {
        folder: tempFolder(),
        roles: { anonymous: { uriPermissions: [{ path: '/*', permission: 'get' }], workspacePermissions: { website: [{ path: '/', permission: 'read' }, { path: '/*', permission: 'read' }] } } },
        users: { ann: { passwordHash: await hashOf(PW), roles: ['anonymous'] } },
      },
    });
  });
  afterAll(async () => t?.close());

  it('comes from the endpoint, else from petal.yaml; timeToLive is max-age; signed-in answers are private', async () => {
    const cc = async (url: string, headers: Record<string, string> = {}) => (await getJson(t.app, url, headers)).headers['cache-control'];
    expect(await cc('/.rest/delivery/own/v1/home')).toBe('public, max-age=60, s-maxage=600, stale-while-revalidate=30, stale-if-error=86400');
    expect(await cc('/.rest/delivery/plain/v1/home')).toBe('public, max-age=5, s-maxage=120');
    // The endpoint's timeToLive beats petal.yaml's maxAge; the default's other directives still apply.
    expect(await cc('/.rest/delivery/ttl/v1/home')).toBe('public, max-age=45, s-maxage=120');
    const signedIn = { authorization: basic('ann', PW) };
    expect(await cc('/.rest/delivery/own/v1/home', signedIn)).toBe('private, max-age=60');
    expect(await cc('/.rest/delivery/plain/v1/home', signedIn)).toBe('private, max-age=5');
  });
});
