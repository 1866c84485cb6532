// GET /.metrics: Prometheus text for a role with `get` on /.metrics or for the scrape token of
// petal.yaml `metrics.tokenEnv`, refused to anyone else; requests counted by kind of route (never by
// URL), response cache hits and misses, and the change events written since the app started.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { basic, hashOf } from '../security-http/helpers.js';
import { importDocuments } from '../../src/repository/writes.js';

const PW = 'metrics-suite-password';
const TOKEN = 'scrape-token-7f3a';

const WEBSITE = `
'site':
  'jcr:primaryType': 'mgnl:page'
  'jcr:uuid': '61000000-0000-4000-8000-000000000001'
  'title': 'Home'
  'about':
    'jcr:primaryType': 'mgnl:page'
    'jcr:uuid': '61000000-0000-4000-8000-000000000002'
    'title': 'About'
`;

function security(hash: string) {
  return {
    roles: {
      anonymous: {
        uriPermissions: [{ path: '/.rest/*', permission: 'get' }],
        workspacePermissions: { website: [{ path: '/', permission: 'read' }, { path: '/*', permission: 'read' }] },
      },
      scraper: { uriPermissions: [{ path: '/.metrics', permission: 'get' }] },
      editor: { uriPermissions: [{ path: '/.rest/*', permission: 'get' }] },
    },
    users: {
      prometheus: { passwordHash: hash, roles: ['scraper'] },
      ed: { passwordHash: hash, roles: ['editor'] },
    },
  };
}

const DEFINITIONS = { 'delivery/pages.yaml': '$type: jcrDeliveryEndpoint_v2\nworkspace: website\ndepth: 1\n' };
const scraper = { authorization: basic('prometheus', PW) };

