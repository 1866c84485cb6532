// Image renditions over HTTP in the form of earlier releases, /.imaging/<theme>/<variation>/dam/jcr:<uuid>/<fileName> (issue 5; the original CMS's forms: rendition-url-forms.test.ts).
import { createHash } from 'node:crypto';
import { chmodSync, chownSync, lstatSync, mkdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, OPEN_SECURITY, type TestApp } from '../helpers/test-app.js';
import { ANTARCTICA, ASSET_CONTENT, ASSET_MODULES, SIMON, assetFolderXml, binaryOf, type GeneratedAsset } from '../assets/asset-xml.js';

const THEME = 'travel-demo-theme';
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** A valid 1-bit grayscale PNG of width × height, all black: a few kB that decode to w·h pixels. */
function bombPng(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([len, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 1; // bit depth
  ihdr[9] = 0; // grayscale
  const raw = Buffer.alloc((1 + Math.ceil(width / 8)) * height); // filter byte 0 + zero pixels per row
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const ID = {
  png: 'a0000000-0000-4000-8000-000000000001',
  rotated: 'a0000000-0000-4000-8000-000000000002',
  webp: 'a0000000-0000-4000-8000-000000000003',
  gif: 'a0000000-0000-4000-8000-000000000004',
  svg: 'a0000000-0000-4000-8000-000000000005',
  bomb: 'a0000000-0000-4000-8000-000000000006',
  corrupt: 'a0000000-0000-4000-8000-000000000007',
} as const;

const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="1000" height="1000"><rect width="1000" height="1000"/></svg>');

async function generatedAssets(): Promise<GeneratedAsset[]> {
  const create = (width: number, height: number) =>
    sharp({ create: { width, height, channels: 3, background: { r: 200, g: 80, b: 20 } } });
  return [
    { name: 'small.png', id: ID.png, mimeType: 'image/png', fileName: 'small.png', data: await create(300, 200).png().toBuffer() },
    // Stored 400 wide × 200 high with EXIF orientation 6 (rotate 90°): upright it is 200 × 400.
    { name: 'rotated.jpg', id: ID.rotated, mimeType: 'image/jpeg', fileName: 'rotated.jpg', data: await create(400, 200).jpeg().withMetadata({ orientation: 6 }).toBuffer() },
    { name: 'wide.webp', id: ID.webp, mimeType: 'image/webp', fileName: 'wide.webp', data: await create(1000, 500).webp().toBuffer() },
    { name: 'anim.gif', id: ID.gif, mimeType: 'image/gif', fileName: 'anim.gif', data: await create(600, 300).gif().toBuffer() },
    { name: 'icon.svg', id: ID.svg, mimeType: 'image/svg+xml', fileName: 'icon.svg', data: SVG },
    { name: 'bomb.png', id: ID.bomb, mimeType: 'image/png', fileName: 'bomb.png', data: bombPng(20_000, 20_000), width: 20_000, height: 20_000 },
    { name: 'corrupt.jpg', id: ID.corrupt, mimeType: 'image/jpeg', fileName: 'corrupt.jpg', data: Buffer.from('not a jpeg at all, just text '.repeat(20)) },
  ];
}

function renditionUrl(variation: string, id: string, fileName: string, theme = THEME): string {
  return `/.imaging/${theme}/${variation}/dam/jcr:${id}/${fileName}`;
}

/** Checks that a rendition fits the variation's box and keeps the original's aspect within 1 px. */
function expectFits(meta: sharp.Metadata, original: { width: number; height: number }, box: { width?: number; height?: number }) {
  const scale = Math.min(box.width !== undefined ? box.width / original.width : Infinity, box.height !== undefined ? box.height / original.height : Infinity, 1);
  if (box.width !== undefined) expect(meta.width!).toBeLessThanOrEqual(box.width);
  if (box.height !== undefined) expect(meta.height!).toBeLessThanOrEqual(box.height);
  expect(Math.abs(meta.width! - original.width * scale)).toBeLessThanOrEqual(1);
  expect(Math.abs(meta.height! - original.height * scale)).toBeLessThanOrEqual(1);
}

let t: TestApp;
let generated: GeneratedAsset[];
beforeAll(async () => {
  generated = await generatedAssets();
  t = await createTestApp({ contentPaths: [ASSET_CONTENT], moduleRoots: [ASSET_MODULES], content: { 'dam.gen.xml': assetFolderXml('gen', generated) } });
});
afterAll(async () => {
  await t?.close();
});

describe('renditions of the travel-spa theme', () => {
  it('the theme has the four variations of the corpus', () => {
    expect(t.themes.variationNames(THEME)).toEqual(['960', '480', '960x720', '480x360']);
  });

  for (const asset of [ANTARCTICA, SIMON]) {
    it(`every variation of ${asset.fileName}: right size, aspect kept, JPEG, cacheable`, async () => {
      const hash = sha256(binaryOf(asset.file));
      for (const name of t.themes.variationNames(THEME)) {
        const v = t.themes.variation(THEME, name)!;
        const res = await t.app.inject({ method: 'GET', url: renditionUrl(name, asset.id, asset.fileName) });
        expect(res.statusCode, name).toBe(200);
        expect(res.headers['content-type']).toBe('image/jpeg');
        expect(res.headers['content-length']).toBe(String(res.rawPayload.length));
        expect(res.headers.etag).toBe(`"${hash}-${v.width ?? 0}x${v.height ?? 0}"`);
        expect(res.headers['cache-control']).toBe('public, max-age=86400');
        const meta = await sharp(res.rawPayload).metadata();
        expect(meta.format).toBe('jpeg');
        expectFits(meta, asset, v);
        // The originals are larger than every box: one side touches it.
        expect(meta.width === v.width || meta.height === v.height, name).toBe(true);
      }
    });
  }

  it('the second request comes from the disk cache, byte for byte', async () => {
    const url = renditionUrl('480', ANTARCTICA.id, ANTARCTICA.fileName);
    const first = await t.app.inject({ method: 'GET', url });
    const before = t.renditions.resizeCount;
    const second = await t.app.inject({ method: 'GET', url });
    expect(t.renditions.resizeCount).toBe(before);
    expect(second.rawPayload.equals(first.rawPayload)).toBe(true);
  });

  it('If-None-Match: 304 without resizing; Range and HEAD work on renditions', async () => {
    const url = renditionUrl('960x720', SIMON.id, SIMON.fileName);
    const full = await t.app.inject({ method: 'GET', url });
    const before = t.renditions.resizeCount;
    const hit = await t.app.inject({ method: 'GET', url, headers: { 'if-none-match': full.headers.etag as string } });
    expect(hit.statusCode).toBe(304);
    expect(hit.rawPayload.length).toBe(0);
    const part = await t.app.inject({ method: 'GET', url, headers: { range: 'bytes=0-99' } });
    expect(part.statusCode).toBe(206);
    expect(part.headers['content-range']).toBe(`bytes 0-99/${full.rawPayload.length}`);
    expect(part.rawPayload.equals(full.rawPayload.subarray(0, 100))).toBe(true);
    const head = await t.app.inject({ method: 'HEAD', url });
    expect(head.statusCode).toBe(200);
    expect(head.headers['content-length']).toBe(String(full.rawPayload.length));
    expect(head.rawPayload.length).toBe(0);
    expect(t.renditions.resizeCount).toBe(before);
  });

  it('If-None-Match on a rendition never made yet: 304 and still no resize', async () => {
    const hash = sha256(binaryOf(ANTARCTICA.file));
    const before = t.renditions.resizeCount;
    const res = await t.app.inject({ method: 'GET', url: renditionUrl('480x360', ANTARCTICA.id, 'x.jpg'), headers: { 'if-none-match': `"${hash}-480x360"` } });
    expect(res.statusCode).toBe(304);
    expect(t.renditions.resizeCount).toBe(before);
  });
});

describe('formats and edge cases', () => {
  const gen = (key: keyof typeof ID) => generated.find((g) => g.id === ID[key])!;

  it('a small PNG is never enlarged and stays PNG', async () => {
    const res = await t.app.inject({ method: 'GET', url: renditionUrl('960', ID.png, 'small.png') });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/png');
    const meta = await sharp(res.rawPayload).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['png', 300, 200]);
  });

  it('EXIF orientation is applied before fitting the box', async () => {
    const res = await t.app.inject({ method: 'GET', url: renditionUrl('480x360', ID.rotated, 'rotated.jpg') });
    expect(res.statusCode).toBe(200);
    const meta = await sharp(res.rawPayload).metadata();
    // Upright 200 × 400 fitted into 480 × 360 → 180 × 360, no orientation tag left.
    expect([meta.width, meta.height]).toEqual([180, 360]);
    expect(meta.orientation ?? 1).toBe(1);
  });

  it('WebP and GIF keep their format', async () => {
    const webp = await t.app.inject({ method: 'GET', url: renditionUrl('480', ID.webp, 'wide.webp') });
    expect(webp.headers['content-type']).toBe('image/webp');
    expect(await sharp(webp.rawPayload).metadata()).toMatchObject({ format: 'webp', width: 480, height: 240 });
    const gif = await t.app.inject({ method: 'GET', url: renditionUrl('480x360', ID.gif, 'anim.gif') });
    expect(gif.headers['content-type']).toBe('image/gif');
    expect(await sharp(gif.rawPayload).metadata()).toMatchObject({ format: 'gif', width: 480, height: 240 });
  });

  it('SVG has no renditions: the original is served', async () => {
    const res = await t.app.inject({ method: 'GET', url: renditionUrl('480', ID.svg, 'icon.svg') });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/svg+xml');
    expect(res.headers.etag).toBe(`"${sha256(SVG)}"`);
    expect(res.rawPayload.equals(gen('svg').data)).toBe(true);
  });

  it('a 20000 × 20000 image is refused with 422 badRequest, quickly, and the server goes on', async () => {
    const before = t.renditions.resizeCount;
    const started = Date.now();
    const res = await t.app.inject({ method: 'GET', url: renditionUrl('480', ID.bomb, 'bomb.png') });
    // Refused from the header, before decoding 400 megapixels (which takes far longer, even on a quiet machine).
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(res.statusCode).toBe(422);
    const body = JSON.parse(res.body);
    expect(body.error.code).toBe('badRequest');
    expect(body.error.message).toMatch(/too large.*20000x20000.*50000000 pixels/);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(t.renditions.resizeCount).toBe(before);
    // The original itself can still be downloaded; other renditions still work.
    expect((await t.app.inject({ method: 'HEAD', url: `/dam/jcr:${ID.bomb}/bomb.png` })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: renditionUrl('480', ID.webp, 'wide.webp') })).statusCode).toBe(200);
  });

  it('a refused image is remembered: asking again (any box) does not read the original again', async () => {
    await t.app.inject({ method: 'GET', url: renditionUrl('480', ID.bomb, 'bomb.png') });
    const reads = t.renditions.inputReads;
    expect(reads).toBeGreaterThan(0);
    for (const v of ['480', '960', '960x720']) {
      const res = await t.app.inject({ method: 'GET', url: renditionUrl(v, ID.bomb, 'bomb.png') });
      expect(res.statusCode).toBe(422);
      expect(JSON.parse(res.body).error.message).toMatch(/too large.*20000x20000/);
    }
    expect(t.renditions.inputReads).toBe(reads);
  });

  it('an image that cannot be decoded: 422 badRequest', async () => {
    const res = await t.app.inject({ method: 'GET', url: renditionUrl('480', ID.corrupt, 'corrupt.jpg') });
    expect(res.statusCode).toBe(422);
    expect(JSON.parse(res.body).error).toMatchObject({ code: 'badRequest', message: expect.stringMatching(/cannot be decoded/) });
  });

  it('unknown theme or variation: 404 notFound; unknown asset: 404 pathNotFound', async () => {
    const cases: [string, string][] = [
      [renditionUrl('original', ANTARCTICA.id, ANTARCTICA.fileName), 'notFound'],
      [renditionUrl('123', ANTARCTICA.id, ANTARCTICA.fileName), 'notFound'],
      [renditionUrl('480', ANTARCTICA.id, ANTARCTICA.fileName, 'no-theme'), 'notFound'],
      [`/.imaging/${THEME}/480/website/jcr:${ANTARCTICA.id}/x.jpg`, 'notFound'],
      [`/.imaging/${THEME}/480`, 'notFound'],
      ['/.imaging', 'notFound'],
      [renditionUrl('480', '00000000-0000-4000-8000-000000000000', 'x.jpg'), 'pathNotFound'],
    ];
    for (const [url, code] of cases) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(404);
      expect(JSON.parse(res.body).error.code, url).toBe(code);
    }
  });
});

