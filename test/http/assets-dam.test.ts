// Originals of assets over HTTP: /dam/jcr:<uuid>/<fileName> (issue 5, DESIGN.md §5).
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, OPEN_SECURITY, type TestApp } from '../helpers/test-app.js';
import { hashOf, basic } from '../security-http/helpers.js';
import { ANTARCTICA, ASSET_CONTENT, SIMON, assetFolderXml, binaryOf } from '../assets/asset-xml.js';
import { BLOB_CHUNK_BYTES } from '../../src/assets/read-binary.js';

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

const BIG_ID = 'b16b16b1-0000-4000-8000-000000000001';
const BIG = randomBytes(3 * BLOB_CHUNK_BYTES + 777);
const EMPTY_ID = 'e0000000-0000-4000-8000-000000000002';
const NAMED_ID = 'e0000000-0000-4000-8000-000000000003';
const GENERATED = assetFolderXml('gen', [
  { name: 'big', id: BIG_ID, data: BIG, mimeType: 'application/octet-stream', fileName: 'big.bin' },
  { name: 'empty', id: EMPTY_ID, data: Buffer.alloc(0), mimeType: 'text/plain', fileName: 'empty.txt' },
  { name: 'named', id: NAMED_ID, data: Buffer.from('hi'), mimeType: 'text/plain', fileName: "Ünïcode name (1)'s.txt" },
]);

const original = binaryOf(ANTARCTICA.file);
const url = `/dam/jcr:${ANTARCTICA.id}/${ANTARCTICA.fileName}`;

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ contentPaths: [ASSET_CONTENT], content: { 'dam.gen.xml': GENERATED } });
});
afterAll(async () => {
  await t?.close();
});

function get(path: string, headers: Record<string, string> = {}, method: 'GET' | 'HEAD' = 'GET') {
  return t.app.inject({ method, url: path, headers });
}

describe('GET /dam/jcr:<uuid>/<fileName>', () => {
  it('serves the bytes of jcr:data with type, length, strong ETag, Last-Modified and caching headers', async () => {
    const res = await get(url);
    expect(res.statusCode).toBe(200);
    expect(res.rawPayload.equals(original)).toBe(true);
    expect(res.headers['content-type']).toBe('image/jpeg');
    expect(res.headers['content-length']).toBe(String(original.length));
    expect(res.headers.etag).toBe(`"${sha256(original)}"`);
    expect(res.headers['last-modified']).toBe(new Date(ANTARCTICA.lastModified).toUTCString());
    expect(res.headers['cache-control']).toBe('public, max-age=86400');
    expect(res.headers['accept-ranges']).toBe('bytes');
    expect(res.headers['content-disposition']).toBe(`inline; filename*=UTF-8''${ANTARCTICA.fileName}`);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });

  it('the second asset too', async () => {
    const res = await get(`/dam/jcr:${SIMON.id}/${SIMON.fileName}`);
    expect(res.statusCode).toBe(200);
    expect(res.rawPayload.equals(binaryOf(SIMON.file))).toBe(true);
  });

  it('the file-name segment is not checked (as in the original CMS); a bare uuid works too', async () => {
    for (const path of [`/dam/jcr:${ANTARCTICA.id}/other-name.png`, `/dam/jcr:${ANTARCTICA.id}`, `/dam/jcr:${ANTARCTICA.id}/`, `/dam/${ANTARCTICA.id}/x.jpg`]) {
      const res = await get(path);
      expect(res.statusCode, path).toBe(200);
      expect(res.rawPayload.equals(original), path).toBe(true);
      expect(res.headers['content-disposition']).toBe(`inline; filename*=UTF-8''${ANTARCTICA.fileName}`);
    }
  });

  it('Content-Disposition carries a non-ASCII file name RFC 8187-encoded', async () => {
    const res = await get(`/dam/jcr:${NAMED_ID}/x`);
    expect(res.headers['content-disposition']).toBe("inline; filename*=UTF-8''%C3%9Cn%C3%AFcode%20name%20%281%29%27s.txt");
    expect(res.body).toBe('hi');
  });

  it('HEAD: the headers of GET, no body; Range is ignored', async () => {
    for (const headers of [{}, { range: 'bytes=0-9' }] as Record<string, string>[]) {
      const res = await get(url, headers, 'HEAD');
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-length']).toBe(String(original.length));
      expect(res.headers['content-type']).toBe('image/jpeg');
      expect(res.headers.etag).toBe(`"${sha256(original)}"`);
      expect(res.rawPayload.length).toBe(0);
    }
  });

  it('unknown uuid, malformed id, or no id: 404 pathNotFound', async () => {
    for (const path of ['/dam/jcr:00000000-0000-4000-8000-000000000000/x.jpg', "/dam/jcr:x'y/z", '/dam', '/dam/']) {
      const res = await get(path);
      expect(res.statusCode, path).toBe(404);
      expect(JSON.parse(res.body).error.code, path).toBe('pathNotFound');
      expect(res.headers['cache-control']).toBe('no-store');
    }
  });

  it('a node that is not an asset (the folder, the resource node) is not served', async () => {
    const folder = await get('/dam/jcr:not-an-asset');
    expect(folder.statusCode).toBe(404);
    // The jcr:content resource of the shark asset in the corpus export: a cms:resource, not an asset.
    const resource = await get('/dam/jcr:5c8aeac4-ab14-4408-b3d5-e949bf38b553/x');
    expect(resource.statusCode).toBe(404);
  });

  it('other methods: 405', async () => {
    const res = await t.app.inject({ method: 'DELETE', url });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD');
  });
});

