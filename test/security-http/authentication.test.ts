// Issue 4, point 1 (identities & authentication) through HTTP: Basic, Bearer tokens, the login form,
// session cookies (attributes, fixation, logout), the login throttle, and revocation on the next
// request when a user is disabled or loses a role (sessions, Basic and tokens alike).
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createToken, writeTokens } from '../../src/security/api-tokens.js';
import { passwordIdOf } from '../../src/security/password-hash.js';
import { loadSecurity } from '../../src/config/security-config.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import {
  basic, expectErrorShape, get, hashOf, login, loginForm, req, sessionCookie, sessionIdOf, tempFolder, type Res,
} from './helpers.js';

const PW = 'correct horse battery staple';
const PRIVATE_URL = '/.rest/private/docs/site';
const PUBLIC_URL = '/.rest/delivery/pages/site';

const DEFINITIONS = {
  'delivery/pages.yaml': '$type: jcrDeliveryEndpoint_v2\nworkspace: website\n',
  'private/docs.yaml': '$type: jcrDeliveryEndpoint_v2\nworkspace: website\n',
};
const CONTENT = {
  'website.site.yaml': `
'site':
  'jcr:primaryType': 'mgnl:page'
  'jcr:uuid': '30000000-0000-4000-8000-000000000001'
  'title': 'Site'
`,
};

/** The security section: `hash` is the scrypt hash of PW, `folder` holds tokens.yaml. */
function securityConfig(hash: string, folder: string, change: { daveRoles?: string[]; daveEnabled?: boolean } = {}) {
  return {
    folder,
    roles: {
      anonymous: {
        uriPermissions: [{ path: '/.health', permission: 'get' }],
        workspacePermissions: { website: [{ path: '/', permission: 'read' }, { path: '/*', permission: 'read' }] },
      },
      'private-reader': { uriPermissions: [{ path: '/.rest/private/*', permission: 'get' }] },
    },
    authenticatedRoles: ['anonymous', 'rest-anonymous'],
    users: {
      alice: { passwordHash: hash, roles: ['private-reader'] },
      bob: { passwordHash: hash },
      carol: { passwordHash: hash, roles: ['private-reader'], enabled: false },
      dave: { passwordHash: hash, roles: change.daveRoles ?? ['private-reader'], enabled: change.daveEnabled ?? true },
    },
  };
}

let hash: string;
let pid: string;
let folder: string;
let t: TestApp;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  hash = await hashOf(PW);
  pid = passwordIdOf(hash)!;
  folder = tempFolder();
  const day = 24 * 60 * 60 * 1000;
  const made = {
    alice: createToken({ user: 'alice', name: 'alice-ci', passwordId: pid }),
    bob: createToken({ user: 'bob', name: 'bob-ci', passwordId: pid }),
    carol: createToken({ user: 'carol', name: 'carol-ci', passwordId: pid }),
    dave: createToken({ user: 'dave', name: 'dave-ci', passwordId: pid }),
    // Created 2 days ago with a 1-day lifetime: expired.
    expired: createToken({ user: 'alice', name: 'alice-old', passwordId: pid, expiresInDays: 1 }, new Date(Date.now() - 2 * day)),
    // Well-formed but never written to tokens.yaml.
    unknown: createToken({ user: 'alice', name: 'never-stored', passwordId: pid }),
  };
  writeTokens(join(folder, 'tokens.yaml'), Object.entries(made).filter(([k]) => k !== 'unknown').map(([, v]) => v.record));
  for (const [k, v] of Object.entries(made)) tokens[k] = v.token;
  t = await createTestApp({ definitions: DEFINITIONS, content: CONTENT, security: securityConfig(hash, folder) });
});
afterAll(async () => {
  await t?.close();
});

/** Each test gets its own client address so the per-client login throttle never spills over. */
let clientNo = 0;
const nextClient = () => `10.1.${Math.floor(++clientNo / 250)}.${clientNo % 250}`;

