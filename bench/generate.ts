// Benchmark data: a `tours` workspace of N synthetic tour-like nodes (strings, numbers, dates,
// multi-value tags, two languages, rich text) in folders of 1,000, plus a small `website` page tree.
// Usage: node --import tsx bench/generate.ts N STORE_FILE|postgres://…/empty_db
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { rmSync } from 'node:fs';
import type { StoredProperty } from '../src/model/property-type.js';
import type { ImportDocument, NodeDraft } from '../src/repository/import-document.js';
import { createStore } from '../src/store/create-store.js';
import { importDocuments } from '../src/repository/writes.js';

const WORDS = ['river', 'mountain', 'temple', 'market', 'island', 'desert', 'forest', 'harbour', 'valley', 'castle',
  'glacier', 'canyon', 'village', 'lagoon', 'volcano', 'garden', 'museum', 'bridge', 'safari', 'festival'];
const TAGS = ['active', 'beach', 'culture', 'family', 'eco', 'food', 'history', 'nature', 'city', 'adventure'];

/** Deterministic pseudo-random numbers, so every run builds the same data. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

export function tourNode(i: number, rand: () => number): NodeDraft {
  const w1 = WORDS[Math.floor(rand() * WORDS.length)]!;
  const w2 = WORDS[Math.floor(rand() * WORDS.length)]!;
  // rare word: in 1 % of nodes (`rare7` appears in exactly the nodes with i % 100 === 7)
  const rare = `rare${i % 100}`;
  const day = 1 + Math.floor(rand() * 365);
  const activated = new Date(Date.UTC(2024, 0, 1) + day * 86_400_000 + Math.floor(rand() * 86_400_000)).toISOString();
  const properties: StoredProperty[] = [
    ['name', 'String', `Tour ${i} ${w1}`],
    ['title', 'String', `The ${w1} and ${w2} tour number ${i}`],
    ['title_de', 'String', `Die ${w1} und ${w2} Reise Nummer ${i}`],
    ['description', 'String', `<p>Discover the <strong>${w1}</strong> and the ${w2} on tour ${i}, with ${rare}.</p>`],
    ['description_de', 'String', `<p>Entdecken Sie ${w1} und ${w2}.</p>`],
    ['category', 'String', `c${String(i % 10).padStart(2, '0')}`],
    ['price', 'Double', Math.round(rand() * 100_000) / 100],
    ['duration', 'Long', 1 + Math.floor(rand() * 21)],
    ['activated', 'Date', activated.replace('Z', '+00:00')],
    ['featured', 'Boolean', i % 2 === 0],
    ['tags', 'String', [TAGS[i % TAGS.length]!, TAGS[(i * 7 + 3) % TAGS.length]!]],
    ['cms:created', 'Date', '2024-01-01T00:00:00.000+00:00'],
  ];
  return { name: `tour-${i}`, id: randomUUID(), type: 'cms:content', mixins: [], properties, children: [] };
}

function websiteDocument(): ImportDocument {
  const component = (n: number): NodeDraft => ({
    name: String(n), type: 'cms:component', mixins: [], children: [],
    properties: [['cms:template', 'String', 'bench:components/text'], ['text', 'String', `<p>Paragraph ${n}</p>`]],
  });
  const area = (name: string): NodeDraft => ({
    name, type: 'cms:area', mixins: [], properties: [], children: [0, 1, 2, 3, 4].map(component),
  });
  const page: NodeDraft = {
    name: 'home', type: 'cms:page', mixins: [], children: [area('main'), area('footer')],
    properties: [['title', 'String', 'Home'], ['cms:template', 'String', 'bench:pages/home']],
  };
  return { source: 'bench', workspace: 'website', parentPath: '/', roots: [page], blobs: [] };
}

/**
 * Leaves the PostgreSQL database as autovacuum would (visibility map set, statistics gathered; not
 * counted in the import time), so the delivery benchmark measures serving, not the first reads after
 * a bulk load (which set hint bits and cannot use index-only scans). The server here runs without
 * autovacuum.
 */
async function settle(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('VACUUM (ANALYZE)');
  } finally {
    await client.end();
  }
}

export async function generate(n: number, file: string): Promise<{ ms: number; nodes: number }> {
  const postgres = file.startsWith('postgres://') || file.startsWith('postgresql://');
  if (!postgres) {
    rmSync(file, { force: true });
    rmSync(`${file}-wal`, { force: true });
    rmSync(`${file}-shm`, { force: true });
  }
  // A PostgreSQL URL must name a fresh, empty database (the generator does not delete anything there).
  const store = createStore(postgres ? file : `sqlite:${file}`);
  await store.open();
  const rand = rng(42);
  const started = performance.now();
  const perFolder = 1000;
  const docs: ImportDocument[] = [websiteDocument()];
  for (let f = 0; f * perFolder < n; f++) {
    const children: NodeDraft[] = [];
    for (let i = f * perFolder; i < Math.min(n, (f + 1) * perFolder); i++) children.push(tourNode(i, rand));
    const folder: NodeDraft = { name: `f${String(f).padStart(4, '0')}`, type: 'cms:folder', mixins: [], properties: [], children };
    docs.push({ source: 'bench', workspace: 'tours', parentPath: '/', roots: [folder], blobs: [] });
    // Imports in batches of 100 folders keep memory flat at a million nodes.
    if (docs.length >= 100) await importDocuments(store, docs.splice(0), { onUuidCollision: 'new' });
  }
  if (docs.length > 0) await importDocuments(store, docs, { onUuidCollision: 'new' });
  const ms = performance.now() - started;
  const nodes = await store.reads.countNodes();
  await store.close();
  if (postgres) await settle(file);
  return { ms, nodes };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const n = Number(process.argv[2] ?? 10_000);
  const file = process.argv[3] ?? `bench/data/tours-${n}.db`;
  const { ms, nodes } = await generate(n, file);
  console.log(`generated ${nodes} nodes in ${(ms / 1000).toFixed(1)} s (${Math.round(nodes / (ms / 1000))} nodes/s) into ${file}`);
}
