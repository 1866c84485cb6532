// Response caching through HTTP: strong ETags and 304 on every delivery method, Cache-Control once,
// Vary, hits that never touch the store, invalidation by imports and reloads, personalized endpoints
// and the byte budget of an app built with a small cache.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/http/build-app.js';
import { EndpointRegistry } from '../../src/delivery/endpoint-registry.js';
import { importPaths } from '../../src/ingest/run-import.js';
import { outputNameFor } from '../../src/model/names.js';
import { NodeTypeRegistry } from '../../src/repository/node-types.js';
import { Repository } from '../../src/repository/session.js';
import { createTestApp, getJson, TWO_LANGUAGE_SITE, type TestApp } from '../helpers/test-app.js';

function site(title: string): string {
  return `'site':
  'jcr:primaryType': 'mgnl:page'
  'jcr:uuid': '10000000-0000-4000-8000-000000000001'
  'title': '${title}'
  'title_de': 'Startseite'
  'a':
    'jcr:primaryType': 'mgnl:page'
    'jcr:uuid': '10000000-0000-4000-8000-000000000002'
    'title': 'A'
    'rank': 2
  'b':
    'jcr:primaryType': 'mgnl:page'
    'jcr:uuid': '10000000-0000-4000-8000-000000000003'
    'title': 'B'
    'rank': 1
`;
}

const DEFINITIONS: Record<string, string> = {
  'delivery/pages.yaml': '$type: jcrDeliveryEndpoint_v2\nworkspace: website\ndepth: 1\ntimeToLive: 60\n',
  'delivery/plain.yaml': '$type: jcrDeliveryEndpoint_v2\nworkspace: website\n',
  'delivery/personal.yaml': '$type: jcrDeliveryEndpoint_v2\nworkspace: website\npersonalized: true\ntimeToLive: 5\n',
};

const READ = '/.rest/delivery/pages/site';
const CHILDREN = '/.rest/delivery/pages/site@nodes';
const QUERY = '/.rest/delivery/pages?rank[gt]=0&orderBy=rank';

let t: TestApp;
let dir: string;

beforeAll(async () => {
  t = await createTestApp({ subtreeCache: false, definitions: DEFINITIONS, content: { 'website.site.yaml': site('Home') } });
  dir = mkdtempSync(join(tmpdir(), 'petal-cache-'));
});
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});
afterEach(() => {
  vi.restoreAllMocks();
});

async function reimport(title: string): Promise<void> {
  const file = join(dir, 'website.site.yaml');
  writeFileSync(file, site(title));
  await importPaths(t.store, [file], { onUuidCollision: 'replace' });
}

/** A GET over a real socket, for the header lines exactly as sent (inject merges repeated headers). */
async function rawGet(app: FastifyInstance, url: string, headers: Record<string, string> = {}): Promise<{ status: number; rawHeaders: string[] }> {
  if (!app.server.listening) await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port, path: url, headers, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, rawHeaders: res.rawHeaders }));
    }).on('error', reject);
  });
}

function count(res: { rawHeaders: string[] }, name: string): number {
  let n = 0;
  for (let i = 0; i < res.rawHeaders.length; i += 2) if (res.rawHeaders[i]!.toLowerCase() === name) n++;
  return n;
}

