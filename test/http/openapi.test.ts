// The OpenAPI document (issue 19): valid OpenAPI 3.1 for the demo and the travel-spa modules, listing
// only what the caller's URI permissions allow, in JSON and YAML, and rebuilt after a reload.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { Validator } from '@seriousme/openapi-schema-validator';
import { loadDefinitions } from '../../src/delivery/load-definitions.js';
import { generateTypes } from '../../src/openapi/generate-types.js';
import type { OpenApiDocument } from '../../src/openapi/build-document.js';
import { CORPORA, CORPORA_AVAILABLE } from '../helpers/corpora.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { basic, hashOf } from '../security-http/helpers.js';

const DEMO = join(import.meta.dirname, '..', '..', 'demo');
const PW = 'openapi-secret';
type Json = Record<string, any>;

async function expectValid(doc: unknown): Promise<void> {
  const result = await new Validator().validate(doc as Json);
  expect(result.errors).toBeUndefined();
  expect(result.valid).toBe(true);
}

async function documentOf(t: TestApp, headers: Record<string, string> = {}): Promise<Json> {
  const res = await t.app.inject({ method: 'GET', url: '/.rest/openapi.json', headers });
  expect(res.statusCode).toBe(200);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  return res.json();
}

/** The demo's own security section, plus a superuser to sign in with. */
async function demoSecurity(): Promise<Json> {
  const security = parse(readFileSync(join(DEMO, 'petal.yaml'), 'utf8')).security as Json;
  return { ...security, users: { boss: { passwordHash: await hashOf(PW), roles: ['superuser'] } } };
}

describe('OpenAPI document of the demo', () => {
  let t: TestApp;
  const boss = { authorization: basic('boss', PW) };
  beforeAll(async () => {
    t = await createTestApp({ moduleRoots: [join(DEMO, 'light-modules')], security: await demoSecurity(), shop: true });
  }, 180_000);
  afterAll(async () => {
    await t?.close();
  });

  it('is valid OpenAPI 3.1, for the anonymous caller and for a superuser', async () => {
    const anonymous = await documentOf(t);
    expect(anonymous.openapi).toBe('3.1.0');
    await expectValid(anonymous);
    await expectValid(await documentOf(t, boss));
  });

  it('anonymous: the public delivery endpoints and the shop, not the private endpoint nor the Nodes API', async () => {
    const paths = Object.keys((await documentOf(t)).paths);
    expect(paths).toContain('/.rest/delivery/pages/v1');
    expect(paths).toContain('/.rest/delivery/pages/v1/{path}');
    expect(paths).toContain('/.rest/delivery/pages/v1/{path}@nodes');
    expect(paths).toContain('/.rest/delivery/plants/v2');
    expect(paths).toContain('/shop/v1/cart');
    expect(paths.filter((p) => p.startsWith('/.rest/private/'))).toEqual([]);
    expect(paths.filter((p) => p.startsWith('/.rest/nodes/'))).toEqual([]);
  });

  it('a signed-in superuser also sees the private endpoint and the Nodes API with its writes', async () => {
    const doc = await documentOf(t, boss);
    expect(Object.keys(doc.paths)).toContain('/.rest/private/stock/v1');
    const nodes = doc.paths['/.rest/nodes/v1/{workspace}/{path}'];
    expect(Object.keys(nodes).sort()).toEqual(['delete', 'get', 'post', 'put']);
    // Publishing is off in this app: the Commands API only answers 404, so it is not listed.
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/.rest/commands/'))).toEqual([]);
  });

  it('describes Query nodes: parameters, filter operators, the result shape and the errors', async () => {
    const doc = await documentOf(t);
    const op = doc.paths['/.rest/delivery/plants/v2'].get;
    const names = op.parameters.map((p: Json) => p.name);
    for (const n of ['lang', 'q', 'orderBy', 'offset', 'limit', 'properties', 'excludeProperties', 'filters']) expect(names).toContain(n);
    expect(names).not.toContain('version'); // Read node only
    const filters = op.parameters.find((p: Json) => p.name === 'filters');
    expect(filters.description).toContain('not-in');
    expect(filters.description).toContain('ilike');
    // The demo declares a plant content type: the plants endpoints' results are typed by it.
    expect(op.responses['200'].content['application/json'].schema.$ref).toBe('#/components/schemas/QueryResult_petal-demo_plant');
    expect(doc.components.schemas.QueryResult.required).toEqual(['total', 'offset', 'limit', 'results']);
    expect(JSON.stringify(doc.components.schemas['petal-demo_plant'])).toContain('"price":{"type":"number"');
    expect(doc.components.responses.E404.description).toContain('pathNotFound');
    const read = doc.paths['/.rest/delivery/plants/v2/{path}'].get;
    expect(read.parameters.map((p: Json) => p.name)).toContain('version');
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['basic', 'bearer', 'session']);
    expect(doc.components.securitySchemes.session).toMatchObject({ type: 'apiKey', in: 'cookie', name: 'petal_session' });
  });

  it('serves the same document as YAML', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/.rest/openapi.yaml' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/yaml/);
    expect(parse(res.body)).toEqual(await documentOf(t));
  });

  it('answers 304 to its ETag', async () => {
    const first = await t.app.inject({ method: 'GET', url: '/.rest/openapi.json' });
    const again = await t.app.inject({ method: 'GET', url: '/.rest/openapi.json', headers: { 'if-none-match': String(first.headers.etag) } });
    expect(again.statusCode).toBe(304);
  });
});

