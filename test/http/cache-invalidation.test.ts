// What a content change drops from the caches, through HTTP on the test store (SQLite, or PostgreSQL
// with PETAL_TEST_PG): a cached answer survives an import that changes an unrelated node, and is
// dropped by one that changes a node it rendered (itself, a child, an inherited component, a resolved
// reference), creates a node it found missing (a 404, a reference to a missing id), or changes its
// workspace when it is a query; an import too large to list its nodes drops the whole workspace; the
// subtree cache keeps what the change did not reach.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, getJson, type TestApp } from '../helpers/test-app.js';
import type { ImportDocument, NodeDraft } from '../../src/repository/import-document.js';
import { CHANGE_NODE_LIMIT } from '../../src/store/changes.js';
import { importDocuments } from '../../src/repository/writes.js';

const CAT_X = 'c0000000-0000-4000-8000-00000000000a';
const CAT_Y = 'c0000000-0000-4000-8000-00000000000b';
const CAT_Z = 'c0000000-0000-4000-8000-00000000000c'; // not there at first

const WEBSITE = `site:
  jcr:primaryType: mgnl:page
  mgnl:template: test-module:pages/home
  title: Site
  main:
    jcr:primaryType: mgnl:area
    c1:
      jcr:primaryType: mgnl:component
      text: site c1
  about:
    jcr:primaryType: mgnl:page
    mgnl:template: test-module:pages/inherit-all
    title: About
    main:
      jcr:primaryType: mgnl:area
      own1:
        jcr:primaryType: mgnl:component
        text: own
  news:
    jcr:primaryType: mgnl:page
    title: News
    n1:
      jcr:primaryType: mgnl:page
      title: First
  bare:
    jcr:primaryType: mgnl:page
    title: Bare, no area to inherit
    child:
      jcr:primaryType: mgnl:page
      mgnl:template: test-module:pages/inherit-all
      main:
        jcr:primaryType: mgnl:area
  other:
    jcr:primaryType: mgnl:page
    title: Other
    category: ${CAT_X}
    extra: ${CAT_Z}
`;

const CATEGORY = `cats:
  jcr:primaryType: mgnl:folder
  x:
    jcr:primaryType: mgnl:category
    jcr:uuid: ${CAT_X}
    name: X
  y:
    jcr:primaryType: mgnl:category
    jcr:uuid: ${CAT_Y}
    name: Y
`;

const REFERENCES = `references:
  - propertyName: category|extra
    referenceResolver:
      $type: jcrReferenceResolver
      targetWorkspace: category
`;
const DEFINITIONS: Record<string, string> = {
  'delivery/pages.yaml': '$type: jcrPagesDeliveryEndpoint_v2\n',
  'delivery/plain.yaml': `$type: jcrDeliveryEndpoint_v2\nworkspace: website\ndepth: 1\n${REFERENCES}`,
  'delivery/cats.yaml': '$type: jcrDeliveryEndpoint_v2\nworkspace: category\n',
};
const MODULE_FILES: Record<string, string> = {
  'templates/pages/home.yaml': 'title: Home\n',
  'templates/pages/inherit-all.yaml': 'title: Inherit all\nareas:\n  main:\n    inheritance:\n      enabled: true\n      components: all\n',
};

const PLAIN = '/.rest/delivery/plain';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({
    definitions: DEFINITIONS, moduleFiles: MODULE_FILES,
    content: { 'website.site.yaml': WEBSITE, 'category.cats.yaml': CATEGORY },
  });
}, 180_000);
afterAll(async () => {
  await t?.close();
});

function node(name: string, type: string, props: Record<string, string>, children: NodeDraft[] = [], id?: string): NodeDraft {
  return {
    name, type, mixins: [], children, ...(id !== undefined ? { id } : {}),
    properties: Object.entries(props).map(([k, v]) => [k, 'String', v]),
  };
}

