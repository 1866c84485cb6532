// Store layer (query index): the binary form of persisted index segments (index_segments rows, see
// persisted-segments.ts), and the ONLY place that knows both that form and the in-memory shapes of
// NodeTable / PropertyColumn: when those shapes change, this file (and SEGMENT_FORMAT) changes.
//
// A segment is a header then sections, each 8-byte aligned so that a typed array is a view of its
// raw bytes (little-endian: a big-endian machine reads the magic wrong and ignores the segment):
//   header   magic u32 | format u32 | section count u32 | CRC-32 of everything after the header u32
//   section  tag u32 | element count u32 | byte length u32 | 0 u32 | bytes, zero-padded to 8
// A string list is a mode section (plain or dictionary), then Uint32 byte offsets (count + 1) and one
// UTF-8 blob of its strings (a dictionary's distinct ones, then a code per entry). Decoding checks
// the magic, the format, the CRC and every bound: anything else is a SegmentFormatError, and the
// caller reads SQL instead (a damaged segment must never give a different answer).
import { isAscii } from 'node:buffer';
import { crc32 } from 'node:zlib';
import type { ValueKind } from '../../query/ast.js';
import type { NodeTable, PropertyColumn } from './column-source.js';
import { compareNullableNumber, compareNullableString } from './top-k.js';

