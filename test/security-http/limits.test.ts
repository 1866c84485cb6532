// Issue 4, point 6 (hostile input) through HTTP: URL length (414), query parameter count (400),
// prototype-pollution keys, body size (413), header size (431, on a real socket), `like`/`in`/`orderBy`
// caps, and the error body shape `{"error":{"code","message"}}` without internals on every error.
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { basic, expectErrorShape, expectNoInternals, get, hashOf, req, type Res } from './helpers.js';

const PW = 'limits-suite-password';

const SECURITY = (hash: string) => ({
  roles: {
    anonymous: {
      uriPermissions: [{ path: '/.health', permission: 'get' }],
      workspacePermissions: { website: [{ path: '/', permission: 'read' }, { path: '/*', permission: 'read' }] },
    },
  },
  users: { plain: { passwordHash: hash } },
});

const DEFINITIONS = { 'delivery/pages.yaml': '$type: jcrDeliveryEndpoint_v2\nworkspace: website\n' };
const CONTENT = {
  'website.site.yaml': `
'site':
  'jcr:primaryType': 'mgnl:page'
  'jcr:uuid': '60000000-0000-4000-8000-000000000001'
  'title': 'Site'
  'child':
    'jcr:primaryType': 'mgnl:page'
    'jcr:uuid': '60000000-0000-4000-8000-000000000002'
    'title': 'Child'
`,
};

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ definitions: DEFINITIONS, content: CONTENT, security: SECURITY(await hashOf(PW)) });
});
afterAll(async () => {
  await t?.close();
});

function expectNotPolluted(label: string): void {
  const probe = {} as Record<string, unknown>;
  for (const k of ['x', 'polluted', 'isAdmin', 'y']) {
    expect(probe[k], `${label}: Object.prototype.${k}`).toBeUndefined();
    expect((Object.prototype as Record<string, unknown>)[k], label).toBeUndefined();
  }
  expect(typeof probe.toString, label).toBe('function');
}

describe('URL length', () => {
  it('answers a request target over 8192 characters with 414 uriTooLong JSON', async () => {
    for (const url of [
      `/.rest/delivery/pages?title=${'a'.repeat(9000)}`,
      `/.rest/delivery/pages/${'a'.repeat(9000)}`,
      `/${'x'.repeat(8192)}`,
      `/.auth/me?${'a'.repeat(9000)}`,
    ]) {
      expectErrorShape(await get(t.app, url), 414, 'uriTooLong', `${url.slice(0, 40)}… (${url.length})`);
    }
  });

  it('accepts a request target of exactly 8192 characters (answered by the route, not the limit)', async () => {
    const base = '/.rest/delivery/pages/site?x=';
    const url = base + 'b'.repeat(8192 - base.length);
    expect(url.length).toBe(8192);
    const res = await get(t.app, url);
    expect(res.status, res.raw.slice(0, 200)).toBe(200);
    expect(res.body['@path']).toBe('/site');
  });
});

describe('query parameter count', () => {
  it('answers more than 64 query parameters with 400', async () => {
    const many = Array.from({ length: 65 }, (_, i) => `mgnlP${i}=1`).join('&');
    expectErrorShape(await get(t.app, `/.rest/delivery/pages?${many}`), 400, 'badRequest', '65 params');
    const repeated = Array.from({ length: 65 }, () => 'lang=en').join('&');
    expectErrorShape(await get(t.app, `/.rest/delivery/pages/site?${repeated}`), 400, 'badRequest', '65 repeated');
    const filters = Array.from({ length: 200 }, (_, i) => `p${i}=1`).join('&');
    expectErrorShape(await get(t.app, `/.rest/delivery/pages?${filters}`), 400, 'badRequest', '200 filters');
  });

  it('accepts 64', async () => {
    const ok = Array.from({ length: 64 }, (_, i) => `mgnlP${i}=1`).join('&');
    expect((await get(t.app, `/.rest/delivery/pages?${ok}`)).status).toBe(200);
  });

  it('thousands of parameters never crash (414 by length, or 400)', async () => {
    const huge = Array.from({ length: 10_000 }, (_, i) => `a${i}=1`).join('&');
    const res = await get(t.app, `/.rest/delivery/pages?${huge}`);
    expect([400, 414]).toContain(res.status);
    expectErrorShape(res, res.status, res.body.error.code, '10 000 params');
    const shortMany = Array.from({ length: 2000 }, () => 'a').join('&');
    const res2 = await get(t.app, `/.rest/delivery/pages?${shortMany}`);
    expectErrorShape(res2, 400, 'badRequest', '2000 bare params');
  });
});

