// Hostile Query nodes requests: quotes, SQL fragments, LIKE/GLOB wildcards, backslashes, unicode,
// control characters, prototype keys, oversized names, too many filters or alternatives. None may
// produce a 500 or change the stored data; names and values stay data all the way down.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import type { StoreQuery } from '../../src/query/ast.js';
import { createTestApp, getJson, type TestApp } from '../helpers/test-app.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/query/', import.meta.url));

const DEFINITIONS: Record<string, string> = {
  'delivery/tours.yaml': `
$type: jcrDeliveryEndpoint_v2
workspace: tours
nodeTypes: [mgnl:content]
limit: 100
`,
  'delivery/all.yaml': `
$type: jcrDeliveryEndpoint_v2
workspace: tours
limit: 100
`,
};

const TOURS = '/.rest/delivery/tours';
const DROP = "'; DROP TABLE nodes; --";
const e = encodeURIComponent;

let t: TestApp;
let nodesBefore: number;
let toursBefore: number;
let snapshot: string;

beforeAll(async () => {
  t = await createTestApp({ definitions: DEFINITIONS, contentPaths: [FIXTURES] });
  nodesBefore = await t.store.reads.countNodes();
  toursBefore = await t.store.reads.countNodes('tours');
  snapshot = (await getJson(t.app, '/.rest/delivery/all?limit=100')).raw;
});
afterAll(async () => {
  await t?.close();
});

/** GET that must never be a 500 and must always answer with JSON. */
async function safeGet(url: string) {
  const r = await getJson(t.app, url);
  expect(r.status, `${url}: ${r.raw.slice(0, 300)}`).not.toBe(500);
  expect(r.status, url).toBeLessThan(500);
  expect(typeof r.body, url).toBe('object');
  if (r.status >= 400) {
    expect(Object.keys(r.body), url).toEqual(['error']);
    expect(r.raw, url).not.toMatch(/SQLITE|sqlite|syntax error|at .*\.ts:\d+/);
  }
  return r;
}

async function total(url: string): Promise<number> {
  const r = await safeGet(url);
  expect(r.status, `${url}: ${r.raw}`).toBe(200);
  return r.body.total;
}

const HOSTILE_VALUES = [
  "'", '"', "''", '""', '`', DROP, "' OR '1'='1", '" OR "1"="1', "1' OR 1=1 --", '1; DELETE FROM props',
  "x') UNION SELECT * FROM nodes --", '%', '%%', '_', '\\', '\\\\', '\\%', '%\\', '*', '?', '[', ']', '[a-z]*', '^',
  '~', '|', '||', '~~', 'NULL', 'null', '\u0000', 'a\u0000b', '\n', '\r\n', '\t', 'ü', 'Ü', '😀', '\u202e', '\ufeff',
  'MATCH', 'NEAR(a b)', 'a OR b', 'col:japan', '-japan', '"japan', '0x10', '1e999', '-0', 'NaN', 'Infinity',
  ' ', '/', '//', '/..', '/../etc', '${x}', '{{x}}', '<script>alert(1)</script>', '&amp;', 'x'.repeat(4096),
];

const FILTER_KEYS = [
  'name', 'name[like]', 'name[ilike]', 'name[ne]', 'name[gt]', 'name[in]', 'name[not-in]', 'price', 'price[gt]',
  'price[in]', 'activated[lt]', 'featured', 'tags', 'tags[ne]', 'nosuch', 'nosuch[like]', '@name', '@name[like]',
  '@path', '@jcr:uuid', 'jcr:uuid', '@ancestor', 'name[null]', 'mgnl:created[gt]', 'title_en',
];

