// Import benchmark (issue 16): the same export files imported with `petal import` and posted to
// `POST /.rest/import/v1` of a running `petal serve`, each into a fresh store. Usage:
//   node --import tsx bench/import-http.ts [--folders 20] SOURCE_STORE [postgres://…/empty_db_a postgres://…/empty_db_b]
// SOURCE_STORE is a store bench/generate.ts filled (at least `folders` × 1,000 tours); its first
// `folders` folders of `tours` are exported with `petal export` as YAML files. The targets are fresh
// SQLite files, and with two empty PostgreSQL databases, those too (one per route).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, openAsBlob, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const PETAL = join(ROOT, 'bin/petal.js');

function storeUrl(store: string): string {
  return /^postgres(ql)?:\/\//.test(store) || store.startsWith('sqlite:') ? store : `sqlite:${store}`;
}

function petal(args: readonly string[]): void {
  execFileSync(process.execPath, [PETAL, ...args], { stdio: ['ignore', 'ignore', 'inherit'] });
}

function config(dir: string): string {
  const file = join(dir, 'petal.yaml');
  writeFileSync(file, `logLevel: warn
limits: { requestTimeoutMs: 600000 }
security:
  roles:
    anonymous:
      uriPermissions:
        - { path: /.health, permission: get }
        - { path: /.rest/import/*, permission: getAndPost }
      workspacePermissions:
        tours:
          - { path: /, permission: readWrite }
          - { path: /*, permission: readWrite }
`);
  return file;
}

async function serve(store: string, cfg: string, port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [PETAL, 'serve', '--config', cfg, '--store', storeUrl(store), '--port', String(port), '--host', '127.0.0.1'],
    { stdio: ['ignore', 'ignore', 'inherit'] });
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/.health`)).ok) return child;
    } catch { /* not up yet */ }
    await new Promise((r) => setTimeout(r, 200));
  }
  child.kill();
  throw new Error('server did not start');
}

async function viaHttp(store: string, files: readonly string[], cfg: string, port: number): Promise<number> {
  const server = await serve(store, cfg, port);
  try {
    const form = new FormData();
    for (const f of files) form.append('file', await openAsBlob(f), f.slice(f.lastIndexOf('/') + 1));
    const started = performance.now();
    const res = await fetch(`http://127.0.0.1:${port}/.rest/import/v1`, { method: 'POST', body: form });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`import answered ${res.status}: ${text.slice(0, 300)}`);
    return performance.now() - started;
  } finally {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
  }
}

function viaCli(store: string, files: readonly string[]): number {
  const started = performance.now();
  petal(['import', '--store', storeUrl(store), ...files]);
  return performance.now() - started;
}

const args = process.argv.slice(2);
let folders = 20;
const rest: string[] = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--folders') folders = Number(args[++i]);
  else rest.push(args[i]!);
}
const [source, pgA, pgB] = rest;
if (source === undefined || (pgA === undefined) !== (pgB === undefined)) {
  process.stderr.write('Usage: bench/import-http.ts [--folders N] SOURCE_STORE [postgres://…/a postgres://…/b]\n');
  process.exit(2);
}
const dir = mkdtempSync(join(tmpdir(), 'petal-bench-import-'));
const exports = join(dir, 'files');
execFileSync('mkdir', ['-p', exports]);
for (let f = 0; f < folders; f++) {
  execFileSync(process.execPath, [PETAL, 'export', 'tours', `/f${String(f).padStart(4, '0')}`, '--out', exports, '--store', storeUrl(source)], { stdio: 'ignore' });
}
const files = readdirSync(exports).map((n) => join(exports, n)).sort();
const bytes = files.reduce((n, f) => n + statSync(f).size, 0);
const nodes = folders * 1001;
const cfg = config(dir);
console.log(`${files.length} files, ${(bytes / 1024 / 1024).toFixed(1)} MiB, ${nodes} nodes; load average ${(await import('node:fs')).readFileSync('/proc/loadavg', 'utf8').trim()}`);
console.log('| store | petal import s | nodes/s | POST /.rest/import/v1 s | nodes/s | HTTP / CLI time |');
console.log('|---|---|---|---|---|---|');
const targets: [string, string, string][] = [['SQLite', join(dir, 'cli.db'), join(dir, 'http.db')]];
if (pgA !== undefined && pgB !== undefined) targets.push(['PostgreSQL', pgA, pgB]);
for (const [name, a, b] of targets) {
  petal(['import', '--store', storeUrl(a), join(ROOT, 'bench/content')]); // the schema exists in both before timing
  petal(['import', '--store', storeUrl(b), join(ROOT, 'bench/content')]);
  const cli = viaCli(a, files);
  const http = await viaHttp(b, files, cfg, 18_400);
  console.log(`| ${name} | ${(cli / 1000).toFixed(1)} | ${Math.round(nodes / (cli / 1000))} | ${(http / 1000).toFixed(1)} | ${Math.round(nodes / (http / 1000))} | ${(http / cli).toFixed(2)} |`);
}
