// The query index reads the columns a query needs together when its source can (propertyColumns): a
// source whose values live in each node's document (SQLite since migration 7) then reads every
// document once per query instead of once per property; the answers are those of one read per name.
import { describe, expect, it } from 'vitest';
import { QueryIndex } from '../../../src/store/query-index/query-index.js';
import { columnFromRows, type ColumnSource, type PropertyColumn, type PropertyRow } from '../../../src/store/query-index/column-source.js';
import type { StoreQuery } from '../../../src/query/ast.js';
import { PathList } from '../../../src/store/query-index/path-list.js';

const ROWS: Record<string, PropertyRow[]> = {
  price: [[1, 0, 2, '30', '30', 30], [2, 0, 2, '10', '10', 10], [3, 0, 2, '20', '20', 20]],
  color: [[1, 0, 1, 'red', 'red', null], [2, 0, 1, 'blue', 'blue', null], [3, 0, 1, 'red', 'red', null]],
  size: [[1, 0, 1, 'L', 'l', null], [3, 0, 1, 'S', 's', null]],
};

function source(batched: boolean, calls: string[][]): ColumnSource {
  const s: ColumnSource = {
    generation: async () => 1,
    changesSince: async () => [],
    changeFloor: async () => 0,
    nodesOfIds: async () => [],
    nodeTable: async () => ({ nids: Int32Array.from([1, 2, 3]), paths: PathList.from(['/a', '/b', '/c']), typeCodes: Uint16Array.from([0, 0, 0]), types: ['cms:content'] }),
    propertyNames: async () => Object.keys(ROWS),
    propertyColumn: async (_ws, name) => {
      calls.push([name]);
      return columnFromRows(ROWS[name] ?? []);
    },
    nidsOfIds: async () => new Int32Array(0),
    fullText: async () => new Int32Array(0),
    nodesByNid: async (nids) => nids.map((nid) => ({
      id: `id${nid}`, workspace: 'w', path: `/${'abc'[nid - 1]}`, parentPath: '/', name: 'abc'[nid - 1]!,
      depth: 1, position: nid, type: 'cms:content', mixins: [], properties: [],
    })),
  };
  if (batched) {
    s.propertyColumns = async (_ws, names) => {
      calls.push([...names].sort());
      return new Map<string, PropertyColumn>(names.map((n) => [n, columnFromRows(ROWS[n] ?? [])]));
    };
  }
  return s;
}

const q: StoreQuery = {
  workspace: 'w', rootPath: '/', types: null, fullText: [], offset: 0, limit: 10,
  conditions: [
    { kind: 'ranges', target: { kind: 'property', name: 'color' }, negate: false, ranges: [{ kind: 'string', lo: { value: 'red', inclusive: true }, hi: { value: 'red', inclusive: true } }] },
    { kind: 'exists', name: 'size', exists: true },
  ],
  orderBy: [{ target: { kind: 'property', name: 'price' }, descending: false }],
};

describe('query index: columns read together', () => {
  it('reads the columns of a query in one propertyColumns call, with the answers of one read per name', async () => {
    const batchedCalls: string[][] = [];
    const singleCalls: string[][] = [];
    const batched = await new QueryIndex(source(true, batchedCalls)).run(q, '');
    const single = await new QueryIndex(source(false, singleCalls)).run(q, '');
    expect(batchedCalls).toEqual([['color', 'price', 'size']]);
    expect(singleCalls).toHaveLength(3);
    expect(batched.nodes.map((n) => n.name)).toEqual(['c', 'a']);
    expect(batched).toEqual(single);
  });

  it('a failed batched read fails every query waiting on it, and the next query reads again', async () => {
    let fail = 1;
    const calls: string[][] = [];
    const s = source(true, calls);
    const read = s.propertyColumns!;
    s.propertyColumns = async (ws, names) => {
      if (fail-- > 0) throw new Error('unreachable');
      return read(ws, names);
    };
    const index = new QueryIndex(s);
    await expect(index.run(q, '')).rejects.toThrow('unreachable');
    expect((await index.run(q, '')).nodes.map((n) => n.name)).toEqual(['c', 'a']);
  });
});
