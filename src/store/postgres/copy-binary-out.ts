// PostgreSQL backend: the rows of a query as raw bytes, through `COPY (…) TO STDOUT (FORMAT binary)`.
// node-postgres decodes every result value as text, so a bytea value would come as hex (twice its
// size) or base64 text to decode again; a binary COPY hands over the bytes as they are stored. The
// query text cannot take parameters: callers inline values with `escapeLiteral`.
import type pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';

/** The COPY binary format's signature: "PGCOPY\n\377\r\n\0". */
const SIGNATURE = Buffer.from([0x50, 0x47, 0x43, 0x4f, 0x50, 0x59, 0x0a, 0xff, 0x0d, 0x0a, 0x00]);

export class CopyFormatError extends Error {}

/** Each row's fields as byte slices (null for SQL NULL) of one buffer holding the whole output. */
export async function copyBinaryRows(client: pg.PoolClient, query: string): Promise<(Buffer | null)[][]> {
  const chunks: Buffer[] = [];
  const stream = client.query(copyTo(`COPY (${query}) TO STDOUT (FORMAT binary)`));
  for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(chunk);
  return parseBinaryCopy(Buffer.concat(chunks));
}

/** Parses the binary COPY format (header, tuples of length-prefixed fields, trailer). */
export function parseBinaryCopy(buf: Buffer): (Buffer | null)[][] {
  if (buf.length < SIGNATURE.length + 8 || !buf.subarray(0, SIGNATURE.length).equals(SIGNATURE)) throw new CopyFormatError('not a binary COPY');
  let at = SIGNATURE.length + 4; // flags
  at += 4 + buf.readUInt32BE(at); // header extension
  const rows: (Buffer | null)[][] = [];
  for (;;) {
    if (at + 2 > buf.length) throw new CopyFormatError('binary COPY ends without its trailer');
    const fields = buf.readInt16BE(at);
    at += 2;
    if (fields === -1) return rows;
    const row: (Buffer | null)[] = [];
    for (let f = 0; f < fields; f++) {
      if (at + 4 > buf.length) throw new CopyFormatError('binary COPY field cut short');
      const len = buf.readInt32BE(at);
      at += 4;
      if (len === -1) {
        row.push(null);
        continue;
      }
      if (at + len > buf.length) throw new CopyFormatError('binary COPY field cut short');
      row.push(buf.subarray(at, at + len));
      at += len;
    }
    rows.push(row);
  }
}
