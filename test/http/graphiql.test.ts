// GraphiQL (/.graphiql): React and GraphiQL served from Petal's own dependencies with a strict CSP, only
// its allow-listed files, pointed at the GraphQL endpoint through a data- attribute, off by default in
// production. The routes are registered on a bare Fastify app: wiring them into build-app is the
// composition root's business.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GRAPHIQL_CSP, GRAPHIQL_PATH, graphiqlEnabled, registerGraphiqlRoutes } from '../../src/http/routes/graphiql.js';
import { SCROLL_LOCK_STYLE_HASH } from '../../src/http/routes/graphiql-page.js';

const packageDir = (name: string): string => dirname(createRequire(import.meta.url).resolve(`${name}/package.json`));

async function appWith(o: { contextPath: string; endpoint?: string }): Promise<FastifyInstance> {
  const app = Fastify();
  registerGraphiqlRoutes(app, o);
  await app.ready();
  return app;
}

describe('the GraphiQL page', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await appWith({ contextPath: '/cms' });
  });
  afterAll(async () => {
    await app?.close();
  });

  it('serves a page that loads only its own files and posts to the endpoint under the context path', async () => {
    expect(GRAPHIQL_PATH).toBe('/.graphiql');
    const res = await app.inject({ method: 'GET', url: '/cms/.graphiql' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-security-policy']).toBe(GRAPHIQL_CSP);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.body).toContain('data-endpoint="/cms/.graphql"');
    expect([...res.body.matchAll(/<link rel="stylesheet" href="([^"]*)">/g)].map((m) => m[1]))
      .toEqual(['/cms/.graphiql/graphiql.min.css', '/cms/.graphiql/graphiql-page.css']);
    const scripts = [...res.body.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)];
    expect(scripts.map((m) => m[1])).toEqual([
      ' src="/cms/.graphiql/react.production.min.js"', ' src="/cms/.graphiql/react-dom.production.min.js"',
      ' src="/cms/.graphiql/graphiql.min.js"', ' src="/cms/.graphiql/graphiql-init.js"',
    ]);
    expect(scripts.every((m) => m[2] === '')).toBe(true); // no inline script
    expect(res.body).not.toMatch(/<style|style=/); // no inline style
    expect(res.body).not.toMatch(/https?:\/\//); // nothing from a CDN
  });

  it('has a CSP without inline script or style, eval or other origins', () => {
    const directives = new Map(GRAPHIQL_CSP.split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1)]));
    expect(directives.get('default-src')).toEqual(["'none'"]);
    expect(directives.get('script-src')).toEqual(["'self'"]);
    // One inline stylesheet by its hash (GraphiQL's scroll lock while a dialog is open), never 'unsafe-inline'.
    expect(directives.get('style-src')).toEqual(["'self'", SCROLL_LOCK_STYLE_HASH]);
    expect(SCROLL_LOCK_STYLE_HASH).toMatch(/^'sha256-[A-Za-z0-9+/]{43}='$/);
    expect(directives.get('connect-src')).toEqual(["'self'"]);
    expect(directives.get('frame-ancestors')).toEqual(["'none'"]);
    expect(GRAPHIQL_CSP).not.toContain('unsafe');
  });

  it('answers 304 to a revalidation of the page', async () => {
    const res = await app.inject({ method: 'GET', url: '/cms/.graphiql' });
    const again = await app.inject({ method: 'GET', url: '/cms/.graphiql', headers: { 'if-none-match': res.headers.etag as string } });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    const stale = await app.inject({ method: 'GET', url: '/cms/.graphiql', headers: { 'if-none-match': '"0-0"' } });
    expect(stale.statusCode).toBe(200);
  });

  it('serves the packages\' files as they are, cached for a day with an ETag, under the same CSP', async () => {
    const files: [string, string, string][] = [
      ['graphiql.min.js', join(packageDir('graphiql'), 'graphiql.min.js'), 'text/javascript; charset=utf-8'],
      ['graphiql.min.css', join(packageDir('graphiql'), 'graphiql.min.css'), 'text/css; charset=utf-8'],
      ['react.production.min.js', join(packageDir('react'), 'umd', 'react.production.min.js'), 'text/javascript; charset=utf-8'],
      ['react-dom.production.min.js', join(packageDir('react-dom'), 'umd', 'react-dom.production.min.js'), 'text/javascript; charset=utf-8'],
    ];
    for (const [name, path, type] of files) {
      const res = await app.inject({ method: 'GET', url: `/cms/.graphiql/${name}` });
      expect(res.statusCode, name).toBe(200);
      expect(res.headers['content-type'], name).toBe(type);
      expect(res.rawPayload.equals(readFileSync(path)), name).toBe(true);
      expect(res.headers['cache-control'], name).toBe('public, max-age=86400');
      expect(res.headers['content-security-policy'], name).toBe(GRAPHIQL_CSP);
      const revalidated = await app.inject({
        method: 'GET', url: `/cms/.graphiql/${name}`, headers: { 'if-none-match': `W/${res.headers.etag as string}` },
      });
      expect(revalidated.statusCode, name).toBe(304);
      expect(revalidated.body, name).toBe('');
    }
  });

  // That its requests carry the visitor's cookies (fetch's default for its own origin) is shown in Chromium (test/browser/graphiql.test.ts).
  it('starts GraphiQL with the endpoint taken from the page', async () => {
    const init = await app.inject({ method: 'GET', url: '/cms/.graphiql/graphiql-init.js' });
    expect(init.statusCode).toBe(200);
    expect(init.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(init.body).toContain("getAttribute('data-endpoint')");
    expect(init.body).not.toContain("credentials: 'omit'");
    const css = await app.inject({ method: 'GET', url: '/cms/.graphiql/graphiql-page.css' });
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(css.body).toContain('#graphiql { height: 100vh; }');
    // The scroll lock's hash holds only while the body has no margin and the page no scrollbar.
    expect(css.body).toContain('html { height: 100%; overflow: hidden; }');
    expect(css.body).toContain('body { height: 100%; margin: 0; }');
  });

  it('serves only its allow-listed files: no other file of the packages, no traversal', async () => {
    const refused = [
      '/cms/.graphiql/graphiql.js', '/cms/.graphiql/graphiql.min.js.map', '/cms/.graphiql/package.json',
      '/cms/.graphiql/react.development.js', '/cms/.graphiql/index.js', '/cms/.graphiql/..%2fpackage.json',
      '/cms/.graphiql/%2e%2e%2f%2e%2e%2fpackage.json', '/cms/.graphiql/graphiql.min.css/..%2f..%2fpackage.json',
      '/cms/.graphiql/__proto__', '/cms/.graphiql/constructor', '/cms/.graphiql/', '/cms/.graphiql/umd/react.production.min.js',
      '/.graphiql', '/.graphiql/graphiql.min.js',
    ];
    for (const url of refused) {
      const res = await app.inject({ method: 'GET', url });
      expect([400, 404], url).toContain(res.statusCode);
      expect(res.body, url).not.toContain('"version"');
      expect(res.body, url).not.toContain('GraphiQL.create');
    }
    const unknown = await app.inject({ method: 'GET', url: '/cms/.graphiql/nothing.js' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(unknown.json()).toEqual({ error: { code: 'notFound', message: 'No GraphiQL file "nothing.js"' } });
  });
});

describe('the GraphiQL endpoint', () => {
  it('posts to the configured endpoint, at the root without a context path', async () => {
    const root = await appWith({ contextPath: '' });
    const moved = await appWith({ contextPath: '/cms', endpoint: '/cms/api/.graphql?x="<a>"' });
    try {
      expect((await root.inject({ method: 'GET', url: '/.graphiql' })).body).toContain('data-endpoint="/.graphql"');
      const page = (await moved.inject({ method: 'GET', url: '/cms/.graphiql' })).body;
      expect(page).toContain('data-endpoint="/cms/api/.graphql?x=&#34;&#60;a&#62;&#34;"'); // escaped, not markup
    } finally {
      await root.close();
      await moved.close();
    }
  });

  it('refuses an endpoint that is not a path on this server, with a clear error', () => {
    for (const endpoint of ['https://other.example/.graphql', '//other.example/.graphql', '/\\other.example', '.graphql', '', '/a b']) {
      expect(() => registerGraphiqlRoutes(Fastify(), { contextPath: '', endpoint }), endpoint).toThrow(/expected a path on this server/);
    }
  });
});

describe('GraphiQL switched on or off', () => {
  it('petal.yaml: as configured; when absent, on except with NODE_ENV=production', () => {
    expect(graphiqlEnabled(undefined, undefined)).toBe(true);
    expect(graphiqlEnabled(undefined, 'development')).toBe(true);
    expect(graphiqlEnabled(undefined, 'production')).toBe(false);
    expect(graphiqlEnabled(true, 'production')).toBe(true);
    expect(graphiqlEnabled(false, 'development')).toBe(false);
  });
});
