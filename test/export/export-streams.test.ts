// Exports stream: the tree is read in sibling batches as the output is consumed, never whole. A source
// of 111 111 generated nodes counts what was read when the reader has taken only the first chunk; a
// source of wide folders, the rows of each read.
import { describe, expect, it } from 'vitest';
import { prepareExport } from '../../src/export/export-subtree.js';
import { ROWS_PER_READ, SIBLING_BATCH, type ExportSource, type TreeEvent } from '../../src/export/walk-tree.js';
import { writeJcrXml } from '../../src/export/write-jcr-xml.js';
import { writeYaml } from '../../src/export/write-yaml.js';
import { readChildPages, type ChildPage, type ChildPageRequest } from '../../src/store/child-pages.js';
import type { NodeRecord } from '../../src/store/rows.js';
import type { BlobSource } from '../../src/assets/read-binary.js';


function node(path: string, position = 0): NodeRecord {
  const parts = path.split('/').filter((s) => s !== '');
  return {
    id: `id-${parts.join('-') || 'top'}`, workspace: 'website', path, parentPath: `/${parts.slice(0, -1).join('/')}`,
    name: parts.at(-1)!, depth: parts.length, position, type: 'cms:contentNode', mixins: [],
    properties: [['title', 'String', `node ${path}`]],
  };
}

/** A generated tree, counting the rows it hands out and the largest batch of parents and of rows of one read. */
class GeneratedTree implements ExportSource {
  rowsRead = 0;
  largestBatch = 0;
  largestRead = 0;
  /** `fanouts[d]`: children of each node at depth d below the top. */
  constructor(private readonly fanouts: readonly number[]) {}
  async getNode(_ws: string, path: string): Promise<NodeRecord | undefined> {
    return path === '/top' ? node(path) : undefined;
  }
  /** The children of `path` from position `from` on, at most `count` of them. */
  children(path: string, from = 0, count = Number.POSITIVE_INFINITY): NodeRecord[] {
    const fanout = this.fanouts[path.split('/').length - 2] ?? 0;
    const out: NodeRecord[] = [];
    for (let i = from; i < fanout && out.length < count; i++) out.push(node(`${path}/n${i}`, i));
    return out;
  }
  getChildrenPages(ws: string, parents: readonly ChildPageRequest[], limit: number): Promise<ChildPage[]> {
    const rows = {
      getChildrenPages: async (_ws: string, wanted: readonly ChildPageRequest[], size: number) => {
        this.largestBatch = Math.max(this.largestBatch, wanted.length);
        const out = wanted.flatMap((p) => this.children(p.parentPath, (p.after?.position ?? -1) + 1, size));
        this.rowsRead += out.length;
        this.largestRead = Math.max(this.largestRead, out.length);
        return out;
      },
    };
    return readChildPages(rows, ws, parents, limit);
  }
}

/** The tree's events as one unbounded read of each node's children gives them: the output exports had before paging. */
async function* wholeTree(tree: GeneratedTree, top: NodeRecord): AsyncGenerator<TreeEvent> {
  yield { kind: 'open', node: top };
  for (const child of tree.children(top.path)) yield* wholeTree(tree, child);
  yield { kind: 'close', node: top };
}

async function text(pieces: AsyncIterable<string | Buffer>): Promise<string> {
  const out: string[] = [];
  for await (const piece of pieces) out.push(String(piece));
  return out.join('');
}

const NO_BLOBS: BlobSource = { info: async () => undefined, read: async () => Buffer.alloc(0) };

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
    }, 180_000);
  }

  it('reads folders of many children one or two at a time: no read brings back more than ROWS_PER_READ rows', async () => {
    const tree = new GeneratedTree([50, 2_000]);
    const prepared = await prepareExport(tree, NO_BLOBS, 'website', '/top', 'xml');
    if (!prepared.ok) throw new Error(prepared.reason);
    let bytes = 0;
    for await (const chunk of prepared.open()) bytes += (chunk as Buffer).length;
    expect(bytes).toBeGreaterThan(100_000 * 100);
    expect(tree.rowsRead).toBe(50 + 100_000);
    expect(tree.largestRead).toBe(ROWS_PER_READ);
    // Leaves, which bring back nothing, are read a full batch at a time.
    expect(tree.largestBatch).toBe(SIBLING_BATCH);
  }, 180_000);

  for (const format of ['yaml', 'xml'] as const) {
    it(`${format}: a node of 20 000 children is read in pages of at most ROWS_PER_READ rows, the output as a whole read gives it`, async () => {
      const tree = new GeneratedTree([20_000, 2]);
      const prepared = await prepareExport(tree, NO_BLOBS, 'website', '/top', format);
      if (!prepared.ok) throw new Error(prepared.reason);
      const paged = await text(prepared.open());
      expect(tree.rowsRead).toBe(20_000 * (1 + 2));
      expect(tree.largestRead).toBeLessThanOrEqual(ROWS_PER_READ);
      const whole = wholeTree(tree, node('/top'));
      expect(paged).toBe(await text(format === 'xml' ? writeJcrXml(whole, { blobs: NO_BLOBS, workspaceRoot: false }) : writeYaml(whole, { blobs: NO_BLOBS })));
    }, 180_000);
  }
});
