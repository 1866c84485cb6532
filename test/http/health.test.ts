// /.health answers probes at the root and under the context path, whatever the roles allow: it needs no
// credentials and reveals nothing but whether the store answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

describe('/.health with a context path and an anonymous role that may reach nothing', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ contextPath: '/magnoliaPublic', security: { roles: { anonymous: { uriPermissions: [] } } } });
  });
  afterAll(async () => t?.close());

  it('answers 200 at /.health and under the context path, with or without a query', async () => {
    for (const url of ['/.health', '/magnoliaPublic/.health', '/.health?probe=1']) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.json()).toEqual({ status: 'ok' });
      expect(res.headers['cache-control']).toBe('no-store');
    }
  });

  it('lets nothing else through: other paths still meet the URI rules', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/magnoliaPublic/dam/jcr:x/y.jpg' })).statusCode).toBe(401);
    expect((await t.app.inject({ method: 'GET', url: '/magnoliaPublic/.health/../.rest/delivery/x' })).statusCode).not.toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/elsewhere/.health' })).statusCode).toBe(404);
  });
});
