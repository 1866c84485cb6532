// Issue 32 through HTTP: the GraphQL API over a books-and-authors light module of our own (the
// original's bookcase demo): the schema from its content types, every scalar and reference kind, the
// language and its fallback, workspace ACLs (a hidden item or reference is null or absent, never
// found by a filter, a sort or a count), limits refused before execution, errors of the request.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { BOOKCASE_SECURITY } from './bookcase.js';
import { DEFAULT_GRAPHQL_SETTINGS } from '../../src/graphql/graphql-api.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'graphql');
let t: TestApp;
let reads = 0;

beforeAll(async () => {
  t = await createTestApp({
    moduleRoots: [join(FIXTURES, 'light-modules')],
    contentPaths: [join(FIXTURES, 'content')],
    site: { name: 'bookcase', locales: ['en', 'de'], defaultLocale: 'en', theme: 'book-theme' },
    security: BOOKCASE_SECURITY,
    tagHeader: 'surrogate-key',
    graphql: { ...DEFAULT_GRAPHQL_SETTINGS, limits: { ...DEFAULT_GRAPHQL_SETTINGS.limits, maxDepth: 6, maxComplexity: 60 } },
  });
  // Counts the store's look-ups by id (references are read in batches, not one per item).
  const byIds = t.store.reads.getNodesByIds.bind(t.store.reads);
  t.store.reads.getNodesByIds = async (ws, ids) => {
    reads++;
    return byIds(ws, ids);
  };
});
afterAll(async () => t?.close());

async function gql(query: string, o: { variables?: object; headers?: Record<string, string> } = {}) {
  const res = await t.app.inject({
    method: 'POST', url: '/.graphql', headers: { 'content-type': 'application/json', ...o.headers },
    payload: JSON.stringify({ query, ...(o.variables ? { variables: o.variables } : {}) }),
  });
  return { status: res.statusCode, headers: res.headers, body: JSON.parse(res.body) };
}

const DARWIN = 'b0000000-0000-4000-8000-000000000001';
const HIDDEN_BOOK = 'b0000000-0000-4000-8000-000000000004';

describe('the schema from the content types', () => {
  it('a type, a sort enum, a single and a list field per content type, and the default types', async () => {
    const r = await gql('{ __schema { types { name } queryType { fields { name args { name } } } } }');
    expect(r.status).toBe(200);
    const names = r.body.data.__schema.types.map((x: { name: string }) => x.name);
    expect(names).toEqual(expect.arrayContaining(['Book', 'BookSort', 'Author', 'AuthorSort', 'Asset', 'AssetRendition', 'JcrMetadata', 'Date', 'Long', 'Locale']));
    const fields = Object.fromEntries(r.body.data.__schema.queryType.fields.map((f: { name: string; args: { name: string }[] }) => [f.name, f.args.map((a) => a.name)]));
    expect(fields.book).toEqual(['id', 'path', 'locale']);
    expect(fields.books).toEqual(['path', 'locale', 'limit', 'offset', 'sort', 'filter']);
    expect(fields.authors).toBeDefined();
    expect(fields.asset).toEqual(['providerId', 'id', 'path']);
  });
});

describe('values as the content type declares them', () => {
  it('text, rich text, Date, Long, Float, Boolean, multi-value, references, asset and metadata', async () => {
    const r = await gql(`{ book(id: "${DARWIN}") {
      title description publisher publish_date pages price available tags
      authors { name born } editor { name }
      frontcover { name fileName mimeType link renditions { renditionName link } }
      _metadata { id name path nodeType created createdBy }
    } }`);
    expect(r.status).toBe(200);
    expect(r.body.errors).toBeUndefined();
    const b = r.body.data.book;
    expect(b).toMatchObject({
      title: 'On the Origin of Species', description: '<p>Natural selection.</p>', publisher: 'John Murray III',
      pages: 502, price: 12.5, available: true, tags: ['science', 'classic'],
      authors: [{ name: 'Charles Darwin' }],
      // The editor is an author the caller may not read: null, as a missing one.
      editor: null,
      _metadata: { id: DARWIN, name: 'Darwin-1859', path: '/My-Good-Reads/Science/Darwin-1859', nodeType: 'lib:book', createdBy: 'editor1' },
    });
    expect(b.publish_date).toMatch(/^1859-11-24T00:00:00\.000/);
    expect(b.authors[0].born).toMatch(/^1809-02-12/);
    expect(b._metadata.created).toMatch(/^2018-10-04T11:47:44\.408/);
    expect(b.frontcover).toMatchObject({
      name: 'darwin1859', fileName: 'darwin1859.png', mimeType: 'image/png',
      link: '/dam/jcr:d0000000-0000-4000-8000-000000000002/darwin1859.png',
    });
    expect(b.frontcover.renditions).toEqual([
      { renditionName: '1600', link: '/.imaging/mte/book-theme/1600/dam/Book-Covers/darwin1859/jcr:content/darwin1859.png' },
      { renditionName: 'thumbnail', link: '/.imaging/mte/book-theme/thumbnail/dam/Book-Covers/darwin1859/jcr:content/darwin1859.png' },
    ]);
  });

  it('by path as by id; a rendition the theme lacks links to the original bytes', async () => {
    const r = await gql('{ book(path: "/My-Good-Reads/Science/Darwin-1859") { title frontcover { renditions(renditionNames: ["huge"]) { renditionName link } } } }');
    expect(r.body.data.book.title).toBe('On the Origin of Species');
    expect(r.body.data.book.frontcover.renditions).toEqual([{ renditionName: 'huge', link: '/.imaging/default/dam/Book-Covers/darwin1859/jcr:content.png' }]);
  });

  it('asset and assets of the dam workspace', async () => {
    const r = await gql('{ asset(path: "/Book-Covers/darwin1859") { id fileName } assets(path: "/Book-Covers") { name } }');
    expect(r.body.data).toEqual({ asset: { id: 'd0000000-0000-4000-8000-000000000002', fileName: 'darwin1859.png' }, assets: [{ name: 'darwin1859' }] });
  });
});

