// Personalization: traits from a header, a cookie or a query parameter (as the light module's trait
// definitions say) choose the first matching variant, which stands in for the original with
// @variantNodeName/@variantPath; no match keeps the original; variants never show; answers vary by
// trait in the cache and in Vary.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { createTestApp, getJson, type TestApp } from '../../helpers/test-app.js';

const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures');
const PAGES = `$type: jcrPagesDeliveryEndpoint_v2\n`;
const PLAIN_PERSONALIZED = `$type: jcrDeliveryEndpoint_v2\nworkspace: website\ndepth: 5\npersonalized: true\nchildNodeTypes: [mgnl:area, mgnl:component, mgnl:contentNode]\n`;
const NOT_PERSONALIZED = `$type: jcrPagesDeliveryEndpoint_v2\npersonalized: false\n`;
// Personalized, every node type embedded: nothing but personalization keeps variants out of answers.
const OPEN_PERSONALIZED = `$type: jcrDeliveryEndpoint_v2\nworkspace: website\ndepth: 3\npersonalized: true\n`;
const URL = '/.rest/delivery/pages/v1/p13n';

let t: TestApp;

describe('personalization', () => {
  beforeAll(async () => {
    t = await createTestApp({
      definitions: {
        'delivery/pages_v1.yaml': PAGES,
        'delivery/plainp_v1.yaml': PLAIN_PERSONALIZED,
        'delivery/static_v1.yaml': NOT_PERSONALIZED,
        'delivery/open_v1.yaml': OPEN_PERSONALIZED,
      },
      moduleRoots: [join(FIXTURES, 'pages-modules')],
      contentPaths: [join(FIXTURES, 'p13n')],
    });
  }, 180_000);
  afterAll(async () => {
    await t?.close();
  });

  it.each([
    ['Child', 'variant-0', 'Hey young person'],
    ['Adult', 'variant-1', 'Hey grown-up'],
    ['Senior', 'variant-2', 'Hey senior'],
  ])('header trait x-age: %s gets %s in place of the original', async (age, variant, text) => {
    const { status, body, raw } = await getJson(t.app, URL, { 'x-age': age });
    expect(status).toBe(200);
    const c = body.main.age;
    expect(c['@name']).toBe('age');
    expect(c['@path']).toBe('/p13n/main/age');
    expect(c['@variantNodeName']).toBe(variant);
    expect(c['@variantPath']).toBe(`/p13n/main/age/variants/${variant}`);
    expect(c.text).toBe(text);
    expect(c['@nodes']).toEqual([]);
    expect(body.main['@nodes']).toEqual(['age', 'color', 'season', 'plain']);
    // @variant keys right after @nodeType
    expect(raw).toContain(`"@nodeType":"cms:component","@variantNodeName":"${variant}","@variantPath"`);
  });

  it('keeps the @id of the original', async () => {
    const original = (await getJson(t.app, URL)).body.main.age['@id'];
    const senior = (await getJson(t.app, URL, { 'x-age': 'Senior' })).body.main.age['@id'];
    expect(senior).toBe(original);
  });

  it('without the trait, or with a value no variant names, the original stays', async () => {
    for (const headers of [{}, { 'x-age': 'Toddler' }, { 'x-age': 'senior' }] as Record<string, string>[]) {
      const c = (await getJson(t.app, URL, headers)).body.main.age;
      expect(c.text).toBe('Enter your age');
      expect(c['@variantNodeName']).toBeUndefined();
      expect(c['@nodes']).toEqual([]);
    }
  });

  it('the variants container and rule sets never appear', async () => {
    for (const headers of [{}, { 'x-age': 'Adult' }] as Record<string, string>[]) {
      const { raw } = await getJson(t.app, URL, headers);
      expect(raw).not.toContain('"variants"');
      expect(raw).not.toContain('ruleSet');
      expect(raw).not.toContain('voter');
    }
    const { raw } = await getJson(t.app, '/.rest/delivery/plainp/v1/p13n', { 'x-age': 'Adult' });
    expect(raw).toContain('"@variantNodeName":"variant-1"');
    expect(raw).not.toContain('ruleSet');
    expect(raw).not.toContain('"variants"');
  });

  it('a cookie trait chooses by cookie', async () => {
    expect((await getJson(t.app, URL, { cookie: 'color=red' })).body.main.color.text).toBe('Red it is');
    expect((await getJson(t.app, URL, { cookie: 'color=blue' })).body.main.color.text).toBe('No colour');
  });

  it('a request parameter trait chooses by query parameter; op: or and not: true are honoured', async () => {
    expect((await getJson(t.app, `${URL}?season=winter`)).body.main.season.text).toBe('Winter or autumn');
    expect((await getJson(t.app, `${URL}?season=autumn`)).body.main.season.text).toBe('Winter or autumn');
    expect((await getJson(t.app, `${URL}?season=summer`, { 'x-age': 'Adult' })).body.main.season.text).toBe('Any season');
    expect((await getJson(t.app, `${URL}?season=spring`, { 'x-age': 'Adult' })).body.main.season.text).toBe('Not summer, grown-up');
    expect((await getJson(t.app, `${URL}?season=spring`)).body.main.season.text).toBe('Any season');
  });

  it('a component addressed directly, and Get children, are personalized too', async () => {
    const direct = (await getJson(t.app, `${URL}/main/age`, { 'x-age': 'Child' })).body;
    expect(direct['@variantNodeName']).toBe('variant-0');
    expect(direct['@path']).toBe('/p13n/main/age');
    const kids = (await getJson(t.app, `${URL}/main@nodes`, { 'x-age': 'Child' })).body;
    expect(kids[0]['@variantNodeName']).toBe('variant-0');
  });

  it('variants are not addressable directly', async () => {
    expect((await getJson(t.app, `${URL}/main/age/variants`)).status).toBe(404);
    expect((await getJson(t.app, `${URL}/main/age/variants/variant-0`)).status).toBe(404);
    expect((await getJson(t.app, `${URL}/main/age/variants/variant-0@nodes`)).status).toBe(404);
  });

  it('answers vary by trait: the cache keeps them apart and Vary names the trait header and Cookie', async () => {
    const senior = await getJson(t.app, URL, { 'x-age': 'Senior' });
    const child = await getJson(t.app, URL, { 'x-age': 'Child' });
    const none = await getJson(t.app, URL);
    const seniorAgain = await getJson(t.app, URL, { 'x-age': 'Senior' });
    expect(senior.body.main.age.text).toBe('Hey senior');
    expect(child.body.main.age.text).toBe('Hey young person');
    expect(none.body.main.age.text).toBe('Enter your age');
    expect(seniorAgain.raw).toBe(senior.raw);
    expect(senior.headers.etag).not.toBe(child.headers.etag);
    const vary = String(senior.headers.vary).toLowerCase().split(/,\s*/);
    expect(vary).toEqual(expect.arrayContaining(['accept-language', 'x-age', 'cookie']));
  });

  it('a 304 is given only for the same trait values', async () => {
    const senior = await getJson(t.app, URL, { 'x-age': 'Senior' });
    const same = await t.app.inject({ url: URL, headers: { 'x-age': 'Senior', 'if-none-match': String(senior.headers.etag) } });
    const other = await t.app.inject({ url: URL, headers: { 'x-age': 'Child', 'if-none-match': String(senior.headers.etag) } });
    expect(same.statusCode).toBe(304);
    expect(other.statusCode).toBe(200);
  });

  it('an endpoint with personalized: false shows the originals and does not vary by trait', async () => {
    const { body, headers } = await getJson(t.app, '/.rest/delivery/static/v1/p13n', { 'x-age': 'Senior' });
    expect(body.main.age.text).toBe('Enter your age');
    expect(String(headers.vary)).not.toContain('x-age');
  });

  it('Query nodes are not personalized', async () => {
    const { body } = await getJson(t.app, '/.rest/delivery/pages/v1?@name=age', { 'x-age': 'Senior' });
    expect(body.results).toHaveLength(1);
    expect(body.results[0].text).toBe('Enter your age');
  });

  it('Query nodes never answer a variant, whatever the filter or search (totals count none)', async () => {
    for (const url of ['/.rest/delivery/pages/v1?q=senior', '/.rest/delivery/pages/v1?@name=variant-0',
      '/.rest/delivery/open/v1?q=senior', '/.rest/delivery/open/v1?@name=voter0', '/.rest/delivery/open/v1?@name=variants']) {
      const { status, body } = await getJson(t.app, url, { 'x-age': 'Senior' });
      expect(status, url).toBe(200);
      expect(body, url).toMatchObject({ total: 0, results: [] });
    }
    const { body } = await getJson(t.app, '/.rest/delivery/pages/v1?@ancestor=/p13n&limit=100');
    expect(body.results.map((r: any) => r['@path'])).toEqual(['/p13n/main', '/p13n/main/age', '/p13n/main/color', '/p13n/main/plain', '/p13n/main/season']);
    expect(body.total).toBe(5);
  });

  it('Query nodes results never embed a variants container or its rule sets', async () => {
    const { body, raw } = await getJson(t.app, '/.rest/delivery/open/v1?@name=age', { 'x-age': 'Senior' });
    expect(body.results).toHaveLength(1);
    expect(body.results[0]['@nodes']).toEqual([]);
    expect(raw).not.toContain('variant');
    expect(raw).not.toContain('ruleSet');
    // a plain read on that endpoint is personalized and hides them as well
    const read = await getJson(t.app, '/.rest/delivery/open/v1/p13n/main/age', { 'x-age': 'Senior' });
    expect(read.body.text).toBe('Hey senior');
    expect(read.raw).not.toContain('ruleSet');
  });
});

