// Persisted segments come back from PostgreSQL through a binary COPY (copy-binary-out.ts): its parser
// gives each field's bytes, NULLs as null, and refuses anything cut short.
import { describe, expect, it } from 'vitest';
import { CopyFormatError, parseBinaryCopy } from '../../src/store/postgres/copy-binary-out.js';

function binaryCopy(rows: (Buffer | null)[][]): Buffer {
  const parts: Buffer[] = [Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1'), Buffer.alloc(4), Buffer.from([0, 0, 0, 2]), Buffer.from([7, 7])];
  for (const row of rows) {
    const n = Buffer.alloc(2);
    n.writeInt16BE(row.length);
    parts.push(n);
    for (const f of row) {
      const len = Buffer.alloc(4);
      len.writeInt32BE(f === null ? -1 : f.length);
      parts.push(len);
      if (f !== null) parts.push(f);
    }
  }
  parts.push(Buffer.from([0xff, 0xff]));
  return Buffer.concat(parts);
}

describe('binary COPY output', () => {
  it('gives each field as its bytes, NULL as null, after a header extension', () => {
    const blob = Buffer.from([0, 1, 2, 255, 0x5c, 0x78]);
    const rows = parseBinaryCopy(binaryCopy([[Buffer.from([0, 0, 0, 5]), blob], [null, Buffer.alloc(0)]]));
    expect(rows).toEqual([[Buffer.from([0, 0, 0, 5]), blob], [null, Buffer.alloc(0)]]);
  });

  it('refuses output that is not a binary COPY or is cut short', () => {
    const whole = binaryCopy([[Buffer.from('abc')]]);
    expect(() => parseBinaryCopy(Buffer.from('id\tdata\n'))).toThrow(CopyFormatError);
    for (const cut of [whole.length - 1, whole.length - 3, 22]) expect(() => parseBinaryCopy(whole.subarray(0, cut)), `cut at ${cut}`).toThrow(CopyFormatError);
  });
});
