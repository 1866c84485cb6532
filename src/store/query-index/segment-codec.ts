// Store layer (query index): the binary form of persisted index segments (index_segments rows, see
// persisted-segments.ts), and the ONLY place that knows both that form and the in-memory shapes of
// NodeTable / PropertyColumn: when those shapes change, this file (and SEGMENT_FORMAT) changes.
//
// A segment is a header then sections, each 8-byte aligned so that a typed array is a view of its
// raw bytes (little-endian: a big-endian machine reads the magic wrong and ignores the segment):
//   header   magic u32 | format u32 | section count u32 | CRC-32 of everything after the header u32
//   section  tag u32 | element count u32 | byte length u32 | 0 u32 | bytes, zero-padded to 8
// A string list (a node table's paths, a column's distinct texts) is Uint32 byte offsets (count + 1)
// and one UTF-8 blob: the shape a PathList keeps in memory, so a node table's paths are used where
// they lie in the segment, never decoded as a whole. Decoding checks
// the magic, the format, the CRC and every bound: anything else is a SegmentFormatError, and the
// caller reads SQL instead (a damaged segment must never give a different answer).
import { isAscii } from 'node:buffer';
import { crc32 } from 'node:zlib';
import { KIND_CODES, type NodeTable, type PropertyColumn } from './column-source.js';
import { foldedAt } from './column-scan.js';
import { PathList } from './path-list.js';
import { compareNullableNumber, compareNullableString } from './top-k.js';

/** Bump whenever the layout or the meaning of a section changes: older segments are then ignored. */
export const SEGMENT_FORMAT = 2;
const MAGIC = 0x5349_5150; // 'PQIS' in little-endian bytes
const HEADER = 16;

enum Tag { I32 = 1, U16 = 2, U8 = 3, F64 = 4, U32 = 5 }
const WIDTH: Record<Tag, number> = { [Tag.I32]: 4, [Tag.U16]: 2, [Tag.U8]: 1, [Tag.F64]: 8, [Tag.U32]: 4 };

export class SegmentFormatError extends Error {}

/** A column as persisted: its values, plus the sort orders that cost most to build at first use. */
export interface PersistedColumn {
  readonly column: PropertyColumn;
  /** Entry indices of numeric kinds, ascending by value (stable: ties by entry index). */
  readonly numOrder: Int32Array;
  /** Entry indices of first values (pos 0), ascending by (number, folded string), ties by entry index. */
  readonly keyOrder: Int32Array;
}

// ---------------------------------------------------------------------------------------------------
// Writing

class Writer {
  readonly #parts: Buffer[] = [];
  #sections = 0;

