// Export layer: a blob as base64 text, read from the store one chunk at a time.
import { BlobReadStream, type BlobSource } from '../assets/read-binary.js';

/** Base64 pieces of the blob `hash`, each from one stored chunk; together they are the blob's base64. */
export async function* base64Blob(blobs: BlobSource, hash: string): AsyncGenerator<string> {
  const info = await blobs.info(hash);
  if (info === undefined) throw new Error(`blob ${hash} is missing from the store`);
  if (info.size === 0) return;
  // Base64 encodes 3 bytes at a time: the bytes after the last whole triple wait for the next chunk.
  let carry: Buffer = Buffer.alloc(0);
  for await (const chunk of new BlobReadStream(blobs, hash, 0, info.size - 1) as AsyncIterable<Buffer>) {
    const bytes = carry.length === 0 ? chunk : Buffer.concat([carry, chunk]);
    const whole = bytes.length - (bytes.length % 3);
    if (whole > 0) yield bytes.subarray(0, whole).toString('base64');
    carry = Buffer.from(bytes.subarray(whole));
  }
  if (carry.length > 0) yield carry.toString('base64');
}