/** Bump whenever the layout or the meaning of a section changes: older segments are then ignored. */
export const SEGMENT_FORMAT = 1;
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
  /** Entry indices of strings and booleans, grouped by (kind, text) (equality lookups: `valueRange`). */
  readonly valueOrder: Int32Array;
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

  /**
   * A string list: a mode (0 plain, 1 dictionary), then the strings (the distinct ones when a quarter
   * or fewer of the entries are distinct, with an index per entry of 1, 2 or 4 bytes). A dictionary
   * decodes into a few strings shared by every entry: no allocation per entry.
   */
  strings(list: readonly string[]): void {
    const limit = Math.max(16, list.length >>> 2);
    const codes = new Map<string, number>();
    const distinct: string[] = [];
    let many = false;
    for (const s of list) {
      if (codes.has(s)) continue;
      if (distinct.length >= limit) {
        many = true;
        break;
      }
      codes.set(s, distinct.length);
      distinct.push(s);
    }
    if (many) {
      this.array(Tag.U32, Uint32Array.of(0));
      this.#plain(list);
      return;
    }
    this.array(Tag.U32, Uint32Array.of(1));
    this.#plain(distinct);
    const index = distinct.length <= 0x100 ? new Uint8Array(list.length) : distinct.length <= 0x10000 ? new Uint16Array(list.length) : new Uint32Array(list.length);
    for (let i = 0; i < list.length; i++) index[i] = codes.get(list[i]!)!;
    this.array(index instanceof Uint8Array ? Tag.U8 : index instanceof Uint16Array ? Tag.U16 : Tag.U32, index);
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

const KIND_CODE: Record<ValueKind, number> = { string: 1, number: 2, date: 3, boolean: 4 };
const KINDS: readonly (ValueKind | undefined)[] = [undefined, 'string', 'number', 'date', 'boolean'];

export function encodeTable(table: NodeTable): Buffer {
  const w = new Writer();
  w.array(Tag.I32, table.nids);
  w.array(Tag.U16, table.typeCodes);
  w.strings(table.paths);
  w.strings(table.types);
  return w.finish();
}

/** The column and its two sort orders (built here: the writer pays them once, every later start reads them). */
export function encodeColumn(col: PropertyColumn): Buffer {
  const n = col.nids.length;
  const kinds = new Uint8Array(n);
  for (let i = 0; i < n; i++) kinds[i] = KIND_CODE[col.kinds[i]!];
  // Folded text equals the text for most values (numbers, codes, lower-case words): a flag per entry.
  const foldedSame = new Uint8Array(n);
  const folded: string[] = [];
  for (let i = 0; i < n; i++) {
    if (col.folded[i] === col.strs[i]) foldedSame[i] = 1;
    else folded.push(col.folded[i]!);
  }
  const w = new Writer();
  w.array(Tag.I32, col.nids);
  w.array(Tag.U16, col.pos);
  w.array(Tag.U8, kinds);
  w.numbers(col.nums);
  w.strings(col.strs);
  w.array(Tag.U8, foldedSame);
  w.strings(folded);
  w.array(Tag.I32, numericOrder(col));
  w.array(Tag.I32, firstValueOrder(col));
  w.array(Tag.I32, valueOrder(col));
  return w.finish();
}

/** As column-scan.ts `rangeInto` sorts (stable), over every entry: a load keeps those with an ordinal. */
function numericOrder(col: PropertyColumn): Int32Array {
  const idx: number[] = [];
  for (let i = 0; i < col.nids.length; i++) if (col.kinds[i] === 'number' || col.kinds[i] === 'date') idx.push(i);
  idx.sort((a, b) => col.nums[a]! - col.nums[b]!);
  return Int32Array.from(idx);
}

/** As order-keys.ts `sortedByKey` compares, except that ties stay by entry (a load re-sorts them by ordinal). */
function firstValueOrder(col: PropertyColumn): Int32Array {
  const idx: number[] = [];
  for (let i = 0; i < col.nids.length; i++) if (col.pos[i] === 0) idx.push(i);
  idx.sort((a, b) => compareKeys(col, a, b) || a - b);
  return Int32Array.from(idx);
}

/** Strings and booleans by (kind, text), in UTF-16 order (equality only needs equal values together). */
function valueOrder(col: PropertyColumn): Int32Array {
  const idx: number[] = [];
  for (let i = 0; i < col.nids.length; i++) if (col.kinds[i] === 'string' || col.kinds[i] === 'boolean') idx.push(i);
  idx.sort((a, b) => compareValues(col, a, col.kinds[b]!, col.strs[b]!) || a - b);
  return Int32Array.from(idx);
}

function compareValues(col: PropertyColumn, entry: number, kind: ValueKind, text: string): number {
  const k = col.kinds[entry]!;
  if (k !== kind) return k < kind ? -1 : 1;
  const s = col.strs[entry]!;
  return s < text ? -1 : s > text ? 1 : 0;
}

/** The entries of a column's `valueOrder` holding exactly this kind and text: [from, to) of the order. */
export function valueRange(col: PropertyColumn, order: Int32Array, kind: ValueKind, text: string): [number, number] {
  const first = (pred: (c: number) => boolean) => {
    let lo = 0;
    let hi = order.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (pred(compareValues(col, order[mid]!, kind, text))) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  };
  return [first((c) => c >= 0), first((c) => c > 0)];
}

/** Same first value (what `compareKeys` calls equal), without comparing code points. */
export function sameKey(col: PropertyColumn, a: number, b: number): boolean {
  const x = col.nums[a]!;
  const y = col.nums[b]!;
  return (x === y || (Number.isNaN(x) && Number.isNaN(y))) && col.folded[a] === col.folded[b];
}

export function compareKeys(col: PropertyColumn, a: number, b: number): number {
  return compareNullableNumber(col.nums[a]!, col.nums[b]!) || compareNullableString(col.folded[a], col.folded[b]);
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

  /** An index section of any width (a dictionary's codes). */
  #codes(count: number): Uint8Array | Uint16Array | Uint32Array {
    const tag = this.#at + 4 <= this.buf.length ? this.buf.readUInt32LE(this.#at) : 0;
    if (tag === Tag.U16) return this.u16(count);
    if (tag === Tag.U32) return this.#u32(count);
    return this.u8(count);
  }

  /** A string list (see Writer.strings). */
  strings(count?: number): string[] {
    return this.lazyStrings(count)();
  }

  /** A string list checked now, its strings made on the first call (then kept). */
  lazyStrings(count?: number): () => string[] {
    const mode = this.#u32(1)[0];
    if (mode === 0) return once(this.#plain(count));
    if (mode !== 1) throw new SegmentFormatError('unknown string list mode');
    const distinct = this.#plain()();
    const first = this.#at + 8 <= this.buf.length ? this.buf.readUInt32LE(this.#at + 4) : -1;
    if (count !== undefined && first !== count) throw new SegmentFormatError('segment section does not match');
    const codes = this.#codes(first);
    for (let i = 0; i < codes.length; i++) if (codes[i]! >= distinct.length) throw new SegmentFormatError('string code out of range');
    return once(() => {
      const out: string[] = new Array(codes.length);
      for (let i = 0; i < codes.length; i++) out[i] = distinct[codes[i]!]!;
      return out;
    });
  }

  /**
   * Plain strings, checked now, made by the returned function. ASCII text (paths, codes, numbers: the
   * usual case) is decoded as one string and cut by offsets, which gives cheap slices of it; other
   * text is decoded entry by entry.
   */
  #plain(count?: number): () => string[] {
    const offsets = this.#u32(count === undefined ? undefined : count + 1);
    if (offsets.length === 0) throw new SegmentFormatError('string list without offsets');
    const blob = this.#section(Tag.U8);
    const n = offsets.length - 1;
    if (offsets[0] !== 0 || offsets[n] !== blob.count) throw new SegmentFormatError('string offsets do not match');
    for (let i = 0; i < n; i++) if (offsets[i]! > offsets[i + 1]!) throw new SegmentFormatError('string offsets do not match');
    const bytes = this.buf.subarray(blob.start, blob.start + blob.bytes);
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

/**
 * The node table. Its paths are made on first use: a query over the whole workspace (rootPath `/`,
 * no path condition or order) never needs them, and a million strings are most of a load's time.
 */
export function decodeTable(buf: Buffer): NodeTable {
  const r = new Reader(buf);
  const nids = r.i32();
  const typeCodes = r.u16(nids.length);
  const paths = r.lazyStrings(nids.length);
  const types = r.strings();
  r.done();
  for (let i = 0; i < typeCodes.length; i++) if (typeCodes[i]! >= types.length) throw new SegmentFormatError('type code out of range');
  return { nids, typeCodes, types, get paths() { return paths(); } };
}

function once<T>(make: () => T): () => T {
  let value: T | undefined;
  let made = false;
  return () => {
    if (!made) {
      value = make();
      made = true;
    }
    return value as T;
  };
}

export function decodeColumn(buf: Buffer): PersistedColumn {
  const r = new Reader(buf);
  const nids = r.i32();
  const n = nids.length;
  const pos = r.u16(n);
  const codes = r.u8(n);
  const nums = r.numbers(n);
  const strs = r.strings(n);
  const foldedSame = r.u8(n);
  const differing = r.strings();
  const numOrder = r.i32();
  const keyOrder = r.i32();
  const valueOrder = r.i32();
  r.done();
  const kinds: ValueKind[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const k = KINDS[codes[i]!];
    if (k === undefined) throw new SegmentFormatError('unknown value kind');
    kinds[i] = k;
  }
  const folded: string[] = new Array(n);
  let d = 0;
  for (let i = 0; i < n; i++) folded[i] = foldedSame[i] === 1 ? strs[i]! : differing[d++]!;
  if (d !== differing.length) throw new SegmentFormatError('folded strings do not match');
  for (const order of [numOrder, keyOrder, valueOrder]) {
    for (let i = 0; i < order.length; i++) if (order[i]! < 0 || order[i]! >= n) throw new SegmentFormatError('order out of range');
  }
  return { column: { nids, pos, kinds, nums, strs, folded }, numOrder, keyOrder, valueOrder };
}
