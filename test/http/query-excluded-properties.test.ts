// What an endpoint's definition excludes is invisible through that endpoint: never rendered, whatever
// the query string, and not observable through filters, orderBy or q. Each rule is checked against
// `open`, the same content through an endpoint without exclusions, so that a test fails if the
// secret leaks (the answers of `secret` must equal those of a store where the property does not exist).
// Run on both query paths (npm test runs query-*.test.ts again with the query index).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, getJson, TWO_LANGUAGE_SITE, type TestApp } from '../helpers/test-app.js';

const DEFINITIONS: Record<string, string> = {
  'delivery/open.yaml': `
$type: jcrDeliveryEndpoint_v2
workspace: plants
nodeTypes: [mgnl:content]
`,
  'delivery/secret.yaml': `
$type: jcrDeliveryEndpoint_v2
workspace: plants
nodeTypes: [mgnl:content]
depth: 1
excludeProperties: [notes]
`,
  // Both lists in the definition: its excludeProperties is ignored (rule 4), notes is simply not listed.
  'delivery/listed.yaml': `
$type: jcrDeliveryEndpoint_v2
workspace: plants
nodeTypes: [mgnl:content]
properties: [title, notes]
excludeProperties: [notes]
`,
};

/** Notes hold words found nowhere else (glasshouse, weevil); `fern` has glasshouse in its title too. */
const PLANTS = `
catalog:
  jcr:primaryType: mgnl:folder
  rose:
    jcr:primaryType: mgnl:content
    title: Shrub rose
    rank: 3
    notes: 'In glasshouse 2; check for weevil'
    notes_de: 'Im Gewächshaus; Rüsselkäfer prüfen'
    child:
      jcr:primaryType: mgnl:contentNode
      title: Care
      notes: 'weevil again'
  tulip:
    jcr:primaryType: mgnl:content
    title: Tulip
    rank: 1
    notes: 'Zebra tulips sell out first'
  fern:
    jcr:primaryType: mgnl:content
    title: Glasshouse fern
    rank: 2
    notes: 'Aardvark shade bed'
  moss:
    jcr:primaryType: mgnl:content
    title: Moss
    rank: 4
`;

let t: TestApp;

async function q(url: string) {
  const r = await getJson(t.app, url);
  expect(r.status, `${url}: ${r.raw}`).toBe(200);
  return r.body as { total: number; results: Record<string, unknown>[] };
}
const names = (b: { results: Record<string, unknown>[] }) => b.results.map((n) => n['@name']);

beforeAll(async () => {
  t = await createTestApp({ definitions: DEFINITIONS, content: { 'plants.catalog.yaml': PLANTS }, site: TWO_LANGUAGE_SITE });
}, 180_000);
afterAll(async () => {
  await t?.close();
});