/** A small import: `roots` written under `parentPath` (a node at the same path is replaced). */
async function write(workspace: string, parentPath: string, ...roots: NodeDraft[]): Promise<void> {
  const doc: ImportDocument = { source: 'test', workspace, parentPath, roots, blobs: [] };
  await importDocuments(t.store, [doc], { onUuidCollision: 'replace' });
}

/** GET, telling whether the response cache answered it. */
async function get(url: string): Promise<{ status: number; body: any; hit: boolean }> {
  const before = t.app.responseCache!.stats().hits;
  const res = await getJson(t.app, url);
  return { status: res.status, body: res.body, hit: t.app.responseCache!.stats().hits > before };
}

/** Requests `url` until it is cached (the second request at the latest). */
async function warm(url: string): Promise<unknown> {
  await get(url);
  const again = await get(url);
  expect(again.hit).toBe(true);
  return again.body;
}

describe('a change drops the answers that depend on it, and only those', () => {
  it('an answer survives an import that changes an unrelated node', async () => {
    const news = await warm(`${PLAIN}/site/news`);
    await write('website', '/site', node('other', 'cms:page', { title: 'Other 2', category: CAT_X, extra: CAT_Z }));
    const again = await get(`${PLAIN}/site/news`);
    expect(again.hit).toBe(true);
    expect(again.body).toEqual(news);
  });

  it('is dropped when the node itself changes', async () => {
    await warm(`${PLAIN}/site/news/n1`);
    await write('website', '/site/news', node('n1', 'cms:page', { title: 'First 2' }));
    const again = await get(`${PLAIN}/site/news/n1`);
    expect(again.hit).toBe(false);
    expect(again.body.title).toBe('First 2');
  });

  it('is dropped when a child it rendered changes, and a child list when a child is created', async () => {
    await warm(`${PLAIN}/site/news`);
    await warm(`${PLAIN}/site/news@nodes`);
    await write('website', '/site/news', node('n1', 'cms:page', { title: 'First 3' }));
    const read = await get(`${PLAIN}/site/news`);
    expect(read.hit).toBe(false);
    expect(read.body.n1.title).toBe('First 3');
    await warm(`${PLAIN}/site/news@nodes`);
    await write('website', '/site/news', node('n2', 'cms:page', { title: 'Second' }));
    const children = await get(`${PLAIN}/site/news@nodes`);
    expect(children.hit).toBe(false);
    expect(children.body.map((n: { title: string }) => n.title)).toEqual(['First 3', 'Second']);
  });

  it('is dropped when an inherited component changes (pages endpoint), and survives a change elsewhere', async () => {
    const first = await warm('/.rest/delivery/pages/site/about') as { main: Record<string, { text: string }> };
    expect(first.main.c1_inherited_1!.text).toBe('site c1');
    await write('website', '/site', node('news', 'cms:page', { title: 'News 2' }));
    expect((await get('/.rest/delivery/pages/site/about')).hit).toBe(true);
    await write('website', '/site/main', node('c1', 'cms:component', { text: 'site c1 changed' }));
    const again = await get('/.rest/delivery/pages/site/about');
    expect(again.hit).toBe(false);
    expect(again.body.main.c1_inherited_1.text).toBe('site c1 changed');
  });

  it('an inheritance look-up that found no area is dropped when the area is created', async () => {
    const first = await warm('/.rest/delivery/pages/site/bare/child') as { main: { '@nodes': string[] } };
    expect(first.main['@nodes']).toEqual(['c1_inherited_1']);
    await write('website', '/site/bare', node('main', 'cms:area', {}, [node('b1', 'cms:component', { text: 'bare b1' })]));
    const again = await get('/.rest/delivery/pages/site/bare/child');
    expect(again.hit).toBe(false);
    expect(again.body.main['@nodes']).toEqual(['c1_inherited_1', 'b1_inherited_2']);
  });

  it('is dropped when a referenced node changes or a missing reference target is created; survives other targets', async () => {
    const first = await warm(`${PLAIN}/site/other`) as { category: { name: string }; extra: unknown };
    expect(first.category.name).toBe('X');
    expect(first.extra).toBe(CAT_Z); // missing: the raw value stays
    await write('category', '/cats', node('y', 'cms:category', { name: 'Y 2' }, [], CAT_Y));
    expect((await get(`${PLAIN}/site/other`)).hit).toBe(true);
    await write('category', '/cats', node('x', 'cms:category', { name: 'X 2' }, [], CAT_X));
    const changed = await get(`${PLAIN}/site/other`);
    expect(changed.hit).toBe(false);
    expect(changed.body.category.name).toBe('X 2');
    await warm(`${PLAIN}/site/other`);
    await write('category', '/cats', node('z', 'cms:category', { name: 'Z' }, [], CAT_Z));
    const created = await get(`${PLAIN}/site/other`);
    expect(created.hit).toBe(false);
    expect(created.body.extra.name).toBe('Z');
  });

  it('a cached 404 is dropped when its node is created', async () => {
    const missing = await get(`${PLAIN}/site/later`);
    expect(missing.status).toBe(404);
    const again = await get(`${PLAIN}/site/later`);
    expect(again).toMatchObject({ status: 404, hit: true });
    expect(again.body.error.code).toBe('pathNotFound');
    await write('website', '/site', node('later', 'cms:page', { title: 'Later' }));
    const found = await get(`${PLAIN}/site/later`);
    expect(found).toMatchObject({ status: 200, hit: false });
    expect(found.body.title).toBe('Later');
  });

  it('a query answer is dropped by any change of its workspace, and survives changes of another', async () => {
    const url = `${PLAIN}?title=News%202`;
    await warm(url);
    await write('category', '/cats', node('y', 'cms:category', { name: 'Y 3' }, [], CAT_Y));
    expect((await get(url)).hit).toBe(true);
    await write('website', '/site', node('elsewhere', 'cms:page', { title: 'News 2' }));
    const again = await get(url);
    expect(again.hit).toBe(false);
    expect(again.body.results.map((n: { '@path': string }) => n['@path']).sort()).toEqual(['/site/elsewhere', '/site/news']);
  });

  it('the subtree cache keeps the entries a change did not reach', async () => {
    await warm(`${PLAIN}/site/news`);
    expect(t.repository.subtreeCacheStats().entries).toBeGreaterThan(1);
    await write('website', '/site', node('other', 'cms:page', { title: 'Other 3', category: CAT_X }));
    t.app.responseCache!.clear(); // the next answer is rendered: from the subtree cache, or the store
    const subtree = vi.spyOn(t.store.reads, 'getSubtree');
    const read = await get(`${PLAIN}/site/news`);
    expect(read.status).toBe(200);
    expect(subtree).not.toHaveBeenCalled();
    const other = await get(`${PLAIN}/site/other`);
    expect(other.body.title).toBe('Other 3');
    expect(subtree).toHaveBeenCalled(); // /site/other was dropped and read again
    vi.restoreAllMocks();
  });

  it(`an import of more than ${CHANGE_NODE_LIMIT} nodes (no node list) drops its workspace's answers only`, async () => {
    await warm(`${PLAIN}/site/news`);
    await warm(`${PLAIN}/site/other`); // resolves a category reference
    await warm('/.rest/delivery/cats/cats/x');
    const many = Array.from({ length: CHANGE_NODE_LIMIT + 1 }, (_, i) => node(`n${i}`, 'cms:category', {}));
    await write('category', '/', node('bulk', 'cms:folder', {}, many));
    const events = await t.store.changes.since((await t.store.changes.latest()) - 1, 1);
    expect(events[0]).toMatchObject({ workspace: 'category', truncated: true });
    expect((await get(`${PLAIN}/site/news`)).hit).toBe(true);
    expect((await get(`${PLAIN}/site/other`)).hit).toBe(false);
    expect((await get('/.rest/delivery/cats/cats/x')).hit).toBe(false);
  }, 180_000);
});