describe('OpenAPI document after a reload', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ definitions: { 'delivery/a_v1.yaml': '$type: jcrDeliveryEndpoint_v2\nworkspace: website\n' } });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('lists the endpoints of the current definitions', async () => {
    expect(Object.keys((await documentOf(t)).paths)).toContain('/.rest/delivery/a/v1');
    const other = await loadDefinitions([join(import.meta.dirname, '..', '..', 'demo', 'light-modules')]);
    t.registry.applyLoad(other);
    const paths = Object.keys((await documentOf(t)).paths);
    expect(paths).not.toContain('/.rest/delivery/a/v1');
    expect(paths).toContain('/.rest/delivery/plants/v1');
  });
});

// Skipped only on a machine without ../shared/corpora (test/helpers/corpora.ts warns); CI has them.
describe.skipIf(!CORPORA_AVAILABLE)('OpenAPI document of the travel-spa modules', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ moduleRoots: [join(CORPORA, 'travel-spa', 'magnolia', 'light-modules')] });
  }, 180_000);
  afterAll(async () => {
    await t?.close();
  });

  it('is valid OpenAPI 3.1 and lists both endpoints', async () => {
    const doc = await documentOf(t);
    await expectValid(doc);
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining([
      '/.rest/delivery/pages/v1', '/.rest/delivery/pages/v1/{path}', '/.rest/delivery/pagenav/v1/{path}@nodes',
    ]));
  });
});

// The original's two spellings of a model's properties: a map by name, and a list of `name:` entries.
const TOUR_TYPE = `datasource:
  workspace: tours
  autoCreate: true
model:
  properties:
    name: { label: Name, required: true }
    isFeatured: { type: Boolean }
    duration: { type: Long }
    rating: { type: Double }
    date: { type: Date }
    image: { type: asset }
    tourTypes: { multiple: true }
`;
const GUIDE_TYPE = `datasource: { $type: jcrContentTypeDatasource, workspace: guides }
model:
  nodeType: mt:tourGuide
  properties:
    - name: birthday
      type: Date
    - name: shortBio
`;

describe('OpenAPI document with content types', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({
      definitions: {
        'delivery/tours_v1.yaml': 'workspace: tours\n$type: jcrDeliveryEndpoint_v2\n',
        'delivery/guides_v1.yaml': 'workspace: guides\n$type: jcrDeliveryEndpoint_v2\n',
        'delivery/pages_v1.yaml': 'workspace: website\n$type: jcrDeliveryEndpoint_v2\n',
      },
      moduleFiles: { 'contentTypes/tour.yaml': TOUR_TYPE, 'contentTypes/guide.yaml': GUIDE_TYPE },
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  const schemaOf = (doc: Json, path: string) => doc.paths[path].get.responses['200'].content['application/json'].schema;

  it('gives an endpoint on a content type\'s workspace that type\'s schema, and the others the generic node', async () => {
    const doc = await documentOf(t);
    await expectValid(doc);
    expect(schemaOf(doc, '/.rest/delivery/tours/v1/{path}').$ref).toBe('#/components/schemas/test-module_tour');
    expect(schemaOf(doc, '/.rest/delivery/tours/v1').$ref).toBe('#/components/schemas/QueryResult_test-module_tour');
    expect(schemaOf(doc, '/.rest/delivery/guides/v1/{path}').$ref).toBe('#/components/schemas/test-module_guide');
    expect(schemaOf(doc, '/.rest/delivery/pages/v1/{path}').$ref).toBe('#/components/schemas/Node');
    const tour = doc.components.schemas['test-module_tour'];
    expect(tour.allOf[0].$ref).toBe('#/components/schemas/Node');
    expect(tour.allOf[1].properties).toMatchObject({
      name: { type: 'string', title: 'Name' }, isFeatured: { type: 'boolean' }, duration: { type: 'integer' }, rating: { type: 'number' },
      date: { type: 'string', format: 'date-time' }, tourTypes: { type: 'array', items: { type: 'string' } },
    });
    expect(tour.allOf[1].properties.image.type).toBeUndefined(); // an id, or the expanded asset
    expect(Object.keys(doc.components.schemas['test-module_guide'].allOf[1].properties)).toEqual(['birthday', 'shortBio']);
  });

  it('types a Query nodes result of that workspace with the model\'s properties', async () => {
    const text = await generateTypes(await documentOf(t) as OpenApiDocument);
    expect(text).toMatch(/duration\?: number;/);
    expect(text).toMatch(/isFeatured\?: boolean;/);
  });
});

// Skipped only on a machine without ../shared/corpora (test/helpers/corpora.ts warns); CI has them.
describe.skipIf(!CORPORA_AVAILABLE)('OpenAPI document of the magnetic-saas modules (a content type in use)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ moduleRoots: [join(CORPORA, 'magnetic-saas', 'light-modules')] });
  }, 180_000);
  afterAll(async () => {
    await t?.close();
  });

  it('is valid OpenAPI 3.1 and types the watches endpoint with the watch content type', async () => {
    const doc = await documentOf(t);
    await expectValid(doc);
    const read = doc.paths['/.rest/delivery/watches/v1/{path}'].get.responses['200'].content['application/json'].schema;
    expect(read.$ref).toBe('#/components/schemas/saas-demo_watch');
    expect(Object.keys(doc.components.schemas['saas-demo_watch'].allOf[1].properties)).toEqual(
      ['name', 'tagLine', 'price', 'image', 'description', 'testimonial']);
  });
});
