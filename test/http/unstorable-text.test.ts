// Text no store can keep or compare alike (U+0000, unpaired surrogates) in a delivery request: 400
// naming the parameter, the same on SQLite and on PostgreSQL (PETAL_TEST_PG), never a 500 and never a
// silent empty answer on one store and matches on the other (issue 14, the class of point 3).
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, getJson, type TestApp } from '../helpers/test-app.js';

const DEMO = join(import.meta.dirname, '..', '..', 'demo');
const PLANTS = '/.rest/delivery/plants/v1';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ moduleRoots: [join(DEMO, 'light-modules')], contentPaths: [join(DEMO, 'content')] });
}, 180_000);
afterAll(async () => {
  await t?.close();
});

describe(`delivery query parameters with U+0000 or unpaired surrogates (${process.env.PETAL_TEST_PG ? 'PostgreSQL' : 'SQLite'})`, () => {
  const values: [string, string][] = [
    [`${PLANTS}/?name=a%00b`, 'name'],
    [`${PLANTS}/?name[like]=%25a%00`, 'name[like]'],
    [`${PLANTS}/?name[ne]=a%00b`, 'name[ne]'],
    [`${PLANTS}/?q=rose%00`, 'q'],
    [`${PLANTS}/?orderBy=na%00me`, 'orderBy'],
    [`${PLANTS}/?lang=d%00e`, 'lang'],
    [`${PLANTS}/?properties=na%00me`, 'properties'],
    [`${PLANTS}/?excludeProperties=na%00me`, 'excludeProperties'],
    [`${PLANTS}/?@jcr:uuid=71bbb8b5-5558-46a9-80f4-8689cc3adc96%00`, '@jcr:uuid'],
    [`${PLANTS}/?jcr:uuid=a%00b`, 'jcr:uuid'],
    [`${PLANTS}/?@id=a%00b`, '@id'],
    [`${PLANTS}/?@name=a%00b`, '@name'],
    [`${PLANTS}/?jcr:primaryType=a%00b`, 'jcr:primaryType'],
    [`${PLANTS}/?colors=violet|a%00b`, 'colors'],
    [`${PLANTS}/?mgnlPreview=%00`, 'mgnlPreview'],
    [`${PLANTS}/catalog/lavender-hidcote?lang=%00`, 'lang'],
    [`${PLANTS}/catalog/lavender-hidcote?properties=name%00`, 'properties'],
    [`${PLANTS}/catalog@nodes?lang=en%00`, 'lang'],
    [`${PLANTS}/catalog/lavender-hidcote?version=1.0%00`, 'version'],
    ['/.rest/delivery/pages/v1/petal-gardens?lang=%00', 'lang'],
  ];
  for (const [url, param] of values) {
    it(`${url} → 400 badRequest naming ${param}`, async () => {
      const r = await getJson(t.app, url);
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('badRequest');
      expect(r.body.error.message.startsWith(`${param}:`), r.body.error.message).toBe(true);
    });
  }

  it('a parameter name with U+0000 → 400 badRequest naming it', async () => {
    const r = await getJson(t.app, `${PLANTS}/?na%00me=rose`);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('badRequest');
    expect(r.body.error.message).toContain('"na\\u0000me"');
  });

  it('text that is fine is untouched: surrogate pairs, other control characters, invalid escapes kept literally', async () => {
    for (const url of [`${PLANTS}/?name=%F0%9F%8C%B9`, `${PLANTS}/?name=a%09b`, `${PLANTS}/?name=%ED%A0%80`, `${PLANTS}/?q=rose`]) {
      const r = await getJson(t.app, url);
      expect(r.status, url).toBe(200);
    }
    const rose = await getJson(t.app, `${PLANTS}/?q=rose`);
    expect(rose.body.total).toBeGreaterThan(0);
  });
});
