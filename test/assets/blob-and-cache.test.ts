import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BLOB_CHUNK_BYTES, openBlob, parseAssetId, resourceInfo, type BlobSource } from '../../src/assets/read-binary.js';
import { RenditionBusyError, RenditionCache, Semaphore, defaultRenditionCacheDir } from '../../src/assets/rendition-cache.js';
import type { NodeRecord } from '../../src/store/rows.js';

/** A blob source over one buffer that records every read. */
function fakeBlobs(data: Buffer): BlobSource & { reads: [number, number][] } {
  const reads: [number, number][] = [];
  return {
    reads,
    getBlobInfo: async (hash) => ({ hash, size: data.length }),
    readBlob: async (_hash, offset, length) => {
      reads.push([offset, length]);
      return Buffer.from(data.subarray(offset, offset + length));
    },
  };
}

async function collect(s: NodeJS.ReadableStream): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of s) parts.push(c as Buffer);
  return Buffer.concat(parts);
}

describe('BlobReadStream', () => {
  const data = Buffer.alloc(3 * BLOB_CHUNK_BYTES + 12345);
  for (let i = 0; i < data.length; i++) data[i] = (i * 31 + (i >> 11)) & 0xff;

  it('streams a 3 MiB blob one stored chunk per read', async () => {
    const blobs = fakeBlobs(data);
    const out = await collect(openBlob(blobs, 'h', 0, data.length - 1));
    expect(out.equals(data)).toBe(true);
    expect(blobs.reads).toEqual([
      [0, BLOB_CHUNK_BYTES], [BLOB_CHUNK_BYTES, BLOB_CHUNK_BYTES], [2 * BLOB_CHUNK_BYTES, BLOB_CHUNK_BYTES], [3 * BLOB_CHUNK_BYTES, 12345],
    ]);
  });

  it('a range across a chunk boundary reads up to the boundary first', async () => {
    const blobs = fakeBlobs(data);
    const start = BLOB_CHUNK_BYTES - 10;
    const out = await collect(openBlob(blobs, 'h', start, start + 29));
    expect(out.equals(data.subarray(start, start + 30))).toBe(true);
    expect(blobs.reads).toEqual([[start, 10], [BLOB_CHUNK_BYTES, 20]]);
  });

  it('does not read ahead more than one chunk while the consumer waits', async () => {
    const blobs = fakeBlobs(data);
    const s = openBlob(blobs, 'h', 0, data.length - 1);
    s.pause();
    s.on('readable', () => {}); // start buffering without consuming
    await new Promise((r) => setTimeout(r, 50));
    expect(blobs.reads.length).toBeLessThanOrEqual(2);
    s.destroy();
  });

  it('a blob shorter than announced fails the stream', async () => {
    const blobs = fakeBlobs(Buffer.alloc(10));
    await expect(collect(openBlob(blobs, 'h', 0, 99))).rejects.toThrow(/ends at 10/);
  });
});

describe('asset ids and resource metadata', () => {
  it('jcr:<uuid> and bare uuids', () => {
    expect(parseAssetId('jcr:795449d2-6c16-402e-9e8a-bbb101fe22bb')).toBe('795449d2-6c16-402e-9e8a-bbb101fe22bb');
    expect(parseAssetId('795449d2-6c16-402e-9e8a-bbb101fe22bb')).toBe('795449d2-6c16-402e-9e8a-bbb101fe22bb');
    for (const bad of ['', 'jcr:', "jcr:x'y", 'a/b', 'jcr:' + 'a'.repeat(200)]) expect(parseAssetId(bad), bad).toBeUndefined();
  });

  const node = (name: string, properties: NodeRecord['properties']): NodeRecord => ({
    id: 'i', workspace: 'dam', path: `/${name}`, parentPath: '/', name, depth: 1, position: 0, type: 'cms:asset', mixins: [], properties,
  });
  it('file name, extension, MIME type fallbacks', () => {
    const hash = 'a'.repeat(64);
    const asset = node('photo', [['cms:lastModified', 'Date', '2020-01-01T00:00:00.000+00:00']]);
    expect(resourceInfo(asset, node('jcr:content', [['fileName', 'String', 'x.PNG'], ['jcr:data', 'Binary', hash]]))).toMatchObject({
      fileName: 'x.PNG', extension: 'PNG', mimeType: 'image/png', hash, lastModified: new Date('2020-01-01T00:00:00Z'),
    });
    expect(resourceInfo(asset, node('jcr:content', [['fileName', 'String', 'noext'], ['extension', 'String', 'jpg'], ['jcr:mimeType', 'String', 'IMAGE/JPEG']])))
      .toMatchObject({ fileName: 'noext.jpg', mimeType: 'image/jpeg', hash: undefined });
    expect(resourceInfo(asset, node('jcr:content', [['jcr:mimeType', 'String', 'text/html\r\nx: y']]))).toMatchObject({
      fileName: 'photo', mimeType: 'application/octet-stream',
    });
  });
});

