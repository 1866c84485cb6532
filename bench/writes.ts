// Write benchmark (issue 16): single-node writes through the Nodes API, served by `petal serve` in a
// child process with a configuration that lets anonymous callers write the `tours` workspace (bench
// only). Usage:
//   node --import tsx bench/writes.ts latency [--writes 500] STORE...
//     sequential single-node updates (one property of a random tour): latency p50 / p99 per store.
//   node --import tsx bench/writes.ts under-load [--seconds 60] [--rate 50] [--concurrent] STORE
//     the query scenarios of bench/run.ts under autocannon while a writer updates random tours at
//     `rate` writes/s: the queries' latency, the writes' latency and failures, the server's RSS before
//     and after, and the query index's full loads and in-place changes (from the server's log). As
//     bench/run.ts runs them: one scenario after the other (8 connections), each for a third of the
//     writes' time; with --concurrent, all at once (2 connections each) for the whole time.
// STORE is a SQLite file or a postgres:// URL that bench/generate.ts filled (tours in /fNNNN/tour-N).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { SCENARIOS } from './run.js';
import { budget, span } from './smoke.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

function storeUrl(store: string): string {
  return /^postgres(ql)?:\/\//.test(store) || store.startsWith('sqlite:') ? store : `sqlite:${store}`;
}

/** bench/petal.yaml plus write rights on `tours` for anonymous callers, response cache off. */
function writeConfig(): string {
  const dir = mkdtempSync(join(tmpdir(), 'petal-bench-writes-'));
  const file = join(dir, 'petal.yaml');
  writeFileSync(file, `modules: ['${join(ROOT, 'bench/modules')}']
logLevel: info
cache: { maxBytes: 0 }
# The bench measures writes, not their limit (300 a minute from one address by default): its writer
# sends 50 a second from one address.
rateLimit: { writes: { max: 1000000000, windowMs: 60000 } }
security:
  roles:
    anonymous:
      uriPermissions:
        - { path: /.health, permission: get }
        - { path: /.rest/nodes/*, permission: getAndPost }
      workspacePermissions:
        '*':
          - { path: /, permission: read }
          - { path: /*, permission: read }
        tours:
          - { path: /, permission: readWrite }
          - { path: /*, permission: readWrite }
`);
  return file;
}

interface Server { readonly child: ChildProcess; readonly log: string[] }

