// Issue 17 through HTTP (SQLite, and PostgreSQL with PETAL_TEST_PG): publish (recursive and not) and
// unpublish with the Commands API, the parent-not-published refusal, what the public side counts and
// resolves, the activation status as the original keeps it, versions on both states, and schedules.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, getJson, type TestApp } from '../helpers/test-app.js';
import { basic, hashOf, tempFolder } from '../security-http/helpers.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importPaths } from '../../src/ingest/run-import.js';

const PW = 'publishing-http-password';
const PAGES = `$type: jcrDeliveryEndpoint_v2
workspace: website
depth: 3
includeSystemProperties: true
references:
  - name: link
    propertyName: related
    referenceResolver:
      $type: jcrReferenceResolver
      targetWorkspace: website
      depthInReferencedNode: 0
`;
const RELATED = 'a0000000-0000-4000-8000-00000000000b';
const WEBSITE = `
'home':
  'jcr:primaryType': 'mgnl:page'
  'title': 'Home'
  'related': '${RELATED}'
  'main':
    'jcr:primaryType': 'mgnl:area'
    '0':
      'jcr:primaryType': 'mgnl:component'
      'text': 'Welcome'
  'about':
    'jcr:primaryType': 'mgnl:page'
    'jcr:uuid': '${RELATED}'
    'title': 'About'
    'team':
      'jcr:primaryType': 'mgnl:page'
      'title': 'Team'
`;
const rw = (path: string) => ({ path, permission: 'readWrite' });
const read = (path: string) => ({ path, permission: 'read' });

let t: TestApp;
const ed = { authorization: basic('ed', PW) };
const PUBLIC = '/.rest/delivery/pages/v1';
const PREVIEW = '/preview/.rest/delivery/pages/v1';

beforeAll(async () => {
  const hash = await hashOf(PW);
  t = await createTestApp({
    definitions: { 'delivery/pages_v1.yaml': PAGES },
    content: { 'website.home.yaml': WEBSITE },
    publishing: { previewContextPath: '/preview', previewRoles: ['editor'] },
    security: {
      folder: tempFolder(),
      roles: {
        'rest-anonymous': { uriPermissions: [{ path: '/.rest/delivery/*', permission: 'get' }] },
        anonymous: { workspacePermissions: { website: [read('/'), read('/*')] } },
        editor: { uriPermissions: [{ path: '/*', permission: 'getAndPost' }], workspacePermissions: { website: [rw('/'), rw('/*')] } },
        reader: { uriPermissions: [{ path: '/*', permission: 'getAndPost' }], workspacePermissions: { website: [read('/'), read('/*')] } },
      },
      users: { ed: { passwordHash: hash, roles: ['editor'] }, rita: { passwordHash: hash, roles: ['reader'] } },
    },
  });
});
afterAll(async () => t?.close());

async function command(name: string, body: Record<string, unknown>, headers: Record<string, string> = ed, catalog = 'website') {
  const res = await t.app.inject({ method: 'POST', url: `/.rest/commands/v2/${catalog}/${name}`, headers, payload: body });
  return { status: res.statusCode, body: res.json() as Record<string, any> };
}
const publicStatus = async (path: string) => (await getJson(t.app, `${PUBLIC}${path}`)).status;

