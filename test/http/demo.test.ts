// The bundled demo (what `npm start` serves): its endpoints answer, including the pages endpoint's
// inheritance and personalization the README's tour shows.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { createTestApp, getJson, type TestApp } from '../helpers/test-app.js';

const DEMO = join(import.meta.dirname, '..', '..', 'demo');
let t: TestApp;

describe('the demo', () => {
  beforeAll(async () => {
    t = await createTestApp({ moduleRoots: [join(DEMO, 'light-modules')], contentPaths: [join(DEMO, 'content')] });
  }, 180_000);
  afterAll(async () => {
    await t?.close();
  });

  it('loads every endpoint definition without problems', () => {
    expect(t.load.problems).toEqual([]);
    expect(t.load.definitions.map((d) => d.endpointPath)).toContain('/delivery/pages/v2');
  });

  it('pages/v2: the about page inherits the home footer and a trait picks the variant', async () => {
    const expert = (await getJson(t.app, '/.rest/delivery/pages/v2/petal-gardens/about', { 'X-Gardener-Level': 'expert' })).body;
    expect(expert['@nodes']).toEqual(['main', 'footer']);
    expect(expert.footer['@nodes']).toEqual(['0_inherited_1']);
    expect(expert.footer['0_inherited_1']['@path']).toBe('/petal-gardens/footer/0');
    expect(expert.main['1']['@variantNodeName']).toBe('variant-1');
    const beginner = (await getJson(t.app, '/.rest/delivery/pages/v2/petal-gardens/about', { 'X-Gardener-Level': 'beginner' })).body;
    expect(beginner.main['1'].text).toContain('easy perennials');
    const nobody = (await getJson(t.app, '/.rest/delivery/pages/v2/petal-gardens/about')).body;
    expect(nobody.main['1']['@variantNodeName']).toBeUndefined();
  });

  it('pages/v1 (plain) neither inherits nor shows the variants', async () => {
    const { raw, body } = await getJson(t.app, '/.rest/delivery/pages/v1/petal-gardens/about');
    expect(body['@nodes']).toEqual(['main']);
    expect(raw).not.toContain('variant-');
  });

  it('plants/v2 never exposes internalNotes: not through properties, filters, orderBy or q (v1 does)', async () => {
    const v1 = await getJson(t.app, '/.rest/delivery/plants/v1/?internalNotes[like]=%25glass%25&properties=internalNotes');
    expect(v1.body.total).toBe(2);
    expect(v1.raw).toContain('glasshouse 2');
    expect((await getJson(t.app, '/.rest/delivery/plants/v1/?q=glasshouse')).body.total).toBe(2);
    const v2 = await getJson(t.app, '/.rest/delivery/plants/v2/?properties=internalNotes,name');
    expect(v2.body.total).toBeGreaterThan(0);
    expect(v2.raw).not.toContain('internalNotes');
    expect((await getJson(t.app, '/.rest/delivery/plants/v2/?internalNotes[like]=%25glass%25')).body.total).toBe(0);
    expect((await getJson(t.app, '/.rest/delivery/plants/v2/?q=glasshouse')).body.total).toBe(0);
  });
});