describe('prototype pollution through query strings and bodies', () => {
  const KEYS = [
    '__proto__[x]=1', 'constructor[prototype][x]=1', '__proto__.x=1', '__proto__=1', '__proto__[polluted]=yes',
    'constructor.prototype.x=1', 'a[__proto__][x]=1', 'toString=1', 'hasOwnProperty=1', 'valueOf[gt]=1',
    '__proto__[x]=1&orderBy=__proto__', 'orderBy=constructor', 'properties=__proto__,constructor', 'excludeProperties=__proto__',
    '%5F%5Fproto%5F%5F[x]=1', '__proto__%5Bx%5D=1', 'constructor[prototype][isAdmin]=true',
  ];

  it.each(KEYS)('?%s on query, read and children is harmless (200 or 400, never 500)', async (qs) => {
    for (const url of [`/.rest/delivery/pages?${qs}`, `/.rest/delivery/pages/site?${qs}`, `/.rest/delivery/pages/site@nodes?${qs}`, `/.auth/me?${qs}`]) {
      const res = await get(t.app, url);
      expect([200, 400], `${url}: ${res.raw}`).toContain(res.status);
      if (res.status === 400) expectErrorShape(res, 400, res.body.error.code, url);
      expectNotPolluted(url);
    }
    // Later requests are unaffected.
    const after = await get(t.app, '/.rest/delivery/pages/site');
    expect(after.status).toBe(200);
    expect(after.body.title).toBe('Site');
  });

  it('__proto__ / constructor in login bodies (JSON and form) never pollute and never 500', async () => {
    const bodies: Array<[string, string]> = [
      ['application/json', '{"__proto__":{"x":1},"mgnlUserId":"plain","mgnlUserPSWD":"nope"}'],
      ['application/json', '{"constructor":{"prototype":{"x":1}},"mgnlUserId":"plain","mgnlUserPSWD":"nope"}'],
      ['application/json', '{"mgnlUserId":{"__proto__":{"x":1}},"mgnlUserPSWD":"nope"}'],
      ['application/x-www-form-urlencoded', '__proto__[x]=1&mgnlUserId=plain&mgnlUserPSWD=nope'],
      ['application/x-www-form-urlencoded', '__proto__=1&constructor[prototype][x]=1&mgnlUserId=plain&mgnlUserPSWD=nope'],
      ['application/x-www-form-urlencoded', 'mgnlUserId=__proto__&mgnlUserPSWD=x'],
      ['application/x-www-form-urlencoded', 'mgnlUserId=constructor&mgnlUserPSWD=x'],
    ];
    let n = 0;
    for (const [type, payload] of bodies) {
      const res = await req(t.app, { method: 'POST', url: '/.auth/login', payload, headers: { 'content-type': type }, remoteAddress: `10.50.0.${++n}` });
      expect([400, 401], `${payload}: ${res.raw}`).toContain(res.status);
      expectErrorShape(res, res.status, res.body.error.code, payload);
      expectNotPolluted(payload);
    }
  });

  it('__proto__ / constructor as Basic user names are ordinary unknown users (401)', async () => {
    let n = 0;
    for (const u of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      const res = await get(t.app, '/.auth/me', { authorization: basic(u, 'x') }, `10.51.0.${++n}`);
      expectErrorShape(res, 401, 'notAuthorized', u);
    }
    expectNotPolluted('basic');
  });
});

