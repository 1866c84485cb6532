// Cached answers given before Fastify's pipeline (src/http/cached-hits.ts): over real sockets (inject
// never reaches the server's listener), two apps on one store, one with the path and one without, get
// the same requests and must give the same answers: status, header lines in order, body, metrics and
// log lines. Hits on the first must not reach the route (the policy's answer() is never asked), while
// everything the path leaves to the pipeline (credentials, cookies, refusals, bad queries, missing
// nodes, the preview) is answered exactly as before.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ResponseCachePolicy } from '../../src/http/response-cache-policy.js';
import { importPaths } from '../../src/ingest/run-import.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { basic, hashOf } from '../security-http/helpers.js';

const TOKEN = 'cached-hits-scrape-token';

function site(title: string): string {
  return `'site':
  'jcr:primaryType': 'mgnl:page'
  'jcr:uuid': '71000000-0000-4000-8000-000000000001'
  'title': '${title}'
  'title_de': 'Startseite'
  'a':
    'jcr:primaryType': 'mgnl:page'
    'jcr:uuid': '71000000-0000-4000-8000-000000000002'
    'title': 'A'
    'rank': 2
  'b':
    'jcr:primaryType': 'mgnl:page'
    'jcr:uuid': '71000000-0000-4000-8000-000000000003'
    'title': 'B'
    'rank': 1
`;
}

const DEFINITIONS: Record<string, string> = {
  'delivery/pages.yaml': '$type: jcrDeliveryEndpoint_v2\nworkspace: website\ndepth: 1\ntimeToLive: 60\n',
  'delivery/secret.yaml': '$type: jcrDeliveryEndpoint_v2\nworkspace: website\n',
};

const SECURITY = {
  roles: {
    anonymous: {
      uriPermissions: [{ path: '/.rest/*', permission: 'get' }, { path: '/.rest/delivery/secret/*', permission: 'deny' }],
      workspacePermissions: { website: [{ path: '/', permission: 'read' }, { path: '/*', permission: 'read' }] },
    },
  },
};

type Line = Record<string, unknown>;
function sinkInto(lines: Line[]): Writable {
  return new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString('utf8').split('\n')) if (l !== '') lines.push(JSON.parse(l) as Line);
      done();
    },
  });
}

interface Raw { status: number; headers: string[]; body: string }

/** A GET (or another method) over a fresh socket: the header lines exactly as sent. */
async function send(app: FastifyInstance, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Raw> {
  const { port } = app.server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    http.request({ host: '127.0.0.1', port, path, headers, method, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.rawHeaders, body: Buffer.concat(chunks).toString('utf8') }));
    }).on('error', reject).end();
  });
}

/** Header lines without the clock's and with the generated request id's shape instead of its value. */
function comparable(r: Raw): Raw {
  const headers: string[] = [];
  for (let i = 0; i < r.headers.length; i += 2) {
    const name = r.headers[i]!.toLowerCase();
    if (name === 'date') continue;
    const value = name === 'x-request-id' && /^[0-9a-f]{8}-[0-9a-z]+$/.test(r.headers[i + 1]!) ? '<generated>' : r.headers[i + 1]!;
    headers.push(name, value);
  }
  return { status: r.status, headers, body: r.body };
}

const ETAG_OF = async (app: FastifyInstance, path: string): Promise<string> => {
  const r = await send(app, path);
  const i = r.headers.findIndex((h) => h.toLowerCase() === 'etag');
  return r.headers[i + 1]!;
};

/**
 * The store's generation known without asking it, as under steady traffic. Its hint lapses 100 ms after
 * the last read (sqlite/store.ts), and a request then goes to the pipeline, which asks the store: on a
 * loaded machine that would make the counts below depend on timing.
 */
async function steadyGeneration(t: TestApp): Promise<void> {
  const generation = await t.store.generation();
  vi.spyOn(t.store as { generationHint(): number | undefined }, 'generationHint').mockReturnValue(generation);
}

let fast: TestApp;
let slow: TestApp;
const fastLines: Line[] = [];
const slowLines: Line[] = [];
let dir: string;

