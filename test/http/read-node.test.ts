// HTTP rules of Read node: key order, value types, depth and @nodes, node types, rootPath, property
// lists, system properties, language variants, namespaces, errors.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { createTestApp, getJson, type TestApp } from '../helpers/test-app.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/render/', import.meta.url));

const DEFINITIONS: Record<string, string> = {
  'delivery/pages_v1.yaml': `
$type: jcrDeliveryEndpoint_v2
workspace: website
depth: 2
nodeTypes: [mgnl:page]
childNodeTypes: [mgnl:area, mgnl:component]
`,
  'delivery/flat.yaml': `
$type: jcrDeliveryEndpoint_v2
workspace: website
`,
  'delivery/deep.yaml': `
$type: jcrDeliveryEndpoint_v2
workspace: website
depth: 10
`,
  'delivery/sys.yaml': `
$type: jcrDeliveryEndpoint_v2
workspace: website
includeSystemProperties: true
`,
  'delivery/syslist.yaml': `
$type: jcrDeliveryEndpoint_v2
workspace: website
systemProperties: [mgnl:template]
`,
  'delivery/props.yaml': `
$type: jcrDeliveryEndpoint_v2
workspace: website
properties: [title, count, visible]
`,
  'delivery/exclude.yaml': `
$type: jcrDeliveryEndpoint_v2
workspace: website
excludeProperties: [count]
`,
  'delivery/both.yaml': `
$type: jcrDeliveryEndpoint_v2
workspace: website
properties: [title, count]
excludeProperties: [title]
`,
  'delivery/rooted.yaml': `
$type: jcrDeliveryEndpoint_v2
workspace: website
rootPath: /site
depth: 1
nodeTypes: [mgnl:page]
childNodeTypes: [mgnl:page]
`,
  'delivery/strict.yaml': `
$type: jcrDeliveryEndpoint_v2
workspace: website
strict: true
depth: 1
nodeTypes: [mgnl:content]
`,
  'delivery/contentnodes.yaml': `
$type: jcrDeliveryEndpoint_v2
workspace: website
depth: 1
nodeTypes: [mgnl:content]
childNodeTypes: [mgnl:contentNode]
`,
  'delivery/plants.yaml': `
class: info.magnolia.rest.delivery.jcr.v2.JcrDeliveryEndpointDefinition
workspace: plants
nodeTypes: [mgnl:content]
`,
};

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({ definitions: DEFINITIONS, contentPaths: [FIXTURES] });
});
afterAll(async () => {
  await t.close();
});

