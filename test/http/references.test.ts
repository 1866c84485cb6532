// The three reference resolvers through HTTP: jcrReferenceResolver (expand, generateLink, depth in
// the referenced node, own property lists), assetReferenceResolver (metadata, download link,
// renditions, an undefined rendition), richTextLinkReferenceResolver (completeUrl), referenceDepth and
// referenceRepeat with a cycle, regular-expression propertyName, nodeType, missing and unreadable
// targets, and batching (one look-up per workspace and level).
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fileURLToPath } from 'node:url';
import { createTestApp, getJson, OPEN_SECURITY, type TestApp } from '../helpers/test-app.js';

const FIX = fileURLToPath(new URL('../fixtures/references/', import.meta.url));
const SITE = { name: 'fallback', locales: ['en'], defaultLocale: 'en', theme: 'test-theme' };
const ASSET = 'd0000000-0000-4000-8000-000000000011';
const ASSET_LINK = `/dam/jcr:${ASSET}/kyoto%20temple.jpg`;

type Json = Record<string, any>;
let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({
    contentPaths: [`${FIX}content`], moduleRoots: [`${FIX}light-modules`], site: SITE,
    links: { contextPath: '', extension: '', mappings: [], baseUrl: 'https://cdn.example.com' },
  });
});
afterAll(async () => {
  await t.close();
});

describe('jcrReferenceResolver', () => {
  it('turns a multi-value reference into an array of target objects in stored order, with jcr: and plain uuids', async () => {
    const { status, body } = await getJson(t.app, '/.rest/delivery/tours/trips/alps');
    expect(status).toBe(200);
    const types = body.tourTypes as Json[];
    expect(types).toHaveLength(4);
    expect(types[0]!['@path']).toBe('/tour-types/active');
    expect(types[1]!['@path']).toBe('/tour-types/beach');
    expect(types[2]).toBe('c0000000-0000-4000-8000-0000000000ff'); // missing: the stored value stays
    expect(types[3]!['@path']).toBe('/tour-types/hidden');
  });

  it('renders targets with their own property lists (top-level lists do not apply) and depthInReferencedNode', async () => {
    const { body } = await getJson(t.app, '/.rest/delivery/tours/trips/alps');
    expect(body.name).toBeUndefined(); // top-level excludeProperties: [name]
    const active = body.tourTypes[0] as Json;
    expect(active.name).toBe('Active'); // not excluded inside the resolved node
    expect(active.secretNote).toBeUndefined(); // the resolver's own excludeProperties
    expect(active['cms:template']).toBeUndefined(); // system properties follow the endpoint
    expect(active['@nodes']).toEqual(['child']); // depthInReferencedNode defaults to 1
    expect(active.child.label).toBe('nested');
  });

  it('renders a single value as one object, with @link before @nodes when generateLink is set', async () => {
    const { body, raw } = await getJson(t.app, '/.rest/delivery/tours/trips/alps');
    expect(Object.keys(body.destination)).toEqual(['@name', '@path', '@id', '@nodeType', 'name', '@link', '@nodes']);
    expect(body.destination['@link']).toBe('/tour-types/beach');
    expect(body.destination['@nodes']).toEqual([]); // depthInReferencedNode: 0
    expect(raw).toContain('"@link":"/tour-types/beach","@nodes":[]');
  });

  it('gives only links with expand: false', async () => {
    const { body } = await getJson(t.app, '/.rest/delivery/full/trips/alps');
    expect(body.tourTypes[0]).toEqual({
      '@name': 'active', '@path': '/tour-types/active', '@id': 'c0000000-0000-4000-8000-000000000011',
      '@nodeType': 'cms:category', '@link': '/tour-types/active', '@nodes': [],
    });
  });

  it('matches propertyName as a regular expression and honours nodeType', async () => {
    const { body } = await getJson(t.app, '/.rest/delivery/tours/trips/alps');
    expect(body.missing).toBe('jcr:c0000000-0000-4000-8000-0000000000ff'); // matched by missing|secret, no target
    expect(body.secret['@path']).toBe('/tour-types/hidden'); // matched by missing|secret
    expect(body.linkA).toBe('c0000000-0000-4000-8000-000000000011'); // link[AB] applies to pages only
    expect(body.linkB).toBe('c0000000-0000-4000-8000-000000000021');
  });

  it('never resolves a self-reference, and resolves one level by default', async () => {
    const { body } = await getJson(t.app, '/.rest/delivery/tours/trips/alps');
    expect(body.self).toBe('f0000000-0000-4000-8000-000000000011');
    expect(body.related['@path']).toBe('/trips/fjords');
    expect(body.related.related).toBe('f0000000-0000-4000-8000-000000000011'); // referenceDepth 1
  });

  it('ends a cycle with referenceRepeat false, and follows it to referenceDepth with true', async () => {
    const deep = await getJson(t.app, '/.rest/delivery/deep/trips/alps');
    expect(deep.body.related['@path']).toBe('/trips/fjords');
    expect(deep.body.related.related).toBe('f0000000-0000-4000-8000-000000000011'); // alps is on the chain
    const repeat = await getJson(t.app, '/.rest/delivery/repeat/trips/alps');
    expect(repeat.body.related['@path']).toBe('/trips/fjords');
    expect(repeat.body.related.related['@path']).toBe('/trips/alps');
    expect(repeat.body.related.related.related['@path']).toBe('/trips/fjords');
    expect(repeat.body.related.related.related.related).toBe('f0000000-0000-4000-8000-000000000011'); // depth 3 reached
  });

  it('resolves references of query results and Get children too', async () => {
    const q = await getJson(t.app, '/.rest/delivery/tours?@name=fjords');
    expect(q.body.results[0].destination['@path']).toBe('/tour-types/active');
    const c = await getJson(t.app, '/.rest/delivery/tours/trips@nodes');
    expect(c.body[1].related['@path']).toBe('/trips/alps');
  });

  it('looks targets up once per workspace and level, not once per value', async () => {
    t.app.responseCache?.clear(); // an answer rendered by an earlier test would be served from the cache
    const spy = vi.spyOn(t.store.reads, 'getNodesByIds');
    try {
      await getJson(t.app, '/.rest/delivery/tours/trips/alps');
      const workspaces = spy.mock.calls.map((c) => c[0]).sort();
      expect(workspaces).toEqual(['category', 'dam', 'tours', 'website']);
    } finally {
      spy.mockRestore();
    }
  });
});

