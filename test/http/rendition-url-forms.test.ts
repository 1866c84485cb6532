// The original's rendition URLs (issue 15): `/.imaging/mte/<theme>/<variation>/dam/<asset path>/jcr:content/<file>`
// and `/.imaging/default/dam/<asset path>/jcr:content.<ext>`, with and without a context path, next to
// earlier releases' `/.imaging/<theme>/<variation>/dam/jcr:<uuid>/<file>`: the same bytes, validators,
// ranges and permissions whatever the form.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, OPEN_SECURITY, type TestApp } from '../helpers/test-app.js';
import { ANTARCTICA, ASSET_CONTENT, ASSET_MODULES } from '../assets/asset-xml.js';

const THEME = 'travel-demo-theme';

for (const contextPath of ['', '/magnoliaPublic']) {
  describe(`rendition URL forms${contextPath === '' ? '' : ` under ${contextPath}`}`, () => {
    let t: TestApp;
    let assetPath = '';
    beforeAll(async () => {
      t = await createTestApp({
        contentPaths: [ASSET_CONTENT], moduleRoots: [ASSET_MODULES], ...(contextPath !== '' ? { contextPath } : {}),
      });
      assetPath = (await t.store.reads.getNodeById('dam', ANTARCTICA.id))!.path;
    });
    afterAll(async () => t?.close());

    const themed = () => `${contextPath}/.imaging/mte/${THEME}/480/dam${assetPath}/jcr:content/${ANTARCTICA.fileName}`;
    const byId = () => `${contextPath}/.imaging/${THEME}/480/dam/jcr:${ANTARCTICA.id}/${ANTARCTICA.fileName}`;
    const fallback = () => `${contextPath}/.imaging/default/dam${assetPath}/jcr:content.jpg`;
    const original = () => `${contextPath}/dam/jcr:${ANTARCTICA.id}/${ANTARCTICA.fileName}`;

    it("serves a theme's rendition by asset path exactly as by id: bytes, ETag, 304, ranges", async () => {
      const a = await t.app.inject({ method: 'GET', url: themed() });
      const b = await t.app.inject({ method: 'GET', url: byId() });
      expect(a.statusCode, a.body.slice(0, 200)).toBe(200);
      expect(b.statusCode).toBe(200);
      expect(a.headers.etag).toBe(b.headers.etag);
      expect(a.rawPayload.equals(b.rawPayload)).toBe(true);
      expect(a.headers['content-type']).toBe('image/jpeg');
      expect((await t.app.inject({ method: 'GET', url: themed(), headers: { 'if-none-match': String(a.headers.etag) } })).statusCode).toBe(304);
      const part = await t.app.inject({ method: 'GET', url: themed(), headers: { range: 'bytes=0-99' } });
      expect(part.statusCode).toBe(206);
      expect(part.rawPayload.equals(a.rawPayload.subarray(0, 100))).toBe(true);
    });

    it("serves the original's bytes at the default form, whatever follows jcr:content", async () => {
      const a = await t.app.inject({ method: 'GET', url: fallback() });
      const o = await t.app.inject({ method: 'GET', url: original() });
      expect(a.statusCode, a.body.slice(0, 200)).toBe(200);
      expect(a.headers.etag).toBe(o.headers.etag);
      expect(a.rawPayload.equals(o.rawPayload)).toBe(true);
      expect((await t.app.inject({ method: 'GET', url: fallback().replace(/\.jpg$/, '') })).statusCode).toBe(200);
    });

    it('answers 404 for what is no asset, no theme or no variation, in every form', async () => {
      for (const url of [
        `${contextPath}/.imaging/mte/${THEME}/480/dam/nowhere/jcr:content/x.jpg`,
        `${contextPath}/.imaging/mte/no-theme/480/dam${assetPath}/jcr:content/x.jpg`,
        `${contextPath}/.imaging/mte/${THEME}/nope/dam${assetPath}/jcr:content/x.jpg`,
        `${contextPath}/.imaging/default/dam/nowhere/jcr:content.jpg`,
        `${contextPath}/.imaging/default/dam${assetPath}/other.jpg`,
        `${contextPath}/.imaging/mte/${THEME}/480/dam/jcr:content/x.jpg`,
      ]) {
        expect((await t.app.inject({ method: 'GET', url })).statusCode, url).toBe(404);
      }
    });
  });
}

describe('rendition URL forms and workspace permissions', () => {
  let t: TestApp;
  let assetPath = '';
  beforeAll(async () => {
    t = await createTestApp({
      contentPaths: [ASSET_CONTENT], moduleRoots: [ASSET_MODULES],
      security: {
        roles: {
          ...OPEN_SECURITY.roles,
          anonymous: {
            uriPermissions: [{ path: '/*', permission: 'get' }],
            workspacePermissions: { dam: [{ path: '/', permission: 'read' }, { path: '/*', permission: 'read' }, { path: '/tours', permission: 'deny' }, { path: '/tours/*', permission: 'deny' }] },
          },
        },
      },
    });
    assetPath = (await t.store.reads.getNodeById('dam', ANTARCTICA.id))!.path;
  });
  afterAll(async () => t?.close());

  it('a denied asset is a missing one in every form', async () => {
    expect(assetPath.startsWith('/tours/')).toBe(true);
    for (const url of [
      `/.imaging/mte/${THEME}/480/dam${assetPath}/jcr:content/${ANTARCTICA.fileName}`,
      `/.imaging/default/dam${assetPath}/jcr:content.jpg`,
      `/.imaging/${THEME}/480/dam/jcr:${ANTARCTICA.id}/${ANTARCTICA.fileName}`,
    ]) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
      expect(res.json().error.code).toBe('pathNotFound');
    }
  });
});