beforeAll(async () => {
  const common = { definitions: DEFINITIONS, security: SECURITY, metrics: { enabled: true, token: TOKEN } };
  fast = await createTestApp({ ...common, content: { 'website.site.yaml': site('Home') }, logger: pino({ level: 'info' }, sinkInto(fastLines)) });
  slow = await createTestApp({ ...common, store: fast.store, logger: pino({ level: 'info' }, sinkInto(slowLines)), cachedHitPath: false });
  await fast.app.listen({ port: 0, host: '127.0.0.1' });
  await slow.app.listen({ port: 0, host: '127.0.0.1' });
  dir = mkdtempSync(join(tmpdir(), 'petal-cached-hits-'));
});
afterAll(async () => {
  await slow?.close();
  await fast?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The same request to both apps, twice (a miss that fills each cache, then what a hit gives). */
async function both(path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<[Raw, Raw]> {
  await send(fast.app, path, headers, method);
  await send(slow.app, path, headers, method);
  const a = comparable(await send(fast.app, path, headers, method));
  const b = comparable(await send(slow.app, path, headers, method));
  return [a, b];
}

describe('cached answers before the pipeline', () => {
  const cases: [string, string, Record<string, string>?][] = [
    ['a read', '/.rest/delivery/pages/site'],
    ['children', '/.rest/delivery/pages/site@nodes'],
    ['a query', '/.rest/delivery/pages?rank[gt]=0&orderBy=rank'],
    ['the same query, parameters in another order', '/.rest/delivery/pages?orderBy=rank&rank[gt]=0'],
    ['a language by Accept-Language', '/.rest/delivery/pages/site', { 'accept-language': 'de' }],
    ['a language by lang', '/.rest/delivery/pages/site?lang=de'],
    ['an encoded path', '/.rest/delivery/pages/%73ite'],
    ['a client request id', '/.rest/delivery/pages/site', { 'x-request-id': 'trace-42' }],
    ['a request id that is not a plain token', '/.rest/delivery/pages/site', { 'x-request-id': 'a b' }],
    ['an unrelated cookie (the pipeline answers)', '/.rest/delivery/pages/site', { cookie: 'theme=dark' }],
    ['a missing node (a cached error)', '/.rest/delivery/pages/nowhere'],
    ['a path the URI permissions refuse', '/.rest/delivery/secret/site'],
    ['no endpoint', '/.rest/delivery/none/site'],
    ['a query no store can answer alike', '/.rest/delivery/pages?title=%00'],
    ['too many query parameters', `/.rest/delivery/pages?${Array.from({ length: 101 }, (_, i) => `p${i}=1`).join('&')}`],
    ['another API under /.rest', '/.rest/nodes/v1/website/site'],
  ];
  for (const [name, path, headers] of cases) {
    it(`gives what the pipeline gives: ${name}`, async () => {
      const [a, b] = await both(path, headers);
      expect(a).toEqual(b);
    });
  }

  it('gives what the pipeline gives to HEAD and to a matching If-None-Match (304)', async () => {
    const path = '/.rest/delivery/pages/site';
    const [headA, headB] = await both(path, {}, 'HEAD');
    expect(headA).toEqual(headB);
    const etag = await ETAG_OF(fast.app, path);
    const [a, b] = await both(path, { 'if-none-match': etag });
    expect(a.status).toBe(304);
    expect(a).toEqual(b);
    const [c, d] = await both(path, { 'if-none-match': 'W/"other"' });
    expect(c.status).toBe(200);
    expect(c).toEqual(d);
  });

  it('answers hits without the route, and misses through it', async () => {
    const path = '/.rest/delivery/pages/b-fresh?depth=0';
    await steadyGeneration(fast);
    const spy = vi.spyOn(ResponseCachePolicy.prototype, 'answer');
    try {
      await send(fast.app, '/.rest/delivery/pages/site?fresh=1');
      expect(spy).toHaveBeenCalledTimes(1); // the miss is rendered by the route
      for (let i = 0; i < 5; i++) expect((await send(fast.app, '/.rest/delivery/pages/site?fresh=1')).status).toBe(200);
      expect(spy).toHaveBeenCalledTimes(1);
      for (let i = 0; i < 5; i++) await send(slow.app, '/.rest/delivery/pages/site?fresh=1');
      expect(spy).toHaveBeenCalledTimes(6);
      await send(fast.app, path);
      expect(spy).toHaveBeenCalledTimes(7);
    } finally {
      vi.restoreAllMocks();
    }
  });

  it('counts its answers in the metrics and logs them as the pipeline does', async () => {
    const scrape = async (t: TestApp) => (await send(t.app, '/.metrics', { authorization: `Bearer ${TOKEN}` })).body;
    const count = (text: string, series: string) => Number(text.split('\n').find((l) => l.startsWith(series + ' '))?.split(' ')[1] ?? 'NaN');
    const before = [await scrape(fast), await scrape(slow)];
    fastLines.length = 0;
    slowLines.length = 0;
    await both('/.rest/delivery/pages/site?counted=1');
    await both('/.rest/delivery/pages?counted=1');
    const after = [await scrape(fast), await scrape(slow)];
    for (const series of [
      'petal_http_requests_total{route="delivery_read",method="GET",status="200"}',
      'petal_http_requests_total{route="delivery_query",method="GET",status="200"}',
      'petal_http_request_duration_seconds_count{route="delivery_read",method="GET"}',
    ]) {
      const grew = [count(after[0]!, series) - count(before[0]!, series), count(after[1]!, series) - count(before[1]!, series)];
      expect(grew, series).toEqual([2, 2]);
    }
    const shape = (lines: Line[]) => lines.filter((l) => l.msg === 'request' && String(l.url).includes('counted'))
      .map(({ level, url, method, status, msg }) => ({ level, url, method, status, msg }));
    expect(shape(fastLines)).toHaveLength(4);
    expect(shape(fastLines)).toEqual(shape(slowLines));
    const hit = fastLines.filter((l) => l.msg === 'request' && String(l.url).includes('counted'))[1]!;
    expect(Object.keys(hit).filter((k) => !['level', 'time', 'pid', 'hostname'].includes(k))).toEqual(['reqId', 'method', 'url', 'status', 'ms', 'msg']);
  });

  it('serves new content once it is written (no hit survives a change)', async () => {
    const path = '/.rest/delivery/pages/site';
    expect(JSON.parse((await send(fast.app, path)).body).title).toBe('Home');
    const file = join(dir, 'website.site.yaml');
    writeFileSync(file, site('Changed'));
    await importPaths(fast.store, [file], { onUuidCollision: 'replace' });
    // The store's generation hint may lag a write by up to its refresh interval: the pipeline alike.
    await new Promise((r) => setTimeout(r, 250));
    expect(JSON.parse((await send(fast.app, path)).body).title).toBe('Changed');
    expect(JSON.parse((await send(fast.app, path)).body).title).toBe('Changed');
  });
});

describe('cached answers under publishing', () => {
  let t: TestApp;
  const lines: Line[] = [];
  const ed = { authorization: basic('ed', 'cached-hits-password') };
  beforeAll(async () => {
    const security = {
      roles: {
        ...SECURITY.roles,
        editor: {
          uriPermissions: [{ path: '/*', permission: 'getAndPost' }],
          workspacePermissions: { website: [{ path: '/', permission: 'readWrite' }, { path: '/*', permission: 'readWrite' }] },
        },
      },
      users: { ed: { passwordHash: await hashOf('cached-hits-password'), roles: ['editor'] } },
    };
    t = await createTestApp({
      definitions: DEFINITIONS, security, content: { 'website.site.yaml': site('Home') },
      publishing: { previewContextPath: '/preview', previewRoles: ['editor'] }, logger: pino({ level: 'info' }, sinkInto(lines)),
    });
    const published = await t.app.inject({ method: 'POST', url: '/.rest/commands/v2/website/activate', headers: ed, payload: { repository: 'website', path: '/site', recursive: true } });
    expect(published.statusCode).toBe(200);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('logs hits as live and leaves the preview to the pipeline (which asks for a preview role)', async () => {
    await steadyGeneration(t);
    const spy = vi.spyOn(ResponseCachePolicy.prototype, 'answer');
    lines.length = 0;
    try {
      for (let i = 0; i < 3; i++) expect((await send(t.app, '/.rest/delivery/pages/site')).status).toBe(200);
      expect(spy).toHaveBeenCalledTimes(1);
      expect(lines.filter((l) => l.msg === 'request').map((l) => l.state)).toEqual(['live', 'live', 'live']);
      expect((await send(t.app, '/preview/.rest/delivery/pages/site')).status).toBe(401);
      const preview = await send(t.app, '/preview/.rest/delivery/pages/site', ed);
      expect(preview.status).toBe(200);
      expect(JSON.parse(preview.body).title).toBe('Home');
      expect(spy).toHaveBeenCalledTimes(2);
    } finally {
      vi.restoreAllMocks();
    }
  });
});

describe('cached answers with CORS or delivery rate limits configured', () => {
  const pair = async (extra: Parameters<typeof createTestApp>[0]): Promise<[TestApp, TestApp]> => {
    const a = await createTestApp({ definitions: DEFINITIONS, security: SECURITY, content: { 'website.site.yaml': site('Home') }, ...extra });
    const b = await createTestApp({ definitions: DEFINITIONS, security: SECURITY, store: a.store, ...extra, cachedHitPath: false });
    await a.app.listen({ port: 0, host: '127.0.0.1' });
    await b.app.listen({ port: 0, host: '127.0.0.1' });
    return [a, b];
  };
  const compare = async ([a, b]: [TestApp, TestApp], headers: Record<string, string> = {}) => {
    const path = '/.rest/delivery/pages/site';
    for (let i = 0; i < 3; i++) {
      expect(comparable(await send(a.app, path, headers))).toEqual(comparable(await send(b.app, path, headers)));
    }
  };

  it('answers as the pipeline does, CORS headers included', async () => {
    const apps = await pair({ corsOrigins: ['https://front.example'] });
    try {
      await compare(apps);
      await compare(apps, { origin: 'https://front.example' });
    } finally {
      await apps[1].close();
      await apps[0].close();
    }
  });

  it('counts delivery reads in the rate limits when they are limited', async () => {
    const rateLimit = { enabled: true, rules: { deliveryReads: { max: 2, windowMs: 60_000 } } };
    const apps = await pair({ rateLimit });
    try {
      const path = '/.rest/delivery/pages/site';
      const statuses = async (t: TestApp) => { const s: number[] = []; for (let i = 0; i < 4; i++) s.push((await send(t.app, path)).status); return s; };
      expect(await statuses(apps[0])).toEqual([200, 200, 429, 429]);
      expect(await statuses(apps[1])).toEqual([200, 200, 429, 429]);
    } finally {
      await apps[1].close();
      await apps[0].close();
    }
  });
});