describe('publish and unpublish', () => {
  it('refuses a child whose parent is not published (409), writing nothing', async () => {
    const r = await command('activate', { repository: 'website', path: '/home/about', recursive: false });
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe('parentNotPublished');
    expect(await publicStatus('/home/about')).toBe(404);
  });

  it('publishes a page with its content but not its subpages (non-recursive)', async () => {
    const r = await command('activate', { repository: 'website', path: '/home', recursive: false, comment: 'first' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ command: 'publish', repository: 'website', path: '/home', nodes: 3, version: '1.0' });
    const home = await getJson(t.app, `${PUBLIC}/home`);
    expect(home.status).toBe(200);
    expect(home.body.main['0'].text).toBe('Welcome');
    expect(home.body['@nodes']).toEqual(['main']);
    expect(home.body['cms:activationStatus']).toBe('true');
    expect(home.body['cms:lastActivatedBy']).toBe('ed');
    expect(home.body['cms:lastActivatedVersion']).toBe('1.0');
    expect(await publicStatus('/home/about')).toBe(404);
  });

  it('keeps a reference to an unpublished page unresolved publicly, resolved in preview', async () => {
    const pub = await getJson(t.app, `${PUBLIC}/home`);
    expect(pub.body.related).toBe(RELATED);
    const preview = await getJson(t.app, `${PREVIEW}/home`, ed);
    expect(preview.body.related['@path']).toBe('/home/about');
  });

  it('publishes a subtree with recursive (the string form too), and the reference then resolves', async () => {
    const r = await command('activate', { repository: 'website', path: '/home/about', recursive: 'true' }, ed, 'default');
    expect(r.status).toBe(200);
    expect(r.body.nodes).toBe(2);
    expect(await publicStatus('/home/about/team')).toBe(200);
    expect((await getJson(t.app, `${PUBLIC}/home`)).body.related['@path']).toBe('/home/about');
  });

  it('counts only published nodes in public queries', async () => {
    const pages = async (base: string, headers: Record<string, string> = {}) => {
      const r = await getJson(t.app, `${base}?jcr:primaryType=mgnl:page`, headers);
      expect(r.status).toBe(200);
      return r.body.total as number;
    };
    expect(await pages(PREVIEW, ed)).toBe(3);
    expect(await pages(PUBLIC)).toBe(3);
    await t.app.inject({ method: 'PUT', url: '/.rest/nodes/v1/website/home', headers: ed, payload: { name: 'draft', type: 'mgnl:page' } });
    expect(await pages(PREVIEW, ed)).toBe(4);
    expect(await pages(PUBLIC)).toBe(3);
    expect(await publicStatus('/home/draft')).toBe(404);
  });

  it('unpublishes a subtree: gone publicly, still in preview, marked unpublished', async () => {
    const r = await command('deactivate', { repository: 'website', path: '/home/about' });
    expect(r.status).toBe(200);
    expect(await publicStatus('/home/about')).toBe(404);
    expect(await publicStatus('/home/about/team')).toBe(404);
    const preview = await getJson(t.app, `${PREVIEW}/home/about`, ed);
    expect(preview.status).toBe(200);
    expect(preview.body['cms:activationStatus']).toBe('false');
    expect(preview.body.team['cms:activationStatus']).toBe('false');
  });

  it('refuses without readWrite on the nodes (403) and for unknown nodes (404), commands and catalogs (404), bad fields (400)', async () => {
    const rita = { authorization: basic('rita', PW) };
    expect((await command('activate', { repository: 'website', path: '/home' }, rita)).status).toBe(403);
    expect((await command('activate', { repository: 'website', path: '/nowhere' })).status).toBe(404);
    expect((await command('explode', { repository: 'website', path: '/home' })).status).toBe(404);
    expect((await command('activate', { repository: 'website', path: '/home' }, ed, 'other')).status).toBe(404);
    const bad = await command('activate', { repository: 'website', path: '/home', publicationDate: 'tomorrow' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('publicationDate');
    expect((await command('activate', { path: '/home' })).body.error.message).toContain('repository');
    const anonymous = await t.app.inject({ method: 'POST', url: '/.rest/commands/v2/activate', payload: { repository: 'website', path: '/home' } });
    expect(anonymous.statusCode).toBe(401);
  });
});

describe('activation status', () => {
  it('goes from published to modified on a change, and back on a publish; a filter finds modified pages in preview', async () => {
    const before = await getJson(t.app, `${PREVIEW}/home`, ed);
    expect(before.body['cms:activationStatus']).toBe('true');
    const write = await t.app.inject({
      method: 'POST', url: '/.rest/nodes/v1/website/home', headers: ed,
      payload: { name: 'home', properties: [{ name: 'title', type: 'String', multiple: false, values: ['Home, changed'] }] },
    });
    expect(write.statusCode).toBe(200);
    const after = await getJson(t.app, `${PREVIEW}/home`, ed);
    expect(after.body['cms:activationStatus']).toBe('modified');
    expect(after.body['cms:lastModified'] > after.body['cms:lastActivated']).toBe(true);
    // The public side still has the published title.
    expect((await getJson(t.app, `${PUBLIC}/home`)).body.title).toBe('Home');
    const modified = await getJson(t.app, `${PREVIEW}?cms:activationStatus=modified`, ed);
    expect(modified.body.results.map((n: any) => n['@path'])).toEqual(['/home']);
    expect((await command('activate', { repository: 'website', path: '/home' })).status).toBe(200);
    expect((await getJson(t.app, `${PREVIEW}/home`, ed)).body['cms:activationStatus']).toBe('true');
    expect((await getJson(t.app, `${PUBLIC}/home`)).body.title).toBe('Home, changed');
  });

  it('is maintained: a body cannot set it', async () => {
    await t.app.inject({
      method: 'POST', url: '/.rest/nodes/v1/website/home/draft', headers: ed,
      payload: { name: 'draft', properties: [{ name: 'mgnl:activationStatus', type: 'String', multiple: false, values: ['true'] }] },
    });
    expect((await getJson(t.app, `${PREVIEW}/home/draft`, ed)).body['cms:activationStatus']).toBeUndefined();
  });
});

describe('versions on both states', () => {
  it('reads a version through the published node and through the working node', async () => {
    const pub = await getJson(t.app, `${PUBLIC}/home?version=1.0`);
    expect(pub.status).toBe(200);
    expect(pub.body.title).toBe('Home');
    const preview = await getJson(t.app, `${PREVIEW}/home?version=1.0`, ed);
    expect(preview.status).toBe(200);
    expect(preview.body.title).toBe('Home');
    // The node must be there in that state: an unpublished node's versions are not public.
    expect((await getJson(t.app, `${PUBLIC}/home/about?version=1.0`)).status).toBe(404);
  });
});

describe('schedules', () => {
  it('stores a future publication (202), lists it and cancels it', async () => {
    // About a month ahead: within publishing.scheduleHorizonDays (366 days by default).
    const at = `${new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10)}T10:00:00.000+01:00`;
    const r = await command('activate', { repository: 'website', path: '/home/draft', publicationDate: at, comment: 'later' });
    expect(r.status).toBe(202);
    expect(r.body.schedule).toMatchObject({ command: 'publish', repository: 'website', path: '/home/draft', by: 'ed', comment: 'later' });
    expect(Date.parse(r.body.schedule.publicationDate)).toBe(Date.parse(at));
    const list = await getJson(t.app, '/.rest/commands/v2/schedules', ed);
    expect(list.body.schedules.map((s: any) => s.id)).toEqual([r.body.schedule.id]);
    const gone = await t.app.inject({ method: 'DELETE', url: `/.rest/commands/v2/schedules/${r.body.schedule.id}`, headers: ed });
    expect(gone.statusCode).toBe(200);
    expect((await getJson(t.app, '/.rest/commands/v2/schedules', ed)).body.schedules).toEqual([]);
    const again = await t.app.inject({ method: 'DELETE', url: `/.rest/commands/v2/schedules/${r.body.schedule.id}`, headers: ed });
    expect(again.statusCode).toBe(404);
  });
});

describe('publicationDate', () => {
  it('is refused off the calendar or beyond the horizon: 400 naming publicationDate, nothing stored', async () => {
    const cases: [string, RegExp][] = [
      // Date.parse would roll these over to March 2 and March 1.
      ['2030-02-30T00:00:00Z', /^publicationDate: must be an ISO 8601 date-time on the calendar/],
      ['2027-02-29T10:00:00+01:00', /^publicationDate: must be an ISO 8601 date-time on the calendar/],
      ['2027-01-01T25:00:00Z', /^publicationDate: must be an ISO 8601 date-time on the calendar/],
      ['9999-12-31T23:59:59Z', /^publicationDate: must be at most 366 days ahead \(publishing\.scheduleHorizonDays\)/],
      [new Date(Date.now() + 367 * 86_400_000).toISOString(), /^publicationDate: must be at most 366 days ahead/],
    ];
    for (const [date, message] of cases) {
      const r = await command('activate', { repository: 'website', path: '/home', publicationDate: date });
      expect([r.status, r.body.error.code], date).toEqual([400, 'invalidField']);
      expect(r.body.error.message, date).toMatch(message);
    }
    expect(await command('activate', { repository: 'website', path: '/home', publicationDate: 20300101 })).toMatchObject({ status: 400 });
    expect((await getJson(t.app, '/.rest/commands/v2/schedules', ed)).body.schedules).toEqual([]);
  });
});

describe('activation status of imported nodes', () => {
  const reimport = async (yaml: string) => {
    const dir = mkdtempSync(join(tmpdir(), 'petal-publishing-import-'));
    try {
      writeFileSync(join(dir, 'website.yaml'), yaml);
      await importPaths(t.store, [dir], { onUuidCollision: 'replace', publishing: true });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  const status = async (path: string) => (await getJson(t.app, `${PREVIEW}${path}`, ed)).body['cms:activationStatus'];
  const NEWS = (title: string, extra = '') => `
'news':
  'jcr:primaryType': 'mgnl:page'
  'mgnl:activationStatus': true
  'mgnl:lastActivated': 2020-01-01T00:00:00.000Z
  'title': '${title}'
  'item':
    'jcr:primaryType': 'mgnl:page'
    'title': 'Item'
${extra}`;

  it('comes from the published state, not from the file', async () => {
    await reimport(NEWS('News'));
    expect(await status('/news')).toBeUndefined(); // "activated" in the file, never published here
    expect((await command('activate', { repository: 'website', path: '/news', recursive: true })).status).toBe(200);
    expect(await status('/news')).toBe('true');
    // The same content imported again stays published; other content is modified; a new node has none.
    await reimport(NEWS('News', `  'fresh':
    'jcr:primaryType': 'mgnl:page'
`));
    expect(await status('/news')).toBe('true');
    expect(await status('/news/item')).toBe('true');
    expect(await status('/news/fresh')).toBeUndefined();
    await reimport(NEWS('News, revised'));
    expect(await status('/news')).toBe('modified');
    expect(await status('/news/item')).toBe('true');
  });
});
