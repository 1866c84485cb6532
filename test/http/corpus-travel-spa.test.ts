// The travel-spa corpus end to end: all of its `_dev` content imported, its light modules loaded
// unchanged, and the page and navigation endpoints its front ends call answered by the rules.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { CORPORA, CORPORA_AVAILABLE } from '../helpers/corpora.js';
import { createTestApp, getJson, type TestApp } from '../helpers/test-app.js';

const SPA = join(CORPORA, 'travel-spa', 'magnolia');

type Json = Record<string, any>;
const SYSTEM = new Set(['cms:lastModified', 'cms:created', 'cms:template']);

/** What a node of the YAML export must render as through pages_v1 (depth 10, areas/components/contentNodes). */
function expectRendered(rendered: Json, source: Json, name: string, path: string): void {
  expect(rendered['@name']).toBe(name);
  expect(rendered['@path']).toBe(path);
  expect(rendered['@id']).toBe(source['jcr:uuid']);
  expect(rendered['@nodeType']).toBe(String(source['jcr:primaryType']).replace('mgnl:', 'cms:'));
  const childNames: string[] = [];
  const props: string[] = [];
  for (const [k, v] of Object.entries(source)) {
    if (v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Date)) {
      const type = String((v as Json)['jcr:primaryType'] ?? '');
      if (['mgnl:area', 'mgnl:component', 'mgnl:contentNode'].includes(type) && !/_de$/.test(k)) childNames.push(k);
    } else if (k.startsWith('jcr:') || k.startsWith('mgnl:')) {
      const canonical = k.replace('mgnl:', 'cms:');
      if (SYSTEM.has(canonical)) props.push(canonical);
    } else if (!/_de$/.test(k)) {
      props.push(k);
    }
  }
  // JSON.parse moves integer-like keys ("0") first; the order on the wire is checked on the raw text.
  const keys = Object.keys(rendered).filter((k) => !/^(0|[1-9]\d*)$/.test(k));
  expect(keys.slice(0, 4)).toEqual(['@name', '@path', '@id', '@nodeType']);
  expect(keys.at(-1)).toBe('@nodes');
  expect(keys.slice(4, 4 + props.length).sort()).toEqual([...props].sort());
  expect(rendered['@nodes']).toEqual(childNames);
  for (const c of childNames) expect(Object.hasOwn(rendered, c)).toBe(true);
  for (const c of childNames) expectRendered(rendered[c], source[c], c, `${path}/${c}`);
}

let t: TestApp;

// Skipped where the original CMS's corpora are absent (PETAL_CORPORA; test/helpers/corpora.ts warns); CI beside ../shared runs it.
describe.skipIf(!CORPORA_AVAILABLE)('travel-spa corpus', () => {
  beforeAll(async () => {
    t = await createTestApp({ contentPaths: [join(SPA, '_dev')], moduleRoots: [join(SPA, 'light-modules')] });
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  it('loads both endpoint definitions without problems', () => {
    expect(t.load.definitions.map((d) => d.endpointPath).sort()).toEqual(['/delivery/pagenav/v1', '/delivery/pages/v1']);
    expect(t.load.problems.filter((p) => p.severity === 'error')).toEqual([]);
  });

  it('answers /.rest/delivery/pages/v1/react-minimal with the page, its areas and components', async () => {
    const { status, body, headers } = await getJson(t.app, '/.rest/delivery/pages/v1/react-minimal');
    expect(status).toBe(200);
    expect(headers['content-type']).toBe('application/json; charset=utf-8');
    const source = parse(readFileSync(join(SPA, '_dev/content-to-import/website.react-minimal.yaml'), 'utf8'))['react-minimal'];
    expectRendered(body, source, 'react-minimal', '/react-minimal');
    expect(body['@nodes']).toEqual(['main', 'extras']);
    expect(body['cms:template']).toBe('react-minimal-lm:pages/basic');
    expect(body['cms:created']).toBe('2020-02-01T13:45:49.952+07:00');
    expect(body['cms:createdBy']).toBeUndefined();
    // `image` is resolved by the endpoint's assetReferenceResolver into the asset object.
    expect(body.main['00'].image['@id']).toBe('jcr:090eb9c4-b35b-4869-a12f-6ea80292cba4');
    expect(body.main['00'].image['@link']).toMatch(/^\/dam\/jcr:090eb9c4-b35b-4869-a12f-6ea80292cba4\/.+/);
    expect(body.main['00'].image.metadata.mimeType).toMatch(/^image\//);
    expect(body.main['01'].richText).toBe(source.main['01'].richText);
    const raw = (await getJson(t.app, '/.rest/delivery/pages/v1/react-minimal/contact')).raw;
    const area = raw.indexOf('"@path":"/react-minimal/contact/main"');
    expect(raw.indexOf('"00":{')).toBeGreaterThan(area);
    expect(raw.indexOf('"0":{')).toBeGreaterThan(raw.indexOf('"00":{'));
    expect(raw.indexOf('"@nodes":["00","0"')).toBeGreaterThan(raw.indexOf('"0":{'));
  });

  it('renders the German content with lang=de', async () => {
    const { body, headers } = await getJson(t.app, '/.rest/delivery/pages/v1/react-minimal/contact?lang=de');
    expect(headers['content-language']).toBe('de');
    expect(body.title).toBe('Kontakt');
    expect(body.main['00'].richText).toContain('Kontakt Verkauf');
  });

  it('answers /.rest/delivery/pagenav/v1/react-minimal@nodes with its child pages', async () => {
    const { status, body } = await getJson(t.app, '/.rest/delivery/pagenav/v1/react-minimal@nodes');
    expect(status).toBe(200);
    expect(body.map((p: Json) => p['@name'])).toEqual(['contact', 'personalization']);
    for (const p of body) {
      expect(p['@nodeType']).toBe('cms:page');
      expect(Object.keys(p)).toEqual(['@name', '@path', '@id', '@nodeType', 'cms:template', 'title', '@nodes']);
    }
  });

  it('answers the navigation of the site root with its pages down to depth 2', async () => {
    const { body } = await getJson(t.app, '/.rest/delivery/pagenav/v1/react-minimal');
    expect(body['@nodes']).toEqual(['contact', 'personalization']);
    expect(body.contact['@nodes']).toEqual([]);
  });

  it('never shows the personalization variants container', async () => {
    const { body } = await getJson(t.app, '/.rest/delivery/pages/v1/react-minimal/personalization');
    expect(body.main['0']['@nodes']).toEqual([]);
    expect(body.main['0'].variants).toBeUndefined();
  });
});
