// Image transforms on demand (issue 15 point 3): `width`, `height`, `fit`, `quality`, `format` (`auto` by
// Accept, with Vary: Accept) and `preset` on /dam links and renditions; presets only by default, free
// parameters within limits when `imaging.transforms: free`; the rendition cache bounded and private.
import { createHash } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { TransformPolicy } from '../../src/assets/image-transform.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { ANTARCTICA, ASSET_CONTENT, ASSET_MODULES, assetFolderXml, binaryOf, type GeneratedAsset } from '../assets/asset-xml.js';

const THEME = 'travel-demo-theme';
const HASH = createHash('sha256').update(binaryOf(ANTARCTICA.file)).digest('hex');
const dam = (query: string) => `/dam/jcr:${ANTARCTICA.id}/${ANTARCTICA.fileName}${query}`;
const PNG_ID = 'b0000000-0000-4000-8000-000000000001';
const SVG_ID = 'b0000000-0000-4000-8000-000000000002';
const PRESETS: TransformPolicy['presets'] = {
  card: { width: 320, height: 240, fit: 'cover', format: 'webp', quality: 70 },
  thumb: { width: 100, format: 'auto' },
};

async function generated(): Promise<Record<string, string>> {
  const assets: GeneratedAsset[] = [
    { name: 'small.png', id: PNG_ID, mimeType: 'image/png', fileName: 'small.png', data: await sharp({ create: { width: 300, height: 200, channels: 3, background: '#c85014' } }).png().toBuffer() },
    { name: 'icon.svg', id: SVG_ID, mimeType: 'image/svg+xml', fileName: 'icon.svg', data: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>') },
  ];
  return { 'dam.gen.xml': assetFolderXml('gen', assets) };
}

async function app(imaging: TransformPolicy | undefined, maxBytes?: number): Promise<TestApp> {
  return createTestApp({
    contentPaths: [ASSET_CONTENT], moduleRoots: [ASSET_MODULES], content: await generated(),
    ...(imaging !== undefined ? { imaging } : {}), ...(maxBytes !== undefined ? { renditions: { maxBytes } } : {}),
  });
}

const errorOf = (body: string) => (JSON.parse(body) as { error: { code: string; message: string } }).error;

describe('imaging.transforms: free', () => {
  let t: TestApp;
  let assetPath = '';
  beforeAll(async () => {
    t = await app({ transforms: 'free', presets: PRESETS });
    assetPath = (await t.store.reads.getNodeById('dam', ANTARCTICA.id))!.path;
  });
  afterAll(async () => t?.close());

  it('a WebP and an AVIF that decode, at the asked width with the aspect kept', async () => {
    for (const [format, mime, decoded] of [['webp', 'image/webp', 'webp'], ['avif', 'image/avif', 'heif']] as const) {
      const res = await t.app.inject({ method: 'GET', url: dam(`?width=640&format=${format}`) });
      expect(res.statusCode, res.body.slice(0, 200)).toBe(200);
      expect(res.headers['content-type']).toBe(mime);
      expect(res.headers.etag).toBe(`"${HASH}-640x0.${format}"`);
      expect(res.headers['content-disposition']).toMatch(new RegExp(`\\.${format}$`));
      expect(res.headers.vary).toBeUndefined();
      const meta = await sharp(res.rawPayload).metadata();
      expect(meta.format).toBe(decoded);
      if (format === 'avif') expect(meta.compression).toBe('av1');
      expect([meta.width, meta.height]).toEqual([640, Math.round(ANTARCTICA.height * 640 / ANTARCTICA.width)]);
    }
  });

  it('fit as sharp has it; never enlarged', async () => {
    const sizes: Record<string, [number, number]> = { cover: [300, 300], contain: [300, 300], inside: [300, 200], outside: [450, 300] };
    for (const [fit, size] of Object.entries(sizes)) {
      const res = await t.app.inject({ method: 'GET', url: dam(`?width=300&height=300&fit=${fit}&format=png`) });
      expect(res.statusCode, fit).toBe(200);
      const meta = await sharp(res.rawPayload).metadata();
      expect([meta.width, meta.height], fit).toEqual(size);
    }
    const big = await t.app.inject({ method: 'GET', url: `/dam/jcr:${PNG_ID}/small.png?width=4096` });
    expect((await sharp(big.rawPayload).metadata()).width).toBe(300);
  });

  it('format=auto: AVIF, else WebP, else the original, by Accept, with Vary: Accept and an ETag each', async () => {
    const cases = [['image/avif,image/webp,*/*;q=0.8', 'image/avif'], ['image/webp,*/*', 'image/webp'], ['image/avif;q=0, image/webp', 'image/webp'], ['*/*', 'image/jpeg'], [undefined, 'image/jpeg']] as const;
    const etags = new Set<string>();
    for (const [accept, mime] of cases) {
      const res = await t.app.inject({ method: 'GET', url: dam('?width=200&format=auto'), headers: accept !== undefined ? { accept } : {} });
      expect(res.statusCode, accept).toBe(200);
      expect(res.headers['content-type'], accept).toBe(mime);
      expect(res.headers.vary, accept).toMatch(/\bAccept\b/);
      expect((await sharp(res.rawPayload).metadata()).width).toBe(200);
      etags.add(String(res.headers.etag));
      const again = await t.app.inject({ method: 'GET', url: dam('?width=200&format=auto'), headers: { ...(accept !== undefined ? { accept } : {}), 'if-none-match': String(res.headers.etag) } });
      expect(again.statusCode).toBe(304);
      expect(again.headers.vary).toMatch(/\bAccept\b/);
    }
    expect(etags.size).toBe(3);
  });

  it('every transform is its own cache file and ETag; a second request is a cache hit; Range and HEAD work', async () => {
    const urls = ['?width=150', '?width=150&quality=40', '?width=150&format=webp', '?width=150&height=150&fit=cover', '?width=150&height=150'];
    const answers = [];
    for (const q of urls) answers.push(await t.app.inject({ method: 'GET', url: dam(q) }));
    expect(new Set(answers.map((a) => a.headers.etag)).size).toBe(urls.length);
    const files = readdirSync(join(t.renditions.cache.dir, HASH));
    for (const f of ['150x0.jpg', '150x0-q40.jpg', '150x0.webp', '150x150-cover.jpg', '150x150.jpg']) expect(files).toContain(f);
    const before = t.renditions.resizeCount;
    const again = await t.app.inject({ method: 'GET', url: dam(urls[1]!) });
    expect(again.rawPayload.equals(answers[1]!.rawPayload)).toBe(true);
    const part = await t.app.inject({ method: 'GET', url: dam(urls[2]!), headers: { range: 'bytes=0-9' } });
    expect(part.statusCode).toBe(206);
    expect(part.rawPayload.equals(answers[2]!.rawPayload.subarray(0, 10))).toBe(true);
    const head = await t.app.inject({ method: 'HEAD', url: dam(urls[3]!) });
    expect(head.headers['content-length']).toBe(String(answers[3]!.rawPayload.length));
    expect(t.renditions.resizeCount).toBe(before);
  });

  it('parameters that change nothing share the file of the rendition without them (or get the original)', async () => {
    const plain = await t.app.inject({ method: 'GET', url: dam('?width=150') });
    for (const q of ['?width=150&quality=85', '?width=150&fit=cover', '?width=150&format=jpeg']) {
      expect((await t.app.inject({ method: 'GET', url: dam(q) })).headers.etag, q).toBe(plain.headers.etag);
    }
    const png = await t.app.inject({ method: 'GET', url: `/dam/jcr:${PNG_ID}/small.png?quality=50&format=png` });
    expect(png.headers.etag).toMatch(/^"[0-9a-f]{64}"$/);
  });

  it('renditions in every form take transforms (a transform box replaces the variation box)', async () => {
    const themed = await t.app.inject({ method: 'GET', url: `/.imaging/mte/${THEME}/960x720/dam${assetPath}/jcr:content/${ANTARCTICA.fileName}?format=webp` });
    expect(themed.headers['content-type']).toBe('image/webp');
    expect(themed.headers.etag).toBe(`"${HASH}-960x720.webp"`);
    expect((await sharp(themed.rawPayload).metadata()).width).toBe(960);
    const byId = await t.app.inject({ method: 'GET', url: `/.imaging/${THEME}/960/dam/jcr:${ANTARCTICA.id}/x.jpg?width=120` });
    expect((await sharp(byId.rawPayload).metadata()).width).toBe(120);
    const fallback = await t.app.inject({ method: 'GET', url: `/.imaging/default/dam${assetPath}/jcr:content.jpg?preset=card` });
    const meta = await sharp(fallback.rawPayload).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['webp', 320, 240]);
  });

  it('bad values: 400 invalidParameter naming the parameter, on every route', async () => {
    const bad: [string, string][] = [
      ['width=0', 'width'], ['width=4097', 'width'], ['width=abc', 'width'], ['width=1.5', 'width'], ['height=-1', 'height'],
      ['quality=0', 'quality'], ['quality=101', 'quality'], ['fit=fill', 'fit'], ['format=gif', 'format'],
      ['preset=nope', 'preset'], ['width=10&width=20', 'width'],
    ];
    const routes = [dam('?'), `/.imaging/${THEME}/480/dam/jcr:${ANTARCTICA.id}/x.jpg?`, `/.imaging/default/dam${assetPath}/jcr:content.jpg?`];
    for (const route of routes) {
      for (const [query, name] of bad) {
        const res = await t.app.inject({ method: 'GET', url: route + query });
        expect(res.statusCode, route + query).toBe(400);
        expect(res.headers['content-type']).toMatch(/^application\/json/);
        const error = errorOf(res.body);
        expect(error.code).toBe('invalidParameter');
        expect(error.message, query).toMatch(new RegExp(`^Parameter ${name}: `));
      }
    }
  });

  it('SVG and other non-raster types: the original, transform parameters ignored', async () => {
    const res = await t.app.inject({ method: 'GET', url: `/dam/jcr:${SVG_ID}/icon.svg?width=100&format=auto`, headers: { accept: 'image/avif' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/svg+xml');
    expect(res.body).toContain('<svg');
    expect(res.headers.vary).toBeUndefined();
  });
});

describe('imaging.transforms: presets (the default)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await app({ transforms: 'presets', presets: PRESETS });
  });
  afterAll(async () => t?.close());

  it('refuses free parameters with 400 naming the parameter and how to allow it', async () => {
    for (const q of ['width=640', 'height=100', 'fit=cover', 'quality=50', 'format=webp', 'preset=card&width=10']) {
      const res = await t.app.inject({ method: 'GET', url: dam(`?${q}`) });
      expect(res.statusCode, q).toBe(400);
      const error = errorOf(res.body);
      expect(error.code).toBe('invalidParameter');
      expect(error.message).toMatch(new RegExp(`^Parameter ${q.replace(/^preset=card&/, '').split('=')[0]}: free image transforms are off \\(imaging\\.transforms: presets\\).*defined: card, thumb`));
    }
    const bad = await t.app.inject({ method: 'GET', url: dam('?width=abc') });
    expect(errorOf(bad.body).message).toMatch(/^Parameter width: expected a whole number from 1 to 4096/);
  });

  it('serves presets, by Accept when their format is auto', async () => {
    const card = await t.app.inject({ method: 'GET', url: dam('?preset=card') });
    expect(card.statusCode).toBe(200);
    expect(card.headers.etag).toBe(`"${HASH}-320x240-cover-q70.webp"`);
    const meta = await sharp(card.rawPayload).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['webp', 320, 240]);
    const thumb = await t.app.inject({ method: 'GET', url: dam('?preset=thumb'), headers: { accept: 'image/avif,image/webp,*/*' } });
    expect(thumb.headers['content-type']).toBe('image/avif');
    expect(thumb.headers.vary).toMatch(/\bAccept\b/);
    expect((await sharp(thumb.rawPayload).metadata()).width).toBe(100);
    const unknown = await t.app.inject({ method: 'GET', url: dam('?preset=hero') });
    expect(unknown.statusCode).toBe(400);
    expect(errorOf(unknown.body).message).toBe('Parameter preset: no preset "hero" (defined: card, thumb)');
  });

  it('without transform parameters: the original and the theme variations as before (other parameters ignored)', async () => {
    const original = await t.app.inject({ method: 'GET', url: dam('?v=3') });
    expect(original.headers.etag).toBe(`"${HASH}"`);
    expect(original.rawPayload.equals(binaryOf(ANTARCTICA.file))).toBe(true);
    const variation = await t.app.inject({ method: 'GET', url: `/.imaging/${THEME}/480/dam/jcr:${ANTARCTICA.id}/x.jpg` });
    expect(variation.headers.etag).toBe(`"${HASH}-480x0"`);
  });

  it('with no imaging configuration at all, free parameters are refused too', async () => {
    const d = await app(undefined);
    try {
      const res = await d.app.inject({ method: 'GET', url: dam('?width=10') });
      expect(res.statusCode).toBe(400);
      expect(errorOf(res.body).message).toMatch(/none is defined in imaging\.presets/);
    } finally {
      await d.close();
    }
  });
});

