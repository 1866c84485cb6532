// The pieces of response caching on their own: strong ETags, If-None-Match matching, the canonical
// query order of cache keys, the language part of keys, and the byte-bounded LRU.
import { describe, expect, it } from 'vitest';
import { etagOf, ifNoneMatchHits } from '../../src/http/etag.js';
import { parseQueryString as parseQuery } from '../../src/http/query-string.js';
import type { QueryParams } from '../../src/delivery/parse-request.js';
import { canonicalQuery, languageKey } from '../../src/http/response-cache-key.js';
import { ResponseCache, type CachedResponse } from '../../src/http/response-cache.js';
import type { SiteConfig } from '../../src/config/load-config.js';

const OWNER = {};

function answer(bytes: number, owner: object = OWNER): CachedResponse {
  return { body: Buffer.alloc(bytes, 0x61), etag: '"x"', contentLanguage: 'en', cacheControl: undefined, vary: 'Accept-Language', owner, headers: {} };
}

describe('etagOf', () => {
  it('is the quoted byte length and 64-bit xxHash of the UTF-8 bytes, the same whatever their type', () => {
    const e = etagOf(Buffer.from('{"a":1}'));
    expect(e).toMatch(/^"7-[0-9a-f]{1,16}"$/);
    expect(etagOf('{"a":1}')).toBe(e);
    expect(etagOf('{"a":2}')).not.toBe(e);
    // Non-ASCII text: the string form hashes exactly the bytes the socket sends.
    const text = '{"title":"Grüße aus Zürich – 東京 🌸"}';
    expect(etagOf(text)).toBe(etagOf(Buffer.from(text, 'utf8')));
    expect(etagOf(text)).toMatch(new RegExp(`^"${Buffer.byteLength(text).toString(16)}-`));
  });

  it('changes with any single byte of a large body', () => {
    const body = Buffer.alloc(20_000, 0x61);
    const before = etagOf(body);
    const seen = new Set([before]);
    for (const at of [0, 9_999, 19_999]) {
      const changed = Buffer.from(body);
      changed[at] = 0x62;
      seen.add(etagOf(changed));
    }
    expect(seen.size).toBe(4);
  });
});

describe('ifNoneMatchHits', () => {
  const tag = '"abc"';
  it.each([
    ['"abc"', true],
    ['W/"abc"', true],
    ['*', true],
    ['"x", "abc"', true],
    ['"x",W/"abc" , "y"', true],
    ['"x","y"', false],
    ['"abcd"', false],
    ['"ab"', false],
    ['abc', false],
    ['', false],
    ['"abc', false],
    ['W/', false],
    ['junk, "abc"', true],
  ])('%j → %s', (header, hits) => {
    expect(ifNoneMatchHits(header, tag)).toBe(hits);
  });
  it('handles a missing header and repeated headers', () => {
    expect(ifNoneMatchHits(undefined, tag)).toBe(false);
    expect(ifNoneMatchHits(['"x"', '"abc"'], tag)).toBe(true);
  });
});

describe('canonicalQuery', () => {
  // The parsed query, as the router's parser (http/query-string.ts) gives it to the route.
  const q = (qs: string) => canonicalQuery(parseQuery(qs));
  it('orders parameters by name so that the order in the URL does not matter', () => {
    expect(q('a=1&b=2')).toBe(q('b=2&a=1'));
    expect(q('')).toBe('');
    expect(q('x=1')).not.toBe(q('x=2'));
  });
  it('keeps repeated names in their order (the first value decides)', () => {
    expect(q('a=1&a=2')).not.toBe(q('a=2&a=1'));
    expect(q('z=0&a=2&a=1')).toBe(q('a=2&z=0&a=1'));
  });
  it('gives one key to spellings the parser reads alike, and two to those it reads apart', () => {
    expect(q('%61=1')).toBe(q('a=1'));
    expect(q('x=a+b')).toBe(q('x=a%20b'));
    expect(q('a=1&%61=2')).toBe(q('a=1&a=2'));
    expect(q('a=1&b=2')).not.toBe(q('a=1%26b%3D2'));
    expect(q('a=1,2')).not.toBe(q('a=1&a=2'));
  });
});

describe('languageKey', () => {
  const site: SiteConfig = { name: 's', locales: ['en', 'de'], defaultLocale: 'en' };
  it('is empty with a lang parameter, else the locale Accept-Language resolves to', () => {
    expect(languageKey('de', 'en', site)).toBe('');
    expect(languageKey(' ', 'de-CH,en;q=0.5', site)).toBe('de');
    expect(languageKey(undefined, 'fr, de;q=0.1', site)).toBe('de');
    expect(languageKey(undefined, 'fr', site)).toBe('en');
    expect(languageKey(undefined, undefined, site)).toBe('en');
  });
});

