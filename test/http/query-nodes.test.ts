// HTTP rules of Query nodes: the paginated result object, scope (rootPath, nodeTypes, strict),
// rendering of results, pagination and its errors, full text (`q`), ordering and reserved parameters.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { createTestApp, getJson, type TestApp } from '../helpers/test-app.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/query/', import.meta.url));

const DEFINITIONS: Record<string, string> = {
  // Content nodes of the tours workspace (sub types of mgnl:content included).
  'delivery/tours.yaml': `
$type: jcrDeliveryEndpoint_v2
workspace: tours
nodeTypes: [mgnl:content]
`,
  // Every node of the tours workspace (folders and content nodes too).
  'delivery/all.yaml': `
$type: jcrDeliveryEndpoint_v2
workspace: tours
`,
  'delivery/asia.yaml': `
$type: jcrDeliveryEndpoint_v2
workspace: tours
rootPath: /catalog/asia
`,
  'delivery/small.yaml': `
$type: jcrDeliveryEndpoint_v2
workspace: tours
nodeTypes: [mgnl:content]
limit: 3
maxLimit: 5
`,
  'delivery/deep.yaml': `
$type: jcrDeliveryEndpoint_v2
workspace: tours
nodeTypes: [mgnl:content]
depth: 1
childNodeTypes: [mgnl:contentNode]
excludeProperties: [description]
`,
  'delivery/sys.yaml': `
$type: jcrDeliveryEndpoint_v2
workspace: tours
nodeTypes: [mgnl:content]
includeSystemProperties: true
`,
  'delivery/contentnodes.yaml': `
$type: jcrDeliveryEndpoint_v2
workspace: website
nodeTypes: [mgnl:contentNode]
`,
  'delivery/strictcontentnodes.yaml': `
$type: jcrDeliveryEndpoint_v2
workspace: website
nodeTypes: [mgnl:contentNode]
strict: true
`,
};

/** Content nodes of tours.catalog.yaml (nodeTypes mgnl:content). */
const CONTENT = [
  'japan-spring', 'Kyoto-Gardens', 'vietnam', 'alps', 'rome', 'paris', 'berlin', 'draft',
  'iceland', 'finland', 'fjords', 'a', 'b', 'c', 'd', 'odd',
];
const FOLDERS = ['catalog', 'asia', 'japan', 'europe', 'north', 'fruit'];
const CONTENT_NODES = ['images', 'guide'];

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
  return r.body as { total: number; offset: number; limit: number; results: Json[] };
}

/** Node names of the results, in order. */
async function names(url: string): Promise<string[]> {
  return (await query(url)).results.map((r) => r['@name']);
}

const sorted = (a: readonly string[]) => [...a].sort();

async function expectError(url: string, status: number, code: string, mention?: string) {
  const r = await getJson(t.app, url);
  expect(r.status, `${url}: ${r.raw}`).toBe(status);
  expect(r.body.error.code, url).toBe(code);
  if (mention !== undefined) expect(r.body.error.message, url).toContain(mention);
}

