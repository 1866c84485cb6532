// Issue 20 (cold start): the binary form of persisted index segments gives back exactly what was
// encoded, with sort orders equal to those the index builds itself; any damage is an error (never a
// different answer); and the rules that decide when a persisted segment may serve a base.
import { describe, expect, it } from 'vitest';
import { Bitmap } from '../../../src/store/query-index/bitmap.js';
import { rangeInto, type Column } from '../../../src/store/query-index/column-scan.js';
import { columnFromRows, type ColumnSource, type NodeTable, type PropertyRow } from '../../../src/store/query-index/column-source.js';
import { orderKeysOf, sortedByKey } from '../../../src/store/query-index/order-keys.js';
import { PersistedSegments, persistedKeyOrder, persistedNumOrder } from '../../../src/store/query-index/persisted-segments.js';
import { decodeColumn, decodeTable, encodeColumn, encodeTable, SEGMENT_FORMAT, SegmentFormatError } from '../../../src/store/query-index/segment-codec.js';
import { PathList } from '../../../src/store/query-index/path-list.js';
import type { ChangesAfter, IndexSegmentStore, StoredSegment } from '../../../src/store/query-index/segment-store.js';

const table: NodeTable = {
  nids: Int32Array.from([7, 3, 9, 1, 12]),
  paths: PathList.from(['/a', '/a/b', '/a/é', '/z', '/z/😀']),
  typeCodes: Uint16Array.from([0, 1, 1, 0, 2]),
  types: ['cms:folder', 'cms:page', 'mgnl:ü'],
};

/** Mixed kinds, multi-values, ties, non-ASCII text and folded text unlike the text. */
const rows: PropertyRow[] = [
  [7, 0, 2, '5', '5', 5], [3, 0, 2, '2', '2', 2], [3, 1, 2, '9', '9', 9], [9, 0, 1, 'Éclair', 'éclair', null],
  [1, 0, 2, '5', '5', 5], [1, 1, 1, 'beta', 'beta', null], [12, 0, 4, 'true', 'true', null], [12, 1, 3, '2024-01-01', '2024-01-01', 1704067200000],
  [20, 0, 2, '5', '5', 5], [21, 0, 1, 'beta', 'beta', null],
];

function column(ords: readonly number[]): Column {
  const col = columnFromRows(rows);
  return { ...col, ords: Int32Array.from(ords) };
}