describe('hostile values', () => {
  it('never produce a 500, whatever the filter', async () => {
    for (const key of FILTER_KEYS) {
      for (const v of HOSTILE_VALUES) await safeGet(`${TOURS}?${e(key)}=${e(v)}`);
    }
  });

  it('are data in eq: matched literally or not at all', async () => {
    expect(await total(`${TOURS}?name=${e(DROP)}`)).toBe(0);
    expect(await total(`${TOURS}?name=${e("' OR '1'='1")}`)).toBe(0);
    expect(await total(`${TOURS}?name=${e('%')}`)).toBe(0);
    expect(await total(`${TOURS}?name=${e('_')}`)).toBe(0);
    expect(await total(`${TOURS}?name=${e('*')}`)).toBe(0);
    expect(await total(`${TOURS}?name=${e('100% Iceland')}`)).toBe(1);
    expect(await total(`${TOURS}?name=${e('100_ Iceland')}`)).toBe(0);
    expect(await total(`${TOURS}?name=${e('Odd %_\\ name')}`)).toBe(1);
    expect(await total(`${TOURS}?name=${e('Über Berlin')}`)).toBe(1);
    expect(await total(`${TOURS}?name=${e('über berlin')}`)).toBe(0);
  });

  it('match a stored hostile value and a hostile property name as plain data', async () => {
    const r = await safeGet(`${TOURS}?${e('it\'s "odd"')}=${e("O'Brien; DROP TABLE nodes; --")}`);
    expect(r.status).toBe(200);
    expect(r.body.results.map((n: Record<string, unknown>) => n['@name'])).toEqual(['odd']);
    expect(r.body.results[0]['it\'s "odd"']).toBe("O'Brien; DROP TABLE nodes; --");
    expect(await total(`${TOURS}?${e('it\'s "odd"[like]')}=${e("O'Brien;%")}`)).toBe(1);
    expect(await total(`${TOURS}?${e('it\'s "odd"[null]')}=false`)).toBe(1);
    // orderBy keys are separated from their direction by spaces: a name with spaces cannot be a key.
    const order = await safeGet(`${TOURS}?orderBy=${e('it\'s "odd" desc')}`);
    expect(order.status).toBe(400);
    expect(order.body.error.code).toBe('invalidQuery');
  });

  it('keep LIKE wildcards and backslashes meaningful only as documented', async () => {
    expect(await total(`${TOURS}?name[like]=${e('%')}`)).toBe(11);
    expect(await total(`${TOURS}?name[like]=${e('\\%')}`)).toBe(0);
    expect(await total(`${TOURS}?name[like]=${e('%\\%%')}`)).toBe(2); // 100% Iceland, Odd %_\ name
    expect(await total(`${TOURS}?name[like]=${e('%\\')}`)).toBe(0); // a trailing backslash is literal
    expect(await total(`${TOURS}?name[like]=${e('*')}`)).toBe(0);
    expect(await total(`${TOURS}?name[like]=${e('[O]dd%')}`)).toBe(0);
    expect(await total(`${TOURS}?name[ilike]=${e('%' + "' OR 1=1 --" + '%')}`)).toBe(0);
  });

  it('in q are words, never full-text syntax', async () => {
    for (const q of ['japan OR vietnam', 'NEAR(japan kyoto)', 'japan AND NOT kyoto', 'description:japan', '"japan', "japan'", '^japan', 'japan -kyoto', '+japan', 'japan)']) {
      const r = await safeGet(`${TOURS}?q=${e(q)}`);
      expect(r.status, q).toBe(200);
    }
    expect(await total(`${TOURS}?q=${e('japan OR vietnam')}`)).toBe(0); // three words, all required
    expect(await total(`${TOURS}?q=${e('"japan"')}`)).toBe(2);
    expect(await total(`${TOURS}?q=${e('japan -kyoto')}`)).toBe(1); // "-" is not an operator: kyoto is required
    for (const q of ['*', '"*"', '()', "'", '--', '%', DROP.replace(/\w/g, '')]) {
      const r = await safeGet(`${TOURS}?q=${e(q)}`);
      expect(r.status, q).toBe(400);
      expect(r.body.error.code, q).toBe('invalidQuery');
    }
  });

  it('in orderBy, lang, properties and paging parameters are rejected or ignored', async () => {
    for (const o of [DROP, 'name; DROP TABLE nodes', '(SELECT 1)', 'name DESC, (SELECT 1)', 'price,--', 'name ASC NULLS FIRST', '@name; --', "name' desc"]) {
      await safeGet(`${TOURS}?orderBy=${e(o)}`);
    }
    for (const p of ['lang', 'properties', 'excludeProperties', 'variants', 'version', 'mgnlPreview']) {
      for (const v of [DROP, '\u0000', '%', 'x'.repeat(256)]) await safeGet(`${TOURS}?${p}=${e(v)}`);
    }
    for (const p of ['limit', 'offset']) {
      for (const v of [DROP, '1 OR 1=1', '1;', '0x10', '1e3', '-0', '١٢', '1.0']) {
        const r = await safeGet(`${TOURS}?${p}=${e(v)}`);
        expect(r.status, `${p}=${v}`).toBe(400);
        expect(r.body.error.code).toBe('invalidQuery');
      }
    }
    const bigLimit = await safeGet(`${TOURS}?limit=99999999999999999999`);
    expect(bigLimit.status).toBe(200);
    expect(bigLimit.body.limit).toBe(100); // clamped to maxLimit
    const bigOffset = await safeGet(`${TOURS}?offset=99999999999999999999`);
    expect(bigOffset.status).toBe(400);
    expect(bigOffset.body.error.code).toBe('invalidQuery');
  });
});

