// Component autogeneration on the pages endpoint: an empty area gets the template's components as if
// stored (stable names and ids, typed properties, nested nodes), a missing area is supplied, an area
// with components is left alone, Get children shows them too, and nothing is ever written.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { createTestApp, getJson, type TestApp } from '../../helpers/test-app.js';

const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures');
const PAGES = `$type: jcrPagesDeliveryEndpoint_v2\nchildNodeTypes: [mgnl:area, mgnl:component, mgnl:contentNode]\n`;
const PLAIN = `$type: jcrDeliveryEndpoint_v2\nworkspace: website\ndepth: 5\nchildNodeTypes: [mgnl:area, mgnl:component]\n`;

let t: TestApp;

describe('component autogeneration', () => {
  beforeAll(async () => {
    t = await createTestApp({
      definitions: { 'delivery/pages_v1.yaml': PAGES, 'delivery/plain_v1.yaml': PLAIN },
      moduleRoots: [join(FIXTURES, 'pages-modules')],
      contentPaths: [join(FIXTURES, 'pages')],
    });
  }, 180_000);
  afterAll(async () => {
    await t?.close();
  });

  it('an empty area gets the configured components in their defined order, rendered as if stored', async () => {
    const { status, raw, body } = await getJson(t.app, '/.rest/delivery/pages/v1/site/auto');
    expect(status).toBe(200);
    expect(body.main['@nodes']).toEqual(['headline', 'teaser']);
    const h = body.main.headline;
    expect(h['@name']).toBe('headline');
    expect(h['@path']).toBe('/site/auto/main/headline');
    expect(h['@nodeType']).toBe('cms:component');
    expect(h['@id']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(h['cms:template']).toBe('test-module:components/headline');
    expect(h.text).toBe('<p>Generated headline</p>');
    expect(h.level).toBe(2);
    expect(h.featured).toBe(true);
    expect(h.settings).toMatchObject({ '@name': 'settings', '@path': '/site/auto/main/headline/settings', '@nodeType': 'cms:contentNode', color: 'blue' });
    expect(h['@nodes']).toEqual(['settings']);
    // key order on the wire: system keys, then properties in definition order
    expect(raw.indexOf('"cms:template":"test-module:components/headline"')).toBeLessThan(raw.indexOf('"text":"<p>Generated headline</p>"'));
    expect(body.main.teaser.text).toBe('Generated teaser');
  });

  it('names and ids are the same on every request', async () => {
    const a = (await getJson(t.app, '/.rest/delivery/pages/v1/site/auto')).body;
    const b = (await getJson(t.app, '/.rest/delivery/pages/v1/site/auto')).body;
    expect(a.main.headline['@id']).toBe(b.main.headline['@id']);
    expect(a.main.headline.settings['@id']).toBe(b.main.headline.settings['@id']);
    expect(a.main.teaser['@id']).not.toBe(a.main.headline['@id']);
  });

  it('the same component name on another page gets another id', async () => {
    const a = (await getJson(t.app, '/.rest/delivery/pages/v1/site/auto')).body;
    const other = (await getJson(t.app, '/.rest/delivery/pages/v1/site/auto-filled')).body;
    expect(other.extras.note['@id']).not.toBe(a.extras.note['@id']);
  });

  it('a missing area the template declares is supplied with its components', async () => {
    const { body } = await getJson(t.app, '/.rest/delivery/pages/v1/site/auto');
    expect(body['@nodes']).toEqual(['main', 'extras']);
    expect(body.extras['@nodeType']).toBe('cms:area');
    expect(body.extras['@path']).toBe('/site/auto/extras');
    expect(body.extras['@nodes']).toEqual(['note']);
    expect(body.extras.note['@nodeType']).toBe('cms:component');
  });

  it('an area that already holds a component is left as stored', async () => {
    const { body } = await getJson(t.app, '/.rest/delivery/pages/v1/site/auto-filled');
    expect(body.main['@nodes']).toEqual(['mine']);
    expect(body.main.mine.text).toBe('written by an author');
  });

  it('Get children shows the generated components too', async () => {
    const { status, body } = await getJson(t.app, '/.rest/delivery/pages/v1/site/auto@nodes');
    expect(status).toBe(200);
    expect(body.map((a: any) => a['@name'])).toEqual(['main', 'extras']);
    expect(body[0]['@nodes']).toEqual(['headline', 'teaser']);
    const read = (await getJson(t.app, '/.rest/delivery/pages/v1/site/auto')).body;
    expect(body[0].headline['@id']).toBe(read.main.headline['@id']);
  });

  it('Get children of the area itself lists the generated components', async () => {
    const { status, body } = await getJson(t.app, '/.rest/delivery/pages/v1/site/auto/main@nodes');
    expect(status).toBe(200);
    expect(body.map((c: any) => c['@name'])).toEqual(['headline', 'teaser']);
    expect((await getJson(t.app, '/.rest/delivery/pages/v1/site/auto/main')).body['@nodes']).toEqual(['headline', 'teaser']);
  });

  it('a GET never writes: the store holds the same nodes, and generated paths are not readable nodes', async () => {
    const before = await t.store.reads.countNodes('website');
    await getJson(t.app, '/.rest/delivery/pages/v1/site/auto');
    await getJson(t.app, '/.rest/delivery/pages/v1/site/auto@nodes');
    expect(await t.store.reads.countNodes('website')).toBe(before);
    expect(await t.store.reads.getNode('website', '/site/auto/main/headline')).toBeUndefined();
    expect((await getJson(t.app, '/.rest/delivery/pages/v1/site/auto/main/headline')).status).toBe(404);
  });

  it('a plain endpoint does not generate', async () => {
    const { body } = await getJson(t.app, '/.rest/delivery/plain/v1/site/auto');
    expect(body['@nodes']).toEqual(['main']);
    expect(body.main['@nodes']).toEqual([]);
  });

  it('query nodes do not generate', async () => {
    const { body } = await getJson(t.app, '/.rest/delivery/pages/v1?@name=auto');
    expect(body.results).toHaveLength(1);
    expect(body.results[0].main['@nodes']).toEqual([]);
  });
});

describe('pages features on plain endpoints (petal.yaml pages.allEndpoints)', () => {
  let all: TestApp;
  beforeAll(async () => {
    all = await createTestApp({
      definitions: { 'delivery/plain_v1.yaml': PLAIN },
      moduleRoots: [join(FIXTURES, 'pages-modules')],
      contentPaths: [join(FIXTURES, 'pages')],
      pagesOnAllEndpoints: true,
    });
  }, 180_000);
  afterAll(async () => {
    await all?.close();
  });

  it('generates and inherits on a plain endpoint when enabled', async () => {
    expect((await getJson(all.app, '/.rest/delivery/plain/v1/site/auto')).body.main['@nodes']).toEqual(['headline', 'teaser']);
    expect((await getJson(all.app, '/.rest/delivery/plain/v1/site/level2/none')).body.main['@nodes']).toEqual(['own1']);
    expect((await getJson(all.app, '/.rest/delivery/plain/v1/site/level2/all')).body.main['@nodes']).toHaveLength(5);
  });
});