describe('ETag and If-None-Match', () => {
  it.each([['Read node', READ], ['Get children', CHILDREN], ['Query nodes', QUERY]])('%s: a strong ETag, stable across identical requests', async (_m, url) => {
    const first = await getJson(t.app, url);
    const second = await getJson(t.app, url);
    expect(first.status).toBe(200);
    expect(first.headers.etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(second.headers.etag).toBe(first.headers.etag);
    expect(second.raw).toBe(first.raw);
  });

  it('differs for different content', async () => {
    const en = await getJson(t.app, READ);
    const de = await getJson(t.app, `${READ}?lang=de`);
    const other = await getJson(t.app, '/.rest/delivery/pages/site/a');
    expect(de.raw).not.toBe(en.raw);
    expect(new Set([en.headers.etag, de.headers.etag, other.headers.etag]).size).toBe(3);
  });

  it.each([['Read node', READ], ['Get children', CHILDREN], ['Query nodes', QUERY]])('%s: 304 without a body on a matching If-None-Match, with the caching headers kept', async (_m, url) => {
    const ok = await getJson(t.app, url);
    const etag = String(ok.headers.etag);
    for (const inm of [etag, `W/${etag}`, `"nope", ${etag}`, `"a",W/${etag},"b"`, '*']) {
      const res = await t.app.inject({ method: 'GET', url, headers: { 'if-none-match': inm } });
      expect(res.statusCode, inm).toBe(304);
      expect(res.body, inm).toBe('');
      expect(res.headers.etag).toBe(etag);
      expect(res.headers['content-language']).toBe('en');
      expect(res.headers['cache-control']).toBe('max-age=60');
      expect(res.headers.vary).toBe('Accept-Language');
    }
    const miss = await getJson(t.app, url, { 'if-none-match': '"other", W/"other2"' });
    expect(miss.status).toBe(200);
    expect(miss.raw).toBe(ok.raw);
  });

  it('answers 304 on a first (uncached) request too', async () => {
    const etag = String((await getJson(t.app, '/.rest/delivery/plain/site')).headers.etag);
    t.app.responseCache!.clear();
    const res = await t.app.inject({ method: 'GET', url: '/.rest/delivery/plain/site', headers: { 'if-none-match': etag } });
    expect(res.statusCode).toBe(304);
  });

  it('never tags errors (a cached 404 is sent as any error is)', async () => {
    const a = await getJson(t.app, '/.rest/delivery/pages/missing');
    const b = await getJson(t.app, '/.rest/delivery/pages/missing');
    expect([a.status, b.status]).toEqual([404, 404]);
    expect(a.headers.etag).toBeUndefined();
    expect(a.headers['cache-control']).toBe('no-store');
    const bad = await getJson(t.app, '/.rest/delivery/pages?rank[gt]=x');
    expect(bad.status).toBe(400);
    expect(bad.headers.etag).toBeUndefined();
  });
});

describe('Cache-Control and Vary', () => {
  it('sends Cache-Control from timeToLive exactly once, on misses and on hits', async () => {
    t.app.responseCache!.clear();
    for (let i = 0; i < 2; i++) {
      const res = await rawGet(t.app, READ);
      expect(res.status).toBe(200);
      expect(count(res, 'cache-control')).toBe(1);
      expect(count(res, 'etag')).toBe(1);
      expect(count(res, 'vary')).toBe(1);
    }
  });

  it('sends no Cache-Control without timeToLive', async () => {
    const res = await getJson(t.app, '/.rest/delivery/plain/site');
    expect(res.headers['cache-control']).toBeUndefined();
    expect(res.headers.vary).toBe('Accept-Language');
  });

  it('keys on the language Accept-Language resolves to', async () => {
    const de = await getJson(t.app, READ, { 'accept-language': 'de-CH, en;q=0.5' });
    const en = await getJson(t.app, READ, { 'accept-language': 'fr, en;q=0.5' });
    expect(de.headers['content-language']).toBe('de');
    expect(de.body.title).toBe('Startseite');
    expect(en.headers['content-language']).toBe('en');
    expect(en.body.title).toBe('Home');
    const de2 = await getJson(t.app, READ, { 'accept-language': 'de' });
    expect(de2.raw).toBe(de.raw);
  });
});

describe('cache hits', () => {
  it('serve Read node and Get children without reading the store (but the generation)', async () => {
    for (const url of [READ, CHILDREN]) {
      await getJson(t.app, url);
      const subtree = vi.spyOn(t.store.reads, 'getSubtree');
      const again = await getJson(t.app, url);
      expect(again.status).toBe(200);
      expect(subtree).not.toHaveBeenCalled();
      vi.restoreAllMocks();
    }
  });

  it('serve Query nodes without querying, whatever the order of the parameters', async () => {
    const first = await getJson(t.app, '/.rest/delivery/pages?orderBy=rank&rank[gt]=0');
    expect(first.body.results.map((n: { title: string }) => n.title)).toEqual(['B', 'A']);
    const query = vi.spyOn(t.store.reads, 'query');
    const again = await getJson(t.app, '/.rest/delivery/pages?rank[gt]=0&orderBy=rank');
    expect(again.raw).toBe(first.raw);
    expect(query).not.toHaveBeenCalled();
  });

  it('an import invalidates: the next request renders the new content', async () => {
    const before = await getJson(t.app, READ);
    expect(before.body.title).toBe('Home');
    await reimport('Welcome');
    const subtree = vi.spyOn(t.store.reads, 'getSubtree');
    const after = await getJson(t.app, READ);
    expect(subtree).toHaveBeenCalled();
    expect(after.body.title).toBe('Welcome');
    expect(after.headers.etag).not.toBe(before.headers.etag);
    const stale = await t.app.inject({ method: 'GET', url: READ, headers: { 'if-none-match': String(before.headers.etag) } });
    expect(stale.statusCode).toBe(200);
    await reimport('Home');
    expect((await getJson(t.app, READ)).body.title).toBe('Home');
  });

  it('clear() drops every answer', async () => {
    await getJson(t.app, READ);
    t.app.responseCache!.clear();
    const subtree = vi.spyOn(t.store.reads, 'getSubtree');
    await getJson(t.app, READ);
    expect(subtree).toHaveBeenCalledTimes(1);
  });

  it('are used for personalized endpoints too, keyed by the trait values (none are defined here)', async () => {
    const url = '/.rest/delivery/personal/site';
    const first = await getJson(t.app, url);
    const subtree = vi.spyOn(t.store.reads, 'getSubtree');
    const second = await getJson(t.app, url);
    expect(subtree).toHaveBeenCalledTimes(0);
    expect(second.headers.etag).toBe(first.headers.etag);
    expect(second.headers['cache-control']).toBe('max-age=5');
    const res = await t.app.inject({ method: 'GET', url, headers: { 'if-none-match': String(first.headers.etag) } });
    expect(res.statusCode).toBe(304);
  });
});

describe('an app with its own cache budget', () => {
  let small: FastifyInstance;
  let tiny: FastifyInstance;
  let none: FastifyInstance;

  beforeAll(async () => {
    const base = {
      registry: new EndpointRegistry(t.load), repository: new Repository(t.store, new NodeTypeRegistry(), { maxBytes: 0 }), security: t.security,
      site: () => TWO_LANGUAGE_SITE, outName: outputNameFor('cms'), logger: false as const,
    };
    const bodyBytes = (await t.app.inject({ method: 'GET', url: '/.rest/delivery/plain/site/a' })).rawPayload.length;
    // Room for about two small answers (body, and about 2.5 KB of key, objects, headers and
    // dependency index: see ResponseCache), and bodies up to 1/8 of it.
    small = await buildApp({ ...base, cache: { maxBytes: Math.max(8 * bodyBytes, 3 * (bodyBytes + 2_500)) } });
    // Bodies up to the size of that small answer.
    tiny = await buildApp({ ...base, cache: { maxBytes: 8 * bodyBytes } });
    none = await buildApp({ ...base, cache: false });
  });
  afterAll(async () => {
    await small.close();
    await tiny.close();
    await none.close();
  });

  it('evicts the least recently used answers by bytes', async () => {
    const cache = small.responseCache!;
    const urls = ['/.rest/delivery/plain/site/a', '/.rest/delivery/plain/site/b', '/.rest/delivery/plain/site/a?x=1',
      '/.rest/delivery/plain/site/b?x=1', '/.rest/delivery/plain/site/a?x=2', '/.rest/delivery/plain/site/b?x=2'];
    for (const url of urls) expect((await small.inject({ method: 'GET', url })).statusCode).toBe(200);
    const s = cache.stats();
    expect(s.bytes).toBeLessThanOrEqual(s.maxBytes);
    expect(s.evictions).toBeGreaterThan(0);
    expect(s.entries).toBeLessThan(urls.length);
    const subtree = vi.spyOn(t.store.reads, 'getSubtree');
    await small.inject({ method: 'GET', url: urls[urls.length - 1]! }); // the newest is still there
    expect(subtree).not.toHaveBeenCalled();
    await small.inject({ method: 'GET', url: urls[0]! }); // the oldest was evicted
    expect(subtree).toHaveBeenCalledTimes(1);
  });

  it('does not keep bodies above an eighth of the budget', async () => {
    const cache = tiny.responseCache!;
    const res = await tiny.inject({ method: 'GET', url: '/.rest/delivery/pages/site' }); // depth 1: larger
    expect(res.rawPayload.length).toBeGreaterThan(cache.maxEntryBytes);
    expect(cache.stats().entries).toBe(0);
  });

  it('cache: false renders every request, with ETags and 304 still', async () => {
    expect(none.responseCache).toBeNull();
    const first = await none.inject({ method: 'GET', url: READ });
    const subtree = vi.spyOn(t.store.reads, 'getSubtree');
    const second = await none.inject({ method: 'GET', url: READ, headers: { 'if-none-match': String(first.headers.etag) } });
    expect(subtree).toHaveBeenCalledTimes(1);
    expect(second.statusCode).toBe(304);
    expect(second.headers['cache-control']).toBe('max-age=60');
    const raw = await rawGet(none, READ, { 'if-none-match': String(first.headers.etag) });
    expect(raw.status).toBe(304);
    expect(count(raw, 'cache-control')).toBe(1);
  });
});
