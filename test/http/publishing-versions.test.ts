// Hardening III point 1 through HTTP (SQLite, and PostgreSQL with PETAL_TEST_PG): on the public side a
// version shows only what its publish made public, and never a page that is not published now; the
// preview side reads versions too. Every read path that takes a version: Read node (plain and pages
// endpoints, with depth), inheritance and autogeneration inside a version, references resolved inside
// it; Get children and Query nodes refuse `version`. Exports and the shop take no version.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, getJson, type TestApp } from '../helpers/test-app.js';
import { basic, hashOf, tempFolder } from '../security-http/helpers.js';
import { publishVersion } from '../../src/repository/writes.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures');
const PW = 'publishing-versions-password';
// A navigation endpoint as the pagenav: pages only, deep, so subpages inside a version show.
const NAV = `$type: jcrDeliveryEndpoint_v2
workspace: website
depth: 5
nodeTypes: [mgnl:page]
childNodeTypes: [mgnl:page]
`;
const PAGES = `$type: jcrPagesDeliveryEndpoint_v2
references:
  - name: related
    propertyName: related
    referenceResolver:
      $type: jcrReferenceResolver
      targetWorkspace: website
      depthInReferencedNode: 0
`;
const rw = (path: string) => ({ path, permission: 'readWrite' });
const read = (path: string) => ({ path, permission: 'read' });
const ed = { authorization: basic('ed', PW) };
const NAV_PUBLIC = '/.rest/delivery/nav/v1';
const NAV_PREVIEW = '/preview/.rest/delivery/nav/v1';
const PAGES_PUBLIC = '/.rest/delivery/pages/v1';
const PAGES_PREVIEW = '/preview/.rest/delivery/pages/v1';

let t: TestApp;

beforeAll(async () => {
  const hash = await hashOf(PW);
  t = await createTestApp({
    definitions: { 'delivery/nav_v1.yaml': NAV, 'delivery/pages_v1.yaml': PAGES },
    moduleRoots: [join(FIXTURES, 'pages-modules')],
    contentPaths: [join(FIXTURES, 'pages')],
    publishing: { previewContextPath: '/preview', previewRoles: ['editor'] },
    security: {
      folder: tempFolder(),
      roles: {
        'rest-anonymous': { uriPermissions: [{ path: '/.rest/delivery/*', permission: 'get' }] },
        anonymous: { workspacePermissions: { website: [read('/'), read('/*')] } },
        editor: { uriPermissions: [{ path: '/*', permission: 'getAndPost' }], workspacePermissions: { website: [rw('/'), rw('/*')] } },
      },
      users: { ed: { passwordHash: hash, roles: ['editor'] } },
    },
  });
}, 180_000);
afterAll(async () => t?.close());

async function command(name: string, path: string, recursive = false): Promise<Record<string, unknown>> {
  const res = await t.app.inject({
    method: 'POST', url: `/.rest/commands/v2/website/${name}`, headers: ed, payload: { repository: 'website', path, recursive },
  });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as Record<string, unknown>;
}

async function createPage(parent: string, name: string, title: string, extra: object[] = []): Promise<void> {
  const res = await t.app.inject({
    method: 'PUT', url: `/.rest/nodes/v1/website${parent}`, headers: ed,
    payload: {
      name, type: 'mgnl:page',
      properties: [{ name: 'title', type: 'String', multiple: false, values: [title] }, ...extra],
      nodes: [{ name: 'main', type: 'mgnl:area', nodes: [{ name: 'c0', type: 'mgnl:component', properties: [{ name: 'text', type: 'String', multiple: false, values: [`${title} text`] }] }] }],
    },
  });
  expect(res.statusCode, res.body).toBe(200);
}

async function setProperty(path: string, name: string, value: string): Promise<void> {
  const res = await t.app.inject({
    method: 'POST', url: `/.rest/nodes/v1/website${path}`, headers: ed,
    payload: { properties: [{ name, type: 'String', multiple: false, values: [value] }] },
  });
  expect(res.statusCode, res.body).toBe(200);
}

const names = (body: Record<string, unknown>): unknown => body['@nodes'];

