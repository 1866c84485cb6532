// Hardening III (issue 28) for POST /.rest/import/v1, through HTTP on the test store (SQLite, or
// PostgreSQL with PETAL_TEST_PG): the caller is the author of what it imports (point 8); a UUID held by
// a hidden node is answered as one held by a readable node (point 7); workspace names follow one pattern
// (point 10); a reserved prefix in another case is refused (point 11); a malformed file is 400
// `invalidImport` naming file and line, never a 409 (point 13).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { basic, expectErrorShape, hashOf, multipart, req, tempFolder, type Res } from '../security-http/helpers.js';

const PW = 'import-rules-password';
const SECRET_ID = '73000000-0000-4000-8000-0000000000a1';
const OTHER_ID = '73000000-0000-4000-8000-0000000000a2';
const ROOT_ID = 'cafebabe-cafe-babe-cafe-babecafebabe';
/** As an export of the original CMS writes them: who and when, of another instance. */
const FORGED = `  'mgnl:created': !date '2015-05-12T11:21:08.960+02:00'
  'mgnl:createdBy': 'mallory'
  'mgnl:lastModified': !date '2016-01-01T00:00:00.000+01:00'
  'mgnl:lastModifiedBy': 'mallory'
  'jcr:created': !date '2015-05-12T11:21:08.960+02:00'
  'jcr:createdBy': 'mallory'
  'mgnl:activationStatus': 'true'
  'mgnl:lastActivatedBy': 'mallory'
`;
const WEBSITE = `'travel':
  'jcr:primaryType': 'mgnl:page'
${FORGED}  'secret':
    'jcr:primaryType': 'mgnl:page'
    'jcr:uuid': '${SECRET_ID}'
`;

let t: TestApp;
const auth = (user: 'travel' | 'admin') => ({ authorization: basic(user, PW) });

function post(files: readonly (readonly [string, string])[], user: 'travel' | 'admin' = 'travel', query = ''): Promise<Res> {
  const body = multipart(files);
  return req(t.app, { method: 'POST', url: `/.rest/import/v1${query}`, payload: body.payload, headers: { ...body.headers, ...auth(user) } });
}

const properties = async (path: string, ws = 'website') => Object.fromEntries((await t.store.reads.getNode(ws, path))?.properties.map(([n, , v]) => [n, v]) ?? []);

beforeAll(async () => {
  const hash = await hashOf(PW);
  const importUri = [{ path: '/.rest/import/*', permission: 'getAndPost' }];
  t = await createTestApp({
    content: { 'website.travel.yaml': WEBSITE, 'website.other.yaml': `'other':\n  'jcr:uuid': '${OTHER_ID}'\n` },
    security: {
      folder: tempFolder(),
      roles: {
        'travel-editor': {
          uriPermissions: importUri,
          workspacePermissions: {
            website: [
              { path: '/', permission: 'read' }, { path: '/*', permission: 'read' },
              { path: '/travel', permission: 'readWrite' }, { path: '/travel/*', permission: 'readWrite' },
              { path: '/travel/secret', permission: 'deny' }, { path: '/travel/secret/*', permission: 'deny' },
            ],
          },
        },
      },
      users: { travel: { passwordHash: hash, roles: ['travel-editor'] }, admin: { passwordHash: hash, roles: ['superuser'] } },
    },
  });
});
afterAll(async () => t?.close());

describe('who wrote what (point 8)', () => {
  it('petal import (the operator) keeps the file\'s values: a migration keeps its history', async () => {
    expect(await properties('/travel')).toMatchObject({ 'cms:createdBy': 'mallory', 'jcr:createdBy': 'mallory', 'cms:created': '2015-05-12T11:21:08.960+02:00' });
  });

  it('over HTTP the caller is the author of every node it imports, as with the Nodes API: the file cannot forge it', async () => {
    const file = `'forged':\n${FORGED}  'child':\n  ${FORGED.replaceAll('\n  ', '\n    ')}`;
    const res = await post([['website.travel.forged.yaml', file]]);
    expect(res.status, res.raw).toBe(200);
    for (const path of ['/travel/forged', '/travel/forged/child']) {
      const p = await properties(path);
      expect(p, path).toMatchObject({ 'cms:createdBy': 'travel', 'cms:lastModifiedBy': 'travel' });
      for (const date of ['cms:created', 'cms:lastModified']) expect(Date.now() - Date.parse(String(p[date])), `${path} ${date}`).toBeLessThan(60_000);
      expect(p['cms:created'], path).toBe(p['cms:lastModified']);
      expect(Object.keys(p).filter((n) => n.startsWith('jcr:')), path).toEqual([]);
      // Publishing is off: the activation properties are content, as the Nodes API stores them.
      expect(p, path).toMatchObject({ 'cms:activationStatus': 'true', 'cms:lastActivatedBy': 'mallory' });
    }
  });
});