/** The value of the sample `name{labels}` (labels as written by prom-client), or undefined. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(series + ' '));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

async function scrape(t: TestApp, headers: Record<string, string> = scraper): Promise<string> {
  const res = await t.app.inject({ method: 'GET', url: '/.metrics', headers });
  expect(res.statusCode, res.body).toBe(200);
  return res.body;
}

describe('/.metrics, enabled with a scrape token', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      definitions: DEFINITIONS, content: { 'website.site.yaml': WEBSITE },
      security: security(await hashOf(PW)), metrics: { enabled: true, token: TOKEN },
    });
  });
  afterAll(async () => t?.close());

  it('counts requests by kind of route, method and status, and a response cache hit', async () => {
    const before = await scrape(t);
    const hits0 = sample(before, 'petal_response_cache_hits_total') ?? 0;
    const misses0 = sample(before, 'petal_response_cache_misses_total') ?? 0;
    for (let i = 0; i < 2; i++) {
      expect((await t.app.inject({ method: 'GET', url: '/.rest/delivery/pages/site/about' })).statusCode).toBe(200);
    }
    expect((await t.app.inject({ method: 'GET', url: '/.rest/delivery/pages/site@nodes' })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/.rest/delivery/pages?limit=1' })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/.rest/delivery/nowhere/x' })).statusCode).toBe(404);

    const text = await scrape(t);
    expect(sample(text, 'petal_http_requests_total{route="delivery_read",method="GET",status="200"}')).toBe(2);
    expect(sample(text, 'petal_http_requests_total{route="delivery_children",method="GET",status="200"}')).toBe(1);
    expect(sample(text, 'petal_http_requests_total{route="delivery_query",method="GET",status="200"}')).toBe(1);
    expect(sample(text, 'petal_http_requests_total{route="other",method="GET",status="404"}')).toBe(1);
    expect(sample(text, 'petal_http_requests_total{route="ops",method="GET",status="200"}')).toBe(1); // the first scrape
    expect(sample(text, 'petal_http_request_duration_seconds_count{route="delivery_read",method="GET"}')).toBe(2);
    expect(sample(text, 'petal_http_request_duration_seconds_bucket{route="delivery_read",method="GET",le="+Inf"}')).toBe(2);
    expect(sample(text, 'petal_http_request_duration_seconds_bucket{route="delivery_read",method="GET",le="10"}')).toBe(2);
    expect(sample(text, 'petal_http_request_duration_seconds_sum{route="delivery_read",method="GET"}')).toBeGreaterThan(0);
    expect(text).toContain('# TYPE petal_http_request_duration_seconds histogram');
    // The second read of the page was the cache hit; the three other answers were misses.
    expect(sample(text, 'petal_response_cache_hits_total')).toBe(hits0 + 1);
    expect(sample(text, 'petal_response_cache_misses_total')).toBe(misses0 + 3);
    expect(sample(text, 'petal_response_cache_bytes')).toBeGreaterThan(0);
    expect(sample(text, 'process_cpu_user_seconds_total')).toBeGreaterThanOrEqual(0);
    // No URL ever becomes a label value.
    expect(text).not.toContain('/site');
    expect(text).not.toContain('nowhere');
  });

  it('counts change events written after the start, by kind, and shows the newest sequence', async () => {
    const before = await scrape(t);
    expect(sample(before, 'petal_changes_total{kind="import"}')).toBeUndefined();
    const seq0 = sample(before, 'petal_change_sequence')!;
    await importDocuments(t.store, [{
      source: 'metrics-test', workspace: 'website', parentPath: '/site', blobs: [],
      roots: [{ name: 'news', type: 'mgnl:page', mixins: [], properties: [['title', 'String', 'News']], children: [] }],
    }], { onUuidCollision: 'new' });
    const text = await scrape(t);
    expect(sample(text, 'petal_changes_total{kind="import"}')).toBe(1);
    expect(sample(text, 'petal_change_sequence')).toBeGreaterThan(seq0);
  });

  it('shows the caches and the store: subtree cache, query index (SQLite), pool connections (PostgreSQL)', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/.rest/delivery/pages?title=Home' })).statusCode).toBe(200);
    const text = await scrape(t);
    expect(sample(text, 'petal_subtree_cache_entries')).toBeGreaterThanOrEqual(0);
    expect(text).toContain('# TYPE petal_rendition_cache_produced_total counter');
    if (process.env.PETAL_TEST_PG !== undefined) {
      expect(sample(text, 'petal_store_pool_connections{state="total"}')).toBeGreaterThan(0);
    } else {
      expect(sample(text, 'petal_store_pool_connections{state="total"}')).toBeUndefined();
      expect(sample(text, 'petal_store_statement_cache_bytes')).toBeGreaterThanOrEqual(0);
    }
  });

  it('refuses anonymous callers (401) and roles without get on /.metrics (403)', async () => {
    const anonymous = await t.app.inject({ method: 'GET', url: '/.metrics' });
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.headers['www-authenticate']).toContain('Basic');
    expect(anonymous.body).not.toContain('petal_');
    const ed = await t.app.inject({ method: 'GET', url: '/.metrics', headers: { authorization: basic('ed', PW) } });
    expect(ed.statusCode).toBe(403);
    expect(ed.body).not.toContain('petal_');
    // Refusals are counted and timed too (the metrics hooks run before the security hook).
    const text = await scrape(t);
    expect(sample(text, 'petal_http_requests_total{route="ops",method="GET",status="401"}')).toBe(1);
    expect(sample(text, 'petal_http_requests_total{route="ops",method="GET",status="403"}')).toBe(1);
    expect(sample(text, 'petal_http_request_duration_seconds_sum{route="ops",method="GET"}')).toBeLessThan(60);
  });

  it('answers a role with get on /.metrics, in the Prometheus text format', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/.metrics', headers: scraper });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toContain('# TYPE petal_http_requests_total counter');
  });

  it('answers the scrape token and refuses a wrong one (401); the token opens nothing else', async () => {
    const ok = await t.app.inject({ method: 'GET', url: '/.metrics', headers: { authorization: `Bearer ${TOKEN}` } });
    expect(ok.statusCode).toBe(200);
    expect(ok.body).toContain('petal_http_requests_total');
    const wrong = await t.app.inject({ method: 'GET', url: '/.metrics', headers: { authorization: `Bearer ${TOKEN}x` } });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.body).not.toContain('petal_');
    const elsewhere = await t.app.inject({ method: 'GET', url: '/.rest/nodes/v1/website/site', headers: { authorization: `Bearer ${TOKEN}` } });
    expect(elsewhere.statusCode).toBe(401);
  });
});

describe('/.metrics, disabled', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ definitions: DEFINITIONS, security: security(await hashOf(PW)), metrics: { enabled: false, token: TOKEN } });
  });
  afterAll(async () => t?.close());

  it('is not served (404), even to a role with get on it or with the token', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/.metrics', headers: scraper })).statusCode).toBe(404);
    expect((await t.app.inject({ method: 'GET', url: '/.metrics', headers: { authorization: `Bearer ${TOKEN}` } })).statusCode).toBe(401);
  });
});
