// Issue 4, point 7 (CSRF) through HTTP: state-changing requests authenticated by the session cookie
// must come from the server's own origin (Origin / Sec-Fetch-Site); login from a foreign origin is
// refused; GET never changes state.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToken, writeTokens } from '../../src/security/api-tokens.js';
import { passwordIdOf } from '../../src/security/password-hash.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { expectErrorShape, get, hashOf, login, loginForm, req, sessionCookie, sessionIdOf, tempFolder } from './helpers.js';

const PW = 'csrf-suite-password';
const HOST = 'petal.example';
const SAME = `http://${HOST}`;
const EVIL = 'https://evil.example';

let t: TestApp;
let token = '';
beforeAll(async () => {
  const hash = await hashOf(PW);
  const folder = tempFolder();
  const made = createToken({ user: 'alice', name: 'csrf', passwordId: passwordIdOf(hash)! });
  writeTokens(join(folder, 'tokens.yaml'), [made.record]);
  token = made.token;
  t = await createTestApp({
    definitions: { 'private/docs.yaml': '$type: jcrDeliveryEndpoint_v2\nworkspace: website\n' },
    security: {
      folder,
      roles: { 'private-writer': { uriPermissions: [{ path: '/.rest/private/*', permission: 'getAndPost' }] } },
      users: { alice: { passwordHash: hash, roles: ['private-writer'] } },
    },
  });
});
afterAll(async () => {
  await t?.close();
});

let clientNo = 0;
const client = () => `10.60.0.${++clientNo}`;

async function whoIs(id: string): Promise<string> {
  return (await get(t.app, '/.auth/me', { ...sessionCookie(id), host: HOST })).body.via;
}

describe('logout', () => {
  it('refuses a cookie-authenticated logout from a foreign Origin (403) and the session keeps working', async () => {
    const id = await login(t.app, 'alice', PW, client());
    for (const origin of [EVIL, 'null', `http://${HOST}.evil.example`, 'http://evil.example:80', 'not a url']) {
      const res = await req(t.app, { method: 'POST', url: '/.auth/logout', headers: { ...sessionCookie(id), host: HOST, origin } });
      expectErrorShape(res, 403, 'accessDenied', `logout from ${origin}`);
      expect(sessionIdOf(res), origin).toBeUndefined();
      expect(await whoIs(id), `after logout from ${origin}`).toBe('session');
    }
  });

  it('refuses it when Sec-Fetch-Site says cross-site or same-site (without Origin)', async () => {
    const id = await login(t.app, 'alice', PW, client());
    for (const site of ['cross-site', 'same-site']) {
      const res = await req(t.app, { method: 'POST', url: '/.auth/logout', headers: { ...sessionCookie(id), host: HOST, 'sec-fetch-site': site } });
      expectErrorShape(res, 403, 'accessDenied', `sec-fetch-site ${site}`);
    }
    expect(await whoIs(id)).toBe('session');
  });

  it('accepts a same-origin logout (Origin matching Host) and ends the session', async () => {
    const id = await login(t.app, 'alice', PW, client());
    const res = await req(t.app, { method: 'POST', url: '/.auth/logout', headers: { ...sessionCookie(id), host: HOST, origin: SAME } });
    expect(res.status, res.raw).toBe(200);
    expect(await whoIs(id)).toBe('anonymous');
  });

  it('accepts Sec-Fetch-Site: same-origin', async () => {
    const id = await login(t.app, 'alice', PW, client());
    const res = await req(t.app, { method: 'POST', url: '/.auth/logout', headers: { ...sessionCookie(id), host: HOST, 'sec-fetch-site': 'same-origin', origin: EVIL } });
    // Sec-Fetch-Site is set by the browser and cannot be forged by a page; it takes precedence.
    expect(res.status, res.raw).toBe(200);
    expect(await whoIs(id)).toBe('anonymous');
  });

  it('GET never logs out (no state change through a link or an <img>)', async () => {
    const id = await login(t.app, 'alice', PW, client());
    const res = await get(t.app, '/.auth/logout', { ...sessionCookie(id), host: HOST, origin: EVIL });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(await whoIs(id)).toBe('session');
  });
});

describe('login', () => {
  it('refuses a login from a foreign Origin (403) and sets no cookie', async () => {
    for (const headers of [{ origin: EVIL }, { 'sec-fetch-site': 'cross-site' }, { origin: 'null' }] as Record<string, string>[]) {
      const res = await loginForm(t.app, 'alice', PW, { headers: { ...headers, host: HOST }, remoteAddress: client() });
      expectErrorShape(res, 403, 'accessDenied', JSON.stringify(headers));
      expect(sessionIdOf(res)).toBeUndefined();
    }
  });

  it('accepts a same-origin login, and one without Origin (not a browser)', async () => {
    for (const headers of [{ origin: SAME }, {}, { 'sec-fetch-site': 'same-origin' }] as Record<string, string>[]) {
      const res = await loginForm(t.app, 'alice', PW, { headers: { ...headers, host: HOST }, remoteAddress: client() });
      expect(res.status, `${JSON.stringify(headers)}: ${res.raw}`).toBe(200);
      expect(sessionIdOf(res)).toBeDefined();
    }
  });

  it('a GET to the login URL never logs in', async () => {
    const res = await get(t.app, `/.auth/login?mgnlUserId=alice&mgnlUserPSWD=${encodeURIComponent(PW)}`, { host: HOST });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(sessionIdOf(res)).toBeUndefined();
  });
});

describe('other state-changing requests', () => {
  const URL = '/.rest/private/docs/site';

  it('refuses a cookie-authenticated write from a foreign Origin before any route runs', async () => {
    const id = await login(t.app, 'alice', PW, client());
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH'] as const) {
      const res = await req(t.app, { method, url: URL, headers: { ...sessionCookie(id), host: HOST, origin: EVIL } });
      expectErrorShape(res, 403, 'accessDenied', `${method} from evil`);
      // Same origin: the request passes the gate and reaches the (read-only) route.
      const same = await req(t.app, { method, url: URL, headers: { ...sessionCookie(id), host: HOST, origin: SAME } });
      expectErrorShape(same, 405, 'methodNotAllowed', `${method} same origin`);
    }
  });

  it('does not apply to a Bearer token (a browser never sends one by itself)', async () => {
    const res = await req(t.app, { method: 'POST', url: URL, headers: { authorization: `Bearer ${token}`, host: HOST, origin: EVIL } });
    expectErrorShape(res, 405, 'methodNotAllowed', 'Bearer POST from evil origin');
  });
});
