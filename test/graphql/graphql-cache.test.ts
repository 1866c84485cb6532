// Issue 32 through HTTP: GET answers of the GraphQL API go through the response cache with an ETag
// (304 on If-None-Match), Cache-Control and the cache tags of delivery answers, and a change of what
// they read drops them; persisted queries (automatic by hash, named ones of the light module) make
// cacheable GETs; with publishing on, /.graphql reads the published content and the preview the
// working content, uncached; the URI permissions decide who may call it at all.
import { createHash } from 'node:crypto';
import { buildClientSchema, getIntrospectionQuery, printSchema, type IntrospectionQuery } from 'graphql';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpointKey, workspaceKey } from '../../src/repository/dependencies.js';
import { publishState, writeNodes } from '../../src/repository/writes.js';
import { buildGraphql, DEFAULT_GRAPHQL_SETTINGS } from '../../src/graphql/graphql-api.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { basic, hashOf, tempFolder } from '../security-http/helpers.js';
import { BOOKCASE_SECURITY } from './bookcase.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'graphql');
const SITE = { name: 'bookcase', locales: ['en', 'de'], defaultLocale: 'en', theme: 'book-theme' };
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const tagsIn = (header: unknown) => String(header ?? '').split(' ').filter((x) => x !== '');
const get = (t: TestApp, params: Record<string, string>, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'GET', url: `/.graphql?${new URLSearchParams(params)}`, headers });

describe('GET answers, cached and tagged', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      moduleRoots: [join(FIXTURES, 'light-modules')], contentPaths: [join(FIXTURES, 'content')], site: SITE,
      security: BOOKCASE_SECURITY, tagHeader: 'surrogate-key', cacheControl: { maxAge: 60 }, graphql: true,
    });
  });
  afterAll(async () => t?.close());

  const QUERY = '{ books(sort: TITLE_ASC) { title } }';

  it('carry an ETag, Cache-Control and the tags of what they read; If-None-Match gives 304', async () => {
    const first = await get(t, { query: QUERY });
    expect(first.statusCode).toBe(200);
    expect(first.headers.etag).toBeDefined();
    expect(first.headers['cache-control']).toContain('max-age=60');
    const tags = tagsIn(first.headers['surrogate-key']);
    expect(tags).toContain(endpointKey('graphql'));
    expect(tags).toContain(workspaceKey('books'));
    const again = await get(t, { query: QUERY }, { 'if-none-match': String(first.headers.etag) });
    expect(again.statusCode).toBe(304);
  });

  it('a change of the content drops the cached answer', async () => {
    const before = JSON.parse((await get(t, { query: QUERY })).body);
    await writeNodes(t.store, 'books', [{ op: 'update', path: '/My-Good-Reads/Sci-Fi/Wells-1898', node: { name: 'Wells-1898', properties: [['title', 'String', 'The War of the Worlds (2nd ed.)']], children: [], field: '' } }], { by: 'test' });
    const after = JSON.parse((await get(t, { query: QUERY })).body);
    expect(before.data.books[2].title).toBe('The War of the Worlds');
    expect(after.data.books[2].title).toBe('The War of the Worlds (2nd ed.)');
  });

  // With the default limits: GraphiQL's and codegen's introspection query fits them.
  it('introspection gives the schema the server holds (its SDL)', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/.graphql', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ query: getIntrospectionQuery() }) });
    expect(res.statusCode).toBe(200);
    const r = { body: JSON.parse(res.body) };
    const client = buildClientSchema(r.body.data as IntrospectionQuery);
    expect(printSchema(client)).toBe(buildGraphql([join(FIXTURES, 'light-modules')], DEFAULT_GRAPHQL_SETTINGS).sdl);
  });

  it('a failure while reading is no answer to keep: a 500 saying nothing of it, and the next request reads again', async () => {
    const q = '{ books(sort: PRICE_ASC, limit: 2) { title } }';
    const query = t.store.reads.query.bind(t.store.reads);
    t.store.reads.query = async () => { throw new Error('disk on fire'); };
    let failed;
    try {
      failed = await get(t, { query: q });
    } finally {
      t.store.reads.query = query;
    }
    expect(failed.statusCode).toBe(500);
    expect(failed.body).not.toContain('disk on fire');
    const again = await get(t, { query: q });
    expect(again.statusCode).toBe(200);
    expect(JSON.parse(again.body).data.books).toHaveLength(2);
  });

  it('POST answers are run, not cached by HTTP caches', async () => {
    const r = await t.app.inject({ method: 'POST', url: '/.graphql', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ query: QUERY }) });
    expect(r.statusCode).toBe(200);
    expect(r.headers['cache-control']).toBe('no-store');
  });
});

