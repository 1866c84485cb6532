// Hardening III point 4: every JSON body Petal accepts (Nodes API, Properties API, Commands API, shop,
// login) is measured by a linear scan before JSON.parse: a body nested deeper than 64 levels, or with
// more values and keys than its route allows, is refused without JSON.parse ever seeing it (a spy
// on JSON.parse proves it: Fastify's own parser parsed 3 million nested arrays for seconds, then the
// route refused them). What real content sends still passes; the prototype-poisoning refusals of
// Fastify's parser are kept.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { JSON_BODY_LIMITS } from '../../src/http/limits.js';
import { WRITE_LIMITS } from '../../src/nodes-api/parse-node-body.js';
import { basic, expectErrorShape, hashOf, req, type Res } from './helpers.js';

const PW = 'json-bodies-password';
const BOSS = { authorization: basic('boss', PW) };
const NODES = '/.rest/nodes/v1/website';

let t: TestApp;
beforeAll(async () => {
  const hash = await hashOf(PW);
  t = await createTestApp({
    content: { 'website.travel.yaml': "'travel':\n  'jcr:primaryType': 'mgnl:page'\n  'title': 'Home'\n" },
    publishing: { previewContextPath: '/preview', previewRoles: ['superuser'] },
    shop: true,
    security: {
      roles: { anonymous: { uriPermissions: [{ path: '/*', permission: 'getAndPost' }], workspacePermissions: { website: [{ path: '/*', permission: 'read' }] } } },
      users: { boss: { passwordHash: hash, roles: ['superuser'] } },
    },
  });
});
afterAll(async () => t?.close());
afterEach(() => { vi.restoreAllMocks(); });

/** Sends `payload` as JSON and says whether JSON.parse was ever handed the body (or a text as long). */
async function send(method: 'PUT' | 'POST', url: string, payload: string, type = 'application/json'): Promise<{ res: Res; parsed: boolean }> {
  const spy = vi.spyOn(JSON, 'parse');
  const res = await req(t.app, { method, url, payload, headers: { ...BOSS, 'content-type': type } });
  const parsed = spy.mock.calls.some(([text]) => typeof text === 'string' && text.length >= payload.length - 1);
  spy.mockRestore();
  return { res, parsed };
}

const nested = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;
const wide = (items: number, key = 'properties') => `{"${key}":[${Array(items).fill('[]').join(',')}]}`;

describe('the Nodes API (8 MiB bodies)', () => {
  it('3 million nested arrays (6 MB) are a 400 naming the depth, refused before JSON.parse', async () => {
    const body = nested(3_000_000);
    const { res, parsed } = await send('PUT', `${NODES}/travel`, body);
    expectErrorShape(res, 400, 'badRequest');
    expect(res.body.error.message).toBe(`body: nesting deeper than ${JSON_BODY_LIMITS.maxDepth} levels`);
    expect(parsed).toBe(false);
  });

  it('2.5 million tiny elements (7.5 MB) are a 413 naming the count, refused before JSON.parse', async () => {
    const body = wide(2_500_000);
    const { res, parsed } = await send('POST', `${NODES}/travel`, body);
    expectErrorShape(res, 413, 'payloadTooLarge');
    expect(res.body.error.message).toBe(`body: more than ${WRITE_LIMITS.maxJsonItems} values and keys`);
    expect(parsed).toBe(false);
  });

  it('allows more values and keys than the default: 200,000 reach the Nodes API\'s own checks', async () => {
    const { res, parsed } = await send('PUT', `${NODES}/travel`, `{"name":"many","properties":[{"name":"p","type":"String","multiple":true,"values":[${Array(200_000).fill('"v"').join(',')}]}]}`);
    expectErrorShape(res, 413, 'payloadTooLarge');
    expect(res.body.error.message).toContain(`p (properties[0].values): at most ${WRITE_LIMITS.maxValues} values`);
    expect(parsed).toBe(true);
  });

  it('a page tree nested as deep as a write may go (20 levels of nodes, 2 properties each) is written', async () => {
    let node: Record<string, unknown> = { name: 'n20', type: 'mgnl:area', properties: [{ name: 'title', type: 'String', multiple: true, values: ['a', 'b'] }] };
    for (let i = 19; i >= 0; i--) {
      node = { name: `n${i}`, type: 'mgnl:area', properties: [{ name: 'title', type: 'String', multiple: false, values: [`level ${i}`] }, { name: 'n', type: 'Long', multiple: false, values: [i] }], nodes: [node] };
    }
    const res = await req(t.app, { method: 'PUT', url: `${NODES}/travel`, payload: node, headers: BOSS });
    expect(res.status, res.raw).toBe(200);
    const deepest = await req(t.app, { method: 'GET', url: `${NODES}/travel/${Array.from({ length: 21 }, (_, i) => `n${i}`).join('/')}`, headers: BOSS });
    expect(deepest.body.properties[0].values).toEqual(['a', 'b']);
  });
});

