// PostgreSQL backend: binaries are stored in chunks of BLOB_CHUNK bytes; a range is read from the
// chunks it touches only.
import type pg from 'pg';
import type { BlobInfo } from '../rows.js';
import { BLOB_CHUNK } from './import-transaction.js';
import { SQL, run } from './statements.js';

export async function blobInfo(db: pg.Pool, hash: string): Promise<BlobInfo | undefined> {
  const [row] = await run<{ hash: string; size: string }>(db, SQL.blobInfo, [hash]);
  return row && { hash: row.hash, size: Number(row.size) };
}

export async function readBlobRange(db: pg.Pool, hash: string, offset: number, length: number): Promise<Buffer> {
  const first = Math.floor(offset / BLOB_CHUNK);
  const last = Math.floor((offset + length - 1) / BLOB_CHUNK);
  const rows = await run<{ seq: number; data: Buffer }>(db, SQL.blobChunks, [hash, first, last]);
  if (rows.length === 0) return Buffer.alloc(0);
  const joined = rows.length === 1 ? rows[0]!.data : Buffer.concat(rows.map((r) => r.data));
  const start = offset - first * BLOB_CHUNK;
  return joined.subarray(start, start + length);
}
