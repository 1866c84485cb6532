// Security layer tests: URI permission precedence (Magnolia's AccessManagerImpl), method classes and
// the glob matcher (including a pathological pattern that would backtrack catastrophically as a regex).
import { describe, expect, it } from 'vitest';
import {
  compileGlob,
  compileUriRules,
  requiredUriPermission,
  type UriRule,
} from '../../src/security/uri-permissions.js';

const restAnonymous: UriRule[] = [{ path: '/.rest/delivery/*', permission: 'get' }];
const anonymous: UriRule[] = [
  { path: '*', permission: 'getAndPost' },
  { path: '/.magnolia*', permission: 'deny' },
];

describe('compileGlob', () => {
  it('matches exact patterns exactly', () => {
    const g = compileGlob('/a/b');
    expect(g.kind).toBe('exact');
    expect(g.matches('/a/b')).toBe(true);
    expect(g.matches('/a/b/')).toBe(false);
    expect(g.matches('/a/bc')).toBe(false);
    expect(g.matches('/a')).toBe(false);
  });

  it('matches * at the end, including / and the empty run', () => {
    const g = compileGlob('/.rest/delivery/*');
    expect(g.kind).toBe('prefix');
    expect(g.literal).toBe('/.rest/delivery/');
    expect(g.matches('/.rest/delivery/')).toBe(true);
    expect(g.matches('/.rest/delivery/pages/a/b')).toBe(true);
    expect(g.matches('/.rest/delivery')).toBe(false);
    expect(g.matches('/.rest/deliveryx')).toBe(false);
  });

  it('matches * at the start and in the middle', () => {
    const start = compileGlob('*.json');
    expect(start.kind).toBe('glob');
    expect(start.matches('/bin/querybuilder.json')).toBe(true);
    expect(start.matches('.json')).toBe(true);
    expect(start.matches('/a.json/x')).toBe(false);

    const middle = compileGlob('/.rest/*/private');
    expect(middle.matches('/.rest/delivery/private')).toBe(true);
    expect(middle.matches('/.rest/a/b/private')).toBe(true);
    expect(middle.matches('/.rest//private')).toBe(true);
    expect(middle.matches('/.rest/private')).toBe(false); // prefix and suffix may not overlap
    expect(middle.matches('/.rest/delivery/private/x')).toBe(false);

    const many = compileGlob('/a*b*c');
    expect(many.matches('/abc')).toBe(true);
    expect(many.matches('/axxbyyc')).toBe(true);
    expect(many.matches('/acb')).toBe(false);
    expect(many.matches('/abcbc')).toBe(true);
    expect(compileGlob('*ab*ab*').matches('ab')).toBe(false);
    expect(compileGlob('*ab*ab*').matches('abab')).toBe(true);
    expect(compileGlob('a*aa').matches('aa')).toBe(false);
    expect(compileGlob('a*aa').matches('aaa')).toBe(true);
  });

  it('matches * alone and ** against anything', () => {
    for (const p of ['*', '**']) {
      expect(compileGlob(p).matches('')).toBe(true);
      expect(compileGlob(p).matches('/any/thing')).toBe(true);
    }
  });

  it('treats regex metacharacters and ? literally', () => {
    const g = compileGlob('/a.b?(c)+[d]');
    expect(g.matches('/a.b?(c)+[d]')).toBe(true);
    expect(g.matches('/axb?(c)+[d]')).toBe(false);
    expect(g.matches('/a.b(c)+[d]')).toBe(false);
  });

  it('finishes fast on a pathological pattern', () => {
    const g = compileGlob('*a*a*a*a*a*a*a*a*a*b');
    const long = 'a'.repeat(100_000);
    const started = performance.now();
    expect(g.matches(long)).toBe(false);
    expect(g.matches(`${long}c`)).toBe(false);
    expect(g.matches(`${long}b`)).toBe(true);
    const g2 = compileGlob('*a*a*a*a*a*a*a*a*a*ba');
    expect(g2.matches(`${long}a`)).toBe(false); // suffix fits, middle search is still linear
    expect(compileGlob('/*a*a*a*a*a*a*a*a*a*/').matches(`/${long}`)).toBe(false);
    // Backtracking would take hours on 100,000 characters; linear matching takes milliseconds (the margin is for load).
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});

describe('requiredUriPermission', () => {
  it('classes GET and HEAD as reads and everything else as writes (DESIGN.md §6)', () => {
    for (const m of ['GET', 'HEAD']) expect(requiredUriPermission(m)).toBe('get');
    for (const m of ['OPTIONS', 'POST', 'PUT', 'PATCH', 'DELETE', 'PROPFIND', 'TRACE', 'CONNECT', 'get', '']) {
      expect(requiredUriPermission(m)).toBe('getAndPost');
    }
  });
});

describe('compileUriRules', () => {
  it('denies when nothing matches', () => {
    const access = compileUriRules(restAnonymous);
    expect(access.decide('/.rest/nodes/v1/website', 'GET')).toBe('deny');
    expect(access.permissionAt('/.rest/nodes/v1/website')).toBe('deny');
    expect(compileUriRules([]).decide('/', 'GET')).toBe('deny');
  });

  it('gives rest-anonymous GET/HEAD on the delivery API and nothing else', () => {
    const access = compileUriRules(restAnonymous);
    for (const m of ['GET', 'HEAD']) expect(access.decide('/.rest/delivery/pages/a', m)).toBe('allow');
    for (const m of ['OPTIONS', 'POST', 'PUT', 'PATCH', 'DELETE', 'PROPFIND']) {
      expect(access.decide('/.rest/delivery/pages/a', m)).toBe('deny');
    }
    expect(access.decide('/.rest/delivery', 'GET')).toBe('deny');
    expect(access.decide('/.REST/delivery/pages', 'GET')).toBe('deny'); // case-sensitive
  });

  it('lets getAndPost allow every method, unknown ones included', () => {
    const access = compileUriRules([{ path: '/.rest/*', permission: 'getAndPost' }]);
    for (const m of ['GET', 'HEAD', 'OPTIONS', 'POST', 'PUT', 'PATCH', 'DELETE', 'PROPFIND']) {
      expect(access.decide('/.rest/x', m)).toBe('allow');
    }
  });

  it('lets the longest matching pattern win across roles', () => {
    const access = compileUriRules([...anonymous, ...restAnonymous]);
    // `/.rest/delivery/*` (17) beats `*` (1): get only.
    expect(access.permissionAt('/.rest/delivery/pages')).toBe('get');
    expect(access.decide('/.rest/delivery/pages', 'POST')).toBe('deny');
    // Only `*` matches elsewhere.
    expect(access.decide('/shop/cart', 'POST')).toBe('allow');
    // `/.magnolia*` (11) beats `*`.
    expect(access.decide('/.magnolia/admincentral', 'GET')).toBe('deny');
    expect(access.decide('/.magnoliax', 'GET')).toBe('deny');
  });

  it('lets a longer deny beat a shorter allow, and a longer allow beat a shorter deny', () => {
    const access = compileUriRules([
      { path: '/.rest/delivery/*', permission: 'get' },
      { path: '/.rest/delivery/private*', permission: 'deny' },
      { path: '/.rest/delivery/private/open/*', permission: 'get' },
    ]);
    expect(access.decide('/.rest/delivery/public/x', 'GET')).toBe('allow');
    expect(access.decide('/.rest/delivery/private/x', 'GET')).toBe('deny');
    expect(access.decide('/.rest/delivery/privateer', 'GET')).toBe('deny');
    expect(access.decide('/.rest/delivery/private/open/x', 'GET')).toBe('allow');
  });

  it('lets the most permissive win on a tie in length, whatever the order', () => {
    const x: UriRule = { path: '/.rest/delivery/t*', permission: 'deny' };
    const y: UriRule = { path: '/.rest/delivery/t*', permission: 'get' };
    const z: UriRule = { path: '/.rest/delivery/x*', permission: 'getAndPost' }; // same length, no match
    for (const rules of [[x, y, z], [z, y, x], [y, x]]) {
      const access = compileUriRules(rules);
      expect(access.decide('/.rest/delivery/travel', 'GET')).toBe('allow');
      expect(access.decide('/.rest/delivery/travel', 'POST')).toBe('deny');
    }
    // Different patterns of equal length both matching: most permissive wins.
    const tie = compileUriRules([
      { path: '/a/*/c', permission: 'getAndPost' },
      { path: '/a/b/*', permission: 'deny' },
    ]);
    expect(tie.decide('/a/b/c', 'DELETE')).toBe('allow');
    expect(tie.decide('/a/b/d', 'GET')).toBe('deny');
  });

  it('counts * in the pattern length', () => {
    const access = compileUriRules([
      { path: '/a/**', permission: 'deny' }, // length 5
      { path: '/a/*', permission: 'get' }, // length 4
    ]);
    expect(access.decide('/a/b', 'GET')).toBe('deny');
  });

  it('rejects an unknown permission at compile time', () => {
    const bad = [{ path: '/a', permission: 'constructor' }] as unknown as UriRule[];
    expect(() => compileUriRules(bad)).toThrow(TypeError);
  });
});
