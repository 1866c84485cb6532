// Content versions through HTTP: `?version=1.0` on Read node renders the frozen copy with every current
// endpoint rule (depth, node types, property lists, i18n, references, workspace ACLs); unknown → 404
// versionNotFound; malformed → 400; `version` on Get children and Query nodes → 400; a node the
// caller cannot read (or that no longer exists) answers pathNotFound whatever the version; publishing
// is seen by the response cache at once.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importPaths } from '../../src/ingest/run-import.js';
import { createTestApp, getJson, type TestApp } from '../helpers/test-app.js';
import { publishVersion } from '../../src/repository/writes.js';

const CAT = 'c1000000-0000-4000-8000-000000000001';

function website(v: 1 | 2): string {
  const about = v === 1 ? `
  'about':
    'jcr:primaryType': 'mgnl:page'
    'jcr:uuid': 'a1000000-0000-4000-8000-000000000003'
    'title': 'About v1'
` : '';
  const second = v === 2 ? `
    '1':
      'jcr:primaryType': 'mgnl:component'
      'text': 'added in v2'
` : '';
  return `
'site':
  'jcr:primaryType': 'mgnl:page'
  'jcr:uuid': 'a1000000-0000-4000-8000-000000000001'
  'title': 'Home v${v}'
  'title_de': 'Start v${v}'
  'count': ${v}
  'category': '${CAT}'
  'main':
    'jcr:primaryType': 'mgnl:area'
    'jcr:uuid': 'a1000000-0000-4000-8000-000000000002'
    '0':
      'jcr:primaryType': 'mgnl:component'
      'jcr:uuid': 'a1000000-0000-4000-8000-000000000004'
      'text': 'component v${v}'
      'text_de': 'Komponente v${v}'
      'deep':
        'jcr:primaryType': 'mgnl:component'
        'text': 'below the endpoint depth'
    'hidden':
      'jcr:primaryType': 'mgnl:component'
      'text': 'HIDDEN-PART-V${v}'
${second}${about}
  'secret':
    'jcr:primaryType': 'mgnl:page'
    'jcr:uuid': 'a1000000-0000-4000-8000-000000000005'
    'title': 'SECRET-PAGE-V${v}'
`;
}

const CATEGORY = `
'cat':
  'jcr:primaryType': 'mgnl:content'
  'jcr:uuid': '${CAT}'
  'name': 'Culture'
`;

const REFS = `
references:
  - propertyName: category
    referenceResolver:
      $type: jcrReferenceResolver
      targetWorkspace: category
`;

const DEFINITIONS = {
  'delivery/pages.yaml': `$type: jcrDeliveryEndpoint_v2\nworkspace: website\ndepth: 2\nnodeTypes: [mgnl:page]\nchildNodeTypes: [mgnl:area, mgnl:component]\n${REFS}`,
  'delivery/flat.yaml': '$type: jcrDeliveryEndpoint_v2\nworkspace: website\n',
  'delivery/props.yaml': '$type: jcrDeliveryEndpoint_v2\nworkspace: website\ndepth: 1\nproperties: [title, text]\n',
  'delivery/rooted.yaml': '$type: jcrDeliveryEndpoint_v2\nworkspace: website\nrootPath: /site\ndepth: 1\n',
  'delivery/components.yaml': '$type: jcrDeliveryEndpoint_v2\nworkspace: website\nnodeTypes: [mgnl:component]\n',
  'delivery/bypass.yaml': '$type: jcrDeliveryEndpoint_v2\nworkspace: website\ndepth: 2\nbypassWorkspaceAcls: true\n',
};

const read = (path: string) => ({ path, permission: 'read' });
const deny = (path: string) => ({ path, permission: 'deny' });
const SECURITY = {
  roles: {
    anonymous: {
      uriPermissions: [{ path: '/*', permission: 'get' }],
      workspacePermissions: {
        website: [read('/'), read('/*'), deny('/site/secret'), deny('/site/secret/*'), deny('/site/main/hidden'), deny('/site/main/hidden/*')],
        category: [read('/'), read('/*')],
      },
    },
  },
};

/** Live answers taken while the content was v1, replayed with `version=1.0` once v2 is live. */
const SNAPSHOT_URLS = [
  '/.rest/delivery/pages/site',
  '/.rest/delivery/pages/site?lang=de',
  '/.rest/delivery/pages/site?properties=title,count,category',
  '/.rest/delivery/pages/site?excludeProperties=title,title_de',
  '/.rest/delivery/flat/site',
  '/.rest/delivery/props/site',
  '/.rest/delivery/rooted/main',
  '/.rest/delivery/bypass/site',
];

const withVersion = (url: string, v: string) => `${url}${url.includes('?') ? '&' : '?'}version=${v}`;

