// Exports of a real store read in bounded pages: a node of 20 000 children and a workspace of 3 000
// top-level nodes are read with no read returning more than ROWS_PER_READ rows, and the output is what
// one unbounded read of the same tree gives.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareExport } from '../../src/export/export-subtree.js';
import { ROWS_PER_READ, storeSource, type TreeEvent } from '../../src/export/walk-tree.js';
import { writeJcrXml } from '../../src/export/write-jcr-xml.js';
import { writeYaml } from '../../src/export/write-yaml.js';
import type { ContentStore, NodeReads } from '../../src/store/content-store.js';
import type { NodeRecord } from '../../src/store/rows.js';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import { NEW, document, draft, leaves } from '../conformance/drafts.js';
import { importDocuments } from '../../src/repository/writes.js';

const WS = 'website';
let dir: string;
let store: SqliteStore;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'petal-export-wide-'));
  store = new SqliteStore({ file: join(dir, 'petal.db') });
  await store.open();
  const wide = draft('wide', {}, Array.from({ length: 20_000 }, (_, i) =>
    draft(`c${i}`, { properties: [['title', 'String', `child ${i}`]] }, i % 1_000 === 0 ? leaves('x', 'y') : [])));
  await importDocuments(store, [document(WS, '/', [wide])], NEW);
  await importDocuments(store, [document('top', '/', Array.from({ length: 3_000 }, (_, i) => draft(`t${i}`, {}, leaves('z'))))], NEW);
});
afterAll(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The store's reads of an export, recording the most rows one getChildrenPages returned. */
function counting(inner: ContentStore): { store: Pick<NodeReads, 'getNode' | 'getChildrenPages'>; largest: () => number } {
  let largest = 0;
  return {
    store: {
      getNode: (ws, path) => inner.reads.getNode(ws, path),
      getChildrenPages: async (ws, parents, limit) => {
        const rows = await inner.reads.getChildrenPages(ws, parents, limit);
        largest = Math.max(largest, rows.length);
        return rows;
      },
    },
    largest: () => largest,
  };
}

/** Events of the tree from one unbounded getSubtree read. */
async function* fromWholeRead(ws: string, path: string): AsyncGenerator<TreeEvent> {
  const rows = await store.reads.getSubtree(ws, path, 100);
  const children = new Map<string, NodeRecord[]>();
  for (const r of rows) {
    const list = children.get(r.parentPath);
    if (list) list.push(r);
    else children.set(r.parentPath, [r]);
  }
  function* walk(node: NodeRecord): Generator<TreeEvent> {
    yield { kind: 'open', node };
    for (const child of children.get(node.path) ?? []) yield* walk(child);
    yield { kind: 'close', node };
  }
  for (const top of path === '/' ? children.get('/') ?? [] : rows.slice(0, 1)) yield* walk(top);
}

async function text(pieces: AsyncIterable<string | Buffer>): Promise<string> {
  const out: string[] = [];
  for await (const piece of pieces) out.push(String(piece));
  return out.join('');
}

describe('export of a store with wide folders', () => {
  for (const [ws, path, format] of [[WS, '/wide', 'yaml'], [WS, '/wide', 'xml'], ['top', '/', 'xml']] as const) {
    it(`${format} of ${ws}:${path}: no read returns more than ROWS_PER_READ rows; output as from one whole read`, async () => {
      const { store: source, largest } = counting(store);
      const prepared = await prepareExport(storeSource(source), store.blobs, ws, path, format);
      if (!prepared.ok) throw new Error(prepared.reason);
      const paged = await text(prepared.open());
      expect(largest()).toBeGreaterThan(0);
      expect(largest()).toBeLessThanOrEqual(ROWS_PER_READ);
      const events = fromWholeRead(ws, path);
      const expected = await text(format === 'xml'
        ? writeJcrXml(events, { blobs: store.blobs, workspaceRoot: path === '/' })
        : writeYaml(events, { blobs: store.blobs }));
      expect(paged.length).toBeGreaterThan(1_000_000 * (ws === WS ? 1 : 0.1));
      expect(paged).toBe(expected);
    }, 180_000);
  }
});
