// Load benchmark: serves each generated store with `petal serve` in a child process and runs the
// same scenarios against it with autocannon, alternating stores round by round so that machine noise
// hits all of them alike. Usage: node --import tsx bench/run.ts [--seconds 10] [--rounds 2] STORE...
// where each STORE is a SQLite file (bench/data/tours-100000.db) or a postgres:// URL of a database
// bench/generate.ts filled. `--cache on` keeps the response cache (off by default: every request is
// rendered, which is what the store scenarios measure). Each store gets bench/content imported first.
// The ceiling runs in the same rounds: a bare node:http server sending, for each scenario, the bytes
// the first store answered. A small `products` workspace (1,000 generated nodes, productsYaml) is
// imported too, for the lists of a small workspace (issue 20), printed as a ratio to the read node.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import autocannon from 'autocannon';
import { span } from './smoke.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

export const SCENARIOS: Record<string, string> = {
  'read node, depth 2 (31-node page)': '/.rest/delivery/landing/landing',
  'get children, depth 1 (12 pages of 4, 60 nodes)': '/.rest/delivery/nav/nav@nodes',
  'selective query (2 filters, ~1 %, orderBy, total)': '/.rest/delivery/tours?category=c07&price%5Bgt%5D=900&orderBy=price%20desc',
  'broad query (~50 %, orderBy, total)': '/.rest/delivery/tours?featured=true&orderBy=price',
  'full-text query (word in 1 %)': '/.rest/delivery/tours?q=rare37',
  // Small workspace (1,000 products); names without "query", which bench/writes.ts runs on tours.
  'list, 1,000 products: price[gt], orderBy title desc, total': '/.rest/delivery/products?price%5Bgt%5D=100&orderBy=title%20desc&limit=10',
  'list, 1,000 products: q (word in ~10 %), total': '/.rest/delivery/products?q=lagoon&limit=10',
  'list, 1,000 products: title[like], orderBy price, total': '/.rest/delivery/products?title%5Blike%5D=%25river%25&orderBy=price&limit=10',
};

/** The scenario the lists are compared with (the same run, the same store). */
const READ_NODE = 'read node, depth 2 (31-node page)';
const PRODUCTS = 1_000;
const PRODUCT_WORDS = ['river', 'mountain', 'temple', 'market', 'island', 'desert', 'forest', 'harbour', 'valley', 'castle'];

/**
 * The `products` workspace as a YAML bootstrap file: /catalog with PRODUCTS products (title, price,
 * rich-text description, category), the same every run (words and prices follow from the index).
 */
export function productsYaml(): string {
  let yaml = `'catalog':\n  'jcr:primaryType': 'mgnl:folder'\n`;
  for (let i = 0; i < PRODUCTS; i++) {
    const w1 = PRODUCT_WORDS[i % PRODUCT_WORDS.length]!;
    const w2 = PRODUCT_WORDS[(i * 7 + 3) % PRODUCT_WORDS.length]!;
    const extra = i % 10 === 4 ? ' by the lagoon' : ''; // `q=lagoon`: 10 % of the products
    yaml += `  'p${i}':\n    'jcr:primaryType': 'mgnl:content'\n    'jcr:uuid': '5ca1e000-0000-4000-8000-${String(i).padStart(12, '0')}'\n` +
      `    'title': 'The ${w1} ${w2} product ${i}'\n    'price': ${((i * 7919) % 50_000) / 100}\n` +
      `    'description': '<p>A <strong>${w1}</strong> product near the ${w2}${extra}, number ${i}.</p>'\n    'category': 'c${i % 20}'\n`;
  }
  return yaml;
}

interface Figures { rps: number; p50: number; p99: number; errors: number }

const CEILING = 'bare node:http, same bytes';

/** The `--store` value for a STORE argument. */
function storeUrl(store: string): string {
  return /^postgres(ql)?:\/\//.test(store) || store.startsWith('sqlite:') ? store : `sqlite:${store}`;
}

let config = join(ROOT, 'bench/petal.yaml');
let productsDir = '';

async function startServer(store: string, port: number): Promise<ChildProcess> {
  execFileSync(process.execPath, [join(ROOT, 'bin/petal.js'), 'import', '--store', storeUrl(store), join(ROOT, 'bench/content'), productsDir], { stdio: 'ignore' });
  const child = spawn(process.execPath, [join(ROOT, 'bin/petal.js'), 'serve', '--config', config,
    '--store', storeUrl(store), '--port', String(port), '--host', '127.0.0.1', '--log-level', 'warn'],
  { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, PETAL_LOG_FORMAT: 'json' } });
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/.health`)).ok) return child;
    } catch { /* not up yet */ }
    await new Promise((r) => setTimeout(r, 200));
  }
  child.kill();
  throw new Error(`server for ${store} did not start`);
}

/** The ceiling: node:http alone, answering each scenario path with the given bytes. */
async function startCeiling(bodies: ReadonlyMap<string, Buffer>, port: number): Promise<ChildProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'petal-ceiling-'));
  const files: Record<string, string> = {};
  for (const [i, [path, body]] of [...bodies].entries()) {
    files[path] = join(dir, `${i}.json`);
    writeFileSync(files[path]!, body);
  }
  writeFileSync(join(dir, 'bare.mjs'), `import http from 'node:http'; import { readFileSync } from 'node:fs';