function expectChallenge(res: Res, label: string): void {
  expectErrorShape(res, 401, 'notAuthorized', label);
  expect(String(res.headers['www-authenticate']), label).toMatch(/^Basic realm="Petal"/);
  expect(res.cookies.filter((c) => c.name === 'petal_session' && c.value !== ''), `${label}: no session cookie`).toEqual([]);
}

describe('HTTP Basic', () => {
  it('authenticates a right user name and password (roles: own + anonymous ones), without issuing a session', async () => {
    const me = await get(t.app, '/.auth/me', { authorization: basic('alice', PW) }, nextClient());
    expect(me.status).toBe(200);
    expect(me.body).toEqual({ user: 'alice', roles: ['anonymous', 'private-reader', 'rest-anonymous'], via: 'basic' });
    expect(me.headers['set-cookie']).toBeUndefined();
    const priv = await get(t.app, PRIVATE_URL, { authorization: basic('alice', PW) }, nextClient());
    expect(priv.status, priv.raw).toBe(200);
    expect(priv.body['@path']).toBe('/site');
  });

  it('answers every failure with the same 401 body and WWW-Authenticate, on a public URL too', async () => {
    const variants: Record<string, string> = {
      'wrong password': basic('alice', 'not the password'),
      'unknown user': basic('mallory', PW),
      'disabled user with the right password': basic('carol', PW),
      'empty user': basic('', PW),
      'no colon': `Basic ${Buffer.from('alice').toString('base64')}`,
      'not base64': 'Basic %%%***',
      'no credentials after the scheme': 'Basic',
      'non-Basic scheme Digest': 'Digest username="alice", realm="Petal"',
      'non-Basic scheme Negotiate': 'Negotiate YIIB',
      'malformed Bearer': 'Bearer not-a-token',
    };
    const bodies = new Set<string>();
    for (const [label, authorization] of Object.entries(variants)) {
      // Every variant on a public URL (bad credentials are never silently downgraded to anonymous);
      // the first two on /.auth/me and a private URL too.
      const urls = label === 'wrong password' || label === 'unknown user' ? ['/.auth/me', PUBLIC_URL, PRIVATE_URL] : [PUBLIC_URL];
      for (const url of urls) {
        const res = await get(t.app, url, { authorization }, nextClient());
        expectChallenge(res, `${label} on ${url}`);
        bodies.add(res.raw);
      }
    }
    expect([...bodies]).toEqual(['{"error":{"code":"notAuthorized","message":"The credentials are not valid"}}']);
  });

  it('does not accept the default credentials of other products', async () => {
    for (const [u, p] of [['superuser', 'superuser'], ['admin', 'admin']]) {
      expectChallenge(await get(t.app, '/.auth/me', { authorization: basic(u!, p!) }, nextClient()), `${u}/${p}`);
    }
  });
});

describe('Bearer tokens', () => {
  it('authenticates a valid token as its user', async () => {
    const me = await get(t.app, '/.auth/me', { authorization: `Bearer ${tokens.alice}` });
    expect(me.status).toBe(200);
    expect(me.body).toEqual({ user: 'alice', roles: ['anonymous', 'private-reader', 'rest-anonymous'], via: 'token' });
    expect((await get(t.app, PRIVATE_URL, { authorization: `Bearer ${tokens.alice}` })).status).toBe(200);
  });

  it('gives a token only its user\'s rights', async () => {
    const res = await get(t.app, PRIVATE_URL, { authorization: `Bearer ${tokens.bob}` });
    expectErrorShape(res, 403, 'accessDenied', 'bob token on a private URL');
  });

  it('refuses expired, unknown, malformed and disabled-user tokens with the same 401 as a bad password', async () => {
    const reference = await get(t.app, '/.auth/me', { authorization: basic('alice', 'wrong') }, nextClient());
    for (const [label, authorization] of [
      ['expired', `Bearer ${tokens.expired}`],
      ['unknown', `Bearer ${tokens.unknown}`],
      ['malformed', 'Bearer abc'],
      ['empty', 'Bearer '],
      ['tampered', `Bearer ${tokens.alice!.slice(0, -1)}${tokens.alice!.endsWith('A') ? 'B' : 'A'}`],
      ['disabled user', `Bearer ${tokens.carol}`],
    ] as const) {
      for (const url of ['/.auth/me', PUBLIC_URL]) {
        const res = await get(t.app, url, { authorization });
        expectChallenge(res, `${label} token on ${url}`);
        expect(res.raw, label).toBe(reference.raw);
      }
    }
  });
});

