// The response-cache policy on its own, with a real ResponseCache and a store clock played by the test:
// what a key holds, catching up with the store's generation before a lookup, stale-if-error (and only
// then), which errors are cached, the cache tag headers, Cache-Control, Vary, 304, and the preview.
import { describe, expect, it } from 'vitest';
import { LONGEST_CACHED_PATH } from '../../src/cache/digest-key.js';
import type { SiteConfig } from '../../src/config/load-config.js';
import { PetalError } from '../../src/errors.js';
import { endpointKey, nodeKey, touchedKey, type Dependencies } from '../../src/repository/dependencies.js';
import { StoreClosedError } from '../../src/store/store-faults.js';
import { etagOf } from '../../src/http/etag.js';
import { cacheKey } from '../../src/http/response-cache-key.js';
import { ResponseCache } from '../../src/http/response-cache.js';
import {
  ResponseCachePolicy, STALE_WARNING, type ContentClock, type DeliveryRequestFacts, type Outgoing, type Render,
  type ResponseCachePolicyOptions,
} from '../../src/http/response-cache-policy.js';

const SITE: SiteConfig = { name: 's', locales: ['en', 'de'], defaultLocale: 'en' };
const ENDPOINT = { endpointPath: '/delivery/pages', timeToLive: 60 };
const BODY = '{"title":"A"}';

function facts(over: Partial<DeliveryRequestFacts> = {}): DeliveryRequestFacts {
  return {
    endpoint: ENDPOINT, restPath: '/delivery/pages/a', canonicalPath: '/.rest/delivery/pages/a', query: {},
    acceptLanguage: undefined, site: SITE, roleKey: 'anonymous', anonymous: true, preview: false, traitHeaders: '',
    ifNoneMatch: undefined, ...over,
  };
}

/**
 * The store's generation, and a change feed that hands the cache a reset (asynchronously, as the real
 * one reads events) whenever the generation moved since its last sync.
 */
