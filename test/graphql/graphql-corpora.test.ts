// Issue 32 over the shared corpora, unchanged: the content types real light modules define (travel-spa's
// `tours`, magnetic-saas's `watch`) give their GraphQL types as the original names them (`tours` is
// plural already, so its list field is `tourses`), and the travel demo's tours, imported from its JCR XML
// export, are served typed as the content type declares.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CORPORA, CORPORA_AVAILABLE } from '../helpers/corpora.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

const TRAVEL_MODULES = join(CORPORA, 'travel-spa/_vuejs-branch/magnolia/light-modules');
const SAAS_MODULES = join(CORPORA, 'magnetic-saas/light-modules');
const TOURS = join(CORPORA, 'travel-spa/magnolia/_dev/content-to-import/tours.magnolia-travels.xml');

// Skipped when the shared corpora are not beside the checkout (a fresh clone elsewhere); they are in CI.
describe.skipIf(!CORPORA_AVAILABLE)('GraphQL over the corpora', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ moduleRoots: [TRAVEL_MODULES, SAAS_MODULES], contentPaths: [TOURS], graphql: true });
  }, 180_000);
  afterAll(async () => t?.close());

  const gql = async (query: string) => {
    const r = await t.app.inject({ method: 'POST', url: '/.graphql', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ query }) });
    return { status: r.statusCode, body: JSON.parse(r.body) };
  };

  it('types and fields of the corpora\'s content types', async () => {
    const r = await gql(`{ tours: __type(name: "Tours") { fields { name type { name ofType { name ofType { name } } } } }
      watch: __type(name: "Watch") { fields { name type { name ofType { name } } } }
      __schema { queryType { fields { name } } } }`);
    expect(r.status).toBe(200);
    type T = { name: string | null; ofType: T | null };
    // A named type as GraphQL writes it: Asset, [String!] (a list of non-null String), JcrMetadata! ...
    const shown = (t: T): string => t.name ?? (t.ofType?.ofType?.name !== undefined && t.ofType.name === null ? `[${t.ofType.ofType.name}!]` : `${t.ofType?.name}!`);
    const fields = (x: { fields: { name: string; type: T }[] }) => Object.fromEntries(x.fields.map((f) => [f.name, shown(f.type)]));
    expect(fields(r.body.data.tours)).toEqual({
      _metadata: 'JcrMetadata!', name: 'String', description: 'String', isFeatured: 'Boolean', image: 'Asset', tourTypes: '[String!]',
      location: 'String', date: 'Date', duration: 'Long', tourOperator: 'String', body: 'String',
    });
    expect(fields(r.body.data.watch)).toEqual({
      _metadata: 'JcrMetadata!', name: 'String', tagLine: 'String', price: 'String', image: 'Asset', description: 'String', testimonial: 'String',
    });
    const roots = r.body.data.__schema.queryType.fields.map((f: { name: string }) => f.name);
    expect(roots).toEqual(expect.arrayContaining(['tours', 'tourses', 'watch', 'watches', 'asset', 'assets']));
  });

  it('the travel demo\'s tours, typed as declared', async () => {
    const r = await gql('{ tourses(sort: NAME_ASC, limit: 3) { name isFeatured duration location tourTypes _metadata { path nodeType } } }');
    expect(r.status).toBe(200);
    expect(r.body.errors).toBeUndefined();
    const list = r.body.data.tourses as { name: string; isFeatured: boolean | null; duration: number | null; tourTypes: string[]; _metadata: { path: string; nodeType: string } }[];
    expect(list).toHaveLength(3);
    expect(list.map((x) => x.name)).toEqual([...list.map((x) => x.name)].sort());
    for (const tour of list) {
      expect(tour._metadata.path.startsWith('/magnolia-travels/')).toBe(true);
      expect(tour._metadata.nodeType).toBe('cms:content');
      expect(tour.duration === null || Number.isInteger(tour.duration)).toBe(true);
      expect(Array.isArray(tour.tourTypes)).toBe(true);
    }
    const vietnam = await gql('{ tours(path: "/magnolia-travels/Vietnam--Tradition-and-Today") { name body _metadata { id createdBy } } }');
    expect(vietnam.body.data.tours._metadata).toEqual({ id: '3d676477-eabc-4cbe-88b6-b77aa85a358a', createdBy: expect.any(String) });
    expect(vietnam.body.data.tours.body).toContain('<p>Vietnam is one of the world');
  });
});
