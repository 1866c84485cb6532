// HTTP rules of Get children: `{path}@nodes` and `/@nodes`, natural order, nodeTypes on the listed
// children, depth below each child, rootPath, language variants, 404s.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { createTestApp, getJson, type TestApp } from '../helpers/test-app.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/render/', import.meta.url));

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({
    contentPaths: [FIXTURES],
    definitions: {
      'delivery/pagenav_v1.yaml': `
$type: jcrDeliveryEndpoint_v2
workspace: website
depth: 1
nodeTypes: [mgnl:page]
childNodeTypes: [mgnl:page]
systemProperties: [mgnl:template]
`,
      'delivery/all.yaml': `
$type: jcrDeliveryEndpoint_v2
workspace: website
`,
      'delivery/rooted.yaml': `
$type: jcrDeliveryEndpoint_v2
workspace: website
rootPath: /site/about
`,
      'delivery/plants.yaml': `
$type: jcrDeliveryEndpoint_v2
workspace: plants
nodeTypes: [mgnl:content]
excludeProperties: [internal]
`,
    },
  });
});
afterAll(async () => {
  await t.close();
});

describe('Get children', () => {
  it('returns the children allowed by nodeTypes, in natural order, each with its depth', async () => {
    const { status, body } = await getJson(t.app, '/.rest/delivery/pagenav/v1/site@nodes');
    expect(status).toBe(200);
    expect(body.map((n: { '@name': string }) => n['@name'])).toEqual(['about', 'news', 'weird name ü']);
    const about = body[0];
    expect(about['@nodes']).toEqual(['team', 'history']);
    expect(about['cms:template']).toBe('test:pages/standard');
    expect(about.team['@nodes']).toEqual([]);
  });

  it('lists every child without nodeTypes, and the workspace root with /@nodes', async () => {
    const { body } = await getJson(t.app, '/.rest/delivery/all/site@nodes');
    expect(body.map((n: { '@name': string }) => n['@name'])).toEqual(['main', 'footer', 'about', 'news', 'weird name ü']);
    const root = await getJson(t.app, '/.rest/delivery/all/@nodes');
    expect(root.status).toBe(200);
    expect(root.body.map((n: { '@name': string }) => n['@name'])).toEqual(['site']);
    const noSlash = await getJson(t.app, '/.rest/delivery/all@nodes');
    expect(noSlash.status).toBe(404); // only `/@nodes` names the root's children
  });

  it('resolves against rootPath: /@nodes lists the children of the root path', async () => {
    const { body } = await getJson(t.app, '/.rest/delivery/rooted/@nodes');
    expect(body.map((n: { '@path': string }) => n['@path'])).toEqual(['/site/about/team', '/site/about/history']);
  });

  it('serves the children of a folder even when folders are not in nodeTypes', async () => {
    const { status, body } = await getJson(t.app, '/.rest/delivery/plants/catalog@nodes');
    expect(status).toBe(200);
    expect(body.map((n: { name: string }) => n.name)).toEqual(['Rose', 'Tulip']);
    expect(body[0].internal).toBeUndefined();
    // What the definition excludes stays out even when the request lists it.
    const withProps = await getJson(t.app, '/.rest/delivery/plants/catalog@nodes?properties=internal');
    expect(withProps.body[0]).toEqual({
      '@name': 'rose', '@path': '/catalog/rose', '@id': '00000000-0000-4000-8000-000000000102', '@nodeType': 'cms:content', '@nodes': [],
    });
  });

  it('applies language variants to the listed children', async () => {
    const en = await getJson(t.app, '/.rest/delivery/all/site@nodes');
    expect(en.body.map((n: { '@name': string }) => n['@name'])).not.toContain('main_de');
    const de = await getJson(t.app, '/.rest/delivery/all/site@nodes?lang=de');
    expect(de.body[0]['@name']).toBe('main_de');
    expect(de.headers['content-language']).toBe('de');
  });

  it('answers 404 pathNotFound for a missing parent and [] for a leaf', async () => {
    const missing = await getJson(t.app, '/.rest/delivery/all/nope@nodes');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: { code: 'pathNotFound', message: '/nope' } });
    const leaf = await getJson(t.app, '/.rest/delivery/all/site/news@nodes');
    expect(leaf.status).toBe(200);
    expect(leaf.body).toEqual([]);
  });
});
