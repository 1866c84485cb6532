// GET /.rest/export/v1/{workspace}{path}: the export file through HTTP, under the URI permissions and
// read through the caller's session (hidden nodes left out, a hidden path a 404), with the file name
// `petal import` expects, and 400s naming the parameter.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { basic, get, hashOf, req } from '../security-http/helpers.js';
import { importPaths } from '../../src/ingest/run-import.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';

const PW = 'export-suite-password';

const WEBSITE = `
'site':
  'jcr:primaryType': 'mgnl:page'
  'jcr:uuid': '60000000-0000-4000-8000-000000000001'
  'title': 'Site home'
  'about':
    'jcr:primaryType': 'mgnl:page'
    'jcr:uuid': '60000000-0000-4000-8000-000000000002'
    'title': 'About us'
  'secret':
    'jcr:primaryType': 'mgnl:page'
    'jcr:uuid': '60000000-0000-4000-8000-000000000003'
    'title': 'TOP-SECRET-MARKER'
    'inner':
      'jcr:primaryType': 'mgnl:component'
      'jcr:uuid': '60000000-0000-4000-8000-000000000004'
`;

const read = (path: string) => ({ path, permission: 'read' });
const deny = (path: string) => ({ path, permission: 'deny' });

function security(hash: string) {
  return {
    roles: {
      exporter: {
        uriPermissions: [{ path: '/.rest/export/*', permission: 'get' }],
        workspacePermissions: { website: [read('/'), read('/*'), deny('/site/secret'), deny('/site/secret/*')] },
      },
    },
    users: {
      boss: { passwordHash: hash, roles: ['superuser'] },
      limited: { passwordHash: hash, roles: ['exporter'] },
    },
  };
}

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ content: { 'website.site.yaml': WEBSITE }, security: security(await hashOf(PW)) });
});
afterAll(async () => t?.close());

const boss = { authorization: basic('boss', PW) };
const limited = { authorization: basic('limited', PW) };

describe('GET /.rest/export/v1', () => {
  it('answers 401 to anonymous callers (no built-in role but superuser has the URL)', async () => {
    const res = await get(t.app, '/.rest/export/v1/website/site');
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('notAuthorized');
    expect(res.raw).not.toContain('Site home');
  });

  it('streams the YAML export with the file name import expects, which imports back to the same nodes', async () => {
    const res = await get(t.app, '/.rest/export/v1/website/site', boss);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/yaml; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename="website.site.yaml"; filename*=UTF-8\'\'website.site.yaml');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.raw).toContain('TOP-SECRET-MARKER');
    writeFileSync(join(t.dir, 'website.site.yaml'), res.raw);
    const back = new SqliteStore({ file: join(t.dir, 'back.db') });
    await back.open();
    try {
      await importPaths(back, [join(t.dir, 'website.site.yaml')], { onUuidCollision: 'fail' });
      expect(await back.reads.getSubtree('website', '/site', 5)).toEqual(await t.store.reads.getSubtree('website', '/site', 5));
    } finally {
      await back.close();
    }
  });

  it('format=xml gives the system view; the workspace root gives <workspace>.xml', async () => {
    const node = await get(t.app, '/.rest/export/v1/website/site/about?format=xml', boss);
    expect(node.status).toBe(200);
    expect(node.headers['content-type']).toBe('application/xml; charset=utf-8');
    expect(node.headers['content-disposition']).toContain('filename="website.site.about.xml"');
    expect(node.raw).toContain('<sv:node sv:name="about"');
    const all = await get(t.app, '/.rest/export/v1/website', boss);
    expect(all.status).toBe(200);
    expect(all.headers['content-disposition']).toContain('filename="website.xml"');
    expect(all.raw).toContain('<sv:node sv:name="jcr:root"');
  });

  it('leaves out what the caller may not read, and a path they cannot read is a 404 like a missing one', async () => {
    const site = await get(t.app, '/.rest/export/v1/website/site', limited);
    expect(site.status).toBe(200);
    expect(site.raw).toContain('About us');
    expect(site.raw).not.toContain('TOP-SECRET-MARKER');
    expect(site.raw).not.toContain('60000000-0000-4000-8000-000000000004');
    const all = await get(t.app, '/.rest/export/v1/website?format=xml', limited);
    expect(all.raw).toContain('About us');
    expect(all.raw).not.toContain('TOP-SECRET-MARKER');
    const hidden = await get(t.app, '/.rest/export/v1/website/site/secret', limited);
    const missing = await get(t.app, '/.rest/export/v1/website/site/sekret', limited);
    expect(hidden.status).toBe(404);
    expect(hidden.body.error.code).toBe('pathNotFound');
    expect(missing.status).toBe(404);
    expect(hidden.raw.replace('secret', 'sekret')).toBe(missing.raw);
    expect((await get(t.app, '/.rest/export/v1/nowhere', boss)).status).toBe(404);
  });

  it('answers 400 naming the parameter for a bad format, and 405 to other methods', async () => {
    const bad = await get(t.app, '/.rest/export/v1/website/site?format=json', boss);
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalidParameter');
    expect(bad.body.error.message).toContain('"format"');
    const twice = await get(t.app, '/.rest/export/v1/website/site?format=xml&format=yaml', boss);
    expect(twice.status).toBe(400);
    const rootYaml = await get(t.app, '/.rest/export/v1/website?format=yaml', boss);
    expect(rootYaml.status).toBe(400);
    expect(rootYaml.body.error.message).toContain('"format"');
    const dotted = await get(t.app, '/.rest/export/v1/website/site/a.b', boss);
    expect(dotted.status).toBe(400);
    expect(dotted.body.error.message).toContain('"a.b"');
    const post = await req(t.app, { method: 'POST', url: '/.rest/export/v1/website/site', headers: boss });
    expect(post.status).toBe(405);
  });
});