describe('login form, session cookie, logout', () => {
  it('logs in with form-urlencoded mgnlUserId/mgnlUserPSWD: HttpOnly, SameSite=Lax, Path=/ cookie, no-store', async () => {
    const res = await loginForm(t.app, 'alice', PW, { remoteAddress: nextClient() });
    expect(res.status, res.raw).toBe(200);
    expect(res.body).toEqual({ user: 'alice' });
    expect(res.headers['cache-control']).toBe('no-store');
    const setCookie = [res.headers['set-cookie']].flat().join('\n');
    const cookie = res.cookies.find((c) => c.name === 'petal_session')!;
    expect(cookie, setCookie).toBeDefined();
    expect(cookie.value).toMatch(/^[A-Za-z0-9_-]{43}$/); // 256 random bits
    expect(cookie.httpOnly).toBe(true);
    expect(String(cookie.sameSite).toLowerCase()).toBe('lax');
    expect(cookie.path).toBe('/');
    // Plain HTTP: no Secure attribute (a browser would drop a Secure cookie set over http).
    expect(cookie.secure).toBeFalsy();
    const me = await get(t.app, '/.auth/me', sessionCookie(cookie.value));
    expect(me.body).toEqual({ user: 'alice', roles: ['anonymous', 'private-reader', 'rest-anonymous'], via: 'session' });
    expect((await get(t.app, PRIVATE_URL, sessionCookie(cookie.value))).status).toBe(200);
  });

  it('logs in with a JSON body (mgnlUserId/mgnlUserPSWD and username/password)', async () => {
    for (const payload of [{ mgnlUserId: 'bob', mgnlUserPSWD: PW }, { username: 'bob', password: PW }]) {
      const res = await req(t.app, { method: 'POST', url: '/.auth/login', payload, remoteAddress: nextClient() });
      expect(res.status, res.raw).toBe(200);
      const id = sessionIdOf(res);
      expect(id).toBeDefined();
      expect((await get(t.app, '/.auth/me', sessionCookie(id!))).body).toMatchObject({ user: 'bob', via: 'session' });
    }
  });

  it('does not trust X-Forwarded-Proto from an unconfigured proxy: no Secure flag from a spoofable header', async () => {
    // Without trustProxy Fastify's request.protocol is the socket's (http); the cookie follows it.
    const res = await loginForm(t.app, 'bob', PW, { headers: { 'x-forwarded-proto': 'https' }, remoteAddress: nextClient() });
    expect(res.status).toBe(200);
    expect(res.cookies.find((c) => c.name === 'petal_session')!.secure).toBeFalsy();
  });

  it('answers every failed login identically (wrong password, unknown or disabled user), form and JSON', async () => {
    const attempts: Array<[string, () => Promise<Res>]> = [
      ['wrong password (form)', () => loginForm(t.app, 'alice', 'nope', { remoteAddress: nextClient() })],
      ['unknown user (form)', () => loginForm(t.app, 'mallory', PW, { remoteAddress: nextClient() })],
      ['disabled user, right password (form)', () => loginForm(t.app, 'carol', PW, { remoteAddress: nextClient() })],
      ['wrong password (JSON)', () => req(t.app, { method: 'POST', url: '/.auth/login', payload: { mgnlUserId: 'alice', mgnlUserPSWD: 'nope' }, remoteAddress: nextClient() })],
      ['unknown user (JSON)', () => req(t.app, { method: 'POST', url: '/.auth/login', payload: { mgnlUserId: 'mallory', mgnlUserPSWD: PW }, remoteAddress: nextClient() })],
      ['user name differing in case', () => loginForm(t.app, 'Alice', PW, { remoteAddress: nextClient() })],
    ];
    const bodies = new Set<string>();
    const headerSets = new Set<string>();
    for (const [label, run] of attempts) {
      const res = await run();
      expectChallenge(res, label);
      bodies.add(res.raw);
      headerSets.add(JSON.stringify([res.headers['www-authenticate'], res.headers['content-type'], res.headers['cache-control']]));
    }
    expect(bodies.size, [...bodies].join('\n')).toBe(1);
    expect(headerSets.size, [...headerSets].join('\n')).toBe(1);
  });

  it('issues a NEW session id on every login and never adopts one the client offered (fixation)', async () => {
    const client = nextClient();
    // 1. An attacker-chosen id planted before login is not adopted.
    const planted = 'attacker-chosen-session-id-0123456789abcdefghij';
    const res = await loginForm(t.app, 'alice', PW, { headers: sessionCookie(planted), remoteAddress: client });
    expect(res.status).toBe(200);
    const s1 = sessionIdOf(res)!;
    expect(s1).toBeDefined();
    expect(s1).not.toBe(planted);
    expect((await get(t.app, '/.auth/me', sessionCookie(planted))).body.via).toBe('anonymous');

    // 2. Logging in again while holding a live session S1 gives S2 != S1, and S1 stops working.
    const again = await loginForm(t.app, 'bob', PW, { headers: sessionCookie(s1), remoteAddress: client });
    const s2 = sessionIdOf(again)!;
    expect(s2).toBeDefined();
    expect(s2).not.toBe(s1);
    const old = await get(t.app, '/.auth/me', sessionCookie(s1));
    expect(old.body).toEqual({ user: null, roles: ['anonymous', 'rest-anonymous'], via: 'anonymous' });
    expect((await get(t.app, '/.auth/me', sessionCookie(s2))).body).toMatchObject({ user: 'bob', via: 'session' });

    // 3. Two logins of the same user give two different ids.
    const a = await login(t.app, 'alice', PW, client);
    const b = await login(t.app, 'alice', PW, client);
    expect(a).not.toBe(b);
  });

  it('logout destroys the session: the old cookie no longer authenticates', async () => {
    const id = await login(t.app, 'alice', PW, nextClient());
    expect((await get(t.app, PRIVATE_URL, sessionCookie(id))).status).toBe(200);
    const out = await req(t.app, { method: 'POST', url: '/.auth/logout', headers: sessionCookie(id) });
    expect(out.status, out.raw).toBe(200);
    expect(out.body).toEqual({ status: 'logged out' });
    const cleared = out.cookies.find((c) => c.name === 'petal_session');
    expect(cleared?.value ?? '').toBe('');
    // Replaying the old cookie: anonymous, and the stale cookie is cleared.
    const me = await get(t.app, '/.auth/me', sessionCookie(id));
    expect(me.body).toEqual({ user: null, roles: ['anonymous', 'rest-anonymous'], via: 'anonymous' });
    const priv = await get(t.app, PRIVATE_URL, sessionCookie(id));
    expectChallenge(priv, 'old cookie after logout');
  });

  it('treats an unknown session cookie as no credential (anonymous) and clears it', async () => {
    const me = await get(t.app, '/.auth/me', sessionCookie('no-such-session'));
    expect(me.status).toBe(200);
    expect(me.body.via).toBe('anonymous');
    const cleared = me.cookies.find((c) => c.name === 'petal_session');
    expect(cleared?.value).toBe('');
  });

  it('GET /.auth/me shows user, roles and how the caller was identified', async () => {
    const anon = await get(t.app, '/.auth/me');
    expect(anon.body).toEqual({ user: null, roles: ['anonymous', 'rest-anonymous'], via: 'anonymous' });
    expect(anon.headers['cache-control']).toBe('no-store');
  });

  it('requires both form fields (400, not a credential failure)', async () => {
    const res = await req(t.app, {
      method: 'POST', url: '/.auth/login', payload: 'mgnlUserId=alice',
      headers: { 'content-type': 'application/x-www-form-urlencoded' }, remoteAddress: nextClient(),
    });
    expectErrorShape(res, 400, 'badRequest', 'missing password');
  });
});

