// Export benchmark: a SQLite store of tours in folders of 1,000 (bench/generate.ts) plus a `wide` workspace
// whose one node has 100,000 children, exported to /dev/null through the exporter (storeSource, as
// `petal export`). Reports time, nodes/s, and heapUsed / RSS sampled every 100 ms against the heap before;
// for contrast, the heap of reading the wide node's children whole, as exports did before paging.
// Usage: node --expose-gc --import tsx bench/export.ts [TOURS=100000] [WIDE=100000] [STORE_FILE] [--paged-only]
// (--paged-only skips the whole read, e.g. to run the exports under a small --max-old-space-size)
// (an existing STORE_FILE is reused; delete it to rebuild)
import { createWriteStream, existsSync } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { createStore } from '../src/store/create-store.js';
import { prepareExport } from '../src/export/export-subtree.js';
import { storeSource } from '../src/export/walk-tree.js';
import type { ExportFormat } from '../src/export/export-file-name.js';
import type { ContentStore } from '../src/store/content-store.js';
import type { NodeDraft } from '../src/repository/import-document.js';
import { generate, tourNode } from './generate.js';
import { importDocuments } from '../src/repository/writes.js';

const pagedOnly = process.argv.includes('--paged-only');
const args = process.argv.slice(2).filter((a) => a !== '--paged-only');
const tours = Number(args[0] ?? 100_000);
const wide = Number(args[1] ?? 100_000);
const file = args[2] ?? `bench/data/export-${tours}-${wide}.db`;
const MB = 1024 * 1024;

async function build(): Promise<void> {
  const started = performance.now();
  await generate(tours, file);
  const store = createStore(`sqlite:${file}`);
  await store.open();
  let rand = 7;
  const next = () => ((rand = (rand * 1664525 + 1013904223) >>> 0) / 4294967296);
  const children: NodeDraft[] = [];
  for (let i = 0; i < wide; i++) children.push(tourNode(i, next));
  await importDocuments(store, [{
    source: 'bench', workspace: 'wide', parentPath: '/', blobs: [],
    roots: [{ name: 'wide', type: 'cms:folder', mixins: [], properties: [], children }],
  }], { onUuidCollision: 'new' });
  await store.close();
  console.log(`built ${file} in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

/** Peak heapUsed and RSS while `work` runs, sampled every 100 ms (and at its end). */
async function sampled<T>(work: () => Promise<T>): Promise<{ result: T; ms: number; heapBefore: number; peakHeap: number; peakRss: number }> {
  globalThis.gc?.();
  const before = process.memoryUsage();
  let peakHeap = before.heapUsed;
  let peakRss = before.rss;
  const sample = () => {
    const m = process.memoryUsage();
    peakHeap = Math.max(peakHeap, m.heapUsed);
    peakRss = Math.max(peakRss, m.rss);
  };
  const timer = setInterval(sample, 100);
  const started = performance.now();
  try {
    const result = await work();
    sample();
    return { result, ms: performance.now() - started, heapBefore: before.heapUsed, peakHeap, peakRss };
  } finally {
    clearInterval(timer);
  }
}

async function exportOnce(store: ContentStore, workspace: string, path: string, format: ExportFormat): Promise<void> {
  // Each exported path here is its workspace's only top-level node, or the workspace itself.
  const nodes = await store.reads.countNodes(workspace);
  const run = await sampled(async () => {
    const prepared = await prepareExport(storeSource(store.reads), store.blobs, workspace, path, format);
    if (!prepared.ok) throw new Error(prepared.reason);
    await pipeline(prepared.open(), createWriteStream('/dev/null'));
  });
  console.log(`| ${workspace}:${path} (${format}) | ${nodes.toLocaleString('en')} | ${(run.ms / 1000).toFixed(1)} s | `
    + `${Math.round(nodes / (run.ms / 1000)).toLocaleString('en')} | ${(run.heapBefore / MB).toFixed(0)} MB | `
    + `${(run.peakHeap / MB).toFixed(0)} MB (+${((run.peakHeap - run.heapBefore) / MB).toFixed(0)}) | ${(run.peakRss / MB).toFixed(0)} MB |`);
}

if (!existsSync(file)) await build();
const store = createStore(`sqlite:${file}`);
await store.open();
try {
  console.log('| export | nodes | time | nodes/s | heap before | peak heap | peak RSS |');
  console.log('|---|---|---|---|---|---|---|');
  await exportOnce(store, 'wide', '/wide', 'yaml');
  await exportOnce(store, 'tours', '/', 'xml');
  if (pagedOnly) process.exit(0);
  // What the walker did before paging for the wide node: its children in one read.
  const whole = await sampled(async () => (await store.reads.getSubtrees('wide', ['/wide'], 1)).length);
  console.log(`\nreading the ${whole.result.toLocaleString('en')} children of wide:/wide whole (as before paging): `
    + `peak heap ${(whole.peakHeap / MB).toFixed(0)} MB (+${((whole.peakHeap - whole.heapBefore) / MB).toFixed(0)}) in ${(whole.ms / 1000).toFixed(1)} s`);
} finally {
  await store.close();
}
