import { chmodSync, chownSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BLOB_CHUNK_BYTES, openBlob, parseAssetId, resourceInfo, type BlobSource } from '../../src/assets/read-binary.js';
import {
  RenditionBusyError, RenditionCache, RenditionFolderError, Semaphore, defaultRenditionCacheDir,
} from '../../src/assets/rendition-cache.js';
import type { NodeRecord } from '../../src/store/rows.js';

/** A blob source over one buffer that records every read. */
function fakeBlobs(data: Buffer): BlobSource & { reads: [number, number][] } {
  const reads: [number, number][] = [];
  return {
    reads,
    info: async (hash) => ({ hash, size: data.length }),
    read: async (_hash, offset, length) => {
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

  it('default folder: next to a SQLite file, else the user\'s private cache folder, never the shared temp folder', () => {
    expect(defaultRenditionCacheDir('sqlite:/var/lib/petal/petal.db')).toBe('/var/lib/petal/renditions');
    expect(defaultRenditionCacheDir('sqlite::memory:', { XDG_CACHE_HOME: '/home/p/.cache' })).toBe('/home/p/.cache/petal/renditions');
    expect(defaultRenditionCacheDir('postgres://db/petal', {})).toBe(join(homedir(), '.cache', 'petal', 'renditions'));
    expect(defaultRenditionCacheDir()).not.toContain(tmpdir());
  });
});

describe('RenditionCache folder safety and bound', () => {
  const dirs: string[] = [];
  const scratch = () => {
    const d = mkdtempSync(join(tmpdir(), 'petal-cache-safety-'));
    dirs.push(d);
    return d;
  };
  afterEach(() => { for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true }); });
  const isRoot = process.getuid?.() === 0;

  it('creates the folder 0700 and its files 0600', async () => {
    const dir = join(scratch(), 'renditions');
    const cache = new RenditionCache({ cacheDir: dir });
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const file = cache.pathFor('d'.repeat(64), '10x0', 'jpg');
    await cache.get(file, async (temp) => writeFileSync(temp, 'img', { mode: 0o644 }));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'd'.repeat(64))).mode & 0o777).toBe(0o700);
  });

  it('narrows a folder readable by others (as older versions made it) and says so', () => {
    const dir = join(scratch(), 'renditions');
    mkdirSync(dir, { mode: 0o755 });
    chmodSync(dir, 0o755);
    const notices: string[] = [];
    new RenditionCache({ cacheDir: dir, onNotice: (n) => notices.push(n) });
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(notices).toEqual([expect.stringMatching(/narrowed from mode 755 to 700/)]);
  });

  it('refuses a folder writable by others, or owned by another user, with a clear error', () => {
    const open = join(scratch(), 'open');
    mkdirSync(open);
    chmodSync(open, 0o1777);
    expect(() => new RenditionCache({ cacheDir: open })).toThrow(RenditionFolderError);
    expect(() => new RenditionCache({ cacheDir: open })).toThrow(/writable by other users.*imaging\.cacheDir/);
    if (!isRoot) return;
    const foreign = join(scratch(), 'foreign');
    mkdirSync(foreign, { mode: 0o700 });
    chownSync(foreign, 65534, 65534);
    expect(() => new RenditionCache({ cacheDir: foreign })).toThrow(/owned by user 65534, not by this process/);
  });

  it('never serves a file it did not write: a foreign, a world-readable or a symlinked file is replaced', async () => {
    const dir = join(scratch(), 'renditions');
    const cache = new RenditionCache({ cacheDir: dir });
    const secret = join(scratch(), 'secret.txt');
    writeFileSync(secret, 'secret');
    const planted = (n: number) => cache.pathFor(String(n).repeat(64), '10x0', 'jpg');
    mkdirSync(join(dir, '1'.repeat(64)));
    writeFileSync(planted(1), 'planted', { mode: 0o644 });
    chmodSync(planted(1), 0o644);
    mkdirSync(join(dir, '2'.repeat(64)));
    symlinkSync(secret, planted(2));
    mkdirSync(join(dir, '3'.repeat(64)));
    writeFileSync(planted(3), 'planted', { mode: 0o600 });
    if (isRoot) chownSync(planted(3), 65534, 65534);
    for (const n of [1, 2, 3]) {
      const got = await cache.get(planted(n), async (temp) => writeFileSync(temp, 'real'));
      expect(got.size, String(n)).toBe(4);
      expect(readFileSync(planted(n), 'utf8')).toBe('real');
      const served = await collect(RenditionCache.openRange(planted(n), 0, 3));
      expect(served.toString()).toBe('real');
    }
    expect(readFileSync(secret, 'utf8')).toBe('secret');
    expect(cache.stats.refusedFiles).toBe(isRoot ? 3 : 2);
  });

  it('a flood of distinct renditions keeps the folder under maxBytes, evicting the least recently used', async () => {
    const dir = join(scratch(), 'renditions');
    const maxBytes = 64 * 1024;
    const cache = new RenditionCache({ cacheDir: dir, maxBytes });
    const first = cache.pathFor('e'.repeat(64), '1x0', 'jpg');
    await cache.get(first, async (temp) => writeFileSync(temp, Buffer.alloc(1000)));
    for (let i = 2; i <= 200; i++) {
      await cache.get(cache.pathFor('e'.repeat(64), `${i}x0`, 'jpg'), async (temp) => writeFileSync(temp, Buffer.alloc(1000)));
      if (i % 5 === 0) await cache.get(first, async () => { throw new Error('the first file is kept while used'); });
    }
    // Evicted files are deleted in the background.
    await vi.waitFor(() => expect(readdirSync(join(dir, 'e'.repeat(64))).length).toBe(cache.usage.files), { timeout: 30_000, interval: 20 });
    const files = readdirSync(join(dir, 'e'.repeat(64)));
    expect(cache.usage.bytes).toBeLessThanOrEqual(maxBytes);
    expect(files.length).toBe(cache.usage.files);
    expect(files.length * 4096).toBeLessThanOrEqual(maxBytes);
    expect(files).toContain('1x0.jpg');
    expect(files).toContain('200x0.jpg');
    // A new cache over the same folder adopts what is there and keeps the bound.
    const again = new RenditionCache({ cacheDir: dir, maxBytes: 16 * 1024 });
    await vi.waitFor(() => expect(readdirSync(join(dir, 'e'.repeat(64))).length).toBe(again.usage.files), { timeout: 30_000, interval: 20 });
    expect(again.usage.bytes).toBeLessThanOrEqual(16 * 1024);
  });
});