describe('personalization of a component whose variant has children', () => {
  let c: TestApp;
  const CONTENT = `
shop:
  jcr:primaryType: mgnl:page
  main:
    jcr:primaryType: mgnl:area
    teaser:
      jcr:primaryType: mgnl:component
      text: Original teaser
      link:
        jcr:primaryType: mgnl:component
        label: Original link
      variants:
        jcr:primaryType: mgnl:componentVariants
        variant-0:
          jcr:primaryType: mgnl:component
          jcr:mixinTypes: [mgnl:variant]
          text: Senior teaser
          offer:
            jcr:primaryType: mgnl:component
            label: Senior offer
          mgnl:ruleSet:
            voters:
              voter0:
                traitId: x-age
                value: Senior
`;
  beforeAll(async () => {
    c = await createTestApp({
      definitions: { 'delivery/pages_v1.yaml': PAGES },
      moduleRoots: [join(FIXTURES, 'pages-modules')],
      content: { 'website.shop.yaml': CONTENT },
    });
  }, 180_000);
  afterAll(async () => {
    await c?.close();
  });

  it('Read node embeds the chosen variant\'s children, not the original\'s', async () => {
    const { body } = await getJson(c.app, '/.rest/delivery/pages/v1/shop/main/teaser', { 'x-age': 'Senior' });
    expect(body['@variantNodeName']).toBe('variant-0');
    expect(body['@nodes']).toEqual(['offer']);
    expect(body.offer.label).toBe('Senior offer');
  });

  it('Get children of the component lists the chosen variant\'s children, not the original\'s', async () => {
    const senior = await getJson(c.app, '/.rest/delivery/pages/v1/shop/main/teaser@nodes', { 'x-age': 'Senior' });
    expect(senior.status).toBe(200);
    expect(senior.body.map((n: any) => n.label)).toEqual(['Senior offer']);
    const none = await getJson(c.app, '/.rest/delivery/pages/v1/shop/main/teaser@nodes');
    expect(none.body.map((n: any) => n.label)).toEqual(['Original link']);
  });
});

