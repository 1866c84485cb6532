// `?version=` on the pages endpoint: the frozen copy is rendered with every current rule of the
// endpoint, the pages features included (inheritance, autogeneration, personalization by the
// visitor's traits); variants stay unaddressable in a version too; version rows never reach queries.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTestApp, getJson, type TestApp } from '../../helpers/test-app.js';
import { importPaths } from '../../../src/ingest/run-import.js';

const FIXTURES = join(import.meta.dirname, '..', '..', 'fixtures');
const P13N = join(FIXTURES, 'p13n', 'website.p13n.yaml');
const URL = '/.rest/delivery/pages/v1';

let t: TestApp;
/** Live answers taken before the content changed, by URL and trait. */
const before = new Map<string, string>();
const CASES: readonly [string, Record<string, string>][] = [
  ['/site/level2/all', {}], ['/site/auto', {}], ['/p13n', {}], ['/p13n', { 'x-age': 'Senior' }], ['/p13n', { 'x-age': 'Child' }],
];

describe('versions on the pages endpoint', () => {
  beforeAll(async () => {
    t = await createTestApp({
      definitions: { 'delivery/pages_v1.yaml': '$type: jcrPagesDeliveryEndpoint_v2\n' },
      moduleRoots: [join(FIXTURES, 'pages-modules')],
      contentPaths: [join(FIXTURES, 'pages'), join(FIXTURES, 'p13n')],
      publish: [
        { workspace: 'website', path: '/site/level2/all' }, { workspace: 'website', path: '/site/auto' }, { workspace: 'website', path: '/p13n' },
      ],
    });
    for (const [path, headers] of CASES) before.set(`${path} ${JSON.stringify(headers)}`, (await getJson(t.app, `${URL}${path}`, headers)).raw);
    // Every text of the personalization page changes after the publish.
    const dir = mkdtempSync(join(t.dir, 'v2-'));
    writeFileSync(join(dir, 'website.p13n.yaml'), readFileSync(P13N, 'utf8').replace(/text: (.*)/g, 'text: CHANGED $1'));
    await importPaths(t.store, [dir], { onUuidCollision: 'new' });
  }, 180_000);
  afterAll(async () => {
    await t?.close();
  });

  it('the live page has changed', async () => {
    expect((await getJson(t.app, `${URL}/p13n`, { 'x-age': 'Senior' })).body.main.age.text).toBe('CHANGED Hey senior');
  });

  it.each(CASES)('%s %o at version 1.0 answers as the live page did when published', async (path, headers) => {
    const { status, raw } = await getJson(t.app, `${URL}${path}?version=1.0`, headers);
    expect(status).toBe(200);
    expect(raw).toBe(before.get(`${path} ${JSON.stringify(headers)}`));
  });

  it('the visitor\'s traits choose among the variants of the copy', async () => {
    const senior = (await getJson(t.app, `${URL}/p13n?version=1.0`, { 'x-age': 'Senior' })).body.main.age;
    expect(senior['@variantNodeName']).toBe('variant-2');
    expect(senior.text).toBe('Hey senior');
    expect((await getJson(t.app, `${URL}/p13n?version=1.0`)).body.main.age.text).toBe('Enter your age');
  });

  it('a variant of a version is not addressable, and its version is no different', async () => {
    for (const v of ['1.0', '7.0']) {
      const r = await getJson(t.app, `${URL}/p13n/main/age/variants/variant-2?version=${v}`);
      expect(r.status, v).toBe(404);
      expect(r.body.error.code, v).toBe('pathNotFound');
    }
  });

  it('Query nodes never find what only a version holds', async () => {
    const { body } = await getJson(t.app, `${URL}?q=young`);
    expect(body.results.map((r: any) => r.text)).toEqual([]);
    const old = await getJson(t.app, `${URL}?text=Enter%20your%20age`);
    expect(old.body).toMatchObject({ total: 0, results: [] });
    const live = await getJson(t.app, `${URL}?text=CHANGED%20Enter%20your%20age`);
    expect(live.body.total).toBe(1);
  });
});
