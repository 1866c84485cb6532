// The travel-spa corpus as the react-minimal front end uses it: content and light modules unchanged,
// `namespace: mgnl`, pages features on its plain pages_v1 endpoint (petal.yaml `pages.allEndpoints`),
// and two pages of ours on the templates the corpus ships without pages (contact-inheritance,
// basic-autogeneration). Checks what the front end reads: @name/@path/@id, mgnl:template,
// @nodeType, @nodes in order with every name present as a key.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { CORPORA, CORPORA_AVAILABLE } from '../../helpers/corpora.js';
import { createTestApp, getJson, type TestApp } from '../../helpers/test-app.js';
import { importPaths } from '../../../src/ingest/run-import.js';

const SPA = join(CORPORA, 'travel-spa', 'magnolia');
const EXTRA = join(import.meta.dirname, '..', '..', 'fixtures', 'travel-spa-pages');
const PAGES = '/.rest/delivery/pages/v1';

/** Every node of an answer is well formed for the front end: keys for all @nodes, templates on components. */
function expectWellFormed(node: any): void {
  expect(typeof node['@name']).toBe('string');
  expect(typeof node['@path']).toBe('string');
  expect(node['@id']).toMatch(/^[0-9a-f-]{36}$/);
  expect(String(node['@nodeType'])).toMatch(/^mgnl:/);
  if (node['@nodeType'] === 'mgnl:component' || node['@nodeType'] === 'mgnl:page') expect(typeof node['mgnl:template']).toBe('string');
  for (const n of node['@nodes']) {
    expect(Object.hasOwn(node, n)).toBe(true);
    expectWellFormed(node[n]);
  }
}

let t: TestApp;

// Skipped where the original CMS's corpora are absent (PETAL_CORPORA; test/helpers/corpora.ts warns); CI beside ../shared runs it.
describe.skipIf(!CORPORA_AVAILABLE)('travel-spa react-minimal pages (inheritance, autogeneration, personalization)', () => {
  beforeAll(async () => {
    t = await createTestApp({
      contentPaths: [join(SPA, '_dev')], moduleRoots: [join(SPA, 'light-modules')], namespace: 'mgnl', pagesOnAllEndpoints: true,
    });
    await importPaths(t.store, [EXTRA], { onUuidCollision: 'new' });
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  it('the personalization page: X-Mgnl-Age: Senior gets the senior variant', async () => {
    const { status, body, headers } = await getJson(t.app, `${PAGES}/react-minimal/personalization`, { 'X-Mgnl-Age': 'Senior' });
    expect(status).toBe(200);
    expectWellFormed(body);
    expect(body['mgnl:template']).toBe('react-minimal-lm:pages/personalization');
    const c = body.main['0'];
    expect(c['@variantNodeName']).toBe('variant-2');
    expect(c['@variantPath']).toBe('/react-minimal/personalization/main/0/variants/variant-2');
    expect(c['@path']).toBe('/react-minimal/personalization/main/0');
    expect(c['@id']).toBe('e254b7bc-bac6-4569-a287-f532a84e8bba');
    expect(c['mgnl:template']).toBe('spa-lm:components/paragraph');
    expect(c.richText).toContain('Hey senior');
    expect(JSON.stringify(body)).not.toContain('variants"');
    expect(String(headers.vary).toLowerCase()).toContain('x-mgnl-age');
  });

  it('the personalization page as the front end asks for it (lang and editor parameters are kept in the search)', async () => {
    const { status, body } = await getJson(t.app, `${PAGES}/react-minimal/personalization?lang=en&mgnlPreview=false&mgnlChannel=desktop`, { 'X-Mgnl-Age': 'Senior' });
    expect(status).toBe(200);
    expect(body.main['0']['@variantNodeName']).toBe('variant-2');
    expect(body.main['0'].richText).toContain('Hey senior');
  });

  it.each([['Child', 'variant-0', 'Hey young person'], ['Adult', 'variant-1', 'Hey grown-up']])(
    'the personalization page for %s', async (age, variant, text) => {
      const c = (await getJson(t.app, `${PAGES}/react-minimal/personalization`, { 'x-mgnl-age': age })).body.main['0'];
      expect(c['@variantNodeName']).toBe(variant);
      expect(c.richText).toContain(text);
    });

  it('the personalization page without the trait shows the original paragraph', async () => {
    const c = (await getJson(t.app, `${PAGES}/react-minimal/personalization`)).body.main['0'];
    expect(c['@variantNodeName']).toBeUndefined();
    expect(c.richText).toContain('Enter your age');
    expect(c['@nodes']).toEqual([]);
  });

  it('a contact-inheritance page shows the site root\'s and the contact page\'s main components first, then its own', async () => {
    const { status, body } = await getJson(t.app, `${PAGES}/react-minimal/contact/team`);
    expect(status).toBe(200);
    expectWellFormed(body);
    expect(body['mgnl:template']).toBe('react-minimal-lm:pages/contact-inheritance');
    const main = body.main;
    expect(main['@nodes']).toEqual(['00_inherited_1', '01_inherited_1', '00_inherited_2', '0_inherited_2', '01_inherited_2', '02_inherited_2', '0']);
    expect(main['00_inherited_1']['@path']).toBe('/react-minimal/main/00');
    expect(main['0_inherited_2']['@path']).toBe('/react-minimal/contact/main/0');
    expect(main['0_inherited_2']['mgnl:template']).toBe('spa-lm:components/expander');
    expect(main['0_inherited_2'].expanderItems['@nodes']).toEqual(['00']);
    expect(main['0'].richText).toContain("Our team page's own paragraph.");
  });

  it('the contact page itself (contact template, no inheritance) is unchanged', async () => {
    const { body } = await getJson(t.app, `${PAGES}/react-minimal/contact`);
    expect(body.main['@nodes']).toEqual(['00', '0', '01', '02']);
  });

  it('a basic-autogeneration page with nothing stored gets the headline in main', async () => {
    const { status, body } = await getJson(t.app, `${PAGES}/react-minimal/autogenerated`);
    expect(status).toBe(200);
    expectWellFormed(body);
    expect(body['@nodes']).toEqual(['main']);
    expect(body.main['@nodeType']).toBe('mgnl:area');
    expect(body.main['@nodes']).toEqual(['headline']);
    expect(body.main.headline).toMatchObject({
      '@name': 'headline', '@path': '/react-minimal/autogenerated/main/headline', '@nodeType': 'mgnl:component',
      'mgnl:template': 'spa-lm:components/headline', text: '<p>This is autogeneration headline</p>',
    });
  });

  it('the other react-minimal pages stay as stored (basic template: no generation)', async () => {
    const { body } = await getJson(t.app, `${PAGES}/react-minimal`);
    expectWellFormed(body);
    expect(body['@nodes']).toEqual(['main', 'extras']);
    expect(body.main['@nodes']).toEqual(['00', '01']);
  });

  it('pagenav lists the new pages for the router', async () => {
    const { body } = await getJson(t.app, '/.rest/delivery/pagenav/v1/react-minimal');
    expect(body['@nodes']).toEqual(expect.arrayContaining(['contact', 'personalization', 'autogenerated']));
    expect(body.contact['@nodes']).toEqual(['team']);
  });
});