describe('validators', () => {
  it('If-None-Match with the ETag: 304 without a body; another tag: 200', async () => {
    const etag = `"${sha256(original)}"`;
    const hit = await get(url, { 'if-none-match': etag });
    expect(hit.statusCode).toBe(304);
    expect(hit.rawPayload.length).toBe(0);
    expect(hit.headers.etag).toBe(etag);
    expect((await get(url, { 'if-none-match': `"x", W/${etag}` })).statusCode).toBe(304);
    expect((await get(url, { 'if-none-match': '"other"' })).statusCode).toBe(200);
    expect((await get(url, { 'if-none-match': etag }, 'HEAD')).statusCode).toBe(304);
  });

  it('If-Modified-Since: 304 when not modified since', async () => {
    const lm = new Date(ANTARCTICA.lastModified).toUTCString();
    expect((await get(url, { 'if-modified-since': lm })).statusCode).toBe(304);
    expect((await get(url, { 'if-modified-since': new Date('2000-01-01').toUTCString() })).statusCode).toBe(200);
  });
});

describe('Range', () => {
  const size = original.length;
  const ranged = (range: string, extra: Record<string, string> = {}) => get(url, { range, ...extra });

  it('first bytes: bytes=0-99 → 206 with Content-Range', async () => {
    const res = await ranged('bytes=0-99');
    expect(res.statusCode).toBe(206);
    expect(res.headers['content-range']).toBe(`bytes 0-99/${size}`);
    expect(res.headers['content-length']).toBe('100');
    expect(res.headers['content-type']).toBe('image/jpeg');
    expect(res.rawPayload.equals(original.subarray(0, 100))).toBe(true);
  });

  it('suffix: bytes=-500 → the last 500 bytes', async () => {
    const res = await ranged('bytes=-500');
    expect(res.statusCode).toBe(206);
    expect(res.headers['content-range']).toBe(`bytes ${size - 500}-${size - 1}/${size}`);
    expect(res.rawPayload.equals(original.subarray(size - 500))).toBe(true);
  });

  it('open end: bytes=1000- → from byte 1000 to the end', async () => {
    const res = await ranged('bytes=1000-');
    expect(res.statusCode).toBe(206);
    expect(res.headers['content-range']).toBe(`bytes 1000-${size - 1}/${size}`);
    expect(res.headers['content-length']).toBe(String(size - 1000));
    expect(res.rawPayload.equals(original.subarray(1000))).toBe(true);
  });

  it('a last byte past the end is clamped', async () => {
    const res = await ranged(`bytes=${size - 2}-${size + 1000}`);
    expect(res.statusCode).toBe(206);
    expect(res.rawPayload.equals(original.subarray(size - 2))).toBe(true);
  });

  it('unsatisfiable: 416 with Content-Range bytes */size', async () => {
    for (const r of [`bytes=${size}-`, `bytes=${size + 10}-${size + 20}`, 'bytes=-0']) {
      const res = await ranged(r);
      expect(res.statusCode, r).toBe(416);
      expect(res.headers['content-range'], r).toBe(`bytes */${size}`);
    }
  });

  it('multiple ranges and malformed headers: 200 with everything', async () => {
    for (const r of ['bytes=0-1,10-20', 'bytes=5-1', 'bytes=x-y', 'lines=0-1']) {
      const res = await ranged(r);
      expect(res.statusCode, r).toBe(200);
      expect(res.headers['content-range'], r).toBeUndefined();
      expect(res.rawPayload.equals(original), r).toBe(true);
    }
  });

  it('If-Range: the current ETag honours the range, an old one sends everything', async () => {
    const etag = `"${sha256(original)}"`;
    expect((await ranged('bytes=0-9', { 'if-range': etag })).statusCode).toBe(206);
    const stale = await ranged('bytes=0-9', { 'if-range': '"stale"' });
    expect(stale.statusCode).toBe(200);
    expect(stale.rawPayload.length).toBe(size);
  });

  it('a 3 MiB blob streams whole, and ranges across its 1 MiB chunks are exact', async () => {
    const full = await get(`/dam/jcr:${BIG_ID}/big.bin`);
    expect(full.statusCode).toBe(200);
    expect(full.headers['content-length']).toBe(String(BIG.length));
    expect(full.headers['content-type']).toBe('application/octet-stream');
    expect(full.rawPayload.equals(BIG)).toBe(true);
    const start = BLOB_CHUNK_BYTES - 100;
    const end = 2 * BLOB_CHUNK_BYTES + 100;
    const part = await get(`/dam/jcr:${BIG_ID}/big.bin`, { range: `bytes=${start}-${end}` });
    expect(part.statusCode).toBe(206);
    expect(part.rawPayload.equals(BIG.subarray(start, end + 1))).toBe(true);
  });

  it('an empty binary: 200 with length 0; any range is unsatisfiable', async () => {
    const res = await get(`/dam/jcr:${EMPTY_ID}/empty.txt`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-length']).toBe('0');
    expect(res.rawPayload.length).toBe(0);
    const r = await get(`/dam/jcr:${EMPTY_ID}/empty.txt`, { range: 'bytes=0-' });
    expect(r.statusCode).toBe(416);
    expect(r.headers['content-range']).toBe('bytes */0');
  });
});

describe('workspace permissions', () => {
  let secured: TestApp;
  const read = (path: string) => ({ path, permission: 'read' });
  const deny = (path: string) => ({ path, permission: 'deny' });
  const hidden = '/tours/flickr_antarctica_Christopher_Michel_8370647648_a57a86bab4_o.jpg';
  const simonResource = '/tours/simon-mumenthaler-199501-unsplash/jcr:content';

  beforeAll(async () => {
    const hash = await hashOf('secret-pass');
    secured = await createTestApp({
      contentPaths: [ASSET_CONTENT],
      security: {
        roles: {
          anonymous: {
            uriPermissions: OPEN_SECURITY.roles.anonymous.uriPermissions,
            workspacePermissions: { dam: [read('/'), read('/*'), deny(hidden), deny(`${hidden}/*`), deny(simonResource)] },
          },
          editor: { workspacePermissions: { dam: [read(hidden), read(`${hidden}/*`), read(simonResource)] } },
        },
        authenticatedRoles: ['anonymous', 'rest-anonymous'],
        users: { ed: { passwordHash: hash, roles: ['editor'] } },
      },
    });
  });
  afterAll(async () => {
    await secured?.close();
  });

  it('an asset the caller may not read answers exactly like a missing one', async () => {
    const missing = await secured.app.inject({ method: 'GET', url: '/dam/jcr:00000000-0000-4000-8000-000000000000/x.jpg' });
    const denied = await secured.app.inject({ method: 'GET', url });
    // Its resource node hidden: the same again.
    const resourceDenied = await secured.app.inject({ method: 'GET', url: `/dam/jcr:${SIMON.id}/${SIMON.fileName}` });
    for (const res of [denied, resourceDenied]) {
      expect(res.statusCode).toBe(404);
      expect(res.body).toBe(missing.body);
      expect(res.headers['content-type']).toBe(missing.headers['content-type']);
      expect(res.headers['cache-control']).toBe(missing.headers['cache-control']);
    }
    expect(JSON.parse(denied.body).error.code).toBe('pathNotFound');
    // HEAD and Range do not tell them apart either.
    const head = await secured.app.inject({ method: 'HEAD', url });
    expect(head.statusCode).toBe(404);
    const ranged = await secured.app.inject({ method: 'GET', url, headers: { range: 'bytes=0-1' } });
    expect(ranged.statusCode).toBe(404);
  });

  it('a signed-in user allowed to read it gets it, privately cacheable', async () => {
    const res = await secured.app.inject({ method: 'GET', url, headers: { authorization: basic('ed', 'secret-pass') } });
    expect(res.statusCode).toBe(200);
    expect(res.rawPayload.equals(original)).toBe(true);
    expect(res.headers['cache-control']).toBe('private, max-age=86400');
  });
});