describe('concurrency and limits', () => {
  let c: TestApp;
  const onResize = vi.fn();
  beforeAll(async () => {
    c = await createTestApp({ contentPaths: [ASSET_CONTENT], moduleRoots: [ASSET_MODULES], renditions: { onResize } });
  });
  afterAll(async () => {
    await c?.close();
  });

  it('10 concurrent first requests for one rendition resize once and all get the same bytes', async () => {
    const url = renditionUrl('960x720', ANTARCTICA.id, ANTARCTICA.fileName);
    const all = await Promise.all(Array.from({ length: 10 }, () => c.app.inject({ method: 'GET', url })));
    expect(all.map((r) => r.statusCode)).toEqual(Array(10).fill(200));
    expect(onResize).toHaveBeenCalledTimes(1);
    expect(c.renditions.resizeCount).toBe(1);
    for (const r of all) expect(r.rawPayload.equals(all[0]!.rawPayload)).toBe(true);
  });

  it('different renditions at once: at most 2 resizes run together, the others wait', async () => {
    let peakActive = 0;
    let peakQueued = 0;
    const sampler = setInterval(() => {
      const { active, queued } = c.renditions.cache.load;
      peakActive = Math.max(peakActive, active);
      peakQueued = Math.max(peakQueued, queued);
    }, 1);
    try {
      const urls = ['960', '480', '480x360'].flatMap((v) => [renditionUrl(v, SIMON.id, SIMON.fileName), renditionUrl(v, ANTARCTICA.id, ANTARCTICA.fileName)]);
      const res = await Promise.all(urls.map((url) => c.app.inject({ method: 'GET', url })));
      expect(res.map((r) => r.statusCode)).toEqual(Array(urls.length).fill(200));
    } finally {
      clearInterval(sampler);
    }
    expect(peakActive).toBe(2);
    expect(peakQueued).toBeGreaterThan(0);
    expect(c.renditions.cache.load).toEqual({ active: 0, queued: 0, inFlight: 0 });
  });
});