describe('Query nodes: result object', () => {
  it('answers {total, offset, limit, results} in that key order, with and without the trailing slash', async () => {
    const a = await getJson(t.app, '/.rest/delivery/tours');
    const b = await getJson(t.app, '/.rest/delivery/tours/');
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(a.headers['content-type']).toMatch(/^application\/json/);
    expect(a.raw.startsWith('{"total":16,"offset":0,"limit":10,"results":[')).toBe(true);
    expect(Object.keys(a.body)).toEqual(['total', 'offset', 'limit', 'results']);
    expect(b.raw).toBe(a.raw);
    expect(a.body.results).toHaveLength(10);
  });

  it('gives an empty results array (not a missing one) for an empty match', async () => {
    const r = await getJson(t.app, '/.rest/delivery/tours?name=nothing-has-this-name');
    expect(r.status).toBe(200);
    expect(r.raw).toBe('{"total":0,"offset":0,"limit":10,"results":[]}');
  });

  it('renders each result exactly as Read node renders the same node', async () => {
    const { results } = await query('/.rest/delivery/tours?limit=100');
    for (const node of results) {
      const read = await getJson(t.app, `/.rest/delivery/tours${node['@path']}`);
      expect(read.status).toBe(200);
      expect(node).toEqual(read.body);
    }
    const raw = (await getJson(t.app, '/.rest/delivery/tours?@name=rome')).raw;
    const read = (await getJson(t.app, '/.rest/delivery/tours/catalog/europe/rome')).raw;
    expect(raw).toBe(`{"total":1,"offset":0,"limit":10,"results":[${read}]}`);
  });

  it('renders results with the key order and value types of a node object', async () => {
    const { results } = await query('/.rest/delivery/tours?@name=japan-spring');
    const [japan] = results;
    expect(Object.keys(japan)).toEqual([
      '@name', '@path', '@id', '@nodeType', 'name', 'description', 'price', 'duration', 'activated', 'featured', 'tags', 'color', '@nodes',
    ]);
    expect(japan['@path']).toBe('/catalog/asia/japan/japan-spring');
    expect(japan['@id']).toBe('10000000-0000-4000-8000-000000000004');
    expect(japan['@nodeType']).toBe('cms:content');
    expect(japan.price).toBe(1000);
    expect(japan.duration).toBe(10);
    expect(japan.activated).toBe('2024-05-02T15:40:00.000+00:00');
    expect(japan.featured).toBe(true);
    expect(japan.tags).toEqual(['culture', 'garden']);
    expect(japan.body_de).toBeUndefined(); // a language variant, hidden without lang
    expect(japan['cms:created']).toBeUndefined(); // system properties are off
    expect(japan['@nodes']).toEqual([]); // depth 0
  });

  it('embeds children down to depth, filtered by childNodeTypes, and honours excludeProperties of the definition', async () => {
    const { results } = await query('/.rest/delivery/deep?@ancestor=/catalog/asia&orderBy=@name');
    expect(results.map((r) => r['@name'])).toEqual(['japan-spring', 'Kyoto-Gardens', 'vietnam']);
    const [japan, kyoto] = results;
    expect(japan['@nodes']).toEqual(['images']);
    expect(japan.images.caption).toBe('Sakura trees');
    expect(japan.images['@nodes']).toEqual([]);
    expect(japan.description).toBeUndefined();
    expect(kyoto['@nodes']).toEqual([]);
  });

  it('applies properties and excludeProperties of the query string', async () => {
    const p = await query('/.rest/delivery/tours?@name=rome&properties=name,price');
    expect(Object.keys(p.results[0])).toEqual(['@name', '@path', '@id', '@nodeType', 'name', 'price', '@nodes']);
    const x = await query('/.rest/delivery/tours?@name=rome&excludeProperties=description,tags,color,price');
    expect(Object.keys(x.results[0])).toEqual(['@name', '@path', '@id', '@nodeType', 'name', 'duration', 'activated', 'featured', '@nodes']);
    // The property lists only shape the output: they never filter.
    expect(p.total).toBe(1);
    const deep = await query('/.rest/delivery/deep?@name=japan-spring&excludeProperties=name');
    expect(deep.results[0].name).toBeUndefined();
    expect(deep.results[0].description).toBeUndefined(); // concatenated with the definition's list
    expect(deep.results[0].price).toBe(1000);
  });

  it('shows system properties when the endpoint includes them', async () => {
    const { results } = await query('/.rest/delivery/sys?@name=japan-spring');
    expect(results[0]['cms:created']).toBe('2023-01-10T08:00:00.000+00:00');
    expect(results[0]['cms:createdBy']).toBe('superuser');
  });
});