describe('hostile names', () => {
  it('never produce a 500', async () => {
    const names = [
      "'", '"', DROP, "a' OR 'a'='a", 'a"b', 'a`b', 'a;b', 'a--b', 'a/*b*/', 'a b', '%', '_', '\\', 'ü', '😀', 'a\u0000b',
      'jcr:', 'mgnl:', 'cms:', ':', '::', 'a:b:c', '__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString',
      '__proto__[gt]', 'constructor[like]', '@', '@@name', '@name@', '@jcr:', '@ancestor[gt]', 'a[', 'a]', 'a[b', '[a]',
      'a[eq][eq]', 'a[%]', 'a[\']', 'a[eq ]', ' a', 'a ', '.', '..', '/',
    ];
    for (const name of names) {
      for (const v of ['1', 'x', DROP]) await safeGet(`${TOURS}?${e(name)}=${e(v)}`);
    }
  });

  it('answer 400 beyond 256 characters', async () => {
    const r = await safeGet(`${TOURS}?${'a'.repeat(257)}=1`);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('invalidQuery');
    const ok = await safeGet(`${TOURS}?${'a'.repeat(256)}=1`);
    expect(ok.status).toBe(200);
    expect(ok.body.total).toBe(0);
    const bracket = await safeGet(`${TOURS}?${'b'.repeat(300)}%5Blike%5D=%25`);
    expect(bracket.status).toBe(400);
  });

  it('are looked up as data (an absent hostile name matches nothing; null=true everything)', async () => {
    expect(await total(`${TOURS}?${e(DROP)}=1`)).toBe(0);
    expect(await total(`${TOURS}?${e(DROP + '[null]')}=true`)).toBe(16);
    expect(await total(`${TOURS}?${e("price' OR '1'='1")}[gt]=0`)).toBe(0);
  });
});