describe('languages', () => {
  it('locale picks the variant, a property without one falls back to the default language', async () => {
    const r = await gql(`{ de: book(id: "${DARWIN}", locale: "de") { title publisher } fr: book(id: "${DARWIN}", locale: "fr") { title } }`);
    expect(r.body.data.de).toEqual({ title: 'Über die Entstehung der Arten', publisher: 'John Murray III' });
    expect(r.body.data.fr.title).toBe('On the Origin of Species');
  });

  it('without locale, Accept-Language decides; a locale that is no BCP 47 tag is refused', async () => {
    const r = await gql(`{ book(id: "${DARWIN}") { title } }`, { headers: { 'accept-language': 'de-CH, en;q=0.5' } });
    expect(r.body.data.book.title).toBe('Über die Entstehung der Arten');
    const bad = await gql(`{ book(id: "${DARWIN}", locale: "de_DE") { title } }`);
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].message).toContain('BCP 47');
  });
});

describe('what the caller may not read', () => {
  it('a hidden item is null by id and by path', async () => {
    const r = await gql(`{ a: book(id: "${HIDDEN_BOOK}") { title } b: book(path: "/My-Good-Reads/Secret/Hidden-Book") { title } }`);
    expect(r.body.data).toEqual({ a: null, b: null });
  });

  it('lists, filters and sorting never reach a hidden item', async () => {
    const all = await gql('{ books(sort: TITLE_ASC) { title } }');
    expect(all.body.data.books.map((b: { title: string }) => b.title)).toEqual(['A Brief History of Time', 'On the Origin of Species', 'The War of the Worlds']);
    const war = await gql(`{ books(filter: "@title LIKE '%War%'") { title } }`);
    expect(war.body.data.books).toEqual([{ title: 'The War of the Worlds' }]);
    const rich = await gql('{ books(filter: "@price > 100") { title } }');
    expect(rich.body.data.books).toEqual([]);
    const page = await gql('{ books(sort: PRICE_DESC, limit: 1) { title } }');
    expect(page.body.data.books).toEqual([{ title: 'A Brief History of Time' }]);
  });

  it('a hidden reference is left out of a list of references; hidden authors are not listed', async () => {
    const r = await gql('{ book(path: "/My-Good-Reads/Science/Hawking-1988") { authors { name } } authors(sort: NAME_ASC) { name } }');
    expect(r.body.data.book.authors).toEqual([{ name: 'H. G. Wells' }]);
    expect(r.body.data.authors).toEqual([{ name: 'Charles Darwin' }, { name: 'H. G. Wells' }]);
  });
});