describe('ResponseCache', () => {
  it('evicts the least recently used entries when the bytes exceed the budget', () => {
    const cache = new ResponseCache({ maxBytes: 20_000 });
    const epoch = cache.observe('s', 'site');
    for (const k of ['a', 'b', 'c', 'd']) expect(cache.set(k, answer(2_000), epoch, [])).toBe(true);
    expect(cache.stats().bytes).toBeGreaterThan(8_000);
    expect(cache.get('a', OWNER)).toBeDefined(); // a is now the most recently used
    for (const k of ['e', 'f', 'g', 'h', 'i']) cache.set(k, answer(2_000), epoch, []);
    const s = cache.stats();
    expect(s.bytes).toBeLessThanOrEqual(20_000);
    expect(s.evictions).toBeGreaterThan(0);
    expect(cache.has('a')).toBe(true);
    expect(cache.has('b')).toBe(false);
    expect(cache.has('i')).toBe(true);
  });

  it('moves an answer hit to the end of the order only once it is among the older half', () => {
    // Each answer costs the same: the budget holds 100 of them.
    const probe = new ResponseCache({ maxBytes: 10_000_000 });
    probe.set('probe', answer(1_000), probe.observe('s', 'site'), []);
    const cache = new ResponseCache({ maxBytes: probe.stats().bytes * 100 });
    const epoch = cache.observe('s', 'site');
    for (let i = 0; i < 100; i++) expect(cache.set(`k${i}`, answer(1_000), epoch, [])).toBe(true);
    expect(cache.get('k0', OWNER)).toBeDefined(); // the oldest: moved to the end
    expect(cache.get('k70', OWNER)).toBeDefined(); // among the newer half: left in place (no delete and re-add)
    for (let i = 100; i < 170; i++) cache.set(`k${i}`, answer(1_000), epoch, []); // evicts the first 70 places: k1 … k70
    expect(cache.has('k0')).toBe(true);
    expect(cache.has('k1')).toBe(false);
    expect(cache.has('k70')).toBe(false);
    expect(cache.has('k71')).toBe(true);
  });

  it('does not keep bodies above an eighth of the budget', () => {
    const cache = new ResponseCache({ maxBytes: 80_000 });
    const epoch = cache.observe('s', 'site');
    expect(cache.set('big', answer(10_001), epoch, [])).toBe(false);
    expect(cache.set('ok', answer(9_000), epoch, [])).toBe(true);
  });

  it('drops everything when the security configuration or the site change', () => {
    const cache = new ResponseCache({ maxBytes: 1_000_000 });
    const sec = {};
    const site = {};
    let epoch = cache.observe(sec, site);
    cache.set('k', answer(10), epoch, []);
    expect(cache.observe(sec, site)).toBe(epoch);
    expect(cache.get('k', OWNER)).toBeDefined();
    for (const [s, si] of [[{}, site], [sec, {}]] as const) {
      epoch = cache.observe(s, si);
      expect(cache.get('k', OWNER)).toBeUndefined();
      cache.set('k', answer(10), epoch, []);
    }
  });

  it('never stores an answer rendered before a clear, and needs the same owner for a hit', () => {
    const cache = new ResponseCache({ maxBytes: 1_000_000 });
    const epoch = cache.observe('s', 'site');
    cache.clear();
    expect(cache.set('k', answer(10), epoch, [])).toBe(false);
    const fresh = cache.observe('s', 'site');
    expect(cache.set('k', answer(10), fresh, [])).toBe(true);
    expect(cache.get('k', {})).toBeUndefined();
    expect(cache.get('k', OWNER)).toBeDefined();
  });

  it('serves stored answers as stale ones, unless security or site changed', () => {
    const cache = new ResponseCache({ maxBytes: 1_000_000 });
    const sec = {};
    const site = {};
    cache.set('k', answer(10), cache.observe(sec, site), []);
    cache.observe(sec, site);
    const stale = cache.getStale('k', OWNER);
    expect(stale?.value.body.length).toBe(10);
    expect(stale?.ageSeconds).toBe(0);
    expect(cache.getStale('k', {})).toBeUndefined(); // another definition's answer
    expect(cache.stats().staleHits).toBe(1);
    // A security reload while the store is away still drops everything.
    cache.observe({}, site);
    expect(cache.getStale('k', OWNER)).toBeUndefined();
  });
});
