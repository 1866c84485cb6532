// HTTP error rules: JSON errors of the table, 404 notFound for unknown endpoints and routes, 405 for
// writes, and no 500 or stack trace whatever the path, parameters or characters.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { createTestApp, getJson, type TestApp } from '../helpers/test-app.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/render/', import.meta.url));

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({
    contentPaths: [FIXTURES],
    definitions: {
      'delivery/pages_v1.yaml': '$type: jcrDeliveryEndpoint_v2\nworkspace: website\ndepth: 3\n',
      'delivery/rooted.yaml': '$type: jcrDeliveryEndpoint_v2\nworkspace: website\nrootPath: /site/about\n',
    },
  });
});
afterAll(async () => {
  await t.close();
});

describe('errors', () => {
  it('answers unknown endpoints and routes with 404 notFound in JSON', async () => {
    const ep = await getJson(t.app, '/.rest/delivery/nothing/here');
    expect(ep.status).toBe(404);
    expect(ep.body.error.code).toBe('notFound');
    expect(ep.headers['content-type']).toContain('application/json');
    const route = await getJson(t.app, '/somewhere');
    expect(route.status).toBe(404);
    expect(route.body.error.code).toBe('notFound');
    const prefix = await getJson(t.app, '/.rest/delivery/pages/v10/site');
    expect(prefix.status).toBe(404);
    expect(prefix.body.error.code).toBe('notFound');
  });

  it('answers writes with 405 methodNotAllowed and an Allow header', async () => {
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH'] as const) {
      const res = await t.app.inject({ method, url: '/.rest/delivery/pages/v1/site', payload: '{}', headers: { 'content-type': 'application/json' } });
      expect(res.statusCode).toBe(405);
      expect(JSON.parse(res.body).error.code).toBe('methodNotAllowed');
      expect(res.headers.allow).toBe('GET, HEAD');
    }
  });

  it('answers HEAD like GET without a body', async () => {
    const res = await t.app.inject({ method: 'HEAD', url: '/.rest/delivery/pages/v1/site' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('');
  });

  it('never escapes rootPath with .. or encoded dots', async () => {
    for (const url of [
      '/.rest/delivery/rooted/../../site', '/.rest/delivery/rooted/%2e%2e/%2e%2e/site', '/.rest/delivery/rooted/..%2f..%2fsite',
      '/.rest/delivery/rooted/team/../../news',
    ]) {
      const { status, body } = await getJson(t.app, url);
      expect(status, url).toBeGreaterThanOrEqual(400);
      expect(status, url).toBeLessThan(500);
      expect(JSON.stringify(body), url).not.toContain('"title":"News"');
    }
  });

  it('answers 414 uriTooLong for very long URLs', async () => {
    const { status, body } = await getJson(t.app, `/.rest/delivery/pages/v1/${'a'.repeat(9000)}`);
    expect(status).toBe(414);
    expect(body.error.code).toBe('uriTooLong');
  });

  it('never answers 500 or shows a stack trace for odd paths and parameters', async () => {
    const odd = [
      '/.rest/', '/.rest', '/.rest//', '/.rest/delivery', '/.rest/delivery/pages/v1', '/.rest/delivery/pages/v1/',
      '/.rest/delivery/pages/v1/@nodes', '/.rest/delivery/pages/v1/site@nodes@nodes', '/.rest/delivery/pages/v1/%',
      '/.rest/delivery/pages/v1/%zz', '/.rest/delivery/pages/v1/%00', '/.rest/delivery/pages/v1/%C0%AE%C0%AE/site',
      '/.rest/delivery/pages/v1/site%2Fmain', '/.rest/delivery/pages/v1/site;jsessionid=1', '/.rest/delivery/pages/v1/site\\main',
      '/.rest/delivery/pages/v1/%F0%9F%8C%B8', '/.rest/delivery/pages/v1/site?lang=%FF', '/.rest/delivery/pages/v1/site?lang=',
      '/.rest/delivery/pages/v1/site?properties=&excludeProperties=,,,', '/.rest/delivery/pages/v1/site?properties[]=x',
      '/.rest/delivery/pages/v1/site?lang=de&lang=fr', '/.rest/delivery/pages/v1/site?version=',
      '/.rest/delivery/pages/v1/site?%', '/.rest/delivery/pages/v1/site?a=%E0%A4%A', '/.rest/delivery/pages/v1/site#frag',
      '/.rest/delivery/pages/v1/' + encodeURIComponent('<script>alert(1)</script>'), '/.rest/delivery/pages/v1/site/.',
      '/.rest/delivery/pages/v1/./site', '/%2e%2e/.rest/delivery/pages/v1/site', '/.rest/delivery/pages/v1/site?lang=all&lang=all',
      '/.health?x=1', '/.rest/delivery/pages/v1/site/main/0@nodes?depth=99', '/.rest/delivery/pages/v1/' + 'x/'.repeat(500),
    ];
    for (const url of odd) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBeLessThan(500);
      expect(res.headers['content-type'], url).toContain('application/json');
      expect(res.body, url).not.toMatch(/at .*\.(ts|js):\d+/);
      if (res.statusCode >= 400) {
        const body = JSON.parse(res.body);
        expect(Object.keys(body.error).sort(), url).toEqual(['code', 'message']);
      }
    }
  });

  it('answers /.health with 200 {"status":"ok"} while the store is reachable', async () => {
    const { status, body } = await getJson(t.app, '/.health');
    expect(status).toBe(200);
    expect(body).toEqual({ status: 'ok' });
  });
});
