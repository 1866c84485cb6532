// The query index never keeps a failed read (store unreachable): the next query reads again and answers.
import { describe, expect, it } from 'vitest';
import { QueryIndex } from '../../../src/store/query-index/query-index.js';
import { columnFromRows, type ColumnSource } from '../../../src/store/query-index/column-source.js';
import type { StoreQuery } from '../../../src/query/ast.js';
import { PathList } from '../../../src/store/query-index/path-list.js';

function source(fail: { table: number; column: number }): ColumnSource {
  return {
    generation: async () => 1,
    changesSince: async () => [],
    changeFloor: async () => 0,
    nodesOfIds: async () => [],
    nodeTable: async () => {
      if (fail.table-- > 0) throw new Error('unreachable');
      return { nids: Int32Array.from([1, 2]), paths: PathList.from(['/a', '/b']), typeCodes: Uint16Array.from([0, 0]), types: ['cms:content'] };
    },
    propertyNames: async () => ['price'],
    propertyColumn: async () => {
      if (fail.column-- > 0) throw new Error('unreachable');
      return columnFromRows([[1, 0, 2, '2', '2', 2], [2, 0, 2, '1', '1', 1]]);
    },
    nidsOfIds: async () => new Int32Array(0),
    fullText: async () => new Int32Array(0),
    nodesByNid: async (nids) => nids.map((nid) => ({
      id: `id${nid}`, workspace: 'w', path: nid === 1 ? '/a' : '/b', parentPath: '/', name: nid === 1 ? 'a' : 'b',
      depth: 1, position: nid, type: 'cms:content', mixins: [], properties: [],
    })),
  };
}

const q: StoreQuery = {
  workspace: 'w', rootPath: '/', types: null, conditions: [], fullText: [],
  orderBy: [{ target: { kind: 'property', name: 'price' }, descending: false }], offset: 0, limit: 10,
};

describe('query index: failed reads', () => {
  it('reads the node table and a column again after they failed', async () => {
    const index = new QueryIndex(source({ table: 1, column: 1 }));
    await expect(index.run(q, '')).rejects.toThrow('unreachable');
    await expect(index.run(q, '')).rejects.toThrow('unreachable');
    expect((await index.run(q, '')).nodes.map((n) => n.name)).toEqual(['b', 'a']);
    expect(index.memoryStats().perName.entries).toBe(2); // the column and its order keys
  });
});
