// The presets of jcrPagesDeliveryEndpoint_v2 (workspace website, depth 100, personalized,
// systemProperties [cms:template], nodeTypes page/component/area, childNodeTypes area/component),
// through HTTP, each overridable by the definition; aliases of the type name.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { createTestApp, getJson, type TestApp } from '../../helpers/test-app.js';

const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures');

let t: TestApp;

/** A page whose main area holds components nested `levels` deep (main is level 1 below the page). */
function deepPage(levels: number): string {
  const lines = ['deep:', '  jcr:primaryType: mgnl:page', '  main:', '    jcr:primaryType: mgnl:area'];
  for (let level = 2; level <= levels; level++) {
    const pad = '  '.repeat(level);
    lines.push(`${pad}c:`, `${pad}  jcr:primaryType: mgnl:component`, `${pad}  level: ${level}`);
  }
  return `${lines.join('\n')}\n`;
}

describe('pages endpoint presets', () => {
  beforeAll(async () => {
    t = await createTestApp({
      definitions: {
        'delivery/pages_v1.yaml': '$type: jcrPagesDeliveryEndpoint_v2\n',
        'delivery/newer_v1.yaml': '$type: pagesDeliveryEndpoint_v2\n',
        'delivery/byclass_v1.yaml': 'class: info.magnolia.rest.delivery.jcr.v2.JcrPagesDeliveryEndpointDefinition\n',
        'delivery/custom_v1.yaml': [
          '$type: jcrPagesDeliveryEndpoint_v2',
          'depth: 1',
          'personalized: false',
          'systemProperties: [mgnl:template, mgnl:created]',
          'nodeTypes: [mgnl:page, mgnl:component, mgnl:area, mgnl:folder]',
          'childNodeTypes: [mgnl:area, mgnl:component, mgnl:contentNode]',
        ].join('\n'),
        'delivery/other_v1.yaml': '$type: jcrPagesDeliveryEndpoint_v2\nworkspace: p13nless\n',
      },
      moduleRoots: [join(FIXTURES, 'pages-modules')],
      contentPaths: [join(FIXTURES, 'pages'), join(FIXTURES, 'p13n')],
      content: { 'website.deep.yaml': deepPage(101) },
    });
  }, 180_000);
  afterAll(async () => {
    await t?.close();
  });

  it('serves the website workspace to depth 100 with only cms:template as system property', async () => {
    const { status, body } = await getJson(t.app, '/.rest/delivery/pages/v1/site');
    expect(status).toBe(200);
    expect(body['cms:template']).toBe('test-module:pages/home');
    expect(body.main.c1['cms:template']).toBe('test-module:components/text');
    expect(Object.keys(body).filter((k) => k.startsWith('cms:') || k.startsWith('jcr:'))).toEqual(['cms:template']);
    // child pages are not embedded (childNodeTypes: area, component), areas and components are
    expect(body['@nodes']).toEqual(['main']);
  });

  it('embeds children 100 levels deep, not 101', async () => {
    const { status, body } = await getJson(t.app, '/.rest/delivery/pages/v1/deep');
    expect(status).toBe(200);
    let node = body.main;
    for (let level = 2; level <= 100; level++) {
      node = node.c;
      expect(node?.level, `level ${level}`).toBe(level);
    }
    expect(node['@nodes']).toEqual([]);
    expect(node.c).toBeUndefined();
  });

  it('embeds areas and components only: a contentNode below a component is left out', async () => {
    const { body } = await getJson(t.app, '/.rest/delivery/pages/v1/site/main/c1');
    expect(body['@nodes']).toEqual([]);
  });

  it('reads pages, areas and components only (nodeTypes): a folder is not found', async () => {
    expect((await getJson(t.app, '/.rest/delivery/pages/v1/site/level2/folder')).status).toBe(404);
    expect((await getJson(t.app, '/.rest/delivery/pages/v1/site/main')).status).toBe(200);
  });

  it('is personalized: a trait picks a variant', async () => {
    const { body } = await getJson(t.app, '/.rest/delivery/pages/v1/p13n', { 'x-age': 'Adult' });
    expect(body.main.age['@variantNodeName']).toBe('variant-1');
  });

  it.each(['newer', 'byclass'])('the %s alias gets the same presets', async (name) => {
    const a = await getJson(t.app, `/.rest/delivery/${name}/v1/site/level2/all`);
    const b = await getJson(t.app, '/.rest/delivery/pages/v1/site/level2/all');
    expect(a.raw).toBe(b.raw);
  });

  it('every preset is overridden by the definition', async () => {
    const { body } = await getJson(t.app, '/.rest/delivery/custom/v1/site', { 'x-age': 'Adult' });
    expect(Object.keys(body).filter((k) => k.startsWith('cms:')).sort()).toEqual(['cms:created', 'cms:template']);
    expect(body['@nodes']).toEqual(['main']);
    expect(body.main['@nodes']).toEqual([]); // depth: 1
    expect((await getJson(t.app, '/.rest/delivery/custom/v1/site/main/c1')).body['@nodes']).toEqual(['link']);
    expect((await getJson(t.app, '/.rest/delivery/custom/v1/site/level2/folder')).status).toBe(200);
    const p = await getJson(t.app, '/.rest/delivery/custom/v1/p13n/main/age', { 'x-age': 'Adult' });
    expect(p.body['@variantNodeName']).toBeUndefined();
    expect(p.body.text).toBe('Enter your age');
    expect((await getJson(t.app, '/.rest/delivery/other/v1/site')).status).toBe(404);
  });
});