class FakeClock implements ContentClock {
  generation = 1;
  /** Set: reading the generation fails with it. */
  failure: unknown = undefined;
  #synced = 1;
  constructor(private readonly cache: ResponseCache | null) {}
  readonly store = {
    generation: async (): Promise<number> => {
      if (this.failure !== undefined) throw this.failure;
      return this.generation;
    },
  };
  readonly changes = {
    caughtUp: (generation: number): boolean => generation === this.#synced,
    sync: (generation: number): Promise<void> | undefined => {
      if (generation === this.#synced) return undefined;
      this.#synced = generation;
      return new Promise((resolve) => setImmediate(() => {
        this.cache?.apply({ kind: 'reset' });
        resolve();
      }));
    },
  };
}

function setup(o: Partial<ResponseCachePolicyOptions> & { noCache?: true } = {}) {
  const cache = o.noCache ? null : new ResponseCache({ maxBytes: 1_000_000 });
  const clock = new FakeClock(cache);
  const security = { config: {} as object };
  const policy = new ResponseCachePolicy({ cache, clock, securityConfig: () => security.config, ...o });
  return { cache, clock, security, policy };
}

/** A delivery stand-in: counts its calls, reads the node /a of `website`, or fails with `error`. */
function renderer(o: { body?: string; contentLanguage?: string; error?: Error } = {}) {
  const r = {
    calls: 0,
    render: (async (deps: Dependencies | undefined) => {
      r.calls++;
      deps?.node('website', '/a');
      if (o.error !== undefined) throw o.error;
      return { body: o.body ?? BODY, contentLanguage: o.contentLanguage ?? 'en' };
    }) as Render,
  };
  return r;
}

function bodyOf(out: Outgoing): string {
  if (out.kind !== 'json') throw new Error(`not a body: ${out.kind}`);
  return out.body.toString();
}

describe('the key', () => {
  it('hits for the same facts and misses for another role set, sign-in, language, path, query, traits or definition', async () => {
    const { policy } = setup();
    const r = renderer();
    expect(bodyOf(await policy.answer(facts(), r.render))).toBe(BODY);
    expect(bodyOf(await policy.answer(facts(), r.render))).toBe(BODY);
    expect(r.calls).toBe(1);
    const others: Partial<DeliveryRequestFacts>[] = [
      { roleKey: 'editors' }, { anonymous: false }, { acceptLanguage: 'de' }, { canonicalPath: '/.rest/delivery/pages/b' },
      { query: { x: '1' } }, { traits: new Map([['segment', 'gold']]) }, { endpoint: { ...ENDPOINT } },
    ];
    for (const [i, over] of others.entries()) {
      await policy.answer(facts(over), r.render);
      expect(r.calls, JSON.stringify(over)).toBe(2 + i);
      await policy.answer(facts(over), r.render); // now cached under its own key
      expect(r.calls, JSON.stringify(over)).toBe(2 + i);
    }
  });

  it('is the same for parameters in another order, and for headers resolving to the same language', async () => {
    const { policy, cache } = setup();
    const r = renderer();
    await policy.answer(facts({ query: { a: '1', b: '2' }, acceptLanguage: 'de-CH, en;q=0.5' }), r.render);
    await policy.answer(facts({ query: { b: '2', a: '1' }, acceptLanguage: 'de' }), r.render);
    expect(r.calls).toBe(1);
    expect(cache!.has(cacheKey(facts({ query: { a: '1', b: '2' }, acceptLanguage: 'de' })))).toBe(true);
    // A `lang` parameter decides the language: the header is then no part of the key.
    await policy.answer(facts({ query: { lang: 'de' }, acceptLanguage: 'en' }), r.render);
    await policy.answer(facts({ query: { lang: 'de' }, acceptLanguage: 'fr' }), r.render);
    expect(r.calls).toBe(2);
  });
});

describe('the content generation', () => {
  it('catches the cache up to the store before looking up: a new generation misses, the same one hits', async () => {
    const { policy, clock } = setup();
    const r = renderer();
    await policy.answer(facts(), r.render);
    clock.generation = 2;
    await policy.answer(facts(), r.render);
    expect(r.calls).toBe(2);
    await policy.answer(facts(), r.render);
    expect(r.calls).toBe(2);
  });

  it("takes the store's hint when it gives one, without asking it", async () => {
    const cache = new ResponseCache({ maxBytes: 1_000_000 });
    const asked: number[] = [];
    const clock: ContentClock = {
      store: { generationHint: () => 7, generation: () => Promise.reject(new Error('not asked')) },
      changes: { sync: (g) => { asked.push(g); return undefined; }, caughtUp: () => true },
    };
    const policy = new ResponseCachePolicy({ cache, clock, securityConfig: () => 'security' });
    const r = renderer();
    await policy.answer(facts(), r.render);
    await policy.answer(facts(), r.render);
    expect(asked).toEqual([7, 7]);
    expect(r.calls).toBe(1);
  });

  it('drops every answer when the security configuration or the site is another object', async () => {
    const { policy, security } = setup();
    const r = renderer();
    await policy.answer(facts(), r.render);
    security.config = {};
    await policy.answer(facts(), r.render);
    expect(r.calls).toBe(2);
    await policy.answer(facts({ site: { ...SITE } }), r.render);
    expect(r.calls).toBe(3);
  });
});

describe('stale-if-error', () => {
  it('serves the last good answer, marked stale and not to be stored, while the store cannot be reached', async () => {
    const { policy, clock } = setup({ tagHeader: 'surrogate-key' });
    const r = renderer();
    const fresh = await policy.answer(facts(), r.render);
    expect(fresh.headers.warning).toBeUndefined();
    expect(fresh.headers['cache-control']).toBe('max-age=60');
    clock.failure = new StoreClosedError('closed');
    const stale = await policy.answer(facts(), r.render);
    expect(r.calls).toBe(1);
    expect(bodyOf(stale)).toBe(BODY);
    expect(stale.headers).toEqual({ ...fresh.headers, warning: STALE_WARNING, age: '0', 'cache-control': 'no-store' });
    expect(Object.keys(stale.headers)).toEqual(['warning', 'age', 'cache-control', 'surrogate-key', 'etag', 'content-language', 'vary']);
    const notModified = await policy.answer(facts({ ifNoneMatch: fresh.headers.etag }), r.render);
    expect(notModified.kind).toBe('notModified');
    expect(notModified.headers.warning).toBe(STALE_WARNING);
  });

  it('only then: with the store back, the same answer is a plain hit', async () => {
    const { policy, clock } = setup();
    const r = renderer();
    await policy.answer(facts(), r.render);
    clock.failure = new StoreClosedError('closed');
    await policy.answer(facts(), r.render);
    clock.failure = undefined;
    const hit = await policy.answer(facts(), r.render);
    expect(r.calls).toBe(1);
    expect(hit.headers.warning).toBeUndefined();
    expect(hit.headers['cache-control']).toBe('max-age=60');
  });

  it('throws the store fault for an answer not cached, and any other failure as it is', async () => {
    const { policy, clock, security } = setup();
    const r = renderer();
    await policy.answer(facts(), r.render);
    const closed = new StoreClosedError('closed');
    clock.failure = closed;
    await expect(policy.answer(facts({ canonicalPath: '/.rest/delivery/pages/b' }), r.render)).rejects.toBe(closed);
    const bug = new Error('a bug, not an outage');
    clock.failure = bug;
    await expect(policy.answer(facts(), r.render)).rejects.toBe(bug);
    // Answers rendered under another security configuration are never served, stale or not.
    clock.failure = closed;
    security.config = {};
    await expect(policy.answer(facts(), r.render)).rejects.toBe(closed);
    expect(r.calls).toBe(1);
  });

  it('serves a cached missing node as the error it was, without the stale marks', async () => {
    const { policy, clock } = setup();
    await policy.answer(facts(), renderer({ error: new PetalError('pathNotFound', 'No node at /a') }).render);
    clock.failure = new StoreClosedError('closed');
    expect(await policy.answer(facts(), renderer().render)).toEqual({ kind: 'error', headers: {}, code: 'pathNotFound', message: 'No node at /a' });
  });
});

describe('errors', () => {
  it.each(['pathNotFound', 'versionNotFound'] as const)('%s is cached as an answer and sent as the error', async (code) => {
    const { policy } = setup();
    const r = renderer({ error: new PetalError(code, 'missing') });
    for (let i = 0; i < 2; i++) {
      expect(await policy.answer(facts(), r.render)).toEqual({ kind: 'error', headers: {}, code, message: 'missing' });
    }
    expect(r.calls).toBe(1);
  });

  it('other errors are thrown, never cached', async () => {
    const { policy } = setup();
    const bad = new PetalError('badRequest', 'bad filter');
    const r = renderer({ error: bad });
    await expect(policy.answer(facts(), r.render)).rejects.toBe(bad);
    await expect(policy.answer(facts(), r.render)).rejects.toBe(bad);
    expect(r.calls).toBe(2);
  });

  it(`a missing node is not cached for a path longer than ${LONGEST_CACHED_PATH} characters`, async () => {
    const { policy } = setup();
    for (const [length, calls] of [[LONGEST_CACHED_PATH, 1], [LONGEST_CACHED_PATH + 1, 2]] as const) {
      const r = renderer({ error: new PetalError('pathNotFound', 'missing') });
      const f = facts({ restPath: `/${'x'.repeat(length - 1)}`, canonicalPath: `/.rest/${'x'.repeat(length - 1)}` });
      await policy.answer(f, r.render);
      await policy.answer(f, r.render);
      expect(r.calls, String(length)).toBe(calls);
    }
  });

  it('without a cache a missing node is thrown, unless tags are asked for (then it is sent with them)', async () => {
    const missing = new PetalError('pathNotFound', 'missing');
    await expect(setup({ noCache: true }).policy.answer(facts(), renderer({ error: missing }).render)).rejects.toBe(missing);
    await expect(setup().policy.answer(facts({ preview: true }), renderer({ error: missing }).render)).rejects.toBe(missing);
    const tagged = await setup({ noCache: true, tagHeader: 'surrogate-key' }).policy.answer(facts(), renderer({ error: missing }).render);
    expect(tagged).toEqual({
      kind: 'error', code: 'pathNotFound', message: 'missing',
      headers: { 'surrogate-key': `${endpointKey('/delivery/pages')} ${touchedKey('website')} ${nodeKey('website', '/a')}` },
    });
  });
});

describe('cache tags', () => {
  const tags = `${endpointKey('/delivery/pages')} ${touchedKey('website')} ${nodeKey('website', '/a')}`;

  it('name the endpoint and what the answer read, in the configured headers; the same from the cache', async () => {
    const { policy } = setup({ tagHeader: 'both' });
    const r = renderer();
    for (let i = 0; i < 2; i++) {
      const out = await policy.answer(facts(), r.render);
      expect(out.headers['surrogate-key']).toBe(tags);
      expect(out.headers['cache-tag']).toBe(tags.replaceAll(' ', ','));
    }
    expect(r.calls).toBe(1);
    const missing = await policy.answer(facts({ canonicalPath: '/.rest/x' }), renderer({ error: new PetalError('pathNotFound') }).render);
    expect(missing.headers).toEqual({ 'surrogate-key': tags, 'cache-tag': tags.replaceAll(' ', ',') });
  });

  it('are left out when none are configured, and from the preview', async () => {
    const none = await setup().policy.answer(facts(), renderer().render);
    expect(Object.keys(none.headers)).toEqual(['etag', 'content-language', 'vary', 'cache-control']);
    const preview = await setup({ tagHeader: 'both' }).policy.answer(facts({ preview: true }), renderer().render);
    expect(preview.headers['surrogate-key']).toBeUndefined();
    expect(preview.headers['cache-tag']).toBeUndefined();
  });
});

describe('Cache-Control, Vary, ETag and 304', () => {
  const headersOf = async (over: Partial<DeliveryRequestFacts>, o: Partial<ResponseCachePolicyOptions> = {}) =>
    (await setup(o).policy.answer(facts(over), renderer().render)).headers;

  it('are public for anonymous callers and private for signed-in ones', async () => {
    expect(await headersOf({})).toMatchObject({ vary: 'Accept-Language', 'cache-control': 'max-age=60' });
    expect(await headersOf({ anonymous: false })).toMatchObject({ vary: 'Accept-Language, Authorization, Cookie', 'cache-control': 'private, max-age=60' });
    expect(await headersOf({ endpoint: { endpointPath: '/e' } }, { cacheControl: { maxAge: 5, sMaxAge: 120 } }))
      .toMatchObject({ 'cache-control': 'public, max-age=5, s-maxage=120' });
    expect((await headersOf({ endpoint: { endpointPath: '/e' } }))['cache-control']).toBeUndefined();
  });

  it('Vary names Origin under CORS and the trait headers of a personalized answer, each once', async () => {
    expect((await headersOf({}, { varyByOrigin: true })).vary).toBe('Accept-Language, Origin');
    const traits = new Map([['segment', 'gold']]);
    expect((await headersOf({ traits, traitHeaders: 'X-Segment, Cookie' })).vary).toBe('Accept-Language, X-Segment, Cookie');
    expect((await headersOf({ traits, traitHeaders: 'X-Segment, Cookie', anonymous: false })).vary)
      .toBe('Accept-Language, Authorization, Cookie, X-Segment');
    expect((await headersOf({ traitHeaders: 'X-Segment' })).vary).toBe('Accept-Language'); // not personalized
  });

  it('a strong ETag of the bytes, the language with a hyphen, and 304 on a matching If-None-Match', async () => {
    const { policy } = setup();
    const r = renderer({ contentLanguage: 'de_CH' });
    const ok = await policy.answer(facts(), r.render);
    expect(ok.headers.etag).toBe(etagOf(BODY));
    expect(ok.headers['content-language']).toBe('de-CH');
    for (const inm of [ok.headers.etag!, `W/${ok.headers.etag}`, ['"x"', ok.headers.etag!], '*']) {
      const out = await policy.answer(facts({ ifNoneMatch: inm }), r.render);
      expect(out, String(inm)).toEqual({ kind: 'notModified', headers: ok.headers });
    }
    expect((await policy.answer(facts({ ifNoneMatch: '"other"' }), r.render)).kind).toBe('json');
    const first = await setup({ noCache: true }).policy.answer(facts({ ifNoneMatch: ok.headers.etag }), r.render);
    expect(first.kind).toBe('notModified'); // rendered, not cached: 304 all the same
  });

  it('keeps the body as bytes for the cache, and as the string without one', async () => {
    const cached = await setup().policy.answer(facts(), renderer().render);
    const plain = await setup({ noCache: true }).policy.answer(facts(), renderer().render);
    expect(cached.kind === 'json' && Buffer.isBuffer(cached.body)).toBe(true);
    expect(plain.kind === 'json' && plain.body).toBe(BODY);
  });
});

describe('the preview', () => {
  it('is never cached, is private and not stored, and does not wait for the store', async () => {
    const { policy, clock, cache } = setup();
    clock.failure = new StoreClosedError('closed'); // a lookup would fail: the preview makes none
    const r = renderer();
    for (let i = 0; i < 2; i++) {
      const out = await policy.answer(facts({ preview: true }), r.render);
      expect(out.headers).toMatchObject({ 'cache-control': 'private, no-store', vary: 'Accept-Language, Authorization, Cookie' });
    }
    expect(r.calls).toBe(2);
    expect(cache!.stats().entries).toBe(0);
  });
});

describe('a hit when the store knows its generation at once (generationHint)', () => {
  function hinted() {
    const s = setup();
    const store = s.clock.store as FakeClock['store'] & { generationHint?: () => number | undefined };
    store.generationHint = () => s.clock.generation;
    return s;
  }

  it('is answered without a promise, with the headers built when the answer was rendered', async () => {
    const { policy } = hinted();
    const r = renderer();
    const rendered = policy.answer(facts(), r.render);
    expect(rendered).toBeInstanceOf(Promise); // a miss renders
    const first = await rendered;
    const hit = policy.answer(facts(), r.render);
    const again = policy.answer(facts(), r.render);
    expect(hit).not.toBeInstanceOf(Promise);
    expect(r.calls).toBe(1);
    expect((hit as Outgoing).headers).toEqual(first.headers);
    expect((again as Outgoing).headers).toBe((hit as Outgoing).headers); // one object, not one per hit
    expect(policy.answer(facts({ ifNoneMatch: first.headers.etag }), r.render)).toEqual({ kind: 'notModified', headers: first.headers });
  });

  it('waits for the caches to catch up when the generation moved, and then renders again', async () => {
    const { policy, clock } = hinted();
    const r = renderer();
    await policy.answer(facts(), r.render);
    clock.generation = 2; // a write: the change feed drops the answer before the lookup
    const out = policy.answer(facts(), r.render);
    expect(out).toBeInstanceOf(Promise);
    expect((await out).kind).toBe('json');
    expect(r.calls).toBe(2);
  });
});
