// HTTP language rules of Query nodes (site en default + de): filters on suffixed properties, the
// default language has no suffix, `lang`/Accept-Language rendering and Content-Language, child-node
// variants are not results of their own unless `lang=all`, `q` across variants.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { createTestApp, getJson, type TestApp } from '../helpers/test-app.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/query/', import.meta.url));

const DEFINITIONS: Record<string, string> = {
  'delivery/pages.yaml': `
$type: jcrDeliveryEndpoint_v2
workspace: website
nodeTypes: [mgnl:page]
depth: 2
childNodeTypes: [mgnl:area, mgnl:component]
`,
  'delivery/parts.yaml': `
$type: jcrDeliveryEndpoint_v2
workspace: website
nodeTypes: [mgnl:area, mgnl:component]
`,
  'delivery/tours.yaml': `
$type: jcrDeliveryEndpoint_v2
workspace: tours
nodeTypes: [mgnl:content]
limit: 100
`,
};

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({ definitions: DEFINITIONS, contentPaths: [FIXTURES] });
});
afterAll(async () => {
  await t.close();
});

type Json = Record<string, any>;

async function query(url: string, headers: Record<string, string> = {}) {
  const r = await getJson(t.app, url, headers);
  if (r.status !== 200) throw new Error(`${url}: ${r.status} ${r.raw}`);
  return { ...(r.body as { total: number; offset: number; limit: number; results: Json[] }), headers: r.headers };
}

async function paths(url: string, headers: Record<string, string> = {}): Promise<string[]> {
  const r = await query(url, headers);
  expect(r.total).toBe(r.results.length);
  return r.results.map((n) => n['@path']).sort();
}

describe('Query nodes: filters on language variants', () => {
  it('filters on a suffixed property', async () => {
    expect(await paths('/.rest/delivery/pages?title_de[like]=%25Haus%25')).toEqual(['/home/lakehouse']);
    expect(await paths('/.rest/delivery/pages?title_de=Bootshaus')).toEqual(['/home/boathouse']);
    expect(await paths('/.rest/delivery/pages?title_de[null]=true')).toEqual(['/home/plain']);
    expect(await paths('/.rest/delivery/tours?body_de[like]=%25Tempel%25')).toEqual(['/catalog/asia/japan/japan-spring']);
  });

  it('returns nothing for a filter on the default language suffix', async () => {
    for (const f of ['title_en=Home', 'title_en[like]=%25', 'title_en[null]=false', 'title_en[null]=true', 'title_en[ne]=x']) {
      const r = await query(`/.rest/delivery/pages?${f}`);
      expect(r.total, f).toBe(0);
      expect(r.results, f).toEqual([]);
    }
  });

  it('searches only the base property without lang', async () => {
    expect(await paths('/.rest/delivery/pages?title[like]=%25Haus%25')).toEqual([]);
    expect(await paths('/.rest/delivery/pages?title[like]=%25House%25')).toEqual(['/home/lakehouse']);
    expect(await paths('/.rest/delivery/pages?title[ilike]=%25house%25')).toEqual(['/home/boathouse', '/home/lakehouse']);
    expect(await paths('/.rest/delivery/pages?title=Startseite')).toEqual([]);
    expect(await paths('/.rest/delivery/pages?intro[null]=false')).toEqual([]); // only intro_de exists
  });
});