describe('segment codec', () => {
  it('gives back the node table and the column as encoded', () => {
    expect(decodeTable(encodeTable(table))).toEqual(table);
    const col = columnFromRows(rows);
    expect(decodeColumn(encodeColumn(col)).column).toEqual(col);
  });

  it('gives back long lists of paths, and columns of many and of few distinct texts (1- and 2-byte codes)', () => {
    const n = 300;
    const many: NodeTable = {
      nids: Int32Array.from({ length: n }, (_, i) => i + 1),
      paths: PathList.from(Array.from({ length: n }, (_, i) => `/f${i % 7}/node-${i}${i % 50 === 0 ? '-ü' : ''}`).sort()),
      typeCodes: new Uint16Array(n),
      types: ['cms:page'],
    };
    expect(decodeTable(encodeTable(many))).toEqual(many);
    const mixed: PropertyRow[] = Array.from({ length: n }, (_, i): PropertyRow => (i % 3 === 0
      ? [i + 1, 0, 1, `Title ${i} é`, `title ${i} é`, null]
      : [i + 1, 0, 1, `c${i % 4}`, `c${i % 4}`, null]));
    const few: PropertyRow[] = Array.from({ length: n }, (_, i): PropertyRow => [i + 1, 0, 4, i % 2 === 0 ? 'true' : 'false', i % 2 === 0 ? 'true' : 'false', null]);
    for (const list of [mixed, few]) expect(decodeColumn(encodeColumn(columnFromRows(list))).column).toEqual(columnFromRows(list));
  });

  it('persists sort orders equal to those the index builds (entries of other bases left out)', () => {
    // nids 20 and 21 have no ordinal in this base (created after its floor); nids 7 and 1 tie on their
    // first value, in the other order of ordinals than of entries.
    const ords = [3, 1, 1, 2, 0, 0, 4, 4, -1, -1];
    const { numOrder, keyOrder } = decodeColumn(encodeColumn(columnFromRows(rows)));
    const built = column(ords);
    rangeInto(built, { kind: 'number', lo: { value: 0, inclusive: true } }, new Bitmap(5));
    expect(persistedNumOrder(numOrder, built.ords)).toEqual(built.numOrder);
    const keys = orderKeysOf(built, 5);
    expect(persistedKeyOrder(built, built.ords, keyOrder)).toEqual(sortedByKey(keys));
  });

  it('orders long runs of equal first values by ordinal too', () => {
    const ties: PropertyRow[] = Array.from({ length: 100 }, (_, i): PropertyRow => [i + 1, 0, 2, String(i % 3), String(i % 3), i % 3]);
    const col: Column = { ...columnFromRows(ties), ords: Int32Array.from({ length: 100 }, (_, i) => 99 - i) };
    const { keyOrder } = decodeColumn(encodeColumn(columnFromRows(ties)));
    expect(persistedKeyOrder(col, col.ords, keyOrder)).toEqual(sortedByKey(orderKeysOf(col, 100)));
  });

  it('refuses a damaged segment, a truncated one and one of another format', () => {
    const data = encodeColumn(columnFromRows(rows));
    for (let at = 0; at < data.length; at += 7) {
      const bad = Buffer.from(data);
      bad[at] = bad[at]! ^ 0x5a;
      expect(() => decodeColumn(bad), `byte ${at}`).toThrow(SegmentFormatError);
    }
    expect(() => decodeColumn(data.subarray(0, data.length - 8))).toThrow(SegmentFormatError);
    const other = Buffer.from(data);
    other.writeUInt32LE(SEGMENT_FORMAT + 1, 4);
    expect(() => decodeColumn(other)).toThrow(SegmentFormatError);
    expect(() => decodeTable(data)).toThrow(SegmentFormatError); // a column is not a table
  });
});

describe('persisted segments: when they may serve', () => {
  function segments(after: ChangesAfter, stored: Record<string, StoredSegment>): PersistedSegments {
    const store: IndexSegmentStore = {
      read: async (ws, kind, name) => stored[`${kind}/${name}`],
      write: async () => undefined,
      columnNames: async () => [],
      changesAfter: async () => after,
    };
    return new PersistedSegments({} as ColumnSource, { store, minNodes: 0 });
  }
  const tableAt = (floor: number): StoredSegment => ({ floor, format: SEGMENT_FORMAT, data: encodeTable(table) });
  const columnAt = (floor: number): StoredSegment => ({ floor, format: SEGMENT_FORMAT, data: encodeColumn(columnFromRows(rows)) });
  const quiet: ChangesAfter = { events: 3, nodes: 3, truncated: false };

  it('a table with few changes after its floor serves, with that floor', async () => {
    expect(await segments(quiet, { 'table/': tableAt(40) }).table('w')).toEqual({ table, floor: 40 });
  });

  it('not after a truncated event, many changed nodes or many events', async () => {
    for (const after of [{ ...quiet, truncated: true }, { ...quiet, nodes: 2_501 }, { ...quiet, events: 10_001 }]) {
      expect(await segments(after, { 'table/': tableAt(40) }).table('w')).toBeUndefined();
    }
  });

  it('a column serves a base of a floor at most its own', async () => {
    const s = segments(quiet, { 'column/price': columnAt(40) });
    expect(await s.column('w', 'price', 40)).toBeDefined();
    expect(await s.column('w', 'price', 12)).toBeDefined();
    expect(await s.column('w', 'price', 41)).toBeUndefined();
  });

  it('a segment of another format is not decoded', async () => {
    const s = segments(quiet, { 'table/': { ...tableAt(40), format: SEGMENT_FORMAT + 1 }, 'column/price': { ...columnAt(40), format: 0 } });
    expect(await s.table('w')).toBeUndefined();
    expect(await s.column('w', 'price', 1)).toBeUndefined();
  });
});