let t: TestApp;
let tmp: string;
const snapshots = new Map<string, { raw: string; etag: unknown; language: unknown }>();

async function importWebsite(v: 1 | 2): Promise<void> {
  const dir = mkdtempSync(join(tmp, `v${v}-`));
  writeFileSync(join(dir, 'website.site.yaml'), website(v));
  await importPaths(t.store, [dir], { onUuidCollision: 'new' });
}

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'petal-versions-http-'));
  t = await createTestApp({
    definitions: DEFINITIONS,
    content: { 'website.site.yaml': website(1), 'category.cat.yaml': CATEGORY },
    security: SECURITY,
    publish: [
      { workspace: 'website', path: '/site', by: 'alice' },
      { workspace: 'website', path: '/site/main', by: 'alice' },
      { workspace: 'website', path: '/site/about', by: 'alice' },
      { workspace: 'website', path: '/site/secret', by: 'alice' },
    ],
  });
  for (const url of SNAPSHOT_URLS) {
    const r = await getJson(t.app, url);
    expect(r.status, url).toBe(200);
    snapshots.set(url, { raw: r.raw, etag: r.headers.etag, language: r.headers['content-language'] });
  }
  await importWebsite(2);
});
afterAll(async () => {
  await t?.close();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe('Read node ?version=', () => {
  it('the live node has moved on to v2', async () => {
    const { status, body } = await getJson(t.app, '/.rest/delivery/pages/site');
    expect(status).toBe(200);
    expect(body.title).toBe('Home v2');
  });

  it('renders the frozen copy exactly as the endpoint rendered the node when it was published', async () => {
    for (const url of SNAPSHOT_URLS) {
      const r = await getJson(t.app, withVersion(url, '1.0'));
      const was = snapshots.get(url)!;
      expect(r.status, url).toBe(200);
      expect(r.raw, url).toBe(was.raw);
      expect(r.headers.etag, url).toBe(was.etag);
      expect(r.headers['content-language'], url).toBe(was.language);
    }
  });

  it('applies depth, child types, i18n and references to the copy', async () => {
    const { body, headers } = await getJson(t.app, '/.rest/delivery/pages/site?version=1.0&lang=de');
    expect(headers['content-language']).toBe('de');
    expect(body.title).toBe('Start v1');
    expect(body['@nodes']).toEqual(['main']); // pages are not child types; `about` and `secret` are pages
    expect(body.main['@nodes']).toEqual(['0']); // `hidden` is denied to anonymous callers
    expect(body.main['0'].text).toBe('Komponente v1');
    expect(body.main['0']['@nodes']).toEqual([]); // depth 2 stops above `deep`
    expect(body.category).toMatchObject({ '@path': '/cat', name: 'Culture' }); // resolved as on the live node
  });

  it('applies the caller\'s current workspace ACLs to the nodes inside the copy', async () => {
    const anonymous = await getJson(t.app, '/.rest/delivery/pages/site?version=1.0');
    expect(anonymous.raw).not.toContain('HIDDEN-PART');
    const system = await getJson(t.app, '/.rest/delivery/bypass/site/main?version=1.0');
    expect(system.status).toBe(200);
    expect(system.body.hidden.text).toBe('HIDDEN-PART-V1'); // it is in the copy: the ACL hid it
  });

  it('answers 404 versionNotFound for a version the node does not have', async () => {
    for (const v of ['1.1', '2.0', '1.00', '0.0', '999999999.999999999']) {
      const r = await getJson(t.app, `/.rest/delivery/pages/site?version=${v}`);
      expect(r.status, v).toBe(404);
      expect(r.body.error.code, v).toBe('versionNotFound');
      expect(r.body.error.message, v).toContain(v);
    }
    // /site/main/0 exists but was never published itself.
    const child = await getJson(t.app, '/.rest/delivery/flat/site/main/0?version=1.0');
    expect(child.status).toBe(404);
    expect(child.body.error.code).toBe('versionNotFound');
  });

  it('answers 400 badRequest naming the parameter for a malformed version', async () => {
    for (const v of ['abc', '1', '1.0.0', '1.', '.1', '-1.0', '1.0%20', '1,0', 'v1.0', '1.0;DROP', '%00', '1234567890.0', 'x'.repeat(5000)]) {
      const r = await getJson(t.app, `/.rest/delivery/pages/site?version=${v}`);
      expect(r.status, v).toBe(400);
      expect(r.body.error.code, v).toBe('badRequest');
      expect(r.body.error.message, v).toMatch(/^version: /);
      expect(r.raw.length, v).toBeLessThan(300); // a long value is not echoed whole
    }
  });

  it('treats an empty version as absent: the live node', async () => {
    const r = await getJson(t.app, '/.rest/delivery/pages/site?version=');
    expect(r.status).toBe(200);
    expect(r.body.title).toBe('Home v2');
  });

  it('uses the first of repeated version parameters', async () => {
    const r = await getJson(t.app, '/.rest/delivery/pages/site?version=1.0&version=7.7');
    expect(r.status).toBe(200);
    expect(r.body.title).toBe('Home v1');
  });

  it('answers pathNotFound, not versionNotFound, for a node the endpoint does not serve', async () => {
    for (const url of ['/.rest/delivery/components/site?version=1.0', '/.rest/delivery/components/site?version=5.0',
      '/.rest/delivery/pages/site/main?version=1.0', '/.rest/delivery/pages/nothing?version=1.0']) {
      const r = await getJson(t.app, url);
      expect(r.status, url).toBe(404);
      expect(r.body.error.code, url).toBe('pathNotFound');
    }
  });
});

describe('versions and workspace ACLs', () => {
  it('a node the caller may not read answers exactly like a missing node, for every version', async () => {
    const missing = await getJson(t.app, '/.rest/delivery/flat/site/nothing');
    for (const url of ['/.rest/delivery/flat/site/secret?version=1.0', '/.rest/delivery/flat/site/secret?version=9.9',
      '/.rest/delivery/flat/site/secret']) {
      const r = await getJson(t.app, url);
      expect(r.status, url).toBe(404);
      expect(r.body.error.code, url).toBe('pathNotFound');
      expect(r.body.error.message, url).toBe(missing.body.error.message.replace('/site/nothing', '/site/secret'));
      expect(r.raw, url).not.toContain('SECRET-PAGE');
      expect(r.raw, url).not.toContain('version');
    }
  });

  it('the version does exist: an endpoint that bypasses workspace ACLs serves it', async () => {
    const r = await getJson(t.app, '/.rest/delivery/bypass/site/secret?version=1.0');
    expect(r.status).toBe(200);
    expect(r.body.title).toBe('SECRET-PAGE-V1');
    const unknown = await getJson(t.app, '/.rest/delivery/bypass/site/secret?version=9.9');
    expect(unknown.body.error.code).toBe('versionNotFound');
  });
});

describe('versions of a node that no longer exists', () => {
  it('answer pathNotFound, as the node does (the versions stay stored)', async () => {
    expect((await t.store.versions.list('website', '/site/about')).map((v) => v.name)).toEqual(['1.0']);
    for (const url of ['/.rest/delivery/flat/site/about?version=1.0', '/.rest/delivery/bypass/site/about?version=1.0', '/.rest/delivery/flat/site/about']) {
      const r = await getJson(t.app, url);
      expect(r.status, url).toBe(404);
      expect(r.body.error.code, url).toBe('pathNotFound');
    }
  });
});

describe('version on Get children and Query nodes', () => {
  it('is refused with 400 badRequest naming the parameter', async () => {
    for (const url of ['/.rest/delivery/flat/site@nodes?version=1.0', '/.rest/delivery/flat/@nodes?version=1.0',
      '/.rest/delivery/flat?version=1.0', '/.rest/delivery/flat/?version=abc&title=x']) {
      const r = await getJson(t.app, url);
      expect(r.status, url).toBe(400);
      expect(r.body.error.code, url).toBe('badRequest');
      expect(r.body.error.message, url).toMatch(/^version: /);
    }
  });

  it('an empty version there is ignored', async () => {
    expect((await getJson(t.app, '/.rest/delivery/flat/site@nodes?version=')).status).toBe(200);
    expect((await getJson(t.app, '/.rest/delivery/flat?version=')).status).toBe(200);
  });
});

describe('publishing and the response cache', () => {
  it('a new version is served at once, and earlier answers stay right', async () => {
    const before = await getJson(t.app, '/.rest/delivery/pages/site?version=1.1');
    expect(before.body.error.code).toBe('versionNotFound');
    const live = await getJson(t.app, '/.rest/delivery/pages/site');
    const old = await getJson(t.app, '/.rest/delivery/pages/site?version=1.0');
    const generation = await t.store.generation();
    expect((await publishVersion(t.store, 'website', '/site', 'bob'))?.name).toBe('1.1');
    expect(await t.store.generation()).toBeGreaterThan(generation);
    const after = await getJson(t.app, '/.rest/delivery/pages/site?version=1.1');
    expect(after.status).toBe(200);
    expect(after.raw).toBe(live.raw); // 1.1 is a copy of what is live now
    expect(after.body.main['@nodes']).toEqual(['0', '1']);
    const oldAgain = await getJson(t.app, '/.rest/delivery/pages/site?version=1.0');
    expect(oldAgain.raw).toBe(old.raw);
    expect(oldAgain.body.title).toBe('Home v1');
  });
});
