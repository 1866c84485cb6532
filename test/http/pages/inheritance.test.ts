// Area inheritance on the pages endpoint: each mode over three levels of pages, the order (highest
// ancestor first, the page's own last), unique names with the original @path/@id, ACLs, and that
// Get children and plain endpoints do not inherit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { createTestApp, getJson, type TestApp } from '../../helpers/test-app.js';

const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures');
const PAGES = `$type: jcrPagesDeliveryEndpoint_v2\n`;
const PLAIN = `$type: jcrDeliveryEndpoint_v2\nworkspace: website\ndepth: 5\nchildNodeTypes: [mgnl:area, mgnl:component, mgnl:contentNode]\n`;

let t: TestApp;

function areaOf(body: any, area: string): { names: string[]; paths: string[] } {
  const a = body[area];
  return { names: a['@nodes'], paths: a['@nodes'].map((n: string) => a[n]['@path']) };
}

describe('area inheritance', () => {
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

  it('components: all takes every component of every ancestor page, highest first, then the own', async () => {
    const { status, body } = await getJson(t.app, '/.rest/delivery/pages/v1/site/level2/all');
    expect(status).toBe(200);
    expect(areaOf(body, 'main')).toEqual({
      names: ['c1_inherited_1', 'c2_inherited_1', 'l2c1_inherited_2', 'l2c2_inherited_2', 'own1'],
      paths: ['/site/main/c1', '/site/main/c2', '/site/level2/main/l2c1', '/site/level2/main/l2c2', '/site/level2/all/main/own1'],
    });
  });

  it('an inherited component keeps its own @id and @path, its properties and its subtree, under a unique @name', async () => {
    const { body } = await getJson(t.app, '/.rest/delivery/pages/v1/site/level2/all');
    const c1 = body.main.c1_inherited_1;
    const original = (await getJson(t.app, '/.rest/delivery/pages/v1/site/main/c1')).body;
    expect(c1['@name']).toBe('c1_inherited_1');
    expect(c1['@path']).toBe('/site/main/c1');
    expect(c1['@id']).toBe(original['@id']);
    expect(c1.text).toBe('site c1');
    expect(c1['cms:template']).toBe('test-module:components/text');
    // the component's own children come along (contentNode is not a child type of the pages preset)
    const plain = (await getJson(t.app, '/.rest/delivery/plain/v1/site/main/c1')).body;
    expect(plain.link.label).toBe('deep in c1');
  });

  it('inherits from the parent page too when that page inherits itself (level 2 of 3)', async () => {
    const { body } = await getJson(t.app, '/.rest/delivery/pages/v1/site/level2');
    expect(areaOf(body, 'main').names).toEqual(['c1_inherited_1', 'c2_inherited_1', 'l2c1', 'l2c2']);
  });

  it('the top page has no ancestors to inherit from', async () => {
    const { body } = await getJson(t.app, '/.rest/delivery/pages/v1/site');
    expect(areaOf(body, 'main').names).toEqual(['c1', 'c2']);
  });

  it('components: filtered takes only components marked inheritable (Boolean or "true")', async () => {
    const { body } = await getJson(t.app, '/.rest/delivery/pages/v1/site/level2/filtered');
    expect(areaOf(body, 'main')).toEqual({
      names: ['c1_inherited_1', 'l2c1_inherited_2', 'own1'],
      paths: ['/site/main/c1', '/site/level2/main/l2c1', '/site/level2/filtered/main/own1'],
    });
  });

  it('components: none inherits nothing', async () => {
    const { body } = await getJson(t.app, '/.rest/delivery/pages/v1/site/level2/none');
    expect(areaOf(body, 'main').names).toEqual(['own1']);
  });

  it('only ancestor pages count: an area of a folder in between is not inherited', async () => {
    const { body } = await getJson(t.app, '/.rest/delivery/pages/v1/site/level2/folder/deep');
    expect(areaOf(body, 'main').names).toEqual(['c1_inherited_1', 'c2_inherited_1', 'l2c1_inherited_2', 'l2c2_inherited_2', 'own1']);
  });

  it('a page without the area node still shows the inherited components in a stable area', async () => {
    const first = await getJson(t.app, '/.rest/delivery/pages/v1/site/level2/bare');
    const again = await getJson(t.app, '/.rest/delivery/pages/v1/site/level2/bare');
    expect(first.body['@nodes']).toEqual(['main']);
    expect(first.body.main['@path']).toBe('/site/level2/bare/main');
    expect(first.body.main['@nodeType']).toBe('cms:area');
    expect(first.body.main['@id']).toBe(again.body.main['@id']);
    expect(first.body.main['@nodes']).toHaveLength(4);
  });

  it('nothing is written to the store', async () => {
    const before = await t.store.reads.countNodes('website');
    await getJson(t.app, '/.rest/delivery/pages/v1/site/level2/bare');
    expect(await t.store.reads.countNodes('website')).toBe(before);
    expect((await getJson(t.app, '/.rest/delivery/pages/v1/site/level2/bare/main')).status).toBe(404);
  });

  it('Get children does not inherit (Read node only)', async () => {
    const { status, body } = await getJson(t.app, '/.rest/delivery/pages/v1/site/level2/all@nodes');
    expect(status).toBe(200);
    expect(body.map((a: any) => a['@name'])).toEqual(['main']);
    expect(body[0]['@nodes']).toEqual(['own1']);
  });

  it('a plain endpoint does not inherit', async () => {
    const { body } = await getJson(t.app, '/.rest/delivery/plain/v1/site/level2/all');
    expect(areaOf(body, 'main').names).toEqual(['own1']);
  });
});