describe('session expiry', () => {
  // The session store reads the clock it was built with: build a separate app under a fake Date.
  let e: TestApp;
  let now = 0;
  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    now = Date.now();
    e = await createTestApp({ definitions: DEFINITIONS, content: CONTENT, security: securityConfig(hash, tempFolder()) });
  });
  afterAll(async () => {
    vi.useRealTimers();
    await e?.close();
  });
  const at = (minutes: number) => vi.setSystemTime(now + minutes * 60_000);

  it('sets Max-Age to the absolute lifetime (8 h by default)', async () => {
    const res = await loginForm(e.app, 'alice', PW, { remoteAddress: nextClient() });
    expect(res.cookies.find((c) => c.name === 'petal_session')!.maxAge).toBe(8 * 3600);
  });

  it('ends a session idle for longer than 30 minutes', async () => {
    at(0);
    const id = await login(e.app, 'alice', PW, nextClient());
    at(29);
    expect((await get(e.app, '/.auth/me', sessionCookie(id))).body.via).toBe('session');
    at(29 + 31);
    expect((await get(e.app, '/.auth/me', sessionCookie(id))).body.via).toBe('anonymous');
    expectErrorShape(await get(e.app, PRIVATE_URL, sessionCookie(id)), 401, 'notAuthorized', 'expired session');
  });

  it('ends an active session after its absolute lifetime of 8 hours', async () => {
    at(100);
    const id = await login(e.app, 'alice', PW, nextClient());
    for (let minutes = 20; minutes < 8 * 60; minutes += 20) {
      at(100 + minutes);
      expect((await get(e.app, '/.auth/me', sessionCookie(id))).body.via, `after ${minutes} min`).toBe('session');
    }
    at(100 + 8 * 60 + 1);
    expect((await get(e.app, '/.auth/me', sessionCookie(id))).body.via).toBe('anonymous');
  });
});