describe('persisted queries', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      moduleRoots: [join(FIXTURES, 'light-modules')], contentPaths: [join(FIXTURES, 'content')], site: SITE,
      security: BOOKCASE_SECURITY, tagHeader: 'surrogate-key', graphql: true,
    });
  });
  afterAll(async () => t?.close());

  const QUERY = '{ authors(sort: NAME_DESC) { name } }';
  const ext = (hash: string) => JSON.stringify({ persistedQuery: { version: 1, sha256Hash: hash } });

  it('automatic: an unknown hash asks for the query, a registered one is served by GET with an ETag and 304', async () => {
    const hash = sha256(QUERY);
    const unknown = await get(t, { extensions: ext(hash) });
    expect(unknown.statusCode).toBe(400);
    expect(JSON.parse(unknown.body).errors[0]).toMatchObject({ message: 'PersistedQueryNotFound', extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } });
    const registered = await get(t, { query: QUERY, extensions: ext(hash) });
    expect(registered.statusCode).toBe(200);
    const byHash = await get(t, { extensions: ext(hash) });
    expect(byHash.statusCode).toBe(200);
    expect(JSON.parse(byHash.body)).toEqual({ data: { authors: [{ name: 'H. G. Wells' }, { name: 'Charles Darwin' }] } });
    expect(tagsIn(byHash.headers['surrogate-key'])).toContain(workspaceKey('authors'));
    const notModified = await get(t, { extensions: ext(hash) }, { 'if-none-match': String(byHash.headers.etag) });
    expect(notModified.statusCode).toBe(304);
  });

  it('a hash that is not the query\'s is refused', async () => {
    const r = await get(t, { query: QUERY, extensions: ext(sha256('something else')) });
    expect(r.statusCode).toBe(400);
    expect(JSON.parse(r.body).errors[0].extensions.code).toBe('PERSISTED_QUERY_HASH_MISMATCH');
  });

  it('a named query of the light module (graphql/queries/*.graphql) is served by its hash', async () => {
    const text = await import('node:fs').then((fs) => fs.readFileSync(join(FIXTURES, 'light-modules/bookcase/graphql/queries/bookTitles.graphql'), 'utf8'));
    const r = await get(t, { extensions: ext(sha256(text)) });
    expect(r.statusCode).toBe(200);
    expect(JSON.parse(r.body).data.books.map((b: { title: string }) => b.title)).toEqual(['A Brief History of Time', 'On the Origin of Species', 'The War of the Worlds']);
  });
});