describe('assetReferenceResolver', () => {
  it('renders the asset with metadata from the resource and the asset, a download link and renditions', async () => {
    const { body } = await getJson(t.app, '/.rest/delivery/tours/trips/alps');
    expect(Object.keys(body.image)).toEqual(['@name', '@path', '@id', '@link', 'metadata', 'renditions']);
    expect(body.image['@name']).toBe('kyoto');
    expect(body.image['@path']).toBe('/pics/kyoto');
    expect(body.image['@id']).toBe(`jcr:${ASSET}`);
    expect(body.image['@link']).toBe(ASSET_LINK);
    expect(body.image.metadata).toEqual({
      fileName: 'kyoto temple.jpg', mimeType: 'image/jpeg', caption: 'A temple in Kyoto', fileSize: '12345',
      height: '1200', width: '1600', title: 'Kyoto', format: 'image/jpeg', subject: ['temple', 'japan'], created: '2024-01-02T03:04:05.000+01:00',
    });
    expect(body.image.renditions).toEqual({
      960: { mimeType: 'image/jpeg', link: '/.imaging/mte/test-theme/960/dam/pics/kyoto/jcr:content/kyoto%20temple.jpg' },
      '480x360': { mimeType: 'image/jpeg', link: '/.imaging/mte/test-theme/480x360/dam/pics/kyoto/jcr:content/kyoto%20temple.jpg' },
      // An undefined rendition links the original's bytes, in the original's form.
      nosuchrendition: { mimeType: 'image/jpeg', link: '/.imaging/default/dam/pics/kyoto/jcr:content.jpg' },
    });
  });

  it('gives the link alone with expand: false, and the stored value without a download link', async () => {
    const tours = await getJson(t.app, '/.rest/delivery/tours/trips/alps');
    expect(tours.body.thumb).toBe(ASSET_LINK);
    const full = await getJson(t.app, '/.rest/delivery/full/trips/alps');
    expect(full.body.thumb).toBe(`jcr:${ASSET}`);
  });

  it('leaves out the link and the metadata when asked', async () => {
    const { body } = await getJson(t.app, '/.rest/delivery/full/trips/alps');
    expect(body.image).toEqual({ '@name': 'kyoto', '@path': '/pics/kyoto', '@id': `jcr:${ASSET}` });
  });
});

describe('richTextLinkReferenceResolver', () => {
  it('rewrites page and asset markers to relative links with completeUrl: false, keeping unknown ones readable', async () => {
    const { body } = await getJson(t.app, '/.rest/delivery/tours/trips/alps');
    expect(body.body).toBe(`<p>See <a href="/site/about">about</a>, <img src="${ASSET_LINK}"/> and <a href="/site/gone">gone</a>.</p>`);
  });

  it('makes complete URLs on the base URL by default', async () => {
    const { body } = await getJson(t.app, '/.rest/delivery/full/trips/alps');
    expect(body.body).toContain('href="https://cdn.example.com/site/about"');
    expect(body.body).toContain(`src="https://cdn.example.com${ASSET_LINK}"`);
  });
});

describe('unreadable targets', () => {
  it('render exactly like missing ones', async () => {
    const security = {
      roles: {
        ...OPEN_SECURITY.roles,
        anonymous: {
          uriPermissions: [{ path: '/*', permission: 'get' }],
          workspacePermissions: {
            '*': [{ path: '/', permission: 'read' }, { path: '/*', permission: 'read' }],
            category: [
              { path: '/*', permission: 'read' },
              { path: '/tour-types/hidden', permission: 'deny' },
              { path: '/tour-types/hidden/*', permission: 'deny' },
            ],
          },
        },
      },
    };
    const r = await createTestApp({ contentPaths: [`${FIX}content`], moduleRoots: [`${FIX}light-modules`], site: SITE, security });
    try {
      const { body } = await getJson(r.app, '/.rest/delivery/tours/trips/alps');
      expect(body.secret).toBe('c0000000-0000-4000-8000-000000000031');
      expect(body.tourTypes[3]).toBe('c0000000-0000-4000-8000-000000000031');
      expect(body.missing).toBe('jcr:c0000000-0000-4000-8000-0000000000ff');
      expect(body.tourTypes[0]['@path']).toBe('/tour-types/active');
    } finally {
      await r.close();
    }
  });
});
