// Exports stream: the tree is read in sibling batches as the output is consumed, never whole. A source
// of 111 111 generated nodes counts what was read when the reader has taken only the first chunk; a
// source of wide folders, the rows of each read.
import { describe, expect, it } from 'vitest';
import { prepareExport } from '../../src/export/export-subtree.js';
import { SIBLING_BATCH, type ExportSource } from '../../src/export/walk-tree.js';
import type { NodeRecord } from '../../src/store/rows.js';
import type { BlobSource } from '../../src/assets/read-binary.js';


function node(path: string): NodeRecord {
  const parts = path.split('/').filter((s) => s !== '');
  return {
    id: `id-${parts.join('-') || 'top'}`, workspace: 'website', path, parentPath: `/${parts.slice(0, -1).join('/')}`,
    name: parts.at(-1)!, depth: parts.length, position: 0, type: 'cms:contentNode', mixins: [],
    properties: [['title', 'String', `node ${path}`]],
  };
}

/** A generated tree, counting the rows it hands out and the largest batch of paths asked for. */
class GeneratedTree implements ExportSource {
  rowsRead = 0;
  largestBatch = 0;
  largestRead = 0;
  /** `fanouts[d]`: children of each node at depth d below the top. */
  constructor(private readonly fanouts: readonly number[]) {}
  async getNode(_ws: string, path: string): Promise<NodeRecord | undefined> {
    return path === '/top' ? node(path) : undefined;
  }
  async getSubtrees(_ws: string, paths: readonly string[], depth: number): Promise<NodeRecord[]> {
    expect(depth).toBe(1);
    this.largestBatch = Math.max(this.largestBatch, paths.length);
    const rows: NodeRecord[] = [];
    for (const p of paths) {
      const fanout = this.fanouts[p.split('/').length - 2] ?? 0;
      for (let i = 0; i < fanout; i++) rows.push(node(`${p}/n${i}`));
    }
    this.rowsRead += rows.length;
    this.largestRead = Math.max(this.largestRead, rows.length);
    return rows;
  }
}

const NO_BLOBS: BlobSource = { getBlobInfo: async () => undefined, readBlob: async () => Buffer.alloc(0) };

describe('exports stream', () => {
  for (const format of ['yaml', 'xml'] as const) {
    it(`${format}: the first chunk is out after reading a small part of 111 110 nodes; the whole export reads each once`, async () => {
      const tree = new GeneratedTree([10, 10, 10, 10, 10]);
      const prepared = await prepareExport(tree, NO_BLOBS, 'website', '/top', format);
      if (!prepared.ok) throw new Error(prepared.reason);
      const stream = prepared.open();
      const iterator = stream[Symbol.asyncIterator]();
      const first = await iterator.next();
      expect(first.done).toBe(false);
      // Time for the stream to fill its buffer while nobody reads.
      await new Promise((r) => setTimeout(r, 200));
      // Reading ahead is bounded by the stream's buffer and a batch of siblings per level, not the tree.
      expect(tree.rowsRead).toBeLessThan(5_000);
      let nodes = 0;
      const count = (chunk: Buffer) => { nodes += chunk.toString('utf8').split(format === 'xml' ? '<sv:node ' : '"jcr:uuid"').length - 1; };
      count(first.value as Buffer);
      for (let r = await iterator.next(); !r.done; r = await iterator.next()) count(r.value as Buffer);
      expect(nodes).toBe(111_111);
      expect(tree.rowsRead).toBe(111_110);
      expect(tree.largestBatch).toBeLessThanOrEqual(SIBLING_BATCH);
    }, 60_000);
  }

  it('reads folders of many children one or two at a time: no read brings back more than one folder\'s children', async () => {
    const tree = new GeneratedTree([50, 2_000]);
    const prepared = await prepareExport(tree, NO_BLOBS, 'website', '/top', 'xml');
    if (!prepared.ok) throw new Error(prepared.reason);
    let bytes = 0;
    for await (const chunk of prepared.open()) bytes += (chunk as Buffer).length;
    expect(bytes).toBeGreaterThan(100_000 * 100);
    expect(tree.rowsRead).toBe(50 + 100_000);
    expect(tree.largestRead).toBe(2_000);
    // Leaves, which bring back nothing, are read a full batch at a time.
    expect(tree.largestBatch).toBe(SIBLING_BATCH);
  }, 60_000);
});
