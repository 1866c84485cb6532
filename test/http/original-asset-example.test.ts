// The original CMS's published example of a resolved asset (its documentation of assetReferenceResolver,
// in research/original-docs), served from the same content and endpoint definition: Petal's answer must
// be that example, key for key and in the same order (context path /magnoliaAuthor as there).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ORIGINAL_DOCS, ORIGINAL_DOCS_AVAILABLE } from '../helpers/corpora.js';
import { createTestApp, getJson, OPEN_SECURITY, type TestApp } from '../helpers/test-app.js';

const FIX = fileURLToPath(new URL('../fixtures/original-example/', import.meta.url));
const DOC = 'rest--api--Resolving-references-with-the-delivery-endpoint.txt';

type Json = Record<string, any>;

/** The example response that follows the asset resolver's example configuration. */
function publishedExample(): Json {
  const text = readFileSync(join(ORIGINAL_DOCS, DOC), 'utf8');
  const from = text.indexOf('```js', text.indexOf('$type: assetReferenceResolver'));
  const start = text.indexOf('{', from);
  const end = text.indexOf('```', start);
  return JSON.parse(text.slice(start, end)) as Json;
}

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({
    contentPaths: [`${FIX}content`], moduleRoots: [`${FIX}light-modules`], security: OPEN_SECURITY,
    site: { name: 'travel', locales: ['en'], defaultLocale: 'en', theme: 'travel-demo-theme' },
    contextPath: '/magnoliaAuthor',
  });
});
afterAll(async () => t?.close());

// Skipped where the extracts of the original's documentation are absent (PETAL_ORIGINAL_DOCS).
describe.skipIf(!ORIGINAL_DOCS_AVAILABLE)('the original example of a resolved asset', () => {
  it('has the metadata of the published example: the same keys in the same order, every value a string, format the media type', async () => {
    const expected = publishedExample().image;
    const { status, body } = await getJson(t.app, '/magnoliaAuthor/.rest/delivery/tours/magnolia-travels/Kyoto');
    expect(status, JSON.stringify(body)).toBe(200);
    expect(Object.keys(body.image.metadata)).toEqual(Object.keys(expected.metadata));
    expect(body.image.metadata).toEqual(expected.metadata);
    for (const key of ['@name', '@path', '@id', '@link']) expect(body.image[key]).toBe(expected[key]);
  });

  it("is the published example whole: renditions in the original's URL forms, with the context path", async () => {
    const expected = publishedExample().image;
    const { body } = await getJson(t.app, '/magnoliaAuthor/.rest/delivery/tours/magnolia-travels/Kyoto');
    expect(body.image).toEqual(expected);
    expect(Object.keys(body.image)).toEqual(Object.keys(expected));
  });
});
