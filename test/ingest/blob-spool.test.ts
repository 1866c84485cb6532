import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Base64Spool, spoolBase64 } from '../../src/ingest/blob-spool.js';

let dir: string;
beforeEach(async () => { dir = await mkdtemp(join(tmpdir(), 'petal-spool-')); });
afterEach(async () => { await rm(dir, { recursive: true, force: true }); });

describe('Base64Spool', () => {
  it('decodes base64 split at arbitrary places, with whitespace, into a file named by its sha256', async () => {
    for (const length of [0, 1, 2, 3, 1000, 4099]) {
      const bytes = randomBytes(length);
      const text = bytes.toString('base64').replace(/(.{76})/g, '$1\n  ');
      const spool = new Base64Spool(dir);
      for (let at = 0; at < text.length;) {
        const size = 1 + ((at * 7) % 13);
        spool.appendBase64(text.slice(at, at + size));
        await spool.settled();
        at += size;
      }
      const blob = spool.end();
      await spool.settled();
      const hash = createHash('sha256').update(bytes).digest('hex');
      expect(blob).toEqual({ hash, size: length, file: join(dir, hash) });
      expect(Buffer.compare(await readFile(blob.file), bytes)).toBe(0);
    }
    expect((await readdir(dir)).filter((f) => f.startsWith('.'))).toEqual([]);
  });

  it('reuses an existing spool file of the same content', async () => {
    const a = await spoolBase64(dir, 'aGVsbG8=');
    const b = await spoolBase64(dir, 'aGVs bG8=');
    expect(b).toEqual(a);
    expect(await readdir(dir)).toEqual([a.hash]);
  });

  it('accepts unpadded base64 and rejects corrupt base64', async () => {
    expect((await spoolBase64(dir, 'aGVsbG8')).size).toBe(5);
    await expect(spoolBase64(dir, 'aGVs*G8=')).rejects.toThrow(/unexpected character/);
    await expect(spoolBase64(dir, 'aG=sbG8=')).rejects.toThrow(/padding/);
    await expect(spoolBase64(dir, 'aGVsbG8=aGVs')).rejects.toThrow(/padding/);
    await expect(spoolBase64(dir, 'aGVsb')).rejects.toThrow(/truncated/);
    expect((await readdir(dir)).filter((f) => f.startsWith('.'))).toEqual([]);
  });
});