describe('body size', () => {
  it('answers a body over 1 MiB on POST /.auth/login with 413 JSON', async () => {
    const big = 'a'.repeat((1 << 20) + 10);
    for (const [type, payload] of [
      ['application/x-www-form-urlencoded', `mgnlUserId=plain&mgnlUserPSWD=${big}`],
      ['application/json', JSON.stringify({ mgnlUserId: 'plain', mgnlUserPSWD: big })],
      ['text/plain', big],
    ] as const) {
      const res = await req(t.app, { method: 'POST', url: '/.auth/login', payload, headers: { 'content-type': type }, remoteAddress: '10.52.0.1' });
      expect([413, 415], `${type}: ${res.raw}`).toContain(res.status);
      if (type !== 'text/plain') expectErrorShape(res, 413, 'payloadTooLarge', type);
      else expectErrorShape(res, res.status, res.body.error.code, type);
    }
  });

  it('a body just under the limit is processed (a long password is an ordinary failure)', async () => {
    const res = await req(t.app, {
      method: 'POST', url: '/.auth/login', payload: `mgnlUserId=plain&mgnlUserPSWD=${'a'.repeat(100_000)}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' }, remoteAddress: '10.52.0.2',
    });
    expectErrorShape(res, 401, 'notAuthorized', 'long password');
  });
});

describe('query value caps', () => {
  it('answers a very long like value with 400, fast', async () => {
    // The cap counts decoded characters (4096); `%` costs 3 URL characters, so mostly plain ones here.
    for (const v of ['_'.repeat(4097), `${'a'.repeat(4000)}${'%_'.repeat(60)}`, `${'%'.repeat(2000)}${'_'.repeat(2100)}`]) {
      const started = Date.now();
      const url = `/.rest/delivery/pages?title[like]=${encodeURIComponent(v)}`;
      expect(url.length).toBeLessThanOrEqual(8192);
      const res = await get(t.app, url);
      expectErrorShape(res, 400, res.body.error.code, `like of ${v.length}`);
      expect(['invalidQuery', 'badRequest']).toContain(res.body.error.code);
      // Backtracking would take minutes; the margin is for a loaded machine.
      expect(Date.now() - started).toBeLessThan(10_000);
    }
    const ilike = await get(t.app, `/.rest/delivery/pages?title[ilike]=${'_'.repeat(5000)}`);
    expectErrorShape(ilike, 400, 'invalidQuery', 'ilike of 5000');
  });

  it('a long pathological like or q within the URL limit answers quickly and never 500', async () => {
    const started = Date.now();
    const like = await get(t.app, `/.rest/delivery/pages?title[like]=${'%25_'.repeat(1300)}`);
    expect([200, 400]).toContain(like.status);
    const q = await get(t.app, `/.rest/delivery/pages?q=${'w'.repeat(8000)}`);
    expect([200, 400]).toContain(q.status);
    const words = await get(t.app, `/.rest/delivery/pages?q=${Array.from({ length: 40 }, (_, i) => `w${i}*`).join('%20')}`);
    expectErrorShape(words, 400, 'invalidQuery', '40 words');
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it('caps alternatives, orderBy keys and filters', async () => {
    const alts = Array.from({ length: 101 }, (_, i) => `v${i}`).join('|');
    expectErrorShape(await get(t.app, `/.rest/delivery/pages?title=${alts}`), 400, 'invalidQuery', '101 alternatives');
    const order = Array.from({ length: 11 }, (_, i) => `p${i}`).join(',');
    expectErrorShape(await get(t.app, `/.rest/delivery/pages?orderBy=${order}`), 400, 'invalidQuery', '11 orderBy keys');
    const filters = Array.from({ length: 33 }, (_, i) => `p${i}=1`).join('&');
    expectErrorShape(await get(t.app, `/.rest/delivery/pages?${filters}`), 400, 'invalidQuery', '33 filters');
    expectErrorShape(await get(t.app, `/.rest/delivery/pages?limit=-1`), 400, 'invalidQuery', 'limit -1');
    expectErrorShape(await get(t.app, `/.rest/delivery/pages?offset=1e309`), 400, 'invalidQuery', 'offset 1e309');
    const clamped = await get(t.app, '/.rest/delivery/pages?limit=1000000');
    expect(clamped.status).toBe(200);
    expect(clamped.body.limit).toBeLessThanOrEqual(100);
  });
});

describe('error bodies: exactly {"error":{"code","message"}}, JSON, no internals', () => {
  it.each([
    ['unknown route', { method: 'GET', url: '/nowhere' }, 401],
    ['unknown endpoint', { method: 'GET', url: '/.rest/delivery/nothing' }, 404],
    ['missing node', { method: 'GET', url: '/.rest/delivery/pages/nope' }, 404],
    ['write on delivery (anonymous)', { method: 'POST', url: '/.rest/delivery/pages/site' }, 401],
    ['invalid percent-encoding', { method: 'GET', url: '/.rest/delivery/pages/%E0%A4%A' }, 400],
    ['NUL in path', { method: 'GET', url: '/.rest/delivery/pages/%00' }, 400],
    ['bad operator', { method: 'GET', url: '/.rest/delivery/pages?title[regex]=x' }, 400],
    ['bad limit', { method: 'GET', url: '/.rest/delivery/pages?limit=abc' }, 400],
    ['SQL-looking filter', { method: 'GET', url: "/.rest/delivery/pages?title=x'%20OR%20'1'='1" }, 200],
    ['bracket keys', { method: 'GET', url: '/.rest/delivery/pages?name[eq][0;DROP TABLE x]=1' }, 400],
    ['deep brackets', { method: 'GET', url: '/.rest/delivery/pages?a[b][c][d][e][f][g]=1' }, 400],
    ['malformed JSON login', { method: 'POST', url: '/.auth/login', payload: '{"mgnlUserId":', headers: { 'content-type': 'application/json' } }, 400],
    ['unsupported content type login', { method: 'POST', url: '/.auth/login', payload: '<x/>', headers: { 'content-type': 'application/xml' } }, 415],
    ['deeply nested JSON login', { method: 'POST', url: '/.auth/login', payload: '['.repeat(10_000) + ']'.repeat(10_000), headers: { 'content-type': 'application/json' } }, 400],
    ['empty login', { method: 'POST', url: '/.auth/login' }, 400],
    ['login with wrong types', { method: 'POST', url: '/.auth/login', payload: { mgnlUserId: 1, mgnlUserPSWD: ['x'] } }, 400],
    ['version not found', { method: 'GET', url: '/.rest/delivery/pages/site?version=1.0' }, 404],
  ] as const)('%s', async (label, o, status) => {
    const res = await req(t.app, { ...o, remoteAddress: '10.53.0.1' } as never);
    if (status === 200) {
      expect(res.status, res.raw).toBe(200);
      expect(res.body.total).toBe(0);
      return;
    }
    expect(res.status, `${label}: ${res.raw}`).toBe(status);
    expectErrorShape(res, status, res.body.error.code, label);
    expectNoInternals(res.raw, label);
  });
});

describe('on a real socket (errors Node raises before Fastify)', () => {
  let port = 0;
  beforeAll(async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as AddressInfo).port;
  });

  function raw(request: string): Promise<string> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      let data = '';
      socket.setEncoding('utf8');
      socket.on('data', (d) => { data += d; });
      // The server closes these connections itself; the timer only ends one it would keep open.
      const timer = setTimeout(() => socket.end(), 30_000);
      socket.on('end', () => resolve(data));
      socket.on('close', () => { clearTimeout(timer); resolve(data); });
      socket.on('error', (e) => (data ? resolve(data) : reject(e)));
      socket.write(request);
    });
  }

  function parse(response: string): Res {
    const [head = '', body = ''] = response.split('\r\n\r\n');
    const status = Number(head.split(' ')[1]);
    const headers: Record<string, string> = {};
    for (const line of head.split('\r\n').slice(1)) {
      const i = line.indexOf(':');
      headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
    }
    let parsed: unknown = body;
    try {
      parsed = JSON.parse(body);
    } catch { /* keep text */ }
    return { status, headers, raw: body, body: parsed, cookies: [] };
  }

  it('answers request headers over 16 KiB with 431 headersTooLarge JSON', async () => {
    const res = parse(await raw(`GET /.rest/delivery/pages/site HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`));
    expectErrorShape(res, 431, 'headersTooLarge', '20 KB header');
  });

  it('answers an unparsable request with 400 JSON', async () => {
    const res = parse(await raw('GET /a b c HTTP/9.9\r\n\r\n'));
    expectErrorShape(res, 400, 'badRequest', 'bad request line');
  });

  it('the same limits hold over the socket: 414 and a normal answer', async () => {
    const long = parse(await raw(`GET /.rest/delivery/pages?x=${'a'.repeat(9000)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`));
    expectErrorShape(long, 414, 'uriTooLong', 'socket 414');
    const ok = parse(await raw('GET /.rest/delivery/pages/site HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'));
    expect(ok.status).toBe(200);
  });
});
