// Issue 13, points 3 and 6 through HTTP: the login throttle counts an attempt before hashing (so a
// burst of concurrent wrong passwords gets 10 × 401 and then 429), a server-wide bound on hashes in
// flight answers 503 beyond it, IPv6 clients share a budget per /64, and behind proxies the throttle
// keys on the address the last trusted proxy saw (trustProxy: hops or addresses).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/security/password-hash.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { basic, expectErrorShape, get, loginForm, tempFolder, type Res } from './helpers.js';

const PW = 'correct horse battery staple';

// A cheap hash (ln=10) for the real user: the tests count answers, not time, and stay fast.
let cheapHash: string;
beforeAll(async () => {
  cheapHash = await hashPassword(PW, { ln: 10, r: 8, p: 1 });
});

function security(login?: { maxConcurrentHashes: number; maxQueuedHashes: number }) {
  return {
    folder: tempFolder(),
    ...(login ? { login } : {}),
    users: { alice: { passwordHash: cheapHash } },
  };
}

const statuses = (all: Res[]) => {
  const count: Record<number, number> = {};
  for (const r of all) count[r.status] = (count[r.status] ?? 0) + 1;
  return count;
};

describe('concurrent wrong passwords from one client', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ security: security() });
  });
  afterAll(async () => t?.close());

  it('login form: 10 answers 401, every other one 429 with Retry-After', async () => {
    const all = await Promise.all(Array.from({ length: 100 }, (_, i) => loginForm(t.app, 'alice', `wrong-${i}`, { remoteAddress: '10.13.3.1' })));
    expect(statuses(all)).toEqual({ 401: 10, 429: 90 });
    for (const r of all.filter((x) => x.status === 429)) {
      expectErrorShape(r, 429, 'tooManyRequests');
      expect(Number(r.headers['retry-after'])).toBeGreaterThan(0);
    }
    // The right password from elsewhere still works, and from the throttled client it does not.
    expect((await loginForm(t.app, 'alice', PW, { remoteAddress: '10.13.3.2' })).status).toBe(200);
    expect((await loginForm(t.app, 'alice', PW, { remoteAddress: '10.13.3.1' })).status).toBe(429);
  });

  it('Basic: the same budget, counted before hashing', async () => {
    const all = await Promise.all(Array.from({ length: 60 }, (_, i) => get(t.app, '/.auth/me', { authorization: basic('alice', `bad-${i}`) }, '10.13.3.5')));
    expect(statuses(all)).toEqual({ 401: 10, 429: 50 });
  });

  it('successes do not use up the budget', async () => {
    for (let i = 0; i < 15; i++) expect((await loginForm(t.app, 'alice', PW, { remoteAddress: '10.13.3.9' })).status).toBe(200);
  });

  it('IPv6 clients share one budget per /64', async () => {
    for (let i = 0; i < 10; i++) {
      const res = await loginForm(t.app, 'alice', `wrong-${i}`, { remoteAddress: `2001:db8:aa:bb:${i.toString(16)}::${i + 1}` });
      expect(res.status, `failure ${i + 1}`).toBe(401);
    }
    expect((await loginForm(t.app, 'alice', PW, { remoteAddress: '2001:db8:aa:bb:ffff:1:2:3' })).status).toBe(429);
    expect((await loginForm(t.app, 'alice', PW, { remoteAddress: '2001:db8:aa:bc::1' })).status).toBe(200);
  });
});

describe('bounded password hashes in flight', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ security: security({ maxConcurrentHashes: 1, maxQueuedHashes: 2 }) });
  });
  afterAll(async () => t?.close());

  it('beyond the running and queued hashes: 503 serviceUnavailable with Retry-After, never 500', async () => {
    // Distinct clients, so the throttle lets each through: only the gate can refuse. Unknown users
    // cost a full default-cost hash, which keeps the first ones busy while the rest arrive.
    const all = await Promise.all(Array.from({ length: 20 }, (_, i) => loginForm(t.app, `nobody-${i}`, 'x', { remoteAddress: `10.13.4.${i + 1}` })));
    const count = statuses(all);
    expect(count[401]).toBe(3); // one running, two queued
    expect(count[503]).toBe(17);
    for (const r of all.filter((x) => x.status === 503)) {
      expectErrorShape(r, 503, 'serviceUnavailable');
      expect(Number(r.headers['retry-after'])).toBeGreaterThan(0);
    }
    // A refusal for load is not a failure of the client: it may sign in at once.
    expect((await loginForm(t.app, 'alice', PW, { remoteAddress: '10.13.4.20' })).status).toBe(200);
  });
});

describe('trustProxy', () => {
  it('with 1 hop, the address the proxy saw is the client: a forged leftmost X-Forwarded-For gives no fresh budget', async () => {
    const t = await createTestApp({ security: security(), trustProxy: 1 });
    try {
      const answers: number[] = [];
      for (let i = 0; i < 15; i++) {
        const res = await loginForm(t.app, 'alice', `wrong-${i}`, { remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': `10.0.${i}.1, 203.0.113.9` } });
        answers.push(res.status);
      }
      expect(answers).toEqual([...Array<number>(10).fill(401), ...Array<number>(5).fill(429)]);
      // Another client behind the same proxy is not affected.
      expect((await loginForm(t.app, 'alice', PW, { remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': '203.0.113.10' } })).status).toBe(200);
    } finally {
      await t.close();
    }
  });

  it('true means one hop, not "believe every entry"', async () => {
    const t = await createTestApp({ security: security(), trustProxy: true });
    try {
      for (let i = 0; i < 10; i++) {
        await loginForm(t.app, 'alice', `wrong-${i}`, { remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': `10.0.${i}.1, 203.0.113.9` } });
      }
      const res = await loginForm(t.app, 'alice', PW, { remoteAddress: '127.0.0.1', headers: { 'x-forwarded-for': '10.9.9.9, 203.0.113.9' } });
      expect(res.status).toBe(429);
    } finally {
      await t.close();
    }
  });

  it('with a list of proxies, X-Forwarded-For from any other peer is ignored', async () => {
    const t = await createTestApp({ security: security(), trustProxy: ['192.0.2.0/24'] });
    try {
      // A direct client (not a listed proxy) cannot choose its address.
      for (let i = 0; i < 10; i++) {
        await loginForm(t.app, 'alice', `wrong-${i}`, { remoteAddress: '198.51.100.7', headers: { 'x-forwarded-for': `10.1.${i}.1` } });
      }
      expect((await loginForm(t.app, 'alice', PW, { remoteAddress: '198.51.100.7', headers: { 'x-forwarded-for': '10.1.99.1' } })).status).toBe(429);
      // Through a listed proxy, the forwarded address is the client.
      for (let i = 0; i < 10; i++) {
        await loginForm(t.app, 'alice', `wrong-${i}`, { remoteAddress: '192.0.2.5', headers: { 'x-forwarded-for': '203.0.113.50' } });
      }
      expect((await loginForm(t.app, 'alice', PW, { remoteAddress: '192.0.2.5', headers: { 'x-forwarded-for': '203.0.113.50' } })).status).toBe(429);
      expect((await loginForm(t.app, 'alice', PW, { remoteAddress: '192.0.2.5', headers: { 'x-forwarded-for': '203.0.113.51' } })).status).toBe(200);
    } finally {
      await t.close();
    }
  });
});
