// Cold-start benchmark (issue 20): how long a freshly started `petal serve` takes to answer the first
// selective and the first broad query of the generated `tours` workspace, without persisted index
// segments (cache.persistQueryIndex: false, every start reads SQL), on the first start that persists
// them, and on restarts that read them (selective first, then broad first); with the server's RSS
// after the two queries. Then the cost of refreshing the segments after an import
// (store.refreshQueryIndex, what `petal import` adds). Response cache off. Usage:
//   npx tsc -p tsconfig.build.json && node --import tsx bench/cold-start.ts [--restarts 2] STORE
// where STORE is a SQLite file (bench/data/tours-1000000.db) or a postgres:// URL bench/generate.ts filled.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from '../src/store/sqlite/driver.js';
import pg from 'pg';
import { createStore } from '../src/store/create-store.js';
import { SCENARIOS } from './run.js';
import { SMOKE } from './smoke.js';
import { freePort } from '../test/helpers/free-port.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SELECTIVE = SCENARIOS['selective query (2 filters, ~1 %, orderBy, total)']!;
const BROAD = SCENARIOS['broad query (~50 %, orderBy, total)']!;
// Other benchmarks may run beside this one: a port of its own, and a server that must still be running.
/** A port the system gave out free (a random one in 30,000–40,000 fell among the ephemeral ports of other clients). */
let PORT = 0;

const isPostgres = (store: string) => /^postgres(ql)?:\/\//.test(store);
const storeUrl = (store: string) => (isPostgres(store) || store.startsWith('sqlite:') ? store : `sqlite:${store}`);

function config(persist: boolean): string {
  const dir = mkdtempSync(join(tmpdir(), 'petal-cold-'));
  const file = join(dir, 'petal.yaml');
  writeFileSync(file, readFileSync(join(ROOT, 'bench/petal.yaml'), 'utf8')
    .replace('modules: [./modules]', `modules: ['${join(ROOT, 'bench/modules')}']`)
    .replace('logLevel: warn', 'logLevel: info') + `\ncache: { maxBytes: 0, persistQueryIndex: ${persist} }\n`);
  return file;
}

/** Forgets every persisted segment, so that the next start is a first one. */
async function dropSegments(store: string): Promise<void> {
  if (isPostgres(store)) {
    const c = new pg.Client({ connectionString: store });
    await c.connect();
    await c.query('DELETE FROM index_segments').finally(() => c.end());
  } else {
    const db = new Database(store.replace(/^sqlite:/, ''));
    db.exec('DELETE FROM index_segments');
    db.close();
  }
}

interface Server { child: ChildProcess; log: string[] }

async function start(store: string, persist: boolean): Promise<Server> {
  PORT = await freePort();
  const child = spawn(process.execPath, [join(ROOT, 'bin/petal.js'), 'serve', '--config', config(persist),
    '--store', storeUrl(store), '--port', String(PORT), '--host', '127.0.0.1'],
  { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, PETAL_LOG_FORMAT: 'json' } });
  const log: string[] = [];
  let rest = '';
  child.stdout!.on('data', (d: Buffer) => {
    const lines = (rest + d.toString('utf8')).split('\n');
    rest = lines.pop()!;
    for (const l of lines) {
      try { log.push(String((JSON.parse(l) as { msg?: string }).msg ?? '')); } catch { /* not a log line */ }
    }
  });
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`petal serve exited (${child.exitCode})`);
    try {
      if ((await fetch(`http://127.0.0.1:${PORT}/.health`)).ok) return { child, log };
    } catch { /* not up yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill();
  throw new Error(`server for ${store} did not start`);
}

async function stop(s: Server): Promise<void> {
  const exited = new Promise((r) => s.child.once('exit', r));
  s.child.kill('SIGTERM');
  await exited;
}

function rssOf(child: ChildProcess): number {
  const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
  return Math.round(Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
}

async function timed(path: string): Promise<{ ms: number; body: string }> {
  const t = performance.now();
  const res = await fetch(`http://127.0.0.1:${PORT}${path}`);
  const body = await res.text();
  if (!res.ok) throw new Error(`${path}: ${res.status} ${body.slice(0, 200)}`);
  return { ms: Math.round(performance.now() - t), body };
}

/** Waits until the server logged `count` persisted segments (their writes run after the answers). */
async function persisted(s: Server, count: number): Promise<void> {
  const deadline = Date.now() + 600_000;
  while (s.log.filter((m) => m.includes('query index: persisted the')).length < count) {
    if (Date.now() > deadline) throw new Error('the segments were not persisted');
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  let restarts = 2;
  const stores: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--restarts') restarts = Number(args[++i]);
    else stores.push(args[i]!);
  }
  const store = stores[0];
  if (store === undefined) throw new Error('usage: bench/cold-start.ts [--restarts N] STORE');
  execFileSync(process.execPath, [join(ROOT, 'bin/petal.js'), 'import', '--store', storeUrl(store), join(ROOT, 'bench/content')], { stdio: 'ignore' });
  console.log(`cold start on ${store} (load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')})`);
  console.log('| start | first query | ms | second query | ms | RSS after (MB) |');
  console.log('|---|---|---:|---|---:|---:|');
  const answers = new Set<string>();
  const run = async (label: string, persist: boolean, order: 'selective' | 'broad', after?: (s: Server) => Promise<void>) => {
    const s = await start(store, persist);
    try {
      const idle = rssOf(s.child);
      const [a, b] = order === 'selective' ? [SELECTIVE, BROAD] : [BROAD, SELECTIVE];
      const first = await timed(a);
      const second = await timed(b);
      answers.add(JSON.stringify(order === 'selective' ? [first.body, second.body] : [second.body, first.body]));
      console.log(`| ${label} | ${order} | ${first.ms} | ${order === 'selective' ? 'broad' : 'selective'} | ${second.ms} | ${rssOf(s.child)} (idle ${idle}) |`);
      await after?.(s);
    } finally {
      await stop(s);
    }
  };
  await dropSegments(store);
  await run('no segments (persistQueryIndex: false)', false, 'selective');
  if (!SMOKE) await run('no segments (persistQueryIndex: false)', false, 'broad');
  // The first start reads SQL and persists the node table and the three columns (category, price, featured).
  await run('first start, persists', true, 'selective', (s) => persisted(s, 4));
  for (let i = 0; i < restarts; i++) {
    await run('restart, segments present', true, 'selective');
    await run('restart, segments present', true, 'broad');
  }
  console.log(answers.size === 1 ? 'every start answered the same' : `ANSWERS DIFFER between starts (${answers.size} variants)`);
  if (answers.size !== 1) process.exitCode = 1;
  // What an import adds: the refresh of the workspace's persisted segments (table and columns).
  const s = createStore(storeUrl(store));
  await s.open();
  const t = performance.now();
  const written = await s.caches?.refreshPersisted(['tours']) ?? 0;
  console.log(`refresh after an import (petal import's last step): ${written} segments of tours in ${Math.round(performance.now() - t)} ms`);
  await s.close();
}

await main();