const bodies = new Map(Object.entries(${JSON.stringify(files)}).map(([p, f]) => [p, readFileSync(f)]));
http.createServer((req, res) => {
  const body = bodies.get(req.url);
  if (body === undefined) { res.writeHead(req.url === '/.health' ? 200 : 404); res.end(); return; }
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length }); res.end(body);
}).listen(${port}, '127.0.0.1');`);
  const child = spawn(process.execPath, [join(dir, 'bare.mjs')], { stdio: 'ignore' });
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/.health`)).ok) return child;
    } catch { /* not up yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill();
  throw new Error('the ceiling server did not start');
}

function rssOf(child: ChildProcess): number {
  try {
    const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
    return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
  } catch {
    return -1;
  }
}

async function load(url: string, seconds: number): Promise<Figures> {
  const r = await autocannon({ url, connections: 8, ...span(seconds) });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors + r.non2xx };
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  let seconds = 10;
  let rounds = 2;
  let cache = false;
  const stores: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--seconds') seconds = Number(args[++i]);
    else if (args[i] === '--rounds') rounds = Number(args[++i]);
    else if (args[i] === '--cache') cache = args[++i] === 'on';
    else stores.push(args[i]!);
  }
  if (!cache) {
    const dir = mkdtempSync(join(tmpdir(), 'petal-bench-'));
    config = join(dir, 'petal.yaml');
    writeFileSync(config, readFileSync(join(ROOT, 'bench/petal.yaml'), 'utf8')
      .replace('modules: [./modules]', `modules: ['${join(ROOT, 'bench/modules')}']`) + '\ncache: { maxBytes: 0 }\n');
  }
  console.error(`response cache ${cache ? 'on' : 'off'}`);
  productsDir = mkdtempSync(join(tmpdir(), 'petal-bench-products-'));
  writeFileSync(join(productsDir, 'products.catalog.yaml'), productsYaml());
  const results = new Map<string, Figures[]>();
  const bodies = new Map<string, Buffer>(); // scenario path → the first store's answer, for the ceiling
  for (let round = 0; round < rounds; round++) {
    for (const [s, store] of [...stores, CEILING].entries()) {
      const port = 18_100 + s;
      const server = store === CEILING ? await startCeiling(bodies, port) : await startServer(store, port);
      if (round === 0) console.error(`${store}: server RSS after start ${rssOf(server)} MB`);
      try {
        for (const path of Object.values(SCENARIOS)) {
          // The first query of a large workspace loads its in-memory query index: not measured.
          const started = performance.now();
          const res = await fetch(`http://127.0.0.1:${port}${path}`);
          if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
          const body = Buffer.from(await res.arrayBuffer());
          if (!bodies.has(path)) bodies.set(path, body);
          if (round === 0) console.error(`${store} first ${path}: ${(performance.now() - started).toFixed(0)} ms, ${body.length} bytes`);
        }
        for (const [name, path] of Object.entries(SCENARIOS)) {
          await load(`http://127.0.0.1:${port}${path}`, 2); // warm-up
          const f = await load(`http://127.0.0.1:${port}${path}`, seconds);
          const key = `${store}\t${name}`;
          results.set(key, [...(results.get(key) ?? []), f]);
          console.error(`round ${round + 1} ${store} ${name}: ${f.rps.toFixed(0)} req/s p50 ${f.p50} ms p99 ${f.p99} ms errors ${f.errors}`);
        }
        if (round === 0) console.error(`${store}: server RSS after load ${rssOf(server)} MB`);
      } finally {
        server.kill('SIGTERM');
        await new Promise((r) => server.once('exit', r));
      }
    }
  }
  console.log('| store | scenario | req/s | p50 ms | p99 ms |');
  console.log('|---|---|---|---|---|');
  for (const [key, list] of results) {
    const [store, name] = key.split('\t');
    const best = list.reduce((a, b) => (b.p99 < a.p99 ? b : a));
    const rps = list.reduce((a, b) => a + b.rps, 0) / list.length;
    console.log(`| ${store} | ${name} | ${rps.toFixed(0)} | ${best.p50} | ${best.p99} |`);
  }
  // The lists of a small workspace against the read node, per store (issue 20: at least 0.4).
  const mean = (key: string) => { const list = results.get(key) ?? []; return list.reduce((a, b) => a + b.rps, 0) / list.length; };
  console.log('\n| store | list | list / read node req/s |');
  console.log('|---|---|---|');
  for (const store of stores) {
    for (const name of Object.keys(SCENARIOS).filter((n) => n.startsWith('list'))) {
      console.log(`| ${store} | ${name} | ${(mean(`${store}\t${name}`) / mean(`${store}\t${READ_NODE}`)).toFixed(2)} |`);
    }
  }
}

// Only when run, not when another script imports SCENARIOS.
if (import.meta.url === `file://${process.argv[1]}`) await main();
