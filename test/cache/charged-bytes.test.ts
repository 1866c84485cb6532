// What the byte-bounded caches count against what V8 really holds for them: for each, many entries of
// the kind a flood of misses stores (keys from long request paths that are slices of the URL, two-byte
// strings, cached 404s, small bodies, one dependency key per node) are added, and the growth of the
// heap and of the memory outside it (Buffers, typed arrays), after full collections, must not exceed
// what the cache says it holds. Counting less than that is how a 64 MiB cache came to hold 300 MB.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { ByteLru } from '../../src/cache/byte-lru.js';
import { Dependencies } from '../../src/repository/dependencies.js';
import { ResponseCache, type CachedResponse } from '../../src/http/response-cache.js';
import { errorBody } from '../../src/http/error-handler.js';
import { compileAcl } from '../../src/security/workspace-acl.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function held(): number {
  for (let i = 0; i < 3; i++) gc();
  const u = process.memoryUsage();
  return u.heapUsed + u.external;
}

/** Bytes held after `fill` ran, with what it returns (the cache) kept alive. */
function growth(fill: () => unknown): { bytes: number; keep: unknown } {
  const before = held();
  const keep = fill();
  const bytes = held() - before;
  return { bytes, keep };
}

/** A request target as Fastify hands it over, and the path the routes slice out of it (a sliced string). */
function requestPath(i: number, length: number): { url: string; path: string } {
  // One character outside Latin-1: the whole string is two bytes a character.
  const url = `/.rest/delivery/plants/v1/€${i}-${'x'.repeat(length)}?lang=en`;
  return { url, path: url.slice('/.rest/delivery/plants/v1'.length, url.indexOf('?')) };
}

const N = 4_000;

describe('what the caches count covers what they hold', () => {
  it('the response cache: cached 404s of long paths, their keys, messages, bodies and dependency index', () => {
    const cache = new ResponseCache({ maxBytes: 1 << 30 });
    const owner = {};
    const { bytes, keep } = growth(() => {
      for (let i = 0; i < N; i++) {
        const { url, path } = requestPath(i, 600);
        const deps = new Dependencies();
        deps.node('plants', path);
        const message = `No node at ${path}`;
        const missing: CachedResponse = {
          body: Buffer.from(errorBody('pathNotFound', message), 'utf8'), etag: '', contentLanguage: '', cacheControl: undefined,
          vary: '', owner, error: { code: 'pathNotFound', message }, headers: {},
        };
        cache.set(`anonymous,public-reader\na\nen\n${url.slice(0, url.indexOf('?'))}\n[["lang","en"]]`, missing, 0, deps.keys());
      }
      return cache;
    });
    expect(keep).toBe(cache);
    expect(cache.stats().entries).toBe(N);
    expect(bytes).toBeLessThanOrEqual(cache.stats().bytes);
  });

  it('the response cache: keys kept as text, cut from long request targets (slices and concatenations)', () => {
    const cache = new ResponseCache({ maxBytes: 1 << 30 });
    const owner = {};
    const { bytes } = growth(() => {
      for (let i = 0; i < N; i++) {
        // A short path in a long target: the key stays under LONGEST_TEXT_KEY, the target does not.
        const url = `/.rest/delivery/plants/v1/€${i}-${'x'.repeat(150)}?q=${'y'.repeat(3_000)}`;
        const path = url.slice('/.rest/delivery/plants/v1'.length, url.indexOf('?'));
        const body = Buffer.from(`{"@name":"p${i}"}`, 'utf8');
        cache.set(`anonymous\na\nen\n${path}\n`, { body, etag: '', contentLanguage: 'en', cacheControl: undefined, vary: '', owner, headers: {} }, 0, []);
      }
      return cache;
    });
    expect(cache.stats().entries).toBe(N);
    expect(bytes).toBeLessThanOrEqual(cache.stats().bytes);
  });

  it('the response cache: small answers (pooled Buffers) with several dependency keys each', () => {
    const cache = new ResponseCache({ maxBytes: 1 << 30 });
    const owner = {};
    const { bytes } = growth(() => {
      for (let i = 0; i < N; i++) {
        const deps = new Dependencies();
        deps.subtree('website', `/p${i}`, 1, [{ path: `/p${i}` }, { path: `/p${i}/a` }, { path: `/p${i}/b` }]);
        // Garbage between answers, as rendering makes: a pooled body would keep its slab alive.
        Buffer.from('y'.repeat(3_000));
        const body = Buffer.from(`{"@name":"p${i}","title":"Page ${i}"}`, 'utf8');
        const etag = `"${i.toString(16)}-abcdef0123456789"`;
        cache.set(`anonymous\na\nen\n/.rest/delivery/pages/v1/p${i}\n`, {
          body, etag, contentLanguage: 'en', cacheControl: 'max-age=60', vary: 'Accept-Language', owner,
          // As the policy builds them: one object per answer.
          headers: { etag, 'content-language': 'en', vary: 'Accept-Language', 'cache-control': 'max-age=60' },
        }, 0, deps.keys());
      }
      return cache;
    });
    expect(cache.stats().entries).toBe(N);
    expect(bytes).toBeLessThanOrEqual(cache.stats().bytes);
  });

  it('the ACL decision cache: decisions for short paths cut from long request targets (kept as text)', () => {
    const lru = new ByteLru<string, 'deny' | 'read' | 'readWrite'>(1 << 30);
    const access = compileAcl({ plants: [{ path: '/*', permission: 'read' }, { path: '/secret/*', permission: 'deny' }] }, { cache: lru, cacheKey: 'anonymous' });
    const n = 5 * N;
    const { bytes } = growth(() => {
      for (let i = 0; i < n; i++) {
        const url = `/.rest/delivery/plants/v1/€${i}-${'x'.repeat(100)}?q=${'y'.repeat(3_000)}`;
        access.canRead('plants', url.slice('/.rest/delivery/plants/v1'.length, url.indexOf('?')));
      }
      return lru;
    });
    expect(lru.size).toBe(n);
    expect(bytes).toBeLessThanOrEqual(lru.bytes);
  });

  it('the ACL decision cache: decisions for long request paths (sliced strings)', () => {
    const lru = new ByteLru<string, 'deny' | 'read' | 'readWrite'>(1 << 30);
    const access = compileAcl({ plants: [{ path: '/*', permission: 'read' }, { path: '/secret/*', permission: 'deny' }] }, { cache: lru, cacheKey: 'anonymous' });
    // Small entries: more of them, so that what else the process allocates meanwhile is noise.
    const n = 5 * N;
    const { bytes } = growth(() => {
      for (let i = 0; i < n; i++) access.canRead('plants', requestPath(i, 600).path);
      return lru;
    });
    expect(lru.size).toBe(n);
    expect(bytes).toBeLessThanOrEqual(lru.bytes);
  });
});
