// The react-demos tours endpoint over the travel-spa tours, categories and assets, end to end: its
// references resolve to category objects and asset objects whose links serve real images.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import sharp from 'sharp';
import { CORPORA, CORPORA_AVAILABLE } from '../helpers/corpora.js';
import { createTestApp, getJson, type TestApp } from '../helpers/test-app.js';

type Json = Record<string, any>;
const SPA = join(CORPORA, 'travel-spa', 'magnolia');
let t: TestApp;

// Skipped where the original CMS's corpora are absent (PETAL_CORPORA; test/helpers/corpora.ts warns); CI beside ../shared runs it.
describe.skipIf(!CORPORA_AVAILABLE)('react-demos tours over the travel-spa content', () => {
  beforeAll(async () => {
    t = await createTestApp({
      contentPaths: [join(SPA, '_dev')],
      // travel-spa's light modules bring the site's theme (travel-demo-theme) and its variations.
      moduleRoots: [join(CORPORA, 'react-demos', 'light-modules'), join(SPA, 'light-modules')],
      site: { name: 'fallback', locales: ['en', 'de'], defaultLocale: 'en', theme: 'travel-demo-theme' },
    });
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  it('resolves tourTypes and destination to arrays of category objects', async () => {
    const { status, body } = await getJson(t.app, '/.rest/delivery/demoTours/v1?limit=50');
    expect(status).toBe(200);
    expect(body.total).toBe(36);
    for (const tour of body.results as Json[]) {
      expect(Array.isArray(tour.tourTypes), tour['@name']).toBe(true);
      for (const c of tour.tourTypes) expect(c['@nodeType']).toBe('cms:category');
      expect(Array.isArray(tour.destination), tour['@name']).toBe(true);
      for (const c of tour.destination) {
        expect(c['@nodeType']).toBe('cms:category');
        expect(c['@path']).toMatch(/^\/destinations\//);
      }
    }
  });

  it('renders image as an asset whose link and every rendition link serve a real image of the right size', async () => {
    const { body } = await getJson(t.app, '/.rest/delivery/demoTours/v1?limit=3');
    for (const tour of body.results as Json[]) {
      const image = tour.image as Json;
      expect(image['@id']).toMatch(/^jcr:/);
      const original = await t.app.inject({ method: 'GET', url: image['@link'] });
      expect(original.statusCode).toBe(200);
      expect(original.headers['content-type']).toBe(image.metadata.mimeType);
      const meta = await sharp(original.rawPayload).metadata();
      // As the original, metadata values are strings.
      expect([String(meta.width), String(meta.height)]).toEqual([image.metadata.width, image.metadata.height]);
      const width = Number(image.metadata.width);
      const height = Number(image.metadata.height);

      // 960x720 is a variation of travel-demo-theme; 320x240 is not, so it links the original's bytes.
      const assetPath = image['@path'] as string;
      expect(image.renditions['320x240'].link).toMatch(new RegExp(`^/\\.imaging/default/dam${assetPath}/jcr:content\\.\\w+$`));
      const same = await t.app.inject({ method: 'GET', url: image.renditions['320x240'].link });
      expect(same.statusCode).toBe(200);
      expect(same.rawPayload.equals(original.rawPayload)).toBe(true);
      expect(image.renditions['960x720'].link).toMatch(new RegExp(`^/\\.imaging/mte/travel-demo-theme/960x720/dam${assetPath}/jcr:content/`));
      const r = await t.app.inject({ method: 'GET', url: image.renditions['960x720'].link });
      expect(r.statusCode).toBe(200);
      const m = await sharp(r.rawPayload).metadata();
      expect(m.width!).toBeLessThanOrEqual(960);
      expect(m.height!).toBeLessThanOrEqual(720);
      const scale = Math.min(960 / width, 720 / height, 1);
      expect(Math.abs(m.width! - Math.round(width * scale))).toBeLessThanOrEqual(1);
      expect(Math.abs(m.height! - Math.round(height * scale))).toBeLessThanOrEqual(1);
    }
  }, 180_000);
});