describe('personalization and resolved references', () => {
  let r: TestApp;
  const CONTENT = `
shop:
  jcr:primaryType: mgnl:page
  main:
    jcr:primaryType: mgnl:area
    teaser:
      jcr:primaryType: mgnl:component
      jcr:uuid: 11111111-1111-4111-8111-111111111111
      text: Original teaser
      variants:
        jcr:primaryType: mgnl:componentVariants
        variant-0:
          jcr:primaryType: mgnl:component
          jcr:uuid: 22222222-2222-4222-8222-222222222222
          text: Senior teaser
          mgnl:ruleSet:
            voters:
              voter0:
                traitId: x-age
                value: Senior
    linker:
      jcr:primaryType: mgnl:component
      link: 11111111-1111-4111-8111-111111111111
    variantLinker:
      jcr:primaryType: mgnl:component
      link: 22222222-2222-4222-8222-222222222222
`;
  const refs = (personalized: boolean) => [
    '$type: jcrPagesDeliveryEndpoint_v2', `personalized: ${personalized}`, 'references:', '  - propertyName: link',
    '    referenceResolver:', '      $type: jcrReferenceResolver', '      targetWorkspace: website', '      depthInReferencedNode: 6',
  ].join('\n');
  beforeAll(async () => {
    r = await createTestApp({
      definitions: { 'delivery/refs_v1.yaml': refs(true), 'delivery/plainrefs_v1.yaml': refs(false) },
      moduleRoots: [join(FIXTURES, 'pages-modules')],
      content: { 'website.shop.yaml': CONTENT },
    });
  }, 180_000);
  afterAll(async () => {
    await r?.close();
  });

  it('a resolved reference never embeds a variants container, its variants or rule sets', async () => {
    for (const headers of [{}, { 'x-age': 'Senior' }] as Record<string, string>[]) {
      const { status, body, raw } = await getJson(r.app, '/.rest/delivery/refs/v1/shop/main/linker', headers);
      expect(status).toBe(200);
      expect(body.link['@path']).toBe('/shop/main/teaser');
      expect(body.link['@nodes']).toEqual([]);
      expect(raw).not.toContain('Senior teaser');
      expect(raw).not.toContain('ruleSet');
    }
  });

  it('a reference to a variant itself is not resolved, as a missing target is not', async () => {
    const { body, raw } = await getJson(r.app, '/.rest/delivery/refs/v1/shop/main/variantLinker', { 'x-age': 'Senior' });
    expect(body.link).toBe('22222222-2222-4222-8222-222222222222');
    expect(raw).not.toContain('Senior teaser');
  });

  it('an endpoint that is not personalized resolves the stored tree as it is', async () => {
    const { body } = await getJson(r.app, '/.rest/delivery/plainrefs/v1/shop/main/variantLinker');
    expect(body.link.text).toBe('Senior teaser');
  });
});
