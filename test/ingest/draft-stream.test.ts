import { describe, expect, it } from 'vitest';
import { DraftStream } from '../../src/ingest/draft-stream.js';
import { DraftTree, type DraftSink } from '../../src/ingest/draft-sink.js';
import { ImportError } from '../../src/ingest/import-error.js';
import type { NodeDraft, NodeEntry } from '../../src/repository/import-document.js';

/** A document as a reader would report it: `n` folders of `k` items, each item with two properties. */
function report(sink: DraftSink, folders: number, items: number): void {
  sink.openNode('root', 1);
  sink.property('jcr:primaryType', 'Name', 'mgnl:folder', 1);
  for (let f = 0; f < folders; f++) {
    sink.openNode(`f${f}`, 2);
    sink.property('title', 'String', `folder ${f}`, 2);
    for (let i = 0; i < items; i++) {
      sink.openNode(`i${i}`, 3);
      sink.property('price', 'Double', i * 1.5, 3);
      sink.property('tags', 'String', ['a', 'b'], 3);
      sink.closeNode();
    }
    sink.closeNode();
  }
  sink.closeNode();
}

function flatten(d: NodeDraft, depth: number, out: NodeEntry[]): NodeEntry[] {
  out.push({ depth, draft: { ...d, children: [] } });
  for (const c of d.children) flatten(c, depth + 1, out);
  return out;
}

describe('DraftStream', () => {
  for (const held of [1, 3, 10, 1_000]) {
    it(`gives the nodes of the whole tree, in document order, holding at most ${held} nodes`, () => {
      const tree = new DraftTree('f.xml');
      report(tree, 4, 5);
      const stream = new DraftStream('f.xml', held);
      const got: NodeEntry[] = [];
      const realOpen = stream.openNode.bind(stream);
      let most = 0;
      stream.openNode = (name, line) => {
        realOpen(name, line);
        got.push(...stream.take());
        most = Math.max(most, stream.nodes - got.length);
      };
      report(stream, 4, 5);
      got.push(...stream.take());
      expect(got).toEqual(tree.roots.flatMap((r) => flatten(r, 0, [])));
      expect(most).toBeLessThanOrEqual(held + 3);
    });
  }

  it('takes a property after a child node while the node is held', () => {
    const stream = new DraftStream('f.yaml', 10);
    stream.openNode('a', 1);
    stream.openNode('b', 2);
    stream.closeNode();
    stream.property('late', 'String', 'x', 3);
    stream.closeNode();
    const [a, b] = stream.take();
    expect(a!.draft.properties).toEqual([['late', 'String', 'x']]);
    expect(b!.depth).toBe(1);
  });

  it('refuses a property that comes for a node already let go, naming file and line', () => {
    const stream = new DraftStream('big.yaml', 2);
    stream.openNode('a', 1);
    for (let i = 0; i < 3; i++) {
      stream.openNode(`c${i}`, 2 + i);
      stream.closeNode();
    }
    let error: unknown;
    try {
      stream.property('late', 'String', 'x', 9);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ImportError);
    expect((error as ImportError).message).toMatch(/^big\.yaml:9: property "late" of node "a" comes after more than 2 nodes below it/);
  });
});
