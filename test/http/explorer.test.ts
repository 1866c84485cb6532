// The API explorer page (/.petal/explorer): Swagger UI served from Petal's own dependency with a strict
// CSP, only its allow-listed files, off when configured so (and by default in production).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPLORER_CSP, explorerEnabled } from '../../src/http/routes/explorer.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { basic, hashOf } from '../security-http/helpers.js';

const DIST = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
const PW = 'explorer test password';
const DEFINITIONS = { 'delivery/pages_v1.yaml': 'workspace: website\n' };

describe('the API explorer page', () => {
  let t: TestApp;
  let builtIn: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ definitions: DEFINITIONS, explorer: true, contextPath: '/cms' });
    // Built-in roles only (security: {}): the anonymous role decides whether the page is public.
    builtIn = await createTestApp({
      definitions: DEFINITIONS, explorer: true,
      security: { roles: { editor: { uriPermissions: [] } }, users: { ed: { passwordHash: await hashOf(PW), roles: ['editor'] } } },
    });
  });
  afterAll(async () => {
    await t?.close();
    await builtIn?.close();
  });

  it('serves a page that loads only its own files and the OpenAPI document under the context path', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/cms/.petal/explorer' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toBe(EXPLORER_CSP);
    expect(EXPLORER_CSP).toContain("script-src 'self'");
    expect(EXPLORER_CSP).not.toContain('unsafe');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.body).toContain('href="/cms/.petal/explorer/swagger-ui.css"');
    expect(res.body).toContain('href="/cms/.petal/explorer/favicon-32x32.png"');
    expect(res.body).toContain('data-url="/cms/.rest/openapi.json"');
    const scripts = [...res.body.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.map((m) => m[1])).toEqual([' src="/cms/.petal/explorer/swagger-ui-bundle.js"', ' src="/cms/.petal/explorer/explorer-init.js"']);
    expect(scripts.every((m) => m[2] === '')).toBe(true); // no inline script
    expect(res.body).not.toMatch(/https?:\/\//); // nothing from a CDN
    const again = await t.app.inject({ method: 'GET', url: '/cms/.petal/explorer', headers: { 'if-none-match': res.headers.etag as string } });
    expect(again.statusCode).toBe(304);
  });

  it('serves swagger-ui-dist\'s files as they are, cached for a day with an ETag', async () => {
    const css = await t.app.inject({ method: 'GET', url: '/cms/.petal/explorer/swagger-ui.css' });
    expect(css.statusCode).toBe(200);
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(css.rawPayload.equals(readFileSync(join(DIST, 'swagger-ui.css')))).toBe(true);
    expect(css.headers['cache-control']).toBe('public, max-age=86400');
    const js = await t.app.inject({ method: 'GET', url: '/cms/.petal/explorer/swagger-ui-bundle.js' });
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(js.rawPayload.equals(readFileSync(join(DIST, 'swagger-ui-bundle.js')))).toBe(true);
    const revalidated = await t.app.inject({
      method: 'GET', url: '/cms/.petal/explorer/swagger-ui-bundle.js', headers: { 'if-none-match': js.headers.etag as string },
    });
    expect(revalidated.statusCode).toBe(304);
    expect(revalidated.body).toBe('');
    const icon = await t.app.inject({ method: 'GET', url: '/cms/.petal/explorer/favicon-32x32.png' });
    expect(icon.headers['content-type']).toBe('image/png');
    expect(icon.rawPayload.equals(readFileSync(join(DIST, 'favicon-32x32.png')))).toBe(true);
  });

  it('initializes Swagger UI with the caller\'s credentials, the URL taken from the page', async () => {
    const init = await t.app.inject({ method: 'GET', url: '/cms/.petal/explorer/explorer-init.js' });
    expect(init.statusCode).toBe(200);
    expect(init.body).toContain('withCredentials: true');
    expect(init.body).toContain("getAttribute('data-url')");
  });

  it('serves only its allow-listed files: no other file of the package, no traversal', async () => {
    const refused = [
      '/cms/.petal/explorer/index.html', '/cms/.petal/explorer/swagger-ui.js.map', '/cms/.petal/explorer/package.json',
      '/cms/.petal/explorer/..%2fpackage.json', '/cms/.petal/explorer/%2e%2e%2f%2e%2e%2fpackage.json',
      '/cms/.petal/explorer/swagger-ui.css/..%2f..%2fpackage.json', '/cms/.petal/explorer/__proto__',
      '/cms/.petal/explorer/constructor', '/cms/.petal/explorer/', '/cms/.petal/explorer/a/swagger-ui.css',
    ];
    for (const url of refused) {
      const res = await t.app.inject({ method: 'GET', url });
      expect([400, 404], url).toContain(res.statusCode);
      expect(res.body, url).not.toContain('"version"');
      expect(res.body, url).not.toContain('SwaggerUI');
    }
  });

  it('is public with the built-in roles: anonymous and signed-in callers may get the page and its files', async () => {
    expect((await builtIn.app.inject({ method: 'GET', url: '/.petal/explorer' })).statusCode).toBe(200);
    expect((await builtIn.app.inject({ method: 'GET', url: '/.petal/explorer/explorer-init.js' })).statusCode).toBe(200);
    // Signed-in callers hold rest-anonymous (security.authenticatedRoles), not anonymous.
    const signedIn = { authorization: basic('ed', PW) };
    expect((await builtIn.app.inject({ method: 'GET', url: '/.petal/explorer', headers: signedIn })).statusCode).toBe(200);
    expect((await builtIn.app.inject({ method: 'GET', url: '/.petal/explorer/swagger-ui.css', headers: signedIn })).statusCode).toBe(200);
    // The grant stops at the explorer: the rest of /.petal stays closed.
    expect((await builtIn.app.inject({ method: 'GET', url: '/.petal/other' })).statusCode).toBe(401);
  });
});

describe('the API explorer switched off', () => {
  it('answers 404 for the page and its files when off (explorer: false, or not asked for)', async () => {
    for (const explorer of [false, undefined]) {
      const t = await createTestApp({ definitions: DEFINITIONS, ...(explorer !== undefined ? { explorer } : {}) });
      try {
        for (const url of ['/.petal/explorer', '/.petal/explorer/swagger-ui-bundle.js', '/.petal/explorer/explorer-init.js']) {
          expect((await t.app.inject({ method: 'GET', url })).statusCode, `${url} (${String(explorer)})`).toBe(404);
        }
      } finally {
        await t.close();
      }
    }
  });

  it('petal.yaml explorer: as configured; when absent, on except with NODE_ENV=production', () => {
    expect(explorerEnabled(undefined, undefined)).toBe(true);
    expect(explorerEnabled(undefined, 'development')).toBe(true);
    expect(explorerEnabled(undefined, 'production')).toBe(false);
    expect(explorerEnabled(true, 'production')).toBe(true);
    expect(explorerEnabled(false, 'development')).toBe(false);
  });
});