describe('Semaphore and RenditionCache', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const tmp = () => {
    const d = mkdtempSync(join(tmpdir(), 'petal-rc-'));
    dirs.push(d);
    return d;
  };

  it('runs at most max tasks at once and refuses beyond the queue', async () => {
    const s = new Semaphore(2, 3);
    let running = 0;
    let peak = 0;
    const release: (() => void)[] = [];
    const task = () => s.run(async () => {
      running++;
      peak = Math.max(peak, running);
      await new Promise<void>((r) => release.push(r));
      running--;
    });
    const all = [task(), task(), task(), task(), task()];
    await expect(task()).rejects.toBeInstanceOf(RenditionBusyError);
    expect(s.active).toBe(2);
    expect(s.queued).toBe(3);
    while (release.length > 0 || s.active > 0) {
      release.shift()?.();
      await new Promise((r) => setTimeout(r, 1));
    }
    await Promise.all(all);
    expect(peak).toBe(2);
    expect(s.active).toBe(0);
  });

  it('concurrent gets produce once, then hit the disk; failures leave no file', async () => {
    const cache = new RenditionCache({ cacheDir: tmp() });
    const file = cache.pathFor('b'.repeat(64), '10x0', 'jpg');
    let produced = 0;
    const produce = async (temp: string) => {
      produced++;
      await new Promise((r) => setTimeout(r, 20));
      writeFileSync(temp, 'hello');
    };
    const results = await Promise.all(Array.from({ length: 10 }, () => cache.get(file, produce)));
    expect(produced).toBe(1);
    expect(results.every((r) => r.size === 5 && r.file === file)).toBe(true);
    expect(readFileSync(file, 'utf8')).toBe('hello');
    await cache.get(file, produce);
    expect(produced).toBe(1);
    expect(cache.stats).toMatchObject({ produced: 1, hits: 1, shared: 9 });

    const bad = cache.pathFor('c'.repeat(64), '10x0', 'jpg');
    await expect(cache.get(bad, async (temp) => { writeFileSync(temp, 'x'); throw new Error('boom'); })).rejects.toThrow('boom');
    await expect(cache.get(bad, async (temp) => writeFileSync(temp, 'ok'))).resolves.toMatchObject({ size: 2 });
  });

  it('refuses keys that could leave the cache folder', () => {
    const cache = new RenditionCache({ cacheDir: tmp() });
    expect(() => cache.pathFor('../x', '1x1', 'jpg')).toThrow();
    expect(() => cache.pathFor('a'.repeat(64), '../1', 'jpg')).toThrow();
    expect(() => cache.pathFor('a'.repeat(64), '1x1', 'j/g')).toThrow();
  });

  it('default folder: next to a SQLite file, else in the OS temp folder', () => {
    expect(defaultRenditionCacheDir('sqlite:/var/lib/petal/petal.db')).toBe('/var/lib/petal/renditions');
    expect(defaultRenditionCacheDir('sqlite::memory:')).toBe(join(tmpdir(), 'petal-renditions'));
    expect(defaultRenditionCacheDir()).toBe(join(tmpdir(), 'petal-renditions'));
  });
});