describe('login throttle', () => {
  it('after 10 failures from one client answers 429 tooManyRequests with Retry-After, even for the right password', async () => {
    const client = '10.99.0.1';
    for (let i = 0; i < 10; i++) {
      // The key is the socket address: a forged X-Forwarded-For does not give a fresh budget.
      const res = await loginForm(t.app, i % 2 === 0 ? 'alice' : 'mallory', `wrong-${i}`, {
        remoteAddress: client, headers: { 'x-forwarded-for': `192.0.2.${i}` },
      });
      expectChallenge(res, `failure ${i + 1}`);
    }
    const blocked = await loginForm(t.app, 'alice', PW, { remoteAddress: client, headers: { 'x-forwarded-for': '198.51.100.7' } });
    expectErrorShape(blocked, 429, 'tooManyRequests', 'right password after 10 failures');
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    expect(sessionIdOf(blocked)).toBeUndefined();
    // A wrong password gets the very same answer: being throttled reveals nothing about the password.
    const blockedWrong = await loginForm(t.app, 'alice', 'wrong', { remoteAddress: client });
    expect(blockedWrong.status).toBe(429);
    expect(blockedWrong.raw).toBe(blocked.raw);
    // Basic auth from the throttled client is throttled too (a new Basic credential needs a password check).
    const viaBasic = await get(t.app, '/.auth/me', { authorization: basic('bob', PW) }, client);
    expectErrorShape(viaBasic, 429, 'tooManyRequests', 'Basic from a throttled client');
    expect(Number(viaBasic.headers['retry-after'])).toBeGreaterThan(0);
    // Other clients are unaffected.
    expect((await loginForm(t.app, 'alice', PW, { remoteAddress: '10.99.0.2' })).status).toBe(200);
  });

  it('counts failed Basic attempts toward the same per-client budget', async () => {
    const client = '10.99.1.1';
    for (let i = 0; i < 10; i++) {
      expectChallenge(await get(t.app, '/.auth/me', { authorization: basic('alice', `bad-${i}`) }, client), `basic failure ${i + 1}`);
    }
    const res = await loginForm(t.app, 'alice', PW, { remoteAddress: client });
    expectErrorShape(res, 429, 'tooManyRequests', 'login after 10 Basic failures');
  });
});