describe('area inheritance and ACLs', () => {
  let acl: TestApp;
  beforeAll(async () => {
    acl = await createTestApp({
      definitions: { 'delivery/pages_v1.yaml': PAGES },
      moduleRoots: [join(FIXTURES, 'pages-modules')],
      contentPaths: [join(FIXTURES, 'pages')],
      security: {
        roles: {
          anonymous: {
            uriPermissions: [{ path: '/*', permission: 'get' }],
            workspacePermissions: {
              website: [
                { path: '/site', permission: 'read' },
                { path: '/site/*', permission: 'read' },
                { path: '/site/main/c1', permission: 'deny' },
                { path: '/site/main/c1/*', permission: 'deny' },
              ],
            },
          },
        },
      },
    });
  }, 180_000);
  afterAll(async () => {
    await acl?.close();
  });

  it('a component the caller may not read is not inherited', async () => {
    const { body } = await getJson(acl.app, '/.rest/delivery/pages/v1/site/level2/all');
    expect(areaOf(body, 'main').names).toEqual(['c2_inherited_1', 'l2c1_inherited_2', 'l2c2_inherited_2', 'own1']);
    expect(JSON.stringify(body)).not.toContain('site c1');
  });
});

describe('area inheritance from ancestors the caller may not read', () => {
  let acl: TestApp;
  const rules = (website: { path: string; permission: string }[]) => ({
    roles: { anonymous: { uriPermissions: [{ path: '/*', permission: 'get' }], workspacePermissions: { website } } },
  });
  afterAll(async () => {
    await acl?.close();
  });

  it.each([
    ['the ancestor page itself is not readable (its subtree is)', [{ path: '/site/*', permission: 'read' }]],
    ['the ancestor page\'s area is denied (its components are not)',
      [{ path: '/site', permission: 'read' }, { path: '/site/*', permission: 'read' }, { path: '/site/main', permission: 'deny' }]],
  ])('nothing is inherited from it when %s', async (_what, website) => {
    await acl?.close();
    acl = await createTestApp({
      definitions: { 'delivery/pages_v1.yaml': PAGES },
      moduleRoots: [join(FIXTURES, 'pages-modules')],
      contentPaths: [join(FIXTURES, 'pages')],
      security: rules(website),
    });
    const { status, body, raw } = await getJson(acl.app, '/.rest/delivery/pages/v1/site/level2/all');
    expect(status).toBe(200);
    expect(areaOf(body, 'main').names).toEqual(['l2c1_inherited_2', 'l2c2_inherited_2', 'own1']);
    expect(raw).not.toContain('site c');
  });
});

describe('area inheritance and personalization', () => {
  let p: TestApp;
  const CONTENT = `
top:
  jcr:primaryType: mgnl:page
  mgnl:template: test-module:pages/home
  main:
    jcr:primaryType: mgnl:area
    banner:
      jcr:primaryType: mgnl:component
      text: Banner for all
      variants:
        jcr:primaryType: mgnl:componentVariants
        variant-0:
          jcr:primaryType: mgnl:component
          jcr:mixinTypes: [mgnl:variant]
          text: Banner for seniors
          mgnl:ruleSet:
            voters:
              voter0:
                traitId: x-age
                value: Senior
  sub:
    jcr:primaryType: mgnl:page
    mgnl:template: test-module:pages/inherit-all
`;
  beforeAll(async () => {
    p = await createTestApp({
      // depth 2 renders page, area and component: shallower than where the rule sets are stored
      definitions: { 'delivery/shallow_v1.yaml': `${PAGES}depth: 2\n` },
      moduleRoots: [join(FIXTURES, 'pages-modules')],
      content: { 'website.top.yaml': CONTENT },
    });
  }, 180_000);
  afterAll(async () => {
    await p?.close();
  });

  it('an inherited component is personalized as the page\'s own components are, whatever the endpoint depth', async () => {
    const own = (await getJson(p.app, '/.rest/delivery/shallow/v1/top', { 'x-age': 'Senior' })).body.main.banner;
    expect(own.text).toBe('Banner for seniors');
    const { body, raw } = await getJson(p.app, '/.rest/delivery/shallow/v1/top/sub', { 'x-age': 'Senior' });
    const inherited = body.main.banner_inherited_1;
    expect(inherited['@path']).toBe('/top/main/banner');
    expect(inherited['@variantNodeName']).toBe('variant-0');
    expect(inherited.text).toBe('Banner for seniors');
    expect(raw).not.toContain('ruleSet');
    const none = (await getJson(p.app, '/.rest/delivery/shallow/v1/top/sub')).body.main.banner_inherited_1;
    expect(none.text).toBe('Banner for all');
  });
});