describe('a file planted in the cache folder', () => {
  it('is never served: a rendition is made and served instead; the folder is 0700, the files 0600', async () => {
    const p = await createTestApp({ contentPaths: [ASSET_CONTENT], moduleRoots: [ASSET_MODULES] });
    try {
      const hash = sha256(binaryOf(SIMON.file));
      const cache = p.renditions.cache;
      const planted = cache.pathFor(hash, '480x0', 'jpg');
      const linked = cache.pathFor(hash, '960x0', 'jpg');
      mkdirSync(dirname(planted), { recursive: true });
      writeFileSync(planted, 'planted by another user', { mode: 0o644 });
      chmodSync(planted, 0o644);
      if (process.getuid?.() === 0) chownSync(planted, 65534, 65534);
      const secret = join(p.dir, 'secret.txt');
      writeFileSync(secret, 'not a rendition');
      symlinkSync(secret, linked);
      for (const [variation, file] of [['480', planted], ['960', linked]] as const) {
        const res = await p.app.inject({ method: 'GET', url: renditionUrl(variation, SIMON.id, SIMON.fileName) });
        expect(res.statusCode).toBe(200);
        expect(res.rawPayload.toString()).not.toMatch(/planted|not a rendition/);
        expect((await sharp(res.rawPayload).metadata()).format).toBe('jpeg');
        expect(lstatSync(file).isSymbolicLink()).toBe(false);
        expect(statSync(file).mode & 0o777).toBe(0o600);
      }
      expect(p.renditions.resizeCount).toBe(2);
      expect(statSync(cache.dir).mode & 0o777).toBe(0o700);
      expect(readFileSync(secret, 'utf8')).toBe('not a rendition');
    } finally {
      await p.close();
    }
  });
});

