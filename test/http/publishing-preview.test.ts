// Issue 17, public and preview: with publishing on, the context path serves the published content and
// the preview context path the working content, only to preview roles (401 anonymous, 403 others),
// never cached (Cache-Control: private, no-store) and linking under the preview path; the internal
// published workspaces cannot be named from outside.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, getJson, type TestApp } from '../helpers/test-app.js';
import { basic, hashOf, tempFolder } from '../security-http/helpers.js';

const PW = 'publishing-preview-password';
const PAGES = `$type: jcrDeliveryEndpoint_v2
workspace: website
depth: 2
bypassWorkspaceAcls: false
`;
const WEBSITE = `
'home':
  'jcr:primaryType': 'mgnl:page'
  'title': 'Home'
  'about':
    'jcr:primaryType': 'mgnl:page'
    'title': 'About'
`;
const read = (path: string) => ({ path, permission: 'read' });
const rw = (path: string) => ({ path, permission: 'readWrite' });

let t: TestApp;
const as = (user: 'ed' | 'guest') => ({ authorization: basic(user, PW) });

beforeAll(async () => {
  const hash = await hashOf(PW);
  t = await createTestApp({
    definitions: { 'delivery/pages_v1.yaml': PAGES },
    content: { 'website.home.yaml': WEBSITE },
    contextPath: '/magnoliaPublic',
    publishing: { previewContextPath: '/magnoliaAuthor', previewRoles: ['editor'] },
    // Shared caching configured: the preview must stay out of it all the same.
    cacheControl: { maxAge: 60, sMaxAge: 600 }, tagHeader: 'both',
    security: {
      folder: tempFolder(),
      roles: {
        'rest-anonymous': { uriPermissions: [{ path: '/.rest/delivery/*', permission: 'get' }] },
        anonymous: { uriPermissions: [{ path: '/.health', permission: 'get' }], workspacePermissions: { website: [read('/'), read('/*')] } },
        editor: {
          uriPermissions: [{ path: '/.rest/*', permission: 'getAndPost' }],
          workspacePermissions: { website: [rw('/'), rw('/*')] },
        },
        guest: { uriPermissions: [{ path: '/.rest/*', permission: 'get' }], workspacePermissions: { website: [read('/'), read('/*')] } },
      },
      users: { ed: { passwordHash: hash, roles: ['editor'] }, guest: { passwordHash: hash, roles: ['guest'] } },
    },
  });
});
afterAll(async () => t?.close());

describe('publishing on, nothing published yet', () => {
  it('the public path does not show the imported page; the preview shows it to a preview role, uncached', async () => {
    const pub = await getJson(t.app, '/magnoliaPublic/.rest/delivery/pages/v1/home');
    expect(pub.status).toBe(404);
    expect(pub.body.error.code).toBe('pathNotFound');
    const preview = await getJson(t.app, '/magnoliaAuthor/.rest/delivery/pages/v1/home?mgnlPreview=true&mgnlChannel=desktop&variants=all', as('ed'));
    expect(preview.status).toBe(200);
    expect(preview.body.title).toBe('Home');
    expect(preview.headers['cache-control']).toBe('private, no-store');
    expect(preview.headers['surrogate-key']).toBeUndefined();
    expect(String(preview.headers.vary)).toContain('Authorization');
  });

  it('the preview refuses anonymous callers (401, with a challenge) and other roles (403)', async () => {
    const anonymous = await getJson(t.app, '/magnoliaAuthor/.rest/delivery/pages/v1/home');
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers['www-authenticate']).toContain('Basic');
    const guest = await getJson(t.app, '/magnoliaAuthor/.rest/delivery/pages/v1/home', as('guest'));
    expect(guest.status).toBe(403);
    expect(guest.body.error.code).toBe('accessDenied');
    // A refused preview says nothing of the content: the same answer for a missing page.
    expect((await getJson(t.app, '/magnoliaAuthor/.rest/delivery/pages/v1/nothing-here', as('guest'))).status).toBe(403);
  });

  it('only the exact preview prefix is the preview; health answers under both paths', async () => {
    expect((await getJson(t.app, '/magnoliaAuthorX/.rest/delivery/pages/v1/home', as('ed'))).status).toBe(404);
    expect((await getJson(t.app, '/magnolia%41uthor/.rest/delivery/pages/v1/home', as('ed'))).status).toBe(404);
    expect((await getJson(t.app, '/magnoliaAuthor/.health')).status).toBe(200);
    expect((await getJson(t.app, '/magnoliaPublic/.health')).status).toBe(200);
  });

  it('a public answer and a preview answer of one URL never share a cache entry', async () => {
    // Preview first (working content), then public: the public one must not be the preview's.
    expect((await getJson(t.app, '/magnoliaAuthor/.rest/delivery/pages/v1/home/about', as('ed'))).status).toBe(200);
    expect((await getJson(t.app, '/magnoliaPublic/.rest/delivery/pages/v1/home/about', as('ed'))).status).toBe(404);
    expect((await getJson(t.app, '/magnoliaPublic/.rest/delivery/pages/v1/home/about')).status).toBe(404);
  });

  it('the internal published workspaces cannot be named from outside', async () => {
    const nodes = await getJson(t.app, '/magnoliaPublic/.rest/nodes/v1/website@published/home', as('ed'));
    expect(nodes.status).toBe(400);
    expect(nodes.body.error.message).toContain('@');
    const props = await getJson(t.app, '/magnoliaPublic/.rest/properties/v1/website@published/home/title', as('ed'));
    expect(props.status).toBe(400);
  });

  it('the Nodes API reads and writes the working content under either path', async () => {
    expect((await getJson(t.app, '/magnoliaPublic/.rest/nodes/v1/website/home', as('ed'))).status).toBe(200);
    expect((await getJson(t.app, '/magnoliaAuthor/.rest/nodes/v1/website/home', as('ed'))).status).toBe(200);
  });
});