describe('excludeProperties of the definition', () => {
  it('is not rendered when the request lists the property in properties', async () => {
    const open = await q('/.rest/delivery/open?properties=notes,title&orderBy=rank');
    expect(open.results[0]).toHaveProperty('notes');
    for (const url of ['/.rest/delivery/secret?properties=notes,title', '/.rest/delivery/secret?properties=notes', '/.rest/delivery/secret?lang=all', '/.rest/delivery/secret?lang=de&properties=notes']) {
      const { raw } = await getJson(t.app, url);
      expect(raw, url).not.toContain('"notes');
      expect(raw, url).not.toContain('weevil');
      expect(raw, url).not.toContain('Gewächshaus');
    }
    const read = await getJson(t.app, '/.rest/delivery/secret/catalog/rose?properties=notes,title');
    expect(read.body.title).toBe('Shrub rose');
    expect(read.raw).not.toContain('notes');
    const children = await getJson(t.app, '/.rest/delivery/secret/catalog@nodes?properties=notes');
    expect(children.raw).not.toContain('notes');
  });

  it('a definition with both lists shows what its properties list names (rule 4)', async () => {
    const b = await q('/.rest/delivery/listed?@name=rose');
    expect(b.results[0]!.notes).toBe('In glasshouse 2; check for weevil');
  });

  it('filters on it match as on a property no node has', async () => {
    expect((await q('/.rest/delivery/open?notes[like]=%25glasshouse%25')).total).toBe(1);
    for (const f of ['notes[like]=%25glasshouse%25', 'notes=Aardvark%20shade%20bed', 'notes[ne]=x', 'notes[null]=false',
      'notes[gt]=A', 'notes[in]=A~Z', 'notes[not-in]=A~B', 'notes[ilike]=%25', 'notes_de[like]=%25', 'notes_de[null]=false']) {
      expect((await q(`/.rest/delivery/secret?${f}`)).total, f).toBe(0);
      expect((await q(`/.rest/delivery/secret?${f}&title[null]=false`)).total, f).toBe(0);
    }
    expect((await q('/.rest/delivery/secret?notes[null]=true')).total).toBe(4);
    expect((await q('/.rest/delivery/secret?notes_de[null]=true')).total).toBe(4);
    // Malformed values get the answer a missing property gets, not one that depends on stored kinds.
    expect((await getJson(t.app, '/.rest/delivery/secret?notes[null]=maybe')).status).toBe(400);
    expect((await getJson(t.app, '/.rest/delivery/secret?notes[in]=nope')).status).toBe(400);
    expect((await getJson(t.app, '/.rest/delivery/secret?rank[gt]=abc')).status).toBe(400);
    expect((await getJson(t.app, '/.rest/delivery/secret?notes[gt]=abc')).status).toBe(200);
  });

  it('orderBy on it leaves the order to the next key, as for a property no node has', async () => {
    const byNotes = names(await q('/.rest/delivery/open?orderBy=notes'));
    expect(byNotes).toEqual(['fern', 'rose', 'tulip', 'moss']);
    const plain = names(await q('/.rest/delivery/secret'));
    expect(names(await q('/.rest/delivery/secret?orderBy=notes'))).toEqual(plain);
    expect(names(await q('/.rest/delivery/secret?orderBy=notes%20desc'))).toEqual(plain);
    expect(names(await q('/.rest/delivery/secret?orderBy=notes,rank'))).toEqual(['tulip', 'fern', 'rose', 'moss']);
    expect(names(await q('/.rest/delivery/secret?orderBy=notes_de%20desc,rank%20desc'))).toEqual(['moss', 'rose', 'fern', 'tulip']);
  });

  it('q does not see its words, in any language variant', async () => {
    expect(names(await q('/.rest/delivery/open?q=weevil'))).toEqual(['rose']);
    expect((await q('/.rest/delivery/secret?q=weevil')).total).toBe(0);
    expect((await q('/.rest/delivery/secret?q=weev*')).total).toBe(0);
    expect((await q('/.rest/delivery/secret?q=aardvark')).total).toBe(0);
    expect((await q('/.rest/delivery/secret?q=gewächshaus')).total).toBe(0);
    expect((await q('/.rest/delivery/secret?q=shrub%20weevil')).total).toBe(0);
    // A word in a hidden property and in a visible one still matches through the visible one.
    expect(names(await q('/.rest/delivery/open?q=glasshouse&orderBy=rank'))).toEqual(['fern', 'rose']);
    const both = await q('/.rest/delivery/secret?q=glasshouse');
    expect(both.total).toBe(1);
    expect(names(both)).toEqual(['fern']);
    expect(names(await q('/.rest/delivery/secret?q=glass*'))).toEqual(['fern']);
    expect(names(await q('/.rest/delivery/secret?q=tulip'))).toEqual(['tulip']);
    // Paging and totals count only true matches.
    expect(await q('/.rest/delivery/secret?q=glasshouse&limit=1&offset=1')).toMatchObject({ total: 1, results: [] });
  });
});
