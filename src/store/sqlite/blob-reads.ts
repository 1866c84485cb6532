// SQLite backend: binaries are stored in chunks of BLOB_CHUNK bytes; a range is read from the chunks it
// touches only.
import { BLOB_CHUNK, type Statements } from './statements.js';

export function readBlobRange(s: Statements, hash: string, offset: number, length: number): Buffer {
  const first = Math.floor(offset / BLOB_CHUNK);
  const last = Math.floor((offset + length - 1) / BLOB_CHUNK);
  const rows = s.blobChunks.all(hash, first, last) as { seq: number; data: Buffer }[];
  const joined = Buffer.concat(rows.map((r) => r.data));
  const start = offset - first * BLOB_CHUNK;
  return joined.subarray(start, start + length);
}