  #section(tag: Tag, count: number, bytes: Uint8Array): void {
    const head = Buffer.alloc(16);
    head.writeUInt32LE(tag, 0);
    head.writeUInt32LE(count, 4);
    head.writeUInt32LE(bytes.byteLength, 8);
    this.#parts.push(head, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    const pad = (8 - (bytes.byteLength % 8)) % 8;
    if (pad > 0) this.#parts.push(Buffer.alloc(pad));
    this.#sections++;
  }

  array(tag: Tag, a: Int32Array | Uint16Array | Uint8Array | Float64Array | Uint32Array): void {
    this.#section(tag, a.length, new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
  }

  /** A string list: Uint32 byte offsets and one UTF-8 blob. */
  strings(list: readonly string[]): void {
    this.#plain(list);
  }

  /** A PathList as it is: its offsets and bytes. */
  paths(list: PathList): void {
    this.array(Tag.U32, list.offsets);
    this.#section(Tag.U8, list.bytes.length, list.bytes);
  }

  #plain(list: readonly string[]): void {
    const offsets = new Uint32Array(list.length + 1);
    const chunks: Buffer[] = [];
    let bytes = 0;
    for (let i = 0; i < list.length; i++) {
      const b = Buffer.from(list[i]!, 'utf8');
      chunks.push(b);
      bytes += b.length;
      if (bytes > 0xffff_ffff) throw new SegmentFormatError('string list over 4 GiB');
      offsets[i + 1] = bytes;
    }
    this.array(Tag.U32, offsets);
    this.#section(Tag.U8, bytes, Buffer.concat(chunks, bytes));
  }

  /** Numbers, or an empty section when every one is NaN (a column of strings and booleans). */
  numbers(a: Float64Array): void {
    this.array(Tag.F64, a.some((x) => !Number.isNaN(x)) ? a : new Float64Array(0));
  }

  finish(): Buffer {
    const body = Buffer.concat(this.#parts);
    const head = Buffer.alloc(HEADER);
    head.writeUInt32LE(MAGIC, 0);
    head.writeUInt32LE(SEGMENT_FORMAT, 4);
    head.writeUInt32LE(this.#sections, 8);
    head.writeUInt32LE(crc32(body), 12);
    return Buffer.concat([head, body]);
  }
}

export function encodeTable(table: NodeTable): Buffer {
  const w = new Writer();
  w.array(Tag.I32, table.nids);
  w.array(Tag.U16, table.typeCodes);
  w.paths(table.paths);
  w.strings(table.types);
  return w.finish();
}

/** The column and its two sort orders (built here: the writer pays them once, every later start reads them). */
export function encodeColumn(col: PropertyColumn): Buffer {
  const w = new Writer();
  w.array(Tag.I32, col.nids);
  w.array(Tag.U16, col.pos);
  w.array(Tag.U8, col.kinds);
  w.numbers(col.nums);
  w.array(col.codes instanceof Uint8Array ? Tag.U8 : col.codes instanceof Uint16Array ? Tag.U16 : Tag.U32, col.codes);
  w.strings(col.dict);
  w.array(Tag.I32, numericOrder(col));
  w.array(Tag.I32, firstValueOrder(col));
  return w.finish();
}

/** What comparing first values needs (a PropertyColumn, or a loaded Column). */
export type KeyColumn = Pick<PropertyColumn, 'nums' | 'kinds' | 'codes' | 'dict'>;

/** As column-scan.ts `rangeInto` sorts, over every entry (ties by entry): a load keeps those with an ordinal. */
function numericOrder(col: PropertyColumn): Int32Array {
  let count = 0;
  for (let i = 0; i < col.kinds.length; i++) if (col.kinds[i] === KIND_CODES.number || col.kinds[i] === KIND_CODES.date) count++;
  const idx = new Int32Array(count);
  let j = 0;
  for (let i = 0; i < col.kinds.length; i++) if (col.kinds[i] === KIND_CODES.number || col.kinds[i] === KIND_CODES.date) idx[j++] = i;
  const nums = col.nums;
  return idx.sort((a, b) => nums[a]! - nums[b]! || a - b);
}

/** As order-keys.ts `sortedByKey` compares, except that ties stay by entry (a load re-sorts them by ordinal). */
function firstValueOrder(col: PropertyColumn): Int32Array {
  let count = 0;
  for (let i = 0; i < col.pos.length; i++) if (col.pos[i] === 0) count++;
  const idx = new Int32Array(count);
  let j = 0;
  for (let i = 0; i < col.pos.length; i++) if (col.pos[i] === 0) idx[j++] = i;
  // A copy: folding keeps its folded texts on the object it folds, and the caller's column is left as it was.
  const keyed: KeyColumn = { nums: col.nums, kinds: col.kinds, codes: col.codes, dict: col.dict };
  return idx.sort((a, b) => compareKeys(keyed, a, b) || a - b);
}

/** Same first value (what `compareKeys` calls equal), without comparing code points. */
export function sameKey(col: KeyColumn, a: number, b: number): boolean {
  const x = col.nums[a]!;
  const y = col.nums[b]!;
  return (x === y || (Number.isNaN(x) && Number.isNaN(y))) && foldedAt(col, a) === foldedAt(col, b);
}

export function compareKeys(col: KeyColumn, a: number, b: number): number {
  return compareNullableNumber(col.nums[a]!, col.nums[b]!) || compareNullableString(foldedAt(col, a), foldedAt(col, b));
}

// ---------------------------------------------------------------------------------------------------
// Reading

class Reader {
  #at = HEADER;
  #left: number;

  constructor(private readonly buf: Buffer) {
    if (buf.length < HEADER || buf.readUInt32LE(0) !== MAGIC) throw new SegmentFormatError('not an index segment');
    const format = buf.readUInt32LE(4);
    if (format !== SEGMENT_FORMAT) throw new SegmentFormatError(`segment format ${format}, expected ${SEGMENT_FORMAT}`);
    this.#left = buf.readUInt32LE(8);
    if (crc32(buf.subarray(HEADER)) !== buf.readUInt32LE(12)) throw new SegmentFormatError('segment checksum mismatch');
  }

  /** The next section's bytes, checked against the expected tag and (when given) element count. */
  #section(tag: Tag, count?: number): { count: number; start: number; bytes: number } {
    if (this.#left-- <= 0 || this.#at + 16 > this.buf.length) throw new SegmentFormatError('segment too short');
    const b = this.buf;
    const got = b.readUInt32LE(this.#at);
    const n = b.readUInt32LE(this.#at + 4);
    const bytes = b.readUInt32LE(this.#at + 8);
    const start = this.#at + 16;
    if (got !== tag || (count !== undefined && n !== count) || bytes !== n * WIDTH[tag] || start + bytes > b.length) {
      throw new SegmentFormatError('segment section does not match');
    }
    this.#at = start + bytes + ((8 - (bytes % 8)) % 8);
    return { count: n, start, bytes };
  }

  /**
   * A section as a view of the segment's buffer (no copy: the segment is read once, and its buffer
   * then lives as long as the base), or a copy when the buffer is not aligned for the type.
   */
  #view<T>(s: { start: number; bytes: number }, width: number, make: (b: ArrayBuffer, at: number, n: number) => T): T {
    const at = this.buf.byteOffset + s.start;
    if (at % width === 0) return make(this.buf.buffer as ArrayBuffer, at, s.bytes / width);
    return make(new Uint8Array(this.buf.subarray(s.start, s.start + s.bytes)).buffer, 0, s.bytes / width);
  }

  i32(count?: number): Int32Array { return this.#view(this.#section(Tag.I32, count), 4, (b, at, n) => new Int32Array(b, at, n)); }
  u16(count?: number): Uint16Array { return this.#view(this.#section(Tag.U16, count), 2, (b, at, n) => new Uint16Array(b, at, n)); }
  u8(count?: number): Uint8Array { return this.#view(this.#section(Tag.U8, count), 1, (b, at, n) => new Uint8Array(b, at, n)); }
  #u32(count?: number): Uint32Array { return this.#view(this.#section(Tag.U32, count), 4, (b, at, n) => new Uint32Array(b, at, n)); }

  /** `count` numbers; an empty section is `count` NaNs. */
  numbers(count: number): Float64Array {
    const s = this.#section(Tag.F64);
    if (s.count === 0) return new Float64Array(count).fill(NaN);
    if (s.count !== count) throw new SegmentFormatError('segment section does not match');
    return this.#view(s, 8, (b, at, n) => new Float64Array(b, at, n));
  }

  /** An index section of any width (a column's dictionary codes). */
  codes(count: number): Uint8Array | Uint16Array | Uint32Array {
    const tag = this.#at + 4 <= this.buf.length ? this.buf.readUInt32LE(this.#at) : 0;
    if (tag === Tag.U16) return this.u16(count);
    if (tag === Tag.U32) return this.#u32(count);
    return this.u8(count);
  }

  /** A string list (see Writer.strings), decoded. */
  strings(count?: number): string[] {
    return this.#plain(count)();
  }

  /** A PathList over the segment's own bytes (no copy, nothing decoded). */
  paths(count: number): PathList {
    const { offsets, bytes } = this.#checked(count);
    return new PathList(bytes, offsets);
  }

  #checked(count?: number): { offsets: Uint32Array; bytes: Buffer } {
    const offsets = this.#u32(count === undefined ? undefined : count + 1);
    if (offsets.length === 0) throw new SegmentFormatError('string list without offsets');
    const blob = this.#section(Tag.U8);
    const n = offsets.length - 1;
    if (offsets[0] !== 0 || offsets[n] !== blob.count) throw new SegmentFormatError('string offsets do not match');
    for (let i = 0; i < n; i++) if (offsets[i]! > offsets[i + 1]!) throw new SegmentFormatError('string offsets do not match');
    return { offsets, bytes: this.buf.subarray(blob.start, blob.start + blob.bytes) };
  }

  /**
   * Plain strings, checked now, made by the returned function. ASCII text (paths, codes, numbers: the
   * usual case) is decoded as one string and cut by offsets, which gives cheap slices of it; other
   * text is decoded entry by entry.
   */
  #plain(count?: number): () => string[] {
    const { offsets, bytes } = this.#checked(count);
    const n = offsets.length - 1;
    return () => {
      const out: string[] = new Array(n);
      if (isAscii(bytes)) {
        const whole = bytes.toString('latin1');
        for (let i = 0; i < n; i++) out[i] = whole.slice(offsets[i], offsets[i + 1]);
      } else {
        for (let i = 0; i < n; i++) out[i] = bytes.toString('utf8', offsets[i], offsets[i + 1]);
      }
      return out;
    };
  }

  done(): void {
    if (this.#left !== 0) throw new SegmentFormatError('segment has extra sections');
  }
}

/** The node table; its paths stay in the segment's bytes (a PathList over them). */
export function decodeTable(buf: Buffer): NodeTable {
  const r = new Reader(buf);
  const nids = r.i32();
  const typeCodes = r.u16(nids.length);
  const paths = r.paths(nids.length);
  const types = r.strings();
  r.done();
  for (let i = 0; i < typeCodes.length; i++) if (typeCodes[i]! >= types.length) throw new SegmentFormatError('type code out of range');
  return { nids, typeCodes, types, paths };
}

export function decodeColumn(buf: Buffer): PersistedColumn {
  const r = new Reader(buf);
  const nids = r.i32();
  const n = nids.length;
  const pos = r.u16(n);
  const kinds = r.u8(n);
  const nums = r.numbers(n);
  const codes = r.codes(n);
  const dict = r.strings();
  const numOrder = r.i32();
  const keyOrder = r.i32();
  r.done();
  for (let i = 0; i < n; i++) {
    if (kinds[i]! < 1 || kinds[i]! > 4) throw new SegmentFormatError('unknown value kind');
    if (codes[i]! >= dict.length) throw new SegmentFormatError('text code out of range');
  }
  for (const order of [numOrder, keyOrder]) {
    for (let i = 0; i < order.length; i++) if (order[i]! < 0 || order[i]! >= n) throw new SegmentFormatError('order out of range');
  }
  return { column: { nids, pos, kinds, nums, codes, dict }, numOrder, keyOrder };
}