describe('Query nodes: scope', () => {
  it('queries the whole workspace below the root without rootPath or nodeTypes', async () => {
    const { total, results } = await query('/.rest/delivery/all?limit=100');
    expect(total).toBe(CONTENT.length + FOLDERS.length + CONTENT_NODES.length);
    expect(sorted(results.map((r) => r['@name']))).toEqual(sorted([...CONTENT, ...FOLDERS, ...CONTENT_NODES]));
    expect(results.some((r) => r['@path'] === '/')).toBe(false);
  });

  it('restricts results to nodeTypes (sub types included)', async () => {
    const { total, results } = await query('/.rest/delivery/tours?limit=100');
    expect(total).toBe(CONTENT.length);
    expect(sorted(results.map((r) => r['@name']))).toEqual(sorted(CONTENT));
    expect(new Set(results.map((r) => r['@nodeType']))).toEqual(new Set(['cms:content']));
  });

  it('matches sub types of nodeTypes unless strict', async () => {
    const loose = await query('/.rest/delivery/contentnodes?limit=100');
    expect(sorted(loose.results.map((r) => r['@nodeType']))).toEqual(['cms:area', 'cms:component', 'cms:contentNode']);
    expect(loose.total).toBe(3); // main, 0, link (main_de and 0_de are language variants)
    const strict = await query('/.rest/delivery/strictcontentnodes?limit=100');
    expect(strict.results.map((r) => r['@path'])).toEqual(['/home/main/0/link']);
    expect(strict.total).toBe(1);
  });

  it('takes strict descendants of rootPath: the root node itself is not a result, @path stays absolute', async () => {
    const { total, results } = await query('/.rest/delivery/asia?limit=100');
    expect(sorted(results.map((r) => r['@path']))).toEqual(sorted([
      '/catalog/asia/japan', '/catalog/asia/japan/japan-spring', '/catalog/asia/japan/japan-spring/images',
      '/catalog/asia/japan/Kyoto-Gardens', '/catalog/asia/vietnam',
    ]));
    expect(total).toBe(5);
  });

  it('keeps filters inside the rootPath scope', async () => {
    expect(await names('/.rest/delivery/asia?@name=rome')).toEqual([]);
    expect(await names('/.rest/delivery/asia?price[gt]=100&orderBy=price')).toEqual(['Kyoto-Gardens', 'japan-spring']);
    expect(await names('/.rest/delivery/asia?@path=/catalog/asia')).toEqual([]);
  });
});

describe('Query nodes: pagination', () => {
  it('uses offset 0 and the endpoint limit by default', async () => {
    const def = await query('/.rest/delivery/tours');
    expect([def.offset, def.limit, def.results.length]).toEqual([0, 10, 10]);
    const small = await query('/.rest/delivery/small');
    expect([small.offset, small.limit, small.results.length, small.total]).toEqual([0, 3, 3, 16]);
  });

  it('clamps limit to maxLimit (100 by default) and reports the clamped value', async () => {
    const small = await query('/.rest/delivery/small?limit=50');
    expect([small.limit, small.results.length]).toEqual([5, 5]);
    const big = await query('/.rest/delivery/all?limit=1000');
    expect(big.limit).toBe(100);
    expect(big.results).toHaveLength(24);
    const exact = await query('/.rest/delivery/small?limit=5');
    expect(exact.limit).toBe(5);
    const less = await query('/.rest/delivery/small?limit=1');
    expect([less.limit, less.results.length]).toEqual([1, 1]);
  });

  it('keeps total exact whatever the page, also past the end', async () => {
    for (const url of ['?offset=0&limit=1', '?offset=15&limit=5', '?offset=16', '?offset=1000']) {
      const r = await query(`/.rest/delivery/tours${url}`);
      expect(r.total, url).toBe(16);
    }
    const tail = await query('/.rest/delivery/tours?offset=14&limit=10');
    expect(tail.results).toHaveLength(2);
    expect(tail.offset).toBe(14);
    const past = await getJson(t.app, '/.rest/delivery/tours?offset=1000');
    expect(past.raw).toBe('{"total":16,"offset":1000,"limit":10,"results":[]}');
  });

  it('visits every node exactly once when paging with limit 2, in a stable order (by path) without orderBy', async () => {
    const all = await query('/.rest/delivery/all?limit=100');
    const paths = all.results.map((r) => r['@path'] as string);
    expect(paths).toEqual([...paths].sort());
    const seen: string[] = [];
    for (let offset = 0; offset < all.total; offset += 2) {
      const page = await query(`/.rest/delivery/all?limit=2&offset=${offset}`);
      expect(page.total).toBe(all.total);
      expect(page.results.length).toBe(Math.min(2, all.total - offset));
      seen.push(...page.results.map((r) => r['@path'] as string));
    }
    expect(seen).toEqual(paths);
    expect(new Set(seen).size).toBe(24);
    // The same request twice gives the same page.
    expect(await names('/.rest/delivery/all?limit=3&offset=7')).toEqual(await names('/.rest/delivery/all?limit=3&offset=7'));
  });

  it('pages through a filtered, ordered result consistently', async () => {
    const full = await names('/.rest/delivery/tours?price[gt]=0&orderBy=price%20desc&limit=100');
    const pages: string[] = [];
    for (let offset = 0; offset < full.length; offset += 2) {
      pages.push(...await names(`/.rest/delivery/tours?price[gt]=0&orderBy=price%20desc&limit=2&offset=${offset}`));
    }
    expect(pages).toEqual(full);
    expect(full).toHaveLength(9);
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=-1', 'limit'],
    ['limit=abc', 'limit'],
    ['limit=2.5', 'limit'],
    ['offset=-1', 'offset'],
    ['offset=1.5', 'offset'],
    ['offset=x', 'offset'],
  ])('answers 400 invalidQuery naming the parameter for %s', async (qs, param) => {
    await expectError(`/.rest/delivery/tours?${qs}`, 400, 'invalidQuery', param);
  });
});