describe('Query nodes: rendering in a language', () => {
  it('renders default-language values without lang and says so in Content-Language', async () => {
    const r = await query('/.rest/delivery/pages?@name=lakehouse');
    expect(r.headers['content-language']).toBe('en');
    expect(r.results[0].title).toBe('Lake House');
    expect(r.results[0].title_de).toBeUndefined();
    expect(r.results[0].intro).toBeUndefined();
    expect(r.results[0].intro_de).toBeUndefined();
  });

  it('renders title_de under title with lang=de and sets Content-Language: de', async () => {
    const r = await query('/.rest/delivery/pages?title_de[like]=%25Haus%25&lang=de');
    expect(r.headers['content-language']).toBe('de');
    expect(r.total).toBe(1);
    const [lake] = r.results;
    expect(lake.title).toBe('Haus am See');
    expect(lake.intro).toBe('Nur deutsch');
    expect(lake.title_de).toBeUndefined();
    expect(Object.keys(lake)).toEqual(['@name', '@path', '@id', '@nodeType', 'title', 'intro', '@nodes']);
  });

  it('falls back to the base value when the language has no variant', async () => {
    const r = await query('/.rest/delivery/pages?@name=plain&lang=de');
    expect(r.results[0].title).toBe('Plain page');
  });

  it('uses child-node variants inside results with lang=de', async () => {
    const r = await query('/.rest/delivery/pages?@name=home&lang=de');
    const [home] = r.results;
    expect(home.title).toBe('Startseite');
    expect(home['@nodes']).toEqual(['main']);
    expect(home.main['@name']).toBe('main_de');
    expect(home.main['@nodes']).toEqual(['0']);
    expect(home.main['0'].text).toBe('Willkommen aus der deutschen Fläche');
    const en = await query('/.rest/delivery/pages?@name=home');
    expect(en.results[0].main['@name']).toBe('main');
    expect(en.results[0].main['0'].text).toBe('Welcome to the house');
    expect(en.results[0]['@nodes']).toEqual(['main']);
  });

  it('follows Accept-Language for queries too, lang winning over it', async () => {
    const de = await query('/.rest/delivery/pages?@name=boathouse', { 'accept-language': 'de-DE,de;q=0.9,en;q=0.5' });
    expect(de.headers['content-language']).toBe('de');
    expect(de.results[0].title).toBe('Bootshaus');
    const fr = await query('/.rest/delivery/pages?@name=boathouse', { 'accept-language': 'fr' });
    expect(fr.headers['content-language']).toBe('en');
    expect(fr.results[0].title).toBe('Boathouse');
    const both = await query('/.rest/delivery/pages?@name=boathouse&lang=en', { 'accept-language': 'de' });
    expect(both.headers['content-language']).toBe('en');
    expect(both.results[0].title).toBe('Boathouse');
    const component = await query('/.rest/delivery/parts?@name=0', { 'accept-language': 'de' });
    expect(component.results[0].text).toBe('Willkommen im Haus');
  });

  it('accepts de_DE and de-DE forms of lang', async () => {
    for (const lang of ['de_DE', 'de-DE', 'DE']) {
      const r = await query(`/.rest/delivery/pages?@name=boathouse&lang=${lang}`);
      expect(r.results[0].title, lang).toBe('Bootshaus');
      expect(r.headers['content-language'], lang).toBe('de');
    }
  });

  it('shows base and variant properties with lang=all', async () => {
    const r = await query('/.rest/delivery/pages?@name=lakehouse&lang=all');
    expect(r.results[0].title).toBe('Lake House');
    expect(r.results[0].title_de).toBe('Haus am See');
    expect(r.results[0].intro_de).toBe('Nur deutsch');
  });
});

describe('Query nodes: child-node variants as results', () => {
  it('never returns x_de nodes as results of their own, whatever the language', async () => {
    expect(await paths('/.rest/delivery/parts')).toEqual(['/home/main', '/home/main/0']);
    expect(await paths('/.rest/delivery/parts?lang=de')).toEqual(['/home/main', '/home/main/0']);
    expect(await paths('/.rest/delivery/parts?lang=en')).toEqual(['/home/main', '/home/main/0']);
    expect(await paths('/.rest/delivery/parts', { 'accept-language': 'de' })).toEqual(['/home/main', '/home/main/0']);
  });

  it('returns them with lang=all', async () => {
    expect(await paths('/.rest/delivery/parts?lang=all')).toEqual(['/home/main', '/home/main/0', '/home/main_de', '/home/main_de/0_de']);
  });

  it('keeps them out of filters and totals too', async () => {
    expect(await paths('/.rest/delivery/parts?text[like]=Willkommen%25')).toEqual([]);
    expect(await paths('/.rest/delivery/parts?text[like]=Willkommen%25&lang=all')).toEqual(['/home/main_de/0_de']);
    expect(await paths('/.rest/delivery/parts?@name[like]=%25_de')).toEqual([]);
    const page = await query('/.rest/delivery/parts?limit=1&offset=1');
    expect(page.total).toBe(2);
  });
});

describe('Query nodes: q across language variants', () => {
  it('finds a word that is only in a variant, rendering in the requested language', async () => {
    const r = await query('/.rest/delivery/pages?q=Bootshaus');
    expect(r.results.map((n) => n['@path'])).toEqual(['/home/boathouse']);
    expect(r.results[0].title).toBe('Boathouse');
    expect(r.headers['content-language']).toBe('en');
    const de = await query('/.rest/delivery/pages?q=boathouse&lang=de');
    expect(de.results.map((n) => n['@path'])).toEqual(['/home/boathouse']);
    expect(de.results[0].title).toBe('Bootshaus');
  });

  it('finds words of every language, and words of one variant only on that node', async () => {
    expect(await paths('/.rest/delivery/parts?q=willkommen')).toEqual(['/home/main/0']); // text_de
    expect(await paths('/.rest/delivery/parts?q=willkommen&lang=all')).toEqual(['/home/main/0', '/home/main_de/0_de']);
    expect(await paths('/.rest/delivery/pages?q=haus')).toEqual(['/home/lakehouse']); // title_de "Haus am See"
    expect(await paths('/.rest/delivery/pages?q=haus*')).toEqual(['/home/lakehouse']);
    expect(await paths('/.rest/delivery/pages?q=house')).toEqual(['/home/lakehouse']); // not Boathouse: whole words
    expect(await paths('/.rest/delivery/tours?q=moderne')).toEqual(['/catalog/asia/vietnam']);
  });
});
