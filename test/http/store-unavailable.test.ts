// A store that cannot be used under a serving app (here: closed, as during shutdown; the PostgreSQL
// outages themselves are in postgres-faults.test.ts): delivery answers already cached are served marked
// stale, everything else is 503 `serviceUnavailable` with Retry-After, never 500 (issue 14, point 5).
// On SQLite, and on PostgreSQL with PETAL_TEST_PG.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STALE_WARNING } from '../../src/http/response-cache-policy.js';
import { loadSecurity } from '../../src/config/security-config.js';
import { OPEN_SECURITY, createTestApp, getJson, type TestApp } from '../helpers/test-app.js';

const DEMO = join(import.meta.dirname, '..', '..', 'demo');
const PLANTS = '/.rest/delivery/plants/v1';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ moduleRoots: [join(DEMO, 'light-modules')], contentPaths: [join(DEMO, 'content')] });
}, 180_000);
afterAll(async () => {
  await t?.close();
});

describe(`a store that cannot be used (${process.env.PETAL_TEST_PG ? 'PostgreSQL' : 'SQLite'})`, () => {
  it('serves cached answers marked stale and answers 503 for the rest; a security reload still drops them', async () => {
    const cached = `${PLANTS}/catalog/lavender-hidcote`;
    const warm = await getJson(t.app, cached);
    expect(warm.status).toBe(200);
    expect(warm.headers.warning).toBeUndefined();
    expect(warm.headers.age).toBeUndefined();

    await t.store.close();
    // SQLite trusts a generation read in the last 100 ms without asking again.
    await new Promise((r) => setTimeout(r, 150));

    const stale = await getJson(t.app, cached);
    expect(stale.status).toBe(200);
    expect(stale.raw).toBe(warm.raw);
    expect(stale.headers.warning).toBe(STALE_WARNING);
    expect(stale.headers.age).toMatch(/^\d+$/);
    expect(stale.headers['cache-control']).toBe('no-store');

    for (const url of [`${PLANTS}/catalog/rose-amber-morning`, `${PLANTS}/?orderBy=name`, '/dam/jcr:71bbb8b5-5558-46a9-80f4-8689cc3adc96/x.jpg']) {
      const r = await getJson(t.app, url);
      expect(r.status, url).toBe(503);
      expect(r.body.error.code, url).toBe('serviceUnavailable');
      expect(Number(r.headers['retry-after']), url).toBeGreaterThan(0);
    }
    const health = await t.app.inject({ method: 'GET', url: '/.health' });
    expect(health.statusCode).toBe(503);
    expect(Number(health.headers['retry-after'])).toBeGreaterThan(0);

    // Answers rendered under other permissions are never served, stale or not.
    t.security.reload(loadSecurity(OPEN_SECURITY, t.dir));
    expect((await getJson(t.app, cached)).status).toBe(503);
  });
});