describe('Read node', () => {
  it('renders keys in the order @name, @path, @id, @nodeType, properties, children, @nodes', async () => {
    const { status, body, raw } = await getJson(t.app, '/.rest/delivery/pages/v1/site');
    expect(status).toBe(200);
    expect(Object.keys(body)).toEqual([
      '@name', '@path', '@id', '@nodeType', 'title', 'count', 'ratio', 'visible', 'published', 'tags', 'numbers', 'empty',
      'main', 'footer', '@nodes',
    ]);
    expect(body['@name']).toBe('site');
    expect(body['@path']).toBe('/site');
    expect(body['@id']).toBe('00000000-0000-4000-8000-000000000001');
    expect(body['@nodeType']).toBe('cms:page');
    expect(body['@nodes']).toEqual(['main', 'footer']);
    expect(raw.startsWith('{"@name":"site","@path":"/site","@id":')).toBe(true);
  });

  it('types values: numbers, booleans, ISO dates with millis and offset, multi-value as string arrays', async () => {
    const { body } = await getJson(t.app, '/.rest/delivery/pages/v1/site');
    expect(body.count).toBe(42);
    expect(body.ratio).toBe(0.5);
    expect(body.visible).toBe(true);
    expect(body.published).toBe('2024-05-02T08:30:15.123+00:00');
    expect(body.tags).toEqual(['a', 'b']);
    expect(body.numbers).toEqual(['1', '2']);
    expect(body.empty).toEqual([]);
  });

  it('embeds children down to depth and lists exactly the embedded ones in @nodes', async () => {
    const { body } = await getJson(t.app, '/.rest/delivery/pages/v1/site');
    expect(body.main['@nodes']).toEqual(['0', '1']);
    expect(body.main['0']['@nodes']).toEqual([]); // depth 2 reached: settings not embedded
    expect(body.main['0'].text).toBe('<p>Hello</p>');
    expect(body.footer['@nodes']).toEqual([]);
  });

  it('has @nodes empty at depth 0 although the node has children', async () => {
    const { body } = await getJson(t.app, '/.rest/delivery/flat/site');
    expect(body['@nodes']).toEqual([]);
    expect(body.main).toBeUndefined();
  });

  it('leaves out children that fail childNodeTypes, with their subtree', async () => {
    const { body } = await getJson(t.app, '/.rest/delivery/deep/site');
    expect(body['@nodes']).toEqual(['main', 'footer', 'about', 'news', 'weird name ü']);
    expect(body.about.team.title).toBe('Team');
    expect(body.about.history.title).toBe('History');
    expect(body.main['0'].settings.color).toBe('red');
    const pages = await getJson(t.app, '/.rest/delivery/pages/v1/site/about');
    expect(pages.body['@nodes']).toEqual([]); // pages are not area/component children
  });

  it('answers 404 pathNotFound for a node whose type is not in nodeTypes, as for a missing one', async () => {
    const area = await getJson(t.app, '/.rest/delivery/pages/v1/site/main');
    const missing = await getJson(t.app, '/.rest/delivery/pages/v1/site/nope');
    expect(area.status).toBe(404);
    expect(area.body).toEqual({ error: { code: 'pathNotFound', message: '/site/main' } });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('pathNotFound');
    const folder = await getJson(t.app, '/.rest/delivery/plants/catalog');
    expect(folder.status).toBe(404);
    const rose = await getJson(t.app, '/.rest/delivery/plants/catalog/rose');
    expect(rose.status).toBe(200);
    expect(rose.body.name).toBe('Rose');
  });

  it('matches sub types unless strict', async () => {
    const loose = await getJson(t.app, '/.rest/delivery/contentnodes/site');
    expect(loose.status).toBe(200);
    expect(loose.body['@nodes']).toEqual(['main', 'footer']); // areas are contentNodes
    const strict = await getJson(t.app, '/.rest/delivery/strict/site');
    expect(strict.status).toBe(404); // a page is a cms:content only through its super type
  });

  it('resolves the path against rootPath and keeps @path absolute', async () => {
    const { status, body } = await getJson(t.app, '/.rest/delivery/rooted/about');
    expect(status).toBe(200);
    expect(body['@path']).toBe('/site/about');
    expect(body['@nodes']).toEqual(['team', 'history']);
    const outside = await getJson(t.app, '/.rest/delivery/rooted/site');
    expect(outside.status).toBe(404);
  });

  it('hides system properties unless included, listed or all enabled', async () => {
    const plain = await getJson(t.app, '/.rest/delivery/flat/site');
    expect(plain.body['cms:template']).toBeUndefined();
    expect(plain.body['jcr:createdBy']).toBeUndefined();
    const sys = await getJson(t.app, '/.rest/delivery/sys/site');
    expect(sys.body['cms:template']).toBe('test:pages/home');
    expect(sys.body['cms:created']).toBe('2024-05-01T10:00:00.000+02:00');
    expect(sys.body['jcr:createdBy']).toBe('admin');
    const listed = await getJson(t.app, '/.rest/delivery/syslist/site');
    expect(listed.body['cms:template']).toBe('test:pages/home');
    expect(listed.body['cms:created']).toBeUndefined();
  });

  it('applies properties and excludeProperties from the definition and the query string', async () => {
    const def = await getJson(t.app, '/.rest/delivery/props/site');
    expect(Object.keys(def.body)).toEqual(['@name', '@path', '@id', '@nodeType', 'title', 'count', 'visible', '@nodes']);
    const intersect = await getJson(t.app, '/.rest/delivery/props/site?properties=title,ratio');
    expect(Object.keys(intersect.body)).toEqual(['@name', '@path', '@id', '@nodeType', 'title', '@nodes']);
    const excl = await getJson(t.app, '/.rest/delivery/exclude/site?excludeProperties=ratio');
    expect(excl.body.count).toBeUndefined();
    expect(excl.body.ratio).toBeUndefined();
    expect(excl.body.title).toBe('Home');
    const both = await getJson(t.app, '/.rest/delivery/both/site');
    expect(both.body.title).toBe('Home'); // excludeProperties ignored when properties is configured
    expect(both.body.count).toBe(42);
    expect(both.body.ratio).toBeUndefined();
    const meta = await getJson(t.app, '/.rest/delivery/flat/site?properties=none&excludeProperties=@name');
    expect(Object.keys(meta.body)).toEqual(['@name', '@path', '@id', '@nodeType', '@nodes']);
  });

  it('hides language variants by default and renders the requested language under base names', async () => {
    const en = await getJson(t.app, '/.rest/delivery/pages/v1/site');
    expect(en.body.title_de).toBeUndefined();
    expect(en.body.subtitle_de).toBeUndefined();
    expect(en.body.subtitle).toBeUndefined();
    expect(en.body.main_de).toBeUndefined();
    expect(en.headers['content-language']).toBe('en');
    const de = await getJson(t.app, '/.rest/delivery/pages/v1/site?lang=de');
    expect(de.body.title).toBe('Startseite');
    expect(de.body.subtitle).toBe('Nur deutsch');
    expect(de.body.main['@name']).toBe('main_de');
    expect(de.body.main['0'].text).toBe('deutscher Inhalt');
    expect(de.body['@nodes']).toEqual(['main', 'footer']);
    expect(de.headers['content-language']).toBe('de');
    const header = await getJson(t.app, '/.rest/delivery/pages/v1/site', { 'accept-language': 'fr;q=0.9, de-CH;q=0.8' });
    expect(header.body.title).toBe('Startseite');
    const all = await getJson(t.app, '/.rest/delivery/pages/v1/site?lang=all');
    expect(all.body.title).toBe('Home');
    expect(all.body.title_de).toBe('Startseite');
    expect(all.body['@nodes']).toEqual(['main', 'main_de', 'footer']);
  });

  it('uses the mgnl: prefix in output with namespace mgnl', async () => {
    const m = await createTestApp({ definitions: { 'delivery/sys.yaml': DEFINITIONS['delivery/sys.yaml']! }, contentPaths: [FIXTURES], namespace: 'mgnl' });
    try {
      const { body } = await getJson(m.app, '/.rest/delivery/sys/site');
      expect(body['@nodeType']).toBe('mgnl:page');
      expect(body['mgnl:template']).toBe('test:pages/home');
      expect(body['cms:template']).toBeUndefined();
    } finally {
      await m.close();
    }
  });

  it('decodes percent-encoded names and ignores unknown query parameters', async () => {
    const { status, body } = await getJson(t.app, '/.rest/delivery/deep/site/weird%20name%20%C3%BC?mgnlPreview=false&variants=all&foo[bar]=1');
    expect(status).toBe(200);
    expect(body.title).toBe('Odd');
  });

  it('answers 404 versionNotFound for a version that does not exist', async () => {
    const { status, body } = await getJson(t.app, '/.rest/delivery/flat/site?version=1.0');
    expect(status).toBe(404);
    expect(body.error.code).toBe('versionNotFound');
  });
});