async function startServer(store: string, port: number): Promise<Server> {
  execFileSync(process.execPath, [join(ROOT, 'bin/petal.js'), 'import', '--store', storeUrl(store), join(ROOT, 'bench/content')], { stdio: 'ignore' });
  const child = spawn(process.execPath, [join(ROOT, 'bin/petal.js'), 'serve', '--config', writeConfig(),
    '--store', storeUrl(store), '--port', String(port), '--host', '127.0.0.1'],
  { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, PETAL_LOG_FORMAT: 'json' } });
  // Log lines about the query index (loads, changes applied in place); request lines are dropped.
  const log: string[] = [];
  let rest = '';
  child.stdout!.on('data', (d: Buffer) => {
    const lines = (rest + d.toString()).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) if (/query index/i.test(line)) log.push(line);
  });
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/.health`)).ok) return { child, log };
    } catch { /* not up yet */ }
    await new Promise((r) => setTimeout(r, 200));
  }
  child.kill();
  throw new Error(`server for ${store} did not start`);
}

async function stop(server: Server): Promise<void> {
  server.child.kill('SIGTERM');
  await new Promise((r) => server.child.once('exit', r));
}

function rssOf(child: ChildProcess): number {
  const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
}

/** Deterministic pseudo-random tour numbers below `n`. */
function tours(n: number, seed = 7): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return Math.floor((s / 4294967296) * n);
  };
}

function tourPath(i: number): string {
  return `/f${String(Math.floor(i / 1000)).padStart(4, '0')}/tour-${i}`;
}

/** One Nodes API update: a new price for tour `i`. Returns the latency in ms, or throws on a non-2xx answer. */
async function writeOne(port: number, i: number, price: number): Promise<number> {
  const started = performance.now();
  const res = await fetch(`http://127.0.0.1:${port}/.rest/nodes/v1/tours${tourPath(i)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: `tour-${i}`, properties: [{ name: 'price', type: 'Double', multiple: false, values: [price.toFixed(2)] }] }),
  });
  await res.arrayBuffer();
  if (res.status >= 300) throw new Error(`write of ${tourPath(i)} answered ${res.status}`);
  return performance.now() - started;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function countTours(port: number): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${port}/.rest/delivery/tours?limit=1`);
  const body = await res.json() as { total?: number };
  if (typeof body.total !== 'number') throw new Error('the tours endpoint gives no total');
  return body.total;
}

async function latency(stores: readonly string[], writes: number): Promise<void> {
  console.log('| store | writes | p50 ms | p99 ms | max ms |');
  console.log('|---|---|---|---|---|');
  for (const [s, store] of stores.entries()) {
    const port = 18_300 + s;
    const server = await startServer(store, port);
    try {
      const next = tours(await countTours(port));
      for (let i = 0; i < 20; i++) await writeOne(port, next(), 100 + i); // warm-up
      const times: number[] = [];
      for (let i = 0; i < writes; i++) times.push(await writeOne(port, next(), 100 + (i % 900)));
      times.sort((a, b) => a - b);
      console.log(`| ${store} | ${writes} | ${percentile(times, 50).toFixed(1)} | ${percentile(times, 99).toFixed(1)} | ${times.at(-1)!.toFixed(1)} |`);
    } finally {
      await stop(server);
    }
  }
}

async function underLoad(store: string, seconds: number, rate: number, concurrent: boolean): Promise<void> {
  const port = 18_350;
  const server = await startServer(store, port);
  try {
    const queries = Object.entries(SCENARIOS).filter(([name]) => name.includes('query'));
    for (const [, path] of queries) {
      const started = performance.now();
      const res = await fetch(`http://127.0.0.1:${port}${path}`);
      await res.arrayBuffer();
      console.error(`first ${path}: ${res.status} in ${(performance.now() - started).toFixed(0)} ms`);
    }
    const n = await countTours(port);
    // Queries alone first (the reference), then the same load with the writer.
    const connections = concurrent ? 2 : 8;
    const each = concurrent ? seconds : Math.max(1, Math.floor(seconds / queries.length));
    const cannon = (path: string, duration: number) => autocannon({ url: `http://127.0.0.1:${port}${path}`, connections, ...span(duration) });
    const runAll = async (duration: number) => {
      if (concurrent) return Promise.all(queries.map(([, path]) => cannon(path, duration)));
      const out = [];
      for (const [, path] of queries) out.push(await cannon(path, duration));
      return out;
    };
    const alone = await runAll(budget(10, 1));
    const rssBefore = rssOf(server.child);
    const loadsBefore = server.log.filter((l) => /loaded workspace/i.test(l)).length;
    const next = tours(n, 11);
    const writeTimes: number[] = [];
    let failures = 0;
    const end = Date.now() + seconds * 1000;
    const writer = (async () => {
      const interval = 1000 / rate;
      let due = Date.now();
      const pending: Promise<void>[] = [];
      while (due < end) {
        const wait = due - Date.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        pending.push(writeOne(port, next(), 100 + (writeTimes.length % 900)).then((ms) => { writeTimes.push(ms); }, () => { failures++; }));
        due += interval;
      }
      await Promise.all(pending);
    })();
    const loaded = await runAll(each);
    await writer;
    const rssAfter = rssOf(server.child);
    const loadsDuring = server.log.filter((l) => /loaded workspace/i.test(l)).length - loadsBefore;
    writeTimes.sort((a, b) => a - b);
    console.log(`store ${store}, ${n} tours, ${seconds} s, writer at ${rate}/s, queries ${concurrent ? 'all at once, 2 connections each' : `one after the other, ${each} s each, 8 connections`}; load average ${readFileSync('/proc/loadavg', 'utf8').trim()}`);
    console.log('| scenario | alone req/s | alone p99 ms | with writes req/s | with writes p50 ms | with writes p99 ms | errors |');
    console.log('|---|---|---|---|---|---|---|');
    for (const [i, [name]] of queries.entries()) {
      const a = alone[i]!;
      const l = loaded[i]!;
      console.log(`| ${name} | ${a.requests.average.toFixed(0)} | ${a.latency.p99} | ${l.requests.average.toFixed(0)} | ${l.latency.p50} | ${l.latency.p99} | ${l.errors + l.non2xx} |`);
    }
    console.log(`writes: ${writeTimes.length} done (${(writeTimes.length / seconds).toFixed(1)}/s), ${failures} failed, p50 ${percentile(writeTimes, 50).toFixed(1)} ms, p99 ${percentile(writeTimes, 99).toFixed(1)} ms`);
    console.log(`RSS: ${rssBefore} MB before the writes, ${rssAfter} MB after (${(((rssAfter - rssBefore) / rssBefore) * 100).toFixed(1)} %)`);
    console.log(`query index: ${loadsDuring} full workspace loads during the writes; log lines during the run:`);
    for (const line of server.log.slice(-5)) console.log(`  ${line.slice(0, 300)}`);
  } finally {
    await stop(server);
  }
}

const [mode, ...rest] = process.argv.slice(2);
const stores: string[] = [];
let writes = 500;
let seconds = 60;
let rate = 50;
let concurrent = false;
for (let i = 0; i < rest.length; i++) {
  if (rest[i] === '--concurrent') { concurrent = true; continue; }
  if (rest[i] === '--writes') writes = Number(rest[++i]);
  else if (rest[i] === '--seconds') seconds = Number(rest[++i]);
  else if (rest[i] === '--rate') rate = Number(rest[++i]);
  else stores.push(rest[i]!);
}
if (mode === 'latency' && stores.length > 0) await latency(stores, writes);
else if (mode === 'under-load' && stores.length === 1) await underLoad(stores[0]!, seconds, rate, concurrent);
else {
  process.stderr.write('Usage: bench/writes.ts latency [--writes N] STORE... | under-load [--seconds S] [--rate R] [--concurrent] STORE\n');
  process.exit(2);
}