describe('limits', () => {
  it('accepts 32 filters and rejects 33 with 400 invalidQuery', async () => {
    const filters = (n: number) => Array.from({ length: n }, (_, i) => `p${i}[null]=true`).join('&');
    expect(await total(`${TOURS}?${filters(32)}`)).toBe(16);
    const r = await safeGet(`${TOURS}?${filters(33)}`);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('invalidQuery');
  });

  it('does not count reserved parameters as filters', async () => {
    const filters = Array.from({ length: 32 }, (_, i) => `p${i}[null]=true`).join('&');
    const r = await safeGet(`${TOURS}?${filters}&limit=5&offset=0&orderBy=name&lang=en&mgnlPreview=true&variants=all`);
    expect(r.status).toBe(200);
  });

  it('accepts 100 alternatives and rejects 101, also when spread over repeated parameters', async () => {
    const alts = (n: number) => Array.from({ length: n }, (_, i) => `v${i}`);
    expect(await total(`${TOURS}?color=${e([...alts(99), 'red'].join('|'))}`)).toBe(2);
    const r = await safeGet(`${TOURS}?color=${e(alts(101).join('|'))}`);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('invalidQuery');
    const repeated = await safeGet(`${TOURS}?color=${e(alts(60).join('|'))}&color=${e(alts(41).join('|'))}`);
    expect(repeated.status).toBe(400);
    const ancestors = await safeGet(`${TOURS}?@ancestor=${e(alts(101).map((a) => `/${a}`).join('|'))}`);
    expect(ancestors.status).toBe(400);
  });

  it('rejects over-long values and too many q words with 400, and over-long URLs with 414', async () => {
    const long = await safeGet(`${TOURS}?name=${'x'.repeat(5000)}`);
    expect(long.status).toBe(400);
    const words = await safeGet(`${TOURS}?q=${e(Array.from({ length: 40 }, (_, i) => `w${i}`).join(' '))}`);
    expect(words.status).toBe(400);
    expect(words.body.error.code).toBe('invalidQuery');
    const huge = await safeGet(`${TOURS}?name=${'x'.repeat(9000)}`);
    expect(huge.status).toBe(414);
  });

  it('survives malformed percent-encoding in the query string', async () => {
    for (const qs of ['name=%E0%A4%A', 'name=%', 'name=%zz', '%5Bgt%5D=1', 'name%5B=1', '=1', '&&&', 'name=a&&name=b', '%00=1']) {
      await safeGet(`${TOURS}?${qs}`);
    }
  });
});

describe('the store after all of it', () => {
  it('holds the same nodes', async () => {
    expect(await t.store.reads.countNodes()).toBe(nodesBefore);
    expect(await t.store.reads.countNodes('tours')).toBe(toursBefore);
    expect((await getJson(t.app, '/.rest/delivery/all?limit=100')).raw).toBe(snapshot);
  });

  it('runs StoreQuery objects with hostile names and values without throwing or writing', async () => {
    const q: StoreQuery = {
      workspace: "tours'; DROP TABLE nodes; --", rootPath: "/x') OR 1=1 --", types: ["cms:content' OR '1'='1"],
      conditions: [
        {
          kind: 'ranges', target: { kind: 'property', name: "color' OR '1'='1" }, negate: true,
          ranges: [{ kind: 'string', lo: { value: DROP, inclusive: true }, hi: { value: DROP, inclusive: true } }],
        },
        { kind: 'like', target: { kind: 'property', name: 'a]b[c' }, caseInsensitive: true, patterns: ["%' OR 1=1 --%", '[', '\\'] },
        { kind: 'like', target: { kind: 'name' }, caseInsensitive: false, patterns: ['%"; DELETE FROM nodes; --'] },
        { kind: 'exists', name: 'x"); DELETE FROM props; --', exists: false },
        { kind: 'descendantOf', paths: ["/a' OR 'b"] },
      ],
      fullText: [],
      orderBy: [{ target: { kind: 'property', name: 'price DESC; DROP TABLE nodes' }, descending: true }, { target: { kind: 'name' }, descending: true }],
      offset: 0,
      limit: 10,
    };
    await expect(t.store.reads.query(q)).resolves.toEqual({ total: 0, nodes: [] });
    // The same hostile pieces in the real workspace: still only data.
    const inTours: StoreQuery = { ...q, workspace: 'tours', rootPath: '/', types: null, conditions: [q.conditions[0]!] };
    await expect(t.store.reads.query(inTours)).resolves.toEqual({ total: 0, nodes: [] });
    expect(await t.store.reads.countNodes()).toBe(nodesBefore);
  });
});