describe('a version on the public side', () => {
  it('does not list a page that was never published (the issue: draftpage under a non-recursive publish)', async () => {
    await createPage('/', 'gardens', 'Gardens');
    await command('activate', '/gardens');
    await createPage('/gardens', 'draftpage', 'Secret draft title');
    const v = await command('activate', '/gardens');
    expect(v.version).toBe('1.1');

    const pub = await getJson(t.app, `${NAV_PUBLIC}/gardens?version=1.1`);
    expect(pub.status).toBe(200);
    expect(names(pub.body)).toEqual([]);
    expect(JSON.stringify(pub.body)).not.toContain('Secret draft title');
    expect((await getJson(t.app, `${NAV_PUBLIC}/gardens/draftpage`)).status).toBe(404);
    // The preview reads the working content: there the draft is a page like another.
    expect(names((await getJson(t.app, `${NAV_PREVIEW}/gardens`, ed)).body)).toEqual(['draftpage']);
    expect((await getJson(t.app, `${NAV_PREVIEW}/gardens?version=1.1`, ed)).status).toBe(200);
  });

  it('shows a recursively published subpage only while it is published (the issue: contact after deactivate)', async () => {
    await createPage('/', 'shop', 'Shop');
    await createPage('/shop', 'contact', 'Contact us');
    await createPage('/shop/contact', 'form', 'Contact form');
    const v = await command('activate', '/shop', true);
    expect(v.version).toBe('1.0');
    expect(names((await getJson(t.app, `${NAV_PUBLIC}/shop?version=1.0`)).body)).toEqual(['contact']);
    // contact's own version, recorded by a publish of its own
    expect((await command('activate', '/shop/contact')).version).toBe('1.0');

    await command('deactivate', '/shop/contact');
    const pub = await getJson(t.app, `${NAV_PUBLIC}/shop?version=1.0`);
    expect(pub.status).toBe(200);
    expect(names(pub.body)).toEqual([]);
    expect(JSON.stringify(pub.body)).not.toContain('Contact');
    // Its own versions follow the node: not published, not there.
    expect((await getJson(t.app, `${NAV_PUBLIC}/shop/contact?version=1.0`)).status).toBe(404);
    expect((await getJson(t.app, `${NAV_PUBLIC}/shop/contact/form?version=1.0`)).status).toBe(404);

    // Published again, the subpage is public again, in the old version too.
    await command('activate', '/shop/contact', true);
    expect(names((await getJson(t.app, `${NAV_PUBLIC}/shop?version=1.0`)).body)).toEqual(['contact']);
  });

  it('freezes what was published, not the working content of that moment', async () => {
    await createPage('/', 'news', 'News');
    await command('activate', '/news');
    await createPage('/news', 'today', 'Today');
    await command('activate', '/news/today');
    // Working edits, not published: of the page's own content and of a published subpage.
    await setProperty('/news/main/c0', 'text', 'edited, not published');
    await setProperty('/news/today', 'title', 'Today, an unpublished edit');
    expect((await command('activate', '/news')).version).toBe('1.1');
    const v11 = await getJson(t.app, `${PAGES_PUBLIC}/news?version=1.1`);
    expect(v11.status).toBe(200);
    // The page's content was published with it; the subpage's edit was not, and is in no public answer.
    expect((v11.body.main as Record<string, Record<string, unknown>>).c0!.text).toBe('edited, not published');
    expect(JSON.stringify((await getJson(t.app, `${NAV_PUBLIC}/news?version=1.1`)).body)).not.toContain('unpublished edit');
    expect((await getJson(t.app, `${NAV_PUBLIC}/news/today`)).body.title).toBe('Today');
    // 1.0 stays as it was.
    expect(((await getJson(t.app, `${PAGES_PUBLIC}/news?version=1.0`)).body.main as Record<string, Record<string, unknown>>).c0!.text)
      .toBe('News text');
  });

  it('hides drafts from versions recorded before this rule (a frozen working subtree)', async () => {
    await createPage('/', 'legacy', 'Legacy');
    await command('activate', '/legacy');
    await createPage('/legacy', 'draft', 'Legacy draft');
    // What a publish recorded until now: the whole working subtree, draft included.
    const v = await publishVersion(t.store, 'website', '/legacy', 'an-earlier-petal');
    expect(v?.nodes).toBeGreaterThan(3);
    const pub = await getJson(t.app, `${NAV_PUBLIC}/legacy?version=${v!.name}`);
    expect(pub.status).toBe(200);
    expect(names(pub.body)).toEqual([]);
    expect(JSON.stringify(pub.body)).not.toContain('Legacy draft');
    expect(names((await getJson(t.app, `${NAV_PREVIEW}/legacy?version=${v!.name}`, ed)).body)).toEqual(['draft']);
  });

  it('keeps the components of an old version that a later publish removed (content follows its page)', async () => {
    await createPage('/', 'events', 'Events');
    await command('activate', '/events');
    const del = await t.app.inject({ method: 'DELETE', url: '/.rest/nodes/v1/website/events/main/c0', headers: ed });
    expect(del.statusCode, del.body).toBe(200);
    await command('activate', '/events');
    const v10 = await getJson(t.app, `${PAGES_PUBLIC}/events?version=1.0`);
    expect(names(v10.body.main as Record<string, unknown>)).toEqual(['c0']);
    expect(names((await getJson(t.app, `${PAGES_PUBLIC}/events?version=1.1`)).body.main as Record<string, unknown>)).toEqual([]);
  });

  it('resolves references inside a version in the published state only', async () => {
    await createPage('/', 'ref-target', 'Unpublished target');
    const target = (await getJson(t.app, `${NAV_PREVIEW}/ref-target`, ed)).body['@id'] as string;
    await createPage('/', 'ref-source', 'Source', [{ name: 'related', type: 'String', multiple: false, values: [target] }]);
    await command('activate', '/ref-source');
    const pub = await getJson(t.app, `${PAGES_PUBLIC}/ref-source?version=1.0`);
    expect(pub.status).toBe(200);
    expect(pub.body.related).toBe(target);
    expect(JSON.stringify(pub.body)).not.toContain('Unpublished target');
    const preview = await getJson(t.app, `${PAGES_PREVIEW}/ref-source?version=1.0`, ed);
    expect((preview.body.related as Record<string, unknown>).title).toBe('Unpublished target');
  });

  it('inherits and autogenerates inside a version from the published ancestors only', async () => {
    // /site (home template, components c1 c2) → /site/level2 (inherits all) → /site/level2/all.
    await command('activate', '/site');
    await command('activate', '/site/level2');
    await command('activate', '/site/level2/all');
    // A component added to the ancestor in the working content only is not inherited publicly.
    const put = await t.app.inject({
      method: 'PUT', url: '/.rest/nodes/v1/website/site/main', headers: ed,
      payload: { name: 'draftc', type: 'mgnl:component', properties: [{ name: 'text', type: 'String', multiple: false, values: ['draft component'] }] },
    });
    expect(put.statusCode, put.body).toBe(200);
    const pub = await getJson(t.app, `${PAGES_PUBLIC}/site/level2/all?version=1.0`);
    expect(pub.status).toBe(200);
    expect(names(pub.body.main as Record<string, unknown>)).toEqual(['c1_inherited_1', 'c2_inherited_1', 'l2c1_inherited_2', 'l2c2_inherited_2', 'own1']);
    expect(JSON.stringify(pub.body)).not.toContain('draft component');
    const preview = await getJson(t.app, `${PAGES_PREVIEW}/site/level2/all?version=1.0`, ed);
    expect(JSON.stringify(preview.body)).toContain('draft component');
  });

  it('autogenerates the template\'s components inside a version as on the live page', async () => {
    await command('activate', '/site/auto');
    const live = await getJson(t.app, `${PAGES_PUBLIC}/site/auto`);
    const pub = await getJson(t.app, `${PAGES_PUBLIC}/site/auto?version=1.0`);
    expect(pub.status).toBe(200);
    expect(names(pub.body.main as Record<string, unknown>)).toEqual(['headline', 'teaser']);
    expect(pub.body.main).toEqual(live.body.main);
  });

  it('never answers a version of a node that is not published, whatever the version', async () => {
    await createPage('/', 'never', 'Never published');
    for (const v of ['1.0', '1.1', '9.9']) {
      const r = await getJson(t.app, `${NAV_PUBLIC}/never?version=${v}`);
      expect(r.status).toBe(404);
      expect((r.body.error as Record<string, string>).code).toBe('pathNotFound');
    }
  });

  it('is refused on Get children and Query nodes (400 naming the parameter), on both sides', async () => {
    for (const url of [`${NAV_PUBLIC}/shop@nodes?version=1.0`, `${NAV_PUBLIC}?version=1.0`, `${NAV_PREVIEW}?version=1.0`]) {
      const r = await getJson(t.app, url, url.startsWith('/preview') ? ed : {});
      expect(r.status).toBe(400);
      expect((r.body.error as Record<string, string>).message).toMatch(/^version:/);
    }
  });
});
