// CORS declared by a light module's site definition (`site.cors`, as the travel-spa's spa-lm declares
// it): honoured on the paths it names, `*` as any origin without credentials, listed origins echoed;
// what cannot be honoured safely is reported.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discoverSites } from '../../src/config/discover-sites.js';
import { parseSiteCors } from '../../src/config/site-cors.js';
import { compileGlob } from '../../src/security/uri-permissions.js';
import { CORPORA, CORPORA_AVAILABLE } from '../helpers/corpora.js';
import { createTestApp, OPEN_SECURITY, type TestApp } from '../helpers/test-app.js';

const PAGES = `$type: jcrDeliveryEndpoint_v2\nworkspace: website\ndepth: 1\n`;
const SITE_CONTENT = 'site:\n  jcr:primaryType: mgnl:page\n  title: Site\n';
const FRONT = 'http://localhost:3000';

function preflight(url: string, origin: string) {
  return { method: 'OPTIONS' as const, url, headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-mgnl-age' } };
}

describe('site CORS rules', () => {
  it('are read from the travel-spa site definition: /.rest/* for any origin, without credentials', () => {
    if (!CORPORA_AVAILABLE) return;
    const site = discoverSites([join(CORPORA, 'travel-spa', 'magnolia', 'light-modules')]).find((s) => s.name === 'fallback');
    expect(site?.cors).toEqual([{
      name: 'default', patterns: ['/.rest/*'], origins: '*', methods: '*', headers: '*', exposedHeaders: [], credentials: false,
    }]);
    expect(site?.corsProblems).toEqual([]);
  });

  it('report what they cannot honour: credentials for any origin, malformed origins, rules without paths', () => {
    const { rules, problems } = parseSiteCors('s', {
      open: { uris: { a: { patternString: '/.rest/*' } }, allowedOrigins: { all: '*' }, supportsCredentials: true },
      bad: { uris: { a: { patternString: '/.rest/*' } }, allowedOrigins: ['javascript:alert(1)', 'https://ok.example/'] },
      nowhere: { allowedOrigins: ['https://ok.example'] },
    });
    expect(rules.map((r) => [r.name, r.origins, r.credentials])).toEqual([['open', '*', false], ['bad', ['https://ok.example'], false]]);
    expect(problems.join('\n')).toMatch(/cors\.open: supportsCredentials with allowed origin '\*'/);
    expect(problems.join('\n')).toMatch(/cors\.bad: allowed origin "javascript:alert\(1\)"/);
    expect(problems.join('\n')).toMatch(/cors\.nowhere has no uris/);
  });

  it('match paths with * as any run (the glob of URI permissions)', () => {
    const matchesCorsPattern = (pattern: string, path: string) => compileGlob(pattern).matches(path);
    expect(matchesCorsPattern('/.rest/*', '/.rest/delivery/x')).toBe(true);
    expect(matchesCorsPattern('/.rest/*', '/dam/x')).toBe(false);
    expect(matchesCorsPattern('/a/*/c', '/a/b/x/c')).toBe(true);
    expect(matchesCorsPattern('/exact', '/exact/')).toBe(false);
  });
});

describe('site CORS through HTTP', () => {
  let t: TestApp;
  beforeAll(async () => {
    const { rules } = parseSiteCors('fallback', {
      default: { uris: { rest: { patternString: '/.rest/*' } }, allowedOrigins: { all: '*' }, allowedMethods: { all: '*' }, allowedHeaders: { all: '*' } },
      front: { uris: { shop: { patternString: '/shop/*' } }, allowedOrigins: [FRONT], supportsCredentials: true },
    });
    t = await createTestApp({
      security: OPEN_SECURITY, contextPath: '/ctx',
      site: { name: 'fallback', locales: ['en'], defaultLocale: 'en', cors: rules },
      definitions: { 'delivery/pages_v1.yaml': PAGES }, content: { 'website.site.yaml': SITE_CONTENT },
    });
  });
  afterAll(async () => t?.close());

  it('answers any origin with * and no credentials on the paths of a * rule', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/ctx/.rest/delivery/pages/v1/site', headers: { origin: 'https://anyone.example' } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    const pre = await t.app.inject(preflight('/ctx/.rest/delivery/pages/v1/site', 'https://anyone.example'));
    expect(pre.statusCode).toBe(204);
    expect(pre.headers['access-control-allow-origin']).toBe('*');
    expect(String(pre.headers['access-control-allow-headers']).toLowerCase()).toContain('x-mgnl-age');
  });

  it('echoes a listed origin with credentials on its own paths only, and gives others nothing', async () => {
    const pre = await t.app.inject(preflight('/ctx/shop/v1/products', FRONT));
    expect(pre.headers['access-control-allow-origin']).toBe(FRONT);
    expect(pre.headers['access-control-allow-credentials']).toBe('true');
    const stranger = await t.app.inject(preflight('/ctx/shop/v1/products', 'https://evil.example'));
    expect(stranger.headers['access-control-allow-origin']).toBeUndefined();
    const outside = await t.app.inject({ method: 'GET', url: '/ctx/dam/jcr:x/y.jpg', headers: { origin: 'https://anyone.example' } });
    expect(outside.headers['access-control-allow-origin']).toBeUndefined();
    // A path that only looks like it is below the context path is not.
    const elsewhere = await t.app.inject({ method: 'GET', url: '/.rest/delivery/pages/v1/site', headers: { origin: 'https://anyone.example' } });
    expect(elsewhere.headers['access-control-allow-origin']).toBeUndefined();
  });
});