describe('every other JSON route (1 MiB bodies, default limits)', () => {
  const routes: Array<[string, 'PUT' | 'POST', string]> = [
    ['login', 'POST', '/.auth/login'],
    ['Properties API', 'PUT', '/.rest/properties/v1/website/travel?name=x&value=1'],
    ['Commands API', 'POST', '/.rest/commands/v2/publish'],
    ['shop cart', 'POST', '/shop/v1/cart'],
    ['shop order', 'POST', '/shop/v1/order'],
    ['no route', 'POST', '/nowhere'],
  ];

  it.each(routes)('%s: 400,000 nested arrays are a 400, refused before JSON.parse', async (_label, method, url) => {
    const { res, parsed } = await send(method, url, nested(400_000));
    expectErrorShape(res, 400, 'badRequest');
    expect(res.body.error.message).toBe(`body: nesting deeper than ${JSON_BODY_LIMITS.maxDepth} levels`);
    expect(parsed).toBe(false);
  });

  it.each(routes)('%s: 300,000 tiny elements are a 413, refused before JSON.parse', async (_label, method, url) => {
    const { res, parsed } = await send(method, url, wide(300_000, 'x'));
    expectErrorShape(res, 413, 'payloadTooLarge');
    expect(res.body.error.message).toBe(`body: more than ${JSON_BODY_LIMITS.maxItems} values and keys`);
    expect(parsed).toBe(false);
  });

  it('+json media types go through the same parser', async () => {
    const { res, parsed } = await send('POST', '/shop/v1/cart', nested(100), 'application/vnd.petal+json; charset=utf-8');
    expectErrorShape(res, 400, 'badRequest');
    expect(res.body.error.message).toContain('nesting deeper than');
    expect(parsed).toBe(false);
    const ok = await req(t.app, { method: 'POST', url: '/.rest/commands/v2/publish', payload: '{"repository":"website","path":"/travel"}', headers: { ...BOSS, 'content-type': 'application/merge-patch+json' } });
    expect(ok.status, ok.raw).toBe(200);
  });

  it('the limits are counted exactly: 64 levels and 100,000 values pass, one more of each does not', async () => {
    const at = await send('POST', '/shop/v1/cart', nested(64));
    expectErrorShape(at.res, 400, 'invalidField'); // parsed, then refused by the shop: not an object
    const deeper = await send('POST', '/shop/v1/cart', nested(65));
    expect(deeper.res.body.error.message).toContain('nesting deeper than 64 levels');
    const items = (n: number) => `[${Array(n - 1).fill('0').join(',')}]`; // the array counts one
    expectErrorShape((await send('POST', '/shop/v1/cart', items(100_000))).res, 400, 'invalidField');
    expect((await send('POST', '/shop/v1/cart', items(100_001))).res.status).toBe(413);
  });
});

describe('what Fastify\'s parser did is kept', () => {
  it.each([
    ['a __proto__ key', '{"__proto__":{"isAdmin":true},"productId":"x"}'],
    ['an escaped __proto__ key', '{"\\u005f_proto__":{"isAdmin":true}}'],
    ['a nested __proto__ key', '{"a":[{"b":{"__proto__":{"x":1}}}]}'],
    ['constructor.prototype', '{"constructor":{"prototype":{"isAdmin":true}}}'],
  ])('%s is a 400, and nothing is polluted', async (_label, payload) => {
    const { res } = await send('POST', '/shop/v1/cart', payload);
    expectErrorShape(res, 400, 'badRequest');
    expect(res.body.error.message).toContain('__proto__');
    expect(({} as Record<string, unknown>).isAdmin).toBeUndefined();
  });

  it('a "constructor" key that holds no prototype, or a "__proto__" string value, is ordinary content', async () => {
    for (const payload of ['{"constructor":"x"}', '{"productId":"__proto__"}', '{"constructor":{"a":1}}']) {
      const { res } = await send('POST', '/shop/v1/cart', payload);
      expectErrorShape(res, 400, 'invalidField', payload); // the shop's own check: unknown field or product
    }
  });

  it('an empty body and malformed JSON are 400s; a byte order mark is skipped', async () => {
    expect((await send('POST', '/shop/v1/cart', '')).res.body.error).toEqual({ code: 'badRequest', message: 'body: empty, but Content-Type says JSON' });
    expect((await send('POST', '/shop/v1/cart', '{"a":')).res.body.error).toEqual({ code: 'badRequest', message: 'body: not valid JSON' });
    expect((await send('POST', '/shop/v1/cart', '[[[[[')).res.body.error).toEqual({ code: 'badRequest', message: 'body: not valid JSON' });
    const bom = await req(t.app, { method: 'POST', url: '/.rest/commands/v2/publish', payload: '\ufeff{"repository":"website","path":"/travel"}', headers: { ...BOSS, 'content-type': 'application/json' } });
    expect(bom.status, bom.raw).toBe(200);
  });

  it('a body over the route\'s byte limit is still a 413 before any scan', async () => {
    const { res } = await send('POST', '/shop/v1/cart', `{"productId":"${'a'.repeat(1 << 20)}"}`);
    expectErrorShape(res, 413, 'payloadTooLarge');
  });
});