describe('the rendition cache under a flood of distinct free transforms', () => {
  it('stays within its byte bound, evicting least recently used files, in a private folder', async () => {
    const maxBytes = 5 * 4096;
    const t = await app({ transforms: 'free', presets: {} }, maxBytes);
    try {
      const cache = t.renditions.cache;
      let peak = 0;
      for (let w = 10; w < 70; w++) {
        const res = await t.app.inject({ method: 'GET', url: `/dam/jcr:${PNG_ID}/small.png?width=${w}` });
        expect(res.statusCode).toBe(200);
        peak = Math.max(peak, cache.usage.bytes);
      }
      expect(t.renditions.resizeCount).toBe(60);
      expect(peak).toBeLessThanOrEqual(maxBytes);
      expect(cache.usage.files).toBeLessThanOrEqual(5);
      const dirs = () => readdirSync(cache.dir).filter((d) => !d.startsWith('.'));
      const files = () => dirs().flatMap((d) => readdirSync(join(cache.dir, d)).map((f) => join(cache.dir, d, f)));
      // Evicted files are unlinked asynchronously.
      await vi.waitFor(() => expect(files().length).toBeLessThanOrEqual(5), { timeout: 30_000, interval: 20 });
      const onDisk = files();
      expect(statSync(cache.dir).mode & 0o777).toBe(0o700);
      for (const d of dirs()) expect(statSync(join(cache.dir, d)).mode & 0o777).toBe(0o700);
      for (const f of onDisk) expect(statSync(f).mode & 0o777).toBe(0o600);
    } finally {
      await t.close();
    }
  });
});