describe('caller-chosen UUIDs (point 7)', () => {
  const file = (name: string, id: string) => [`website.travel.${name}.yaml`, `'${name}':\n  'jcr:uuid': '${id}'\n`] as const;
  const answer = (res: Res, id: string, name: string) => res.raw.replaceAll(id, '<id>').replaceAll(name, '<name>');

  it('onUuidCollision=fail: a UUID held by a hidden node, by a readable one, or the root\'s: one 409 that names no holder', async () => {
    const answers = new Set<string>();
    for (const [id, name] of [[SECRET_ID, 'hid'], [OTHER_ID, 'vis'], [ROOT_ID, 'root']] as const) {
      const res = await post([file(name, id)], 'travel', '?onUuidCollision=fail');
      expectErrorShape(res, 409, 'importConflict', id);
      expect(res.body.error.message, id).toMatch(new RegExp(`^website\\.travel\\.${name}\\.yaml:1: `));
      answers.add(answer(res, id, name));
    }
    expect([...answers]).toHaveLength(1);
    expect([...answers][0]).not.toMatch(/secret|other|belongs/);
  });

  it('onUuidCollision=replace: a hidden holder is refused as a readable one the caller may not replace (one 403, no holder named)', async () => {
    const hidden = await post([file('hid', SECRET_ID)], 'travel', '?onUuidCollision=replace');
    const visible = await post([file('vis', OTHER_ID)], 'travel', '?onUuidCollision=replace');
    expectErrorShape(hidden, 403, 'accessDenied');
    expectErrorShape(visible, 403, 'accessDenied');
    expect(answer(hidden, SECRET_ID, 'hid')).toBe(answer(visible, OTHER_ID, 'vis'));
    expect(hidden.raw).not.toMatch(/secret|other/);
    expect(await t.store.reads.getNode('website', '/travel/secret')).toBeDefined();
  });

  it('onUuidCollision=new: every unusable UUID, the root\'s too, gives the node a fresh one (a counted warning)', async () => {
    for (const [id, name] of [[SECRET_ID, 'hid'], [OTHER_ID, 'vis'], [ROOT_ID, 'root']] as const) {
      const res = await post([file(name, id)], 'travel', '?onUuidCollision=new');
      expect(res.status, res.raw).toBe(200);
      expect(res.body.warnings, id).toBe(1);
      const node = await t.store.reads.getNode('website', `/travel/${name}`);
      expect(node?.id, id).not.toBe(id);
    }
  });
});

describe('workspace names (point 10)', () => {
  it('a file whose name gives a workspace outside the pattern, or a case variant of an existing one, is 400 naming the file', async () => {
    for (const name of ['WEBSITE.x.yaml', 'Website.x.yaml', '-.x.yaml', '*.x.yaml', 'web site.x.yaml', 'webSite.x.yaml']) {
      const res = await post([[name, `'x':\n  'title': 'x'\n`]], 'admin');
      expectErrorShape(res, 400, 'invalidImport', name);
      expect(res.body.error.message, name).toContain(name);
    }
    // Two new workspaces of one import differing only by case: the one applied second (code-point order) is refused.
    const twins = await post([['notes.x.yaml', `'x': {}\n`], ['noTes.x.yaml', `'x': {}\n`]], 'admin');
    expectErrorShape(twins, 400, 'invalidImport');
    expect(twins.body.error.message).toBe('notes.x.yaml: workspace notes differs only by case from the workspace noTes');
    expect(await t.store.reads.listWorkspaces()).toEqual(['website']);
    const ok = await post([['shopProducts.x.yaml', `'x':\n  'title': 'x'\n`]], 'admin');
    expect(ok.status, ok.raw).toBe(200);
  });
});

describe('malformed files are 400 invalidImport naming file and line (points 11 and 13)', () => {
  const cases: [string, string, number][] = [
    ['website.travel.a.yaml', `'a':\n  'title': 'x'\n  '..':\n    'title': 'y'\n`, 3],
    ['website.travel.b.yaml', `'b':\n  'title': 'x'\n  'c|d':\n    'title': 'y'\n`, 3],
    ['website.travel.c.yaml', `'c':\n  'title': 'x'\n  'Mgnl:createdBy': 'mallory'\n`, 3],
    ['website.travel.d.xml', `<?xml version="1.0" encoding="UTF-8"?>\n<sv:node sv:name="d" xmlns:sv="http://www.jcp.org/jcr/sv/1.0">\n  <sv:node sv:name="e/f">\n  </sv:node>\n</sv:node>\n`, 3],
    ['website.travel.e.xml', `<?xml version="1.0" encoding="UTF-8"?>\n<sv:node sv:name="e" xmlns:sv="http://www.jcp.org/jcr/sv/1.0">\n  <sv:property sv:name="JCR:title" sv:type="String"><sv:value>x</sv:value></sv:property>\n</sv:node>\n`, 3],
  ];
  for (const [name, text, line] of cases) {
    it(name, async () => {
      const res = await post([[name, text]]);
      expectErrorShape(res, 400, 'invalidImport', name);
      expect(res.body.error.message).toMatch(new RegExp(`^${name.replaceAll('.', '\\.')}:${line}: `));
      expect(await t.store.reads.getNode('website', `/travel/${name.split('.')[2]}`)).toBeUndefined();
    });
  }

  it('a real conflict stays a 409: a UUID taken under onUuidCollision=fail', async () => {
    const res = await post([['website.travel.f.yaml', `'f':\n  'jcr:uuid': '${OTHER_ID}'\n`]], 'travel', '?onUuidCollision=fail');
    expectErrorShape(res, 409, 'importConflict');
  });
});
