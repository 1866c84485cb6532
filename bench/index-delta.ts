// The query index under small changes (issue 16.4): on a generated store, query latency before and
// after N single-node imports, the cost of the first query after each import (the change event read,
// the node's row read, the delta applied, the query answered), and proof that no reload happened.
// Usage: node --import tsx bench/index-delta.ts [--nodes 100000] [--changes 200] [--runs 200] [STORE]
// STORE: a postgres:// URL (a schema of its own, dropped after), or nothing (a SQLite file in a temporary folder).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StoreQuery } from '../src/query/ast.js';
import type { ContentStore } from '../src/store/content-store.js';
import { PostgresStore } from '../src/store/postgres/store.js';
import { SqliteStore } from '../src/store/sqlite/store.js';
import type { ImportDocument, NodeDraft } from '../src/repository/import-document.js';
import type { StoredProperty } from '../src/model/property-type.js';
import { importDocuments } from '../src/repository/writes.js';

const args = process.argv.slice(2);
const opt = (name: string, d: number) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : d);
const NODES = opt('--nodes', 100_000);
const CHANGES = opt('--changes', 200);
const RUNS = opt('--runs', 200);
const url = args.find((a) => a.startsWith('postgres'));
const WS = 'tours';
const WORDS = ['alpine', 'coast', 'desert', 'forest', 'island', 'lake', 'river', 'valley', 'city', 'glacier'];

function props(i: number, v = 0): StoredProperty[] {
  return [
    ['title', 'String', `${WORDS[i % 10]} ${WORDS[(i >> 3) % 10]} tour ${i} v${v}`],
    ['category', 'String', `c${String(i % 10).padStart(2, '0')}`],
    ['price', 'Double', ((i * 7919 + v * 31) % 100_000) / 100],
    ['featured', 'Boolean', i % 2 === 0],
    ['date', 'Date', new Date(Date.UTC(2024, i % 12, 1 + (i % 28))).toISOString()],
  ];
}
const node = (i: number, v = 0): NodeDraft => ({ name: `t${i}`, id: `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`, type: 'cms:content', mixins: [], properties: props(i, v), children: [] });
const folder = (f: number, lo: number, hi: number): ImportDocument => ({
  source: 'bench', workspace: WS, parentPath: `/f${f}`, blobs: [],
  roots: Array.from({ length: hi - lo }, (_, k) => node(lo + k)),
});

const QUERIES: Record<string, StoreQuery> = {
  selective: {
    workspace: WS, rootPath: '/', types: ['cms:content'], fullText: [], offset: 0, limit: 10,
    conditions: [
      { kind: 'ranges', target: { kind: 'property', name: 'category' }, negate: false, ranges: [{ kind: 'string', lo: { value: 'c07', inclusive: true }, hi: { value: 'c07', inclusive: true } }] },
      { kind: 'ranges', target: { kind: 'property', name: 'price' }, negate: false, ranges: [{ kind: 'number', lo: { value: 900, inclusive: false } }] },
    ],
    orderBy: [{ target: { kind: 'property', name: 'price' }, descending: true }],
  },
  broad: {
    workspace: WS, rootPath: '/', types: null, fullText: [], offset: 20, limit: 10, conditions: [],
    orderBy: [{ target: { kind: 'property', name: 'title' }, descending: false }],
  },
};

function pct(sorted: number[], p: number): string {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!.toFixed(2);
}

async function latency(store: ContentStore, label: string): Promise<void> {
  for (const [name, q] of Object.entries(QUERIES)) {
    const t: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const s = performance.now();
      await store.reads.query(q);
      t.push(performance.now() - s);
    }
    t.sort((a, b) => a - b);
    console.log(`| ${label} | ${name} | ${pct(t, 0.5)} | ${pct(t, 0.99)} |`);
  }
}

const dir = url ? undefined : mkdtempSync(join(tmpdir(), 'petal-index-delta-'));
// PostgreSQL: a schema of its own, dropped afterwards.
const schema = `petal_bench_delta_${process.pid}`;
const store: ContentStore = url
  ? new PostgresStore({ url, schema })
  : new SqliteStore({ file: join(dir!, 'petal.db'), queryIndexThreshold: 0 });
await store.open();
try {
  let t = performance.now();
  for (let f = 0, lo = 0; lo < NODES; f++, lo += 10_000) {
    const docs: ImportDocument[] = [];
    for (let a = lo; a < Math.min(NODES, lo + 10_000); a += 1_000) docs.push(folder(f, a, Math.min(NODES, a + 1_000, lo + 10_000)));
    await importDocuments(store, docs, { onUuidCollision: 'new' });
  }
  console.log(`${store.capabilities.name}: ${NODES} nodes imported in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  t = performance.now();
  for (const q of Object.values(QUERIES)) await store.reads.query(q);
  console.log(`first queries (full load of the workspace and the columns used): ${(performance.now() - t).toFixed(0)} ms`);
  console.log('\n| state | query | p50 ms | p99 ms |\n|---|---|---|---|');
  await latency(store, 'before changes');
  const imports: number[] = [];
  const applies: number[] = [];
  for (let c = 0; c < CHANGES; c++) {
    // Alternately a changed node (same id re-imported with new values) and a created one.
    const i = c % 2 === 0 ? (c * 4_999) % NODES : NODES + c;
    const doc: ImportDocument = { source: 'change', workspace: WS, parentPath: `/f${Math.floor((i % NODES) / 10_000)}`, roots: [node(i, c + 1)], blobs: [] };
    let s = performance.now();
    await importDocuments(store, [doc], { onUuidCollision: 'new' });
    imports.push(performance.now() - s);
    s = performance.now();
    await store.reads.query(QUERIES.selective!);
    applies.push(performance.now() - s);
  }
  imports.sort((a, b) => a - b);
  applies.sort((a, b) => a - b);
  await latency(store, `after ${CHANGES} changes`);
  const s = store.caches!.stats().queryIndex;
  console.log(`\nimport of one node: p50 ${pct(imports, 0.5)} ms, p99 ${pct(imports, 0.99)} ms`);
  console.log(`first selective query after each import (event read + row read + delta applied + answer): p50 ${pct(applies, 0.5)} ms, p99 ${pct(applies, 0.99)} ms`);
  console.log(`query index: loads ${s.loads}, appliedChanges ${s.appliedChanges}, deltaNodes ${s.deltaNodes}, rebuilds ${s.rebuilds}, drops ${s.drops}`);
} finally {
  if (store instanceof PostgresStore) await store.primaryPool.query(`DROP SCHEMA ${schema} CASCADE`);
  await store.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
}