describe('revocation takes effect on the next request (sessions, Basic, tokens)', () => {
  it('removing a role from a user: 403 at once; disabling the user: 401 at once and the session is gone', async () => {
    const client = nextClient();
    const session = await login(t.app, 'dave', PW, client);
    const ways: Record<string, Record<string, string>> = {
      session: sessionCookie(session),
      basic: { authorization: basic('dave', PW) },
      token: { authorization: `Bearer ${tokens.dave}` },
    };
    try {
      for (const [way, headers] of Object.entries(ways)) {
        expect((await get(t.app, PRIVATE_URL, headers, client)).status, way).toBe(200);
      }

      // The role is taken away: each way of signing in loses it on the very next request.
      t.security.reload(loadSecurity(securityConfig(hash, folder, { daveRoles: [] }), t.dir));
      for (const [way, headers] of Object.entries(ways)) {
        expectErrorShape(await get(t.app, PRIVATE_URL, headers, client), 403, 'accessDenied', `${way} after role removal`);
        const me = await get(t.app, '/.auth/me', headers, client);
        expect(me.body, way).toMatchObject({ user: 'dave', roles: ['anonymous', 'rest-anonymous'] });
      }

      // Given back: the same session works again (roles are resolved per request).
      t.security.reload(loadSecurity(securityConfig(hash, folder), t.dir));
      for (const [way, headers] of Object.entries(ways)) {
        expect((await get(t.app, PRIVATE_URL, headers, client)).status, `${way} after the role is back`).toBe(200);
      }

      // The user is disabled: Basic and token fail with 401; the session is no credential any more.
      t.security.reload(loadSecurity(securityConfig(hash, folder, { daveEnabled: false }), t.dir));
      expectChallenge(await get(t.app, PRIVATE_URL, ways.basic!, client), 'basic after disabling');
      expectChallenge(await get(t.app, PRIVATE_URL, ways.token!, client), 'token after disabling');
      expectChallenge(await get(t.app, '/.auth/me', ways.token!, client), 'token /.auth/me after disabling');
      const priv = await get(t.app, PRIVATE_URL, ways.session!, client);
      expectChallenge(priv, 'session after disabling (anonymous now)');
      expect((await get(t.app, '/.auth/me', ways.session!, client)).body.via).toBe('anonymous');
      // And login is refused exactly like a wrong password.
      const refused = await loginForm(t.app, 'dave', PW, { remoteAddress: nextClient() });
      expectChallenge(refused, 'login of a disabled user');

      // Re-enabled: the old session stays dead (it was destroyed), Basic and token work again.
      t.security.reload(loadSecurity(securityConfig(hash, folder), t.dir));
      expect((await get(t.app, '/.auth/me', ways.session!, client)).body.via).toBe('anonymous');
      expect((await get(t.app, PRIVATE_URL, ways.basic!, client)).status).toBe(200);
      expect((await get(t.app, PRIVATE_URL, ways.token!, client)).status).toBe(200);
    } finally {
      t.security.reload(loadSecurity(securityConfig(hash, folder), t.dir));
    }
  });

  it('revoking a token (deleting it from tokens.yaml) takes effect on reload', async () => {
    const file = join(folder, 'tokens.yaml');
    const extra = createToken({ user: 'alice', name: 'to-revoke', passwordId: pid });
    const { readTokens } = await import('../../src/security/api-tokens.js');
    const before = readTokens(file);
    try {
      writeTokens(file, [...before, extra.record]);
      t.security.reload(loadSecurity(securityConfig(hash, folder), t.dir));
      expect((await get(t.app, '/.auth/me', { authorization: `Bearer ${extra.token}` })).body.via).toBe('token');
      writeTokens(file, before);
      t.security.reload(loadSecurity(securityConfig(hash, folder), t.dir));
      expectChallenge(await get(t.app, '/.auth/me', { authorization: `Bearer ${extra.token}` }), 'revoked token');
    } finally {
      writeTokens(file, before);
      t.security.reload(loadSecurity(securityConfig(hash, folder), t.dir));
    }
  });
});