describe('Query nodes: q (full text)', () => {
  it('matches whole words only; a trailing * matches prefixes', async () => {
    expect(await names('/.rest/delivery/tours?q=bet')).toEqual(['rome']);
    expect(sorted(await names('/.rest/delivery/tours?q=bet*'))).toEqual(sorted(['Kyoto-Gardens', 'vietnam', 'alps', 'rome']));
    expect(await names('/.rest/delivery/tours?q=hik')).toEqual([]);
    expect(await names('/.rest/delivery/tours?q=hik*')).toEqual(['alps']);
  });

  it('is case-insensitive', async () => {
    const expected = ['japan-spring', 'Kyoto-Gardens'];
    expect(sorted(await names('/.rest/delivery/tours?q=japan'))).toEqual(sorted(expected));
    expect(sorted(await names('/.rest/delivery/tours?q=JAPAN'))).toEqual(sorted(expected));
    expect(sorted(await names('/.rest/delivery/tours?q=jApAn'))).toEqual(sorted(expected));
  });

  it('requires every word to match', async () => {
    expect(await names('/.rest/delivery/tours?q=japan%20gardens')).toEqual(['Kyoto-Gardens']);
    expect(await names('/.rest/delivery/tours?q=japan%20saunas')).toEqual([]);
    expect(await names('/.rest/delivery/tours?q=lakes%20saunas')).toEqual(['finland']);
  });

  it('searches every language variant of the node’s own string properties', async () => {
    expect(await names('/.rest/delivery/tours?q=Tempel')).toEqual(['japan-spring']); // only in body_de
    expect(await names('/.rest/delivery/tours?q=geschichte')).toEqual(['berlin']);
    expect(sorted(await names('/.rest/delivery/tours?q=garden'))).toEqual(sorted(['japan-spring', 'Kyoto-Gardens'])); // tags
  });

  it('is not hidden by rich-text markup or entities, and does not find the markup itself', async () => {
    expect(await names('/.rest/delivery/tours?q=Fr%C3%BChling')).toEqual(['japan-spring']); // Fr&uuml;hling
    expect(await names('/.rest/delivery/tours?q=cherry%20blossoms')).toEqual(['japan-spring']);
    expect(await names('/.rest/delivery/tours?q=today')).toEqual(['vietnam']); // after &amp;
    expect(await names('/.rest/delivery/tours?q=uuml')).toEqual([]);
    expect(await names('/.rest/delivery/tours?q=amp')).toEqual([]);
    expect(await names('/.rest/delivery/tours?q=p')).toEqual([]);
  });

  it('does not search system properties, nor children (they are nodes of their own)', async () => {
    expect(await names('/.rest/delivery/tours?q=superuser')).toEqual([]);
    expect(await names('/.rest/delivery/tours?q=sakura')).toEqual([]);
    expect(await names('/.rest/delivery/all?q=sakura')).toEqual(['images']);
  });

  it('searches only String properties (not numbers or dates), but numbers written in text', async () => {
    expect(await names('/.rest/delivery/tours?q=250')).toEqual([]); // paris price 250.75
    expect(await names('/.rest/delivery/tours?q=14')).toEqual([]); // vietnam duration
    expect(await names('/.rest/delivery/tours?q=2024*')).toEqual([]); // activated dates
    expect(await names('/.rest/delivery/tours?q=1000')).toEqual(['finland']); // "1000 Lakes Finland"
  });

  it('combines with filters, ordering and total', async () => {
    const r = await query('/.rest/delivery/tours?q=bet*&price[gte]=100&orderBy=price%20desc&limit=2');
    expect(r.total).toBe(3);
    expect(r.results.map((n) => n['@name'])).toEqual(['rome', 'Kyoto-Gardens']);
    const p2 = await query('/.rest/delivery/tours?q=bet*&price[gte]=100&orderBy=price%20desc&limit=2&offset=2');
    expect(p2.results.map((n) => n['@name'])).toEqual(['alps']);
  });

  it.each(['*', '**', '%20*%20', '%22*%22', '-'])('answers 400 invalidQuery for q=%s (no word)', async (q) => {
    await expectError(`/.rest/delivery/tours?q=${q}`, 400, 'invalidQuery', 'q');
  });
});