describe('published and preview, and who may call it', () => {
  const PW = 'graphql-preview-password';
  let t: TestApp;
  beforeAll(async () => {
    const hash = await hashOf(PW);
    t = await createTestApp({
      moduleRoots: [join(FIXTURES, 'light-modules')], contentPaths: [join(FIXTURES, 'content')], site: SITE, graphql: true, graphiql: true,
      publishing: { previewContextPath: '/preview', previewRoles: ['editor'] },
      security: {
        folder: tempFolder(),
        // Signed-in users get rest-anonymous by default (and with it /.graphql): not here.
        authenticatedRoles: [],
        roles: {
          ...BOOKCASE_SECURITY.roles,
          editor: {
            uriPermissions: [{ path: '/.graphql', permission: 'getAndPost' }, { path: '/.graphiql', permission: 'get' }],
            workspacePermissions: BOOKCASE_SECURITY.roles.anonymous.workspacePermissions,
          },
          outsider: { uriPermissions: [], workspacePermissions: {} },
        },
        users: { ed: { passwordHash: hash, roles: ['editor'] }, out: { passwordHash: hash, roles: ['outsider'] } },
      },
    });
    // Only Darwin (with its folders) is published.
    for (const path of ['/My-Good-Reads', '/My-Good-Reads/Science', '/My-Good-Reads/Science/Darwin-1859']) {
      await publishState(t.store, { workspace: 'books', path, recursive: false, takenAlong: () => false, by: 'test' });
    }
  });
  afterAll(async () => t?.close());

  const post = (url: string, query: string, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'POST', url, headers: { 'content-type': 'application/json', ...headers }, payload: JSON.stringify({ query }) });

  it('/.graphql reads the published content, the preview the working content (uncached)', async () => {
    const pub = await post('/.graphql', '{ books(sort: TITLE_ASC) { title } }');
    expect(JSON.parse(pub.body).data.books).toEqual([{ title: 'On the Origin of Species' }]);
    const preview = await post('/preview/.graphql', '{ books(sort: TITLE_ASC) { title } }', { authorization: basic('ed', PW) });
    expect(preview.statusCode).toBe(200);
    expect(JSON.parse(preview.body).data.books).toHaveLength(3);
    expect(preview.headers['cache-control']).toBe('private, no-store');
    const previewGet = await t.app.inject({ method: 'GET', url: `/preview/.graphql?query=${encodeURIComponent('{ books { title } }')}`, headers: { authorization: basic('ed', PW) } });
    expect(previewGet.headers['cache-control']).toBe('private, no-store');
  });

  it('GraphiQL opened under the preview posts to the preview\'s /.graphql', async () => {
    const page = await t.app.inject({ method: 'GET', url: '/preview/.graphiql', headers: { authorization: basic('ed', PW) } });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('data-endpoint="/preview/.graphql"');
    const pub = await t.app.inject({ method: 'GET', url: '/.graphiql', headers: { authorization: basic('ed', PW) } });
    expect(pub.body).toContain('data-endpoint="/.graphql"');
  });

  it('the preview refuses anonymous callers; a role without the URI permission is refused', async () => {
    expect((await post('/preview/.graphql', '{ books { title } }')).statusCode).toBe(401);
    expect((await post('/.graphql', '{ books { title } }', { authorization: basic('out', PW) })).statusCode).toBe(403);
  });
});

describe('rate limits', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      moduleRoots: [join(FIXTURES, 'light-modules')], contentPaths: [join(FIXTURES, 'content')], site: SITE, security: BOOKCASE_SECURITY,
      graphql: true, trustProxy: true, rateLimit: { enabled: true, rules: { queries: { max: 2, windowMs: 60_000 } } },
    });
  });
  afterAll(async () => t?.close());

  it('GraphQL requests count as queries, GET and POST together, per client', async () => {
    const from = (ip: string) => ({ 'x-forwarded-for': ip });
    const query = '{ books(limit: 1) { title } }';
    expect((await get(t, { query }, from('10.9.0.1'))).statusCode).toBe(200);
    const post = () => t.app.inject({ method: 'POST', url: '/.graphql', headers: { 'content-type': 'application/json', ...from('10.9.0.1') }, payload: JSON.stringify({ query }) });
    expect((await post()).statusCode).toBe(200);
    const refused = await post();
    expect(refused.statusCode).toBe(429);
    expect(JSON.parse(refused.body).error.message).toContain('at most 2 Query nodes and GraphQL requests per minute');
    expect((await get(t, { query }, from('10.9.0.2'))).statusCode).toBe(200);
  });
});

describe('how much one answer may hold', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      moduleRoots: [join(FIXTURES, 'light-modules')], contentPaths: [join(FIXTURES, 'content')], site: SITE, security: BOOKCASE_SECURITY,
      graphql: { ...DEFAULT_GRAPHQL_SETTINGS, maxItems: 4 },
    });
  });
  afterAll(async () => t?.close());

  it('items and the references they bring are counted; past graphql.maxItems the answer is refused', async () => {
    const post = async (query: string) => JSON.parse((await t.app.inject({ method: 'POST', url: '/.graphql', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ query }) })).body);
    expect((await post('{ books { title } }')).data.books).toHaveLength(3);
    const many = await post('{ books { title authors { name } } }');
    expect(many.errors[0].extensions.code).toBe('ANSWER_TOO_LARGE');
    expect(many.errors[0].message).toContain('more than 4 items');
  });
});