describe('busy and permissions', () => {
  it('beyond the wait queue: 503 with Retry-After, never a crash', async () => {
    const b = await createTestApp({ contentPaths: [ASSET_CONTENT], moduleRoots: [ASSET_MODULES], renditions: { maxConcurrent: 1, maxQueued: 0 } });
    try {
      const urls = ['960', '480', '960x720', '480x360'].map((v) => renditionUrl(v, SIMON.id, SIMON.fileName));
      const res = await Promise.all(urls.map((url) => b.app.inject({ method: 'GET', url })));
      const codes = res.map((r) => r.statusCode);
      expect(codes).toContain(200);
      expect(codes).toContain(503);
      const busy = res.find((r) => r.statusCode === 503)!;
      expect(busy.headers['retry-after']).toBe('2');
      expect(JSON.parse(busy.body).error.code).toBe('serviceUnavailable');
    } finally {
      await b.close();
    }
  });

  it('an unreadable asset answers like a missing one', async () => {
    const hidden = '/tours/flickr_antarctica_Christopher_Michel_8370647648_a57a86bab4_o.jpg';
    const s = await createTestApp({
      contentPaths: [ASSET_CONTENT],
      moduleRoots: [ASSET_MODULES],
      security: {
        roles: {
          anonymous: {
            uriPermissions: OPEN_SECURITY.roles.anonymous.uriPermissions,
            workspacePermissions: { dam: [{ path: '/*', permission: 'read' }, { path: hidden, permission: 'deny' }, { path: `${hidden}/*`, permission: 'deny' }] },
          },
        },
      },
    });
    try {
      const denied = await s.app.inject({ method: 'GET', url: renditionUrl('480', ANTARCTICA.id, ANTARCTICA.fileName) });
      const missing = await s.app.inject({ method: 'GET', url: renditionUrl('480', '00000000-0000-4000-8000-000000000000', ANTARCTICA.fileName) });
      expect(denied.statusCode).toBe(404);
      expect(denied.body).toBe(missing.body);
      expect(s.renditions.resizeCount).toBe(0);
      expect((await s.app.inject({ method: 'GET', url: renditionUrl('480', SIMON.id, SIMON.fileName) })).statusCode).toBe(200);
    } finally {
      await s.close();
    }
  });
});