describe('Query nodes: orderBy', () => {
  const PRICED_ASC = ['vietnam', 'alps', 'berlin', 'Kyoto-Gardens', 'rome', 'paris', 'fjords', 'japan-spring', 'finland'];

  it('orders numbers numerically, ascending by default, missing values last', async () => {
    const asc = await names('/.rest/delivery/tours?orderBy=price&limit=100');
    expect(asc.slice(0, 9)).toEqual(PRICED_ASC);
    expect(sorted(asc.slice(9))).toEqual(sorted(['draft', 'iceland', 'a', 'b', 'c', 'd', 'odd']));
    expect(await names('/.rest/delivery/tours?orderBy=price%20asc&limit=100')).toEqual(asc);
  });

  it('puts missing values last in descending order too', async () => {
    const desc = await names('/.rest/delivery/tours?orderBy=price%20desc&limit=100');
    expect(desc.slice(0, 9)).toEqual([...PRICED_ASC].reverse());
    expect(sorted(desc.slice(9))).toEqual(sorted(['draft', 'iceland', 'a', 'b', 'c', 'd', 'odd']));
    expect(await names('/.rest/delivery/tours?orderBy=price%20DESC&limit=100')).toEqual(desc);
  });

  it('orders Long values numerically', async () => {
    const r = await names('/.rest/delivery/tours?orderBy=duration%20desc&duration[null]=false&limit=100');
    expect(r).toEqual(['vietnam', 'finland', 'japan-spring', 'fjords', 'iceland', 'alps', 'Kyoto-Gardens', 'berlin', 'rome', 'paris']);
  });

  it('orders dates chronologically (whatever the offset they were written with)', async () => {
    const asc = await names('/.rest/delivery/tours?orderBy=activated&limit=100');
    expect(asc.slice(0, 5)).toEqual(['vietnam', 'alps', 'Kyoto-Gardens', 'japan-spring', 'rome']);
    const desc = await names('/.rest/delivery/tours?orderBy=activated%20desc&limit=100');
    expect(desc.slice(0, 5)).toEqual(['rome', 'japan-spring', 'Kyoto-Gardens', 'alps', 'vietnam']);
    expect(desc).toHaveLength(16);
  });

  it('orders strings case-insensitively (apple, Banana, cherry)', async () => {
    expect(await names('/.rest/delivery/tours?@ancestor=/catalog/fruit&orderBy=fruit')).toEqual(['b', 'a', 'c', 'd']);
    expect(await names('/.rest/delivery/tours?@ancestor=/catalog/fruit&orderBy=fruit%20desc')).toEqual(['c', 'a', 'b', 'd']);
    expect(await names('/.rest/delivery/tours?@ancestor=/catalog/north&orderBy=name%20desc')).toEqual(['fjords', 'finland', 'iceland']);
  });

  it('orders by @name and @path, case-insensitively', async () => {
    expect(await names('/.rest/delivery/tours?@ancestor=/catalog/asia&orderBy=@name')).toEqual(['japan-spring', 'Kyoto-Gardens', 'vietnam']);
    expect(await names('/.rest/delivery/tours?@ancestor=/catalog/asia&orderBy=@name%20desc')).toEqual(['vietnam', 'Kyoto-Gardens', 'japan-spring']);
    const byPath = (await query('/.rest/delivery/tours?orderBy=@path&limit=100')).results.map((r) => r['@path'] as string);
    expect(byPath).toEqual([...byPath].sort((a, b) => (a.toLowerCase() < b.toLowerCase() ? -1 : 1)));
    expect(byPath.indexOf('/catalog/asia/japan/japan-spring')).toBeLessThan(byPath.indexOf('/catalog/asia/japan/Kyoto-Gardens'));
    const byPathDesc = (await query('/.rest/delivery/tours?orderBy=@path%20desc&limit=100')).results.map((r) => r['@path']);
    expect(byPathDesc).toEqual([...byPath].reverse());
  });

  it('orders by several keys, the later ones breaking ties of the earlier ones', async () => {
    const r = await names('/.rest/delivery/tours?orderBy=featured%20desc,price&limit=100');
    expect(r.slice(0, 9)).toEqual([
      'alps', 'japan-spring', // featured true, by price
      'Kyoto-Gardens', 'rome', // featured false, by price
      'vietnam', 'berlin', 'paris', 'fjords', 'finland', // no featured, by price
    ]);
    expect(await names('/.rest/delivery/tours?orderBy=tags,@name%20desc&tags=nature')).toEqual(['iceland', 'fjords', 'finland', 'alps']);
  });

  // Case-insensitive ordering means `Red` and `red` are equal for the first key, so the second key
  // decides. The SQLite compiler breaks the tie by exact case (o.s) before the next key: `Red` (alps)
  // comes first whatever its price.
  it('treats values equal but for case as equal, so that the next key decides', async () => {
    expect(await names('/.rest/delivery/tours?color[ilike]=red&orderBy=color,price%20desc')).toEqual(['japan-spring', 'rome', 'alps']);
  });

  it('accepts mgnl: and cms: names of system properties', async () => {
    const mgnl = await names('/.rest/delivery/tours?orderBy=mgnl:created%20desc&limit=3');
    const cms = await names('/.rest/delivery/tours?orderBy=cms:created%20desc&limit=3');
    expect(mgnl).toEqual(['Kyoto-Gardens', 'vietnam', 'japan-spring']);
    expect(cms).toEqual(mgnl);
  });

  it('is stable by path without orderBy, and after equal keys', async () => {
    const none = (await query('/.rest/delivery/tours?limit=100')).results.map((r) => r['@path'] as string);
    expect(none).toEqual([...none].sort());
    // All fruit nodes lack `price`: they follow in path order.
    expect(await names('/.rest/delivery/tours?@ancestor=/catalog/fruit&orderBy=price%20desc')).toEqual(['a', 'b', 'c', 'd']);
  });

  it.each([
    ['price%20sideways', 'sideways'],
    ['price%20desc%20extra', 'orderBy'],
    ['@foo', '@foo'],
    ['@name%20up', 'up'],
    // Issue 13: a property name longer than any filter may name (it only costs the store work).
    ['p'.repeat(257), 'orderBy'],
  ])('answers 400 invalidQuery for orderBy=%s', async (o, mention) => {
    await expectError(`/.rest/delivery/tours?orderBy=${o}`, 400, 'invalidQuery', mention);
  });
});

describe('Query nodes: reserved parameters', () => {
  it('does not treat mgnl* parameters without a colon, variants or the property lists as filters', async () => {
    const base = await getJson(t.app, '/.rest/delivery/tours?limit=100');
    const extra = await getJson(t.app, '/.rest/delivery/tours?limit=100&mgnlPreview=true&mgnlChannel=desktop&variants=all&mgnlUserId=x');
    expect(extra.status).toBe(200);
    expect(extra.raw).toBe(base.raw);
  });

  it('treats a name with a colon as a filter (mgnl: is a namespace prefix)', async () => {
    expect(sorted(await names('/.rest/delivery/tours?mgnl:created[null]=false'))).toEqual(sorted(['japan-spring', 'Kyoto-Gardens', 'vietnam']));
    expect(await names('/.rest/delivery/tours?mgnl:nothing=1')).toEqual([]);
  });

  it('treats every other parameter as a filter', async () => {
    expect((await query('/.rest/delivery/tours?foo=bar')).total).toBe(0);
    expect((await query('/.rest/delivery/tours?preview=true')).total).toBe(0);
  });
});