describe('lists', () => {
  it('path scopes a list, limit and offset page it', async () => {
    const sci = await gql('{ books(path: "/My-Good-Reads/Science", sort: TITLE_ASC) { title } }');
    expect(sci.body.data.books.map((b: { title: string }) => b.title)).toEqual(['A Brief History of Time', 'On the Origin of Species']);
    // Directly under the path, as the original: the books are in subfolders of /My-Good-Reads.
    const top = await gql('{ a: books(path: "/My-Good-Reads") { title } b: books(path: "/") { title } }');
    expect(top.body.data).toEqual({ a: [], b: [] });
    const page = await gql('{ books(sort: TITLE_ASC, limit: 1, offset: 1) { title } }');
    expect(page.body.data.books).toEqual([{ title: 'On the Origin of Species' }]);
  });

  it('a limit over the largest is refused, and so is a filter Petal cannot run', async () => {
    const big = await gql('query($n: Int) { books(limit: $n) { title } }', { variables: { n: 5000 } });
    expect(big.body.errors[0].extensions.code).toBe('LIMIT_TOO_LARGE');
    const or = await gql(`{ books(filter: "@title = 'a' OR @publisher = 'b'") { title } }`);
    expect(or.body.errors[0].extensions.code).toBe('BAD_FILTER');
    // books is non-null: its error nulls the whole answer's data, as GraphQL says.
    expect(or.body.data).toBeNull();
  });

  it('a filter value that is not of the property\'s kind is the caller\'s error, with its message', async () => {
    const r = await gql(`{ books(filter: "@publish_date > 'not a date'") { title } }`);
    expect(r.status).toBe(200);
    expect(r.body.errors[0].extensions.code).toBe('invalidValueFormat');
    expect(r.body.errors[0].message).toContain('not a date');
  });

  it('references of a whole list are read in a bounded number of batches (no N+1)', async () => {
    const before = reads;
    const r = await gql('{ books { title authors { name } editor { name } frontcover { fileName } } }');
    expect(r.body.errors).toBeUndefined();
    // One batch per workspace and level (authors, dam), not one per book.
    expect(reads - before).toBeLessThanOrEqual(2);
  });
});

describe('limits and bad requests', () => {
  it('a query too deep or too costly is refused with 400 before anything is read', async () => {
    const deep = await gql('{ books { authors { name } frontcover { renditions { link } } _metadata { path } } }');
    expect(deep.status).toBe(200);
    const tooDeep = await gql(`{ a: __schema { types { fields { type { ofType { ofType { ofType { name } } } } } } } }`);
    expect(tooDeep.status).toBe(400);
    expect(tooDeep.body.errors[0].extensions.code).toBe('QUERY_TOO_DEEP');
    const fields = Array.from({ length: 70 }, (_, i) => `t${i}: title`).join(' ');
    const costly = await gql(`{ books { ${fields} } }`);
    expect(costly.status).toBe(400);
    expect(['QUERY_TOO_COMPLEX', 'TOO_MANY_ALIASES']).toContain(costly.body.errors[0].extensions.code);
  });

  it('parse and validation errors are 400 with GraphQL errors', async () => {
    const syntax = await gql('{ books { title ');
    expect(syntax.status).toBe(400);
    expect(syntax.body.errors[0].extensions.code).toBe('GRAPHQL_PARSE_FAILED');
    const unknown = await gql('{ books { nope } }');
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(unknown.body.errors[0].message).toContain('nope');
  });

  it('batches, bodies that are no request, and GET mutations are refused', async () => {
    const batch = await t.app.inject({ method: 'POST', url: '/.graphql', headers: { 'content-type': 'application/json' }, payload: '[{"query":"{ books { title } }"}]' });
    expect(batch.statusCode).toBe(400);
    expect(JSON.parse(batch.body).errors[0].extensions.code).toBe('BATCHING_NOT_SUPPORTED');
    const notJson = await t.app.inject({ method: 'POST', url: '/.graphql', headers: { 'content-type': 'application/json' }, payload: '{"query":' });
    expect(notJson.statusCode).toBe(400);
    const noQuery = await t.app.inject({ method: 'GET', url: '/.graphql' });
    expect(noQuery.statusCode).toBe(400);
    // Only GET and POST: the URI permissions stop other methods first (getAndPost), the route says 405.
    const put = await t.app.inject({ method: 'PUT', url: '/.graphql', payload: '' });
    expect([401, 403, 405]).toContain(put.statusCode);
  });

  it('application/graphql bodies and GET queries are served', async () => {
    const raw = await t.app.inject({ method: 'POST', url: '/.graphql', headers: { 'content-type': 'application/graphql' }, payload: '{ books(limit: 1, sort: TITLE_ASC) { title } }' });
    expect(JSON.parse(raw.body)).toEqual({ data: { books: [{ title: 'A Brief History of Time' }] } });
    const get = await t.app.inject({ method: 'GET', url: `/.graphql?query=${encodeURIComponent('query($l: Int) { books(limit: $l, sort: TITLE_DESC) { title } }')}&variables=${encodeURIComponent('{"l":1}')}` });
    expect(get.statusCode).toBe(200);
    expect(JSON.parse(get.body)).toEqual({ data: { books: [{ title: 'The War of the Worlds' }] } });
  });
});
