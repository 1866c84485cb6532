// Import of export files end to end (issue 31): generates a Magnolia YAML bootstrap export and a JCR system
// view XML export of N products, then imports each into a fresh store as a user would, with `petal import`
// (a child process) and with `POST /.rest/import/v1` of a `petal serve` child, and reports wall time,
// nodes/s and the peak RSS of the process that imported.
//
// Usage (from the repository root):
//   node --import tsx bench/import-files.ts [--nodes 100000] [--dir bench/data] [--formats yaml,xml]
//        [--routes cli,http] [--pg [--pg-url postgres://postgres@127.0.0.1:5432]] [--json] [--no-build] [--keep] [--bin OTHER/bin/petal.js]
//   --nodes N     products (folders of 1,000 under one root folder: N + ceil(N/1000) + 1 nodes in all)
//   --dir D       where the generated files are kept: D/import-files-n<N>-v<version>/products.catalog.{yaml,xml};
//                 existing ones are reused (generating 1M nodes takes minutes), delete the folder to rebuild
//   --pg          import into a fresh PostgreSQL database per run (created and dropped here) instead of
//                 a fresh SQLite file; --pg-url is the server (without a database name)
//   --json        print the results as JSON on standard output instead of a markdown table
//   --no-build    run dist/ as it is; by default it is rebuilt (tsc -p tsconfig.build.json) when src/ is newer,
//                 since bin/petal.js runs the compiled dist/cli.js, as an installed petal does
//   --keep        keep the stores (their paths/URLs are printed) instead of deleting them
//   --bin P       run another build's bin/petal.js (built already), e.g. a worktree of an older commit, so
//                 that a before and an after are measured in one sitting on the same files
// Peak RSS: of the `petal import` process by GNU time's %M (wait4's ru_maxrss: the whole process, worker
// threads included), else by polling /proc/PID/status VmHWM every 50 ms; of the `petal serve` process by
// its VmHWM read after the response (it includes the server's start, shown apart as "RSS before").
// Timings include the child's start (node, config, store open), and for HTTP the upload over loopback.
// The machine is shared: state `uptime` with any figure (the table shows the load average of each run).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import {
  createReadStream, createWriteStream, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync,
} from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { finished } from 'node:stream/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { freePort } from '../test/helpers/free-port.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const PETAL = join(ROOT, 'bin/petal.js');
/** The build that imports: this checkout's, or another's given with --bin (a before/after in one run). */
let petalBin = PETAL;
const GNU_TIME = '/usr/bin/time';
/** Bump when the generated content changes, so cached files of the old shape are not reused. */
const GENERATOR_VERSION = 2;
const FOLDER_SIZE = 1000;
const WORKSPACE = 'products';
const ROOT_NAME = 'catalog';
const MB = 1024 * 1024;

export type Format = 'yaml' | 'xml';
export type Route = 'cli' | 'http';

export interface Options {
  nodes: number;
  dir: string;
  formats: Format[];
  routes: Route[];
  pg: boolean;
  pgUrl: string;
  json: boolean;
  build: boolean;
  keep: boolean;
  /** bin/petal.js of the build to run (default: this checkout's). */
  bin: string;
}

export interface RunResult {
  store: 'sqlite' | 'postgres';
  route: Route;
  format: Format;
  nodes: number;
  fileMb: number;
  seconds: number;
  nodesPerSecond: number;
  peakRssMb: number;
  /** The server's RSS once started, before the POST (HTTP only). */
  rssBeforeMb?: number;
  /** What the importer itself reports (CLI: its own timer, from store open to commit). */
  importerSeconds?: number;
  loadAverage: string;
}

// ---------------------------------------------------------------------------------------------------
// Content: deterministic apart from the UUIDs (random, as the brief of issue 31 asks).

const ADJECTIVES = ['sturdy', 'light', 'classic', 'compact', 'handmade', 'recycled', 'waterproof', 'quiet', 'bright', 'soft'];
const NOUNS = ['backpack', 'kettle', 'lamp', 'chair', 'jacket', 'notebook', 'bicycle bell', 'tent', 'mug', 'speaker'];
const MATERIALS = ['oak', 'steel', 'linen', 'cork', 'wool', 'glass', 'bamboo', 'leather'];
const CLAUSES = [
  'It\'s built to last for years of daily use.',
  'Ships in plastic-free packaging & fits in a drawer.',
  'Our customers call it "the one they keep".',
  'Made in a small workshop < 200 km from the warehouse.',
  'Easy to clean, easy to repair, easy to love.',
];
const TAGS = ['new', 'sale', 'eco', 'gift', 'outdoor', 'kitchen', 'office', 'kids', 'travel', 'home', 'limited', 'bestseller'];

interface Product {
  name: string;
  uuid: string;
  title: string;
  price: string;
  stock: number;
  available: boolean;
  description: string;
  tags: [string, string];
  created: string;
  lastModified: string;
}

function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => (state = (state * 1664525 + 1013904223) >>> 0) / 4294967296;
}

function pick<T>(list: readonly T[], next: () => number): T {
  return list[Math.floor(next() * list.length)]!;
}

const EPOCH = Date.UTC(2015, 0, 1);
const SPAN = Date.UTC(2025, 0, 1) - EPOCH;

function product(i: number, next: () => number): Product {
  const adjective = pick(ADJECTIVES, next);
  const noun = pick(NOUNS, next);
  const created = EPOCH + Math.floor(next() * SPAN * 0.8);
  const first = pick(TAGS, next);
  let second = pick(TAGS, next);
  if (second === first) second = TAGS[(TAGS.indexOf(first) + 1) % TAGS.length]!;
  return {
    name: `p${String(i).padStart(7, '0')}`,
    uuid: randomUUID(),
    title: `${adjective[0]!.toUpperCase()}${adjective.slice(1)} ${noun} ${i}`,
    // Always with a fraction: a plain "12.50" reads as a Double, "12" would read as a Long.
    price: (1 + next() * 499).toFixed(2),
    stock: Math.floor(next() * 1000),
    available: next() < 0.9,
    description: `A ${adjective} ${noun} of ${pick(MATERIALS, next)}. ${pick(CLAUSES, next)}`,
    tags: [first, second],
    created: new Date(created).toISOString(),
    lastModified: new Date(created + Math.floor(next() * SPAN * 0.2)).toISOString(),
  };
}

// ---------------------------------------------------------------------------------------------------
// Writers: one folder of products per chunk, written with back-pressure, never the whole file in memory.

function yamlText(text: string): string {
  return `'${text.replace(/'/g, "''")}'`;
}

function xmlText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

interface Folder { name: string; uuid: string; created: string }

const yaml = {
  open(root: Folder): string {
    return `${yamlText(root.name)}:\n  'jcr:primaryType': 'mgnl:folder'\n  'jcr:uuid': ${yamlText(root.uuid)}\n`
      + `  'mgnl:created': ${root.created}\n  'mgnl:lastModified': ${root.created}\n`;
  },
  folder(f: Folder, products: readonly Product[]): string {
    const out = [`  ${yamlText(f.name)}:\n    'jcr:primaryType': 'mgnl:folder'\n    'jcr:uuid': ${yamlText(f.uuid)}\n`
      + `    'mgnl:created': ${f.created}\n    'mgnl:lastModified': ${f.created}\n`];
    for (const p of products) {
      out.push(`    ${yamlText(p.name)}:\n`
        + `      'jcr:primaryType': 'mgnl:content'\n`
        + `      'jcr:uuid': ${yamlText(p.uuid)}\n`
        + `      'available': ${p.available}\n`
        + `      'description': ${yamlText(p.description)}\n`
        + `      'mgnl:created': ${p.created}\n`
        + `      'mgnl:lastModified': ${p.lastModified}\n`
        + `      'price': ${p.price}\n`
        + `      'stock': ${p.stock}\n`
        + `      'tags':\n        - ${yamlText(p.tags[0])}\n        - ${yamlText(p.tags[1])}\n`
        + `      'title': ${yamlText(p.title)}\n`);
    }
    return out.join('');
  },
  close(): string {
    return '';
  },
};

/** One line per property, as `petal export` writes them (the original's exports put each value on a line of its own). */
function xmlProperty(indent: string, name: string, type: string, values: readonly string[], multiple = false): string {
  const inner = values.map((v) => `<sv:value>${xmlText(v)}</sv:value>`).join('');
  return `${indent}<sv:property sv:name="${name}" sv:type="${type}"${multiple ? ' sv:multiple="true"' : ''}>${inner}</sv:property>\n`;
}

function xmlFolderProperties(indent: string, f: Folder): string {
  return xmlProperty(indent, 'jcr:primaryType', 'Name', ['mgnl:folder'])
    + xmlProperty(indent, 'jcr:uuid', 'String', [f.uuid])
    + xmlProperty(indent, 'mgnl:created', 'Date', [f.created])
    + xmlProperty(indent, 'mgnl:lastModified', 'Date', [f.created]);
}

const xml = {
  open(root: Folder): string {
    return '<?xml version="1.0" encoding="UTF-8"?>\n'
      + '<sv:node xmlns:sv="http://www.jcp.org/jcr/sv/1.0" xmlns:jcr="http://www.jcp.org/jcr/1.0"'
      + ' xmlns:mgnl="http://www.magnolia.info/jcr/mgnl" xmlns:mix="http://www.jcp.org/jcr/mix/1.0"'
      + ` xmlns:nt="http://www.jcp.org/jcr/nt/1.0" sv:name="${xmlText(root.name)}">\n`
      + xmlFolderProperties('  ', root);
  },
  folder(f: Folder, products: readonly Product[]): string {
    const out = [`  <sv:node sv:name="${xmlText(f.name)}">\n${xmlFolderProperties('    ', f)}`];
    const i = '      ';
    for (const p of products) {
      out.push(`    <sv:node sv:name="${p.name}">\n`
        + xmlProperty(i, 'jcr:primaryType', 'Name', ['mgnl:content'])
        + xmlProperty(i, 'jcr:uuid', 'String', [p.uuid])
        + xmlProperty(i, 'available', 'Boolean', [String(p.available)])
        + xmlProperty(i, 'description', 'String', [p.description])
        + xmlProperty(i, 'mgnl:created', 'Date', [p.created])
        + xmlProperty(i, 'mgnl:lastModified', 'Date', [p.lastModified])
        + xmlProperty(i, 'price', 'Double', [p.price])
        + xmlProperty(i, 'stock', 'Long', [String(p.stock)])
        + xmlProperty(i, 'tags', 'String', p.tags, true)
        + xmlProperty(i, 'title', 'String', [p.title])
        + '    </sv:node>\n');
    }
    out.push('  </sv:node>\n');
    return out.join('');
  },
  close(): string {
    return '</sv:node>\n';
  },
};

/** Nodes an export of `products` products holds: the products, their folders and the root folder. */
export function totalNodes(products: number): number {
  return products + Math.ceil(products / FOLDER_SIZE) + 1;
}

/** The export file of `format` for `products` products, generated unless a complete one is there. */
export async function exportFile(dir: string, format: Format, products: number): Promise<string> {
  const folder = join(dir, `import-files-n${products}-v${GENERATOR_VERSION}`);
  // The name the importer reads: workspace `products`, the root folder `catalog` at /.
  const file = join(folder, `${WORKSPACE}.${ROOT_NAME}.${format}`);
  if (existsSync(file)) return file;
  mkdirSync(folder, { recursive: true });
  // Written beside under another name and renamed when complete: an interrupted run leaves no file to reuse.
  const partial = `${file}.partial`;
  const out = createWriteStream(partial);
  const writer = format === 'yaml' ? yaml : xml;
  const next = random(31);
  const stamp = (n: number) => new Date(EPOCH + n * 3_600_000).toISOString();
  const write = async (text: string) => {
    if (!out.write(text)) await once(out, 'drain');
  };
  await write(writer.open({ name: ROOT_NAME, uuid: randomUUID(), created: stamp(0) }));
  for (let start = 0, f = 0; start < products; start += FOLDER_SIZE, f++) {
    const batch: Product[] = [];
    for (let i = start; i < Math.min(products, start + FOLDER_SIZE); i++) batch.push(product(i, next));
    await write(writer.folder({ name: `f${String(f).padStart(4, '0')}`, uuid: randomUUID(), created: stamp(f) }, batch));
  }
  out.end(writer.close());
  await finished(out);
  renameSync(partial, file);
  return file;
}

// ---------------------------------------------------------------------------------------------------
// Children: petal as a user runs it, from a scratch folder (no petal.yaml, no PETAL_* variables).

function childEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('PETAL_')));
}

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** bin/petal.js runs dist/cli.js: rebuilt when a source is newer, as test/global-setup.ts does. */
function ensureBuilt(): void {
  const built = join(ROOT, 'dist', 'cli.js');
  if (existsSync(built) && statSync(built).mtimeMs >= newestMtime(join(ROOT, 'src'))) return;
  process.stderr.write('building dist/ (tsc -p tsconfig.build.json)…\n');
  execFileSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'inherit' });
}

function statusKb(pid: number, field: 'VmHWM' | 'VmRSS'): number | undefined {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined; // gone
  }
}

/** The highest VmHWM seen while the process runs, polled every 50 ms. */
function pollPeak(pid: number): { stop(): number } {
  let peak = 0;
  const sample = () => { peak = Math.max(peak, statusKb(pid, 'VmHWM') ?? 0); };
  const timer = setInterval(sample, 50);
  sample();
  return { stop() { clearInterval(timer); return peak; } };
}

function exited(child: ChildProcess): Promise<number> {
  return new Promise((resolveExit, reject) => {
    child.once('error', reject);
    child.once('exit', (code, signal) => resolveExit(code ?? (signal ? 128 : 1)));
  });
}

function collect(stream: NodeJS.ReadableStream | null): () => string {
  const parts: Buffer[] = [];
  stream?.on('data', (b: Buffer) => parts.push(b));
  return () => Buffer.concat(parts).toString('utf8');
}

interface Measured { ms: number; peakKb: number; stdout: string }

async function viaCli(file: string, store: string, scratch: string): Promise<Measured> {
  const args = [petalBin, 'import', '--store', store, file];
  const timeFile = join(scratch, 'time.txt');
  const useTime = existsSync(GNU_TIME);
  const started = performance.now();
  const child = useTime
    ? spawn(GNU_TIME, ['-f', '%M', '-o', timeFile, process.execPath, ...args], { cwd: scratch, env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] })
    : spawn(process.execPath, args, { cwd: scratch, env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  const poll = useTime ? undefined : pollPeak(child.pid!);
  const stdout = collect(child.stdout);
  const stderr = collect(child.stderr);
  const code = await exited(child);
  const ms = performance.now() - started;
  const polled = poll?.stop() ?? 0;
  if (code !== 0) throw new Error(`petal import exited with ${code}: ${stderr().slice(-2000)}`);
  const peakKb = useTime ? Number(readFileSync(timeFile, 'utf8').trim().split('\n').pop()) : polled;
  return { ms, peakKb, stdout: stdout() };
}

/** Anonymous may import into the workspace; the body limit and request timeout fit 1M-node files. */
function serveConfig(scratch: string): string {
  const file = join(scratch, 'petal.yaml');
  const text = `logLevel: warn
limits: { requestTimeoutMs: 7200000, importMaxBytes: 17179869184 }
security:
  roles:
    anonymous:
      uriPermissions:
        - { path: /.health, permission: get }
        - { path: /.rest/import/*, permission: getAndPost }
      workspacePermissions:
        ${WORKSPACE}:
          - { path: /, permission: readWrite }
          - { path: /*, permission: readWrite }
`;
  writeFileSync(file, text);
  return file;
}

async function startServer(store: string, scratch: string): Promise<{ child: ChildProcess; port: number; stderr: () => string }> {
  const port = await freePort();
  const child = spawn(process.execPath, [petalBin, 'serve', '--config', serveConfig(scratch), '--store', store, '--port', String(port), '--host', '127.0.0.1'],
    { cwd: scratch, env: childEnv(), stdio: ['ignore', 'ignore', 'pipe'] });
  const stderr = collect(child.stderr);
  let gone = false;
  child.once('exit', () => { gone = true; });
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline && !gone) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/.health`)).ok) return { child, port, stderr };
    } catch { /* not up yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGTERM');
  throw new Error(`petal serve did not start: ${stderr().slice(-2000)}`);
}

/** One multipart part streamed from disk with node:http (fetch's 300 s header timeout would cut a 1M import). */
function postFile(port: number, file: string): Promise<{ status: number; body: string }> {
  const boundary = `----petal-bench-${randomUUID()}`;
  const name = file.slice(file.lastIndexOf('/') + 1);
  const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\n`
    + 'Content-Type: application/octet-stream\r\n\r\n');
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const length = head.length + statSync(file).size + tail.length;
  return new Promise((resolvePost, reject) => {
    const req = request({
      host: '127.0.0.1', port, method: 'POST', path: '/.rest/import/v1', timeout: 0,
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': length },
    }, (res) => {
      const body = collect(res);
      res.on('end', () => resolvePost({ status: res.statusCode ?? 0, body: body() }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.write(head);
    const source = createReadStream(file);
    source.on('error', reject);
    source.on('end', () => req.end(tail));
    source.pipe(req, { end: false });
  });
}

async function viaHttp(file: string, store: string, scratch: string): Promise<Measured & { beforeKb: number }> {
  const { child, port, stderr } = await startServer(store, scratch);
  try {
    const beforeKb = statusKb(child.pid!, 'VmRSS') ?? 0;
    const started = performance.now();
    const res = await postFile(port, file);
    const ms = performance.now() - started;
    // VmHWM is the process's high-water mark: read while it lives, it is exact without polling.
    const peakKb = statusKb(child.pid!, 'VmHWM') ?? 0;
    if (res.status !== 200) throw new Error(`POST /.rest/import/v1 answered ${res.status}: ${res.body.slice(0, 500)} ${stderr().slice(-1000)}`);
    return { ms, peakKb, beforeKb, stdout: res.body };
  } finally {
    child.kill('SIGTERM');
    await exited(child).catch(() => 0);
  }
}

// ---------------------------------------------------------------------------------------------------
// Stores: a fresh one per run.

interface FreshStore { url: string; drop(): Promise<void> }

function freshSqlite(scratch: string): FreshStore {
  const file = join(scratch, 'store.db');
  return { url: `sqlite:${file}`, drop: async () => {} };
}

async function adminQuery(base: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: `${base}/postgres` });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

let databases = 0;
async function freshPostgres(base: string): Promise<FreshStore> {
  const name = `petal_ibench_${process.pid}_${++databases}`;
  await adminQuery(base, `CREATE DATABASE ${name}`);
  return { url: `${base}/${name}`, drop: () => adminQuery(base, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

function loadAverage(): string {
  return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
}

export async function runOnce(o: Options, format: Format, route: Route, file: string): Promise<RunResult> {
  const scratch = mkdtempSync(join(tmpdir(), 'petal-bench-import-files-'));
  const store = o.pg ? await freshPostgres(o.pgUrl) : freshSqlite(scratch);
  const load = loadAverage();
  try {
    const expected = totalNodes(o.nodes);
    let m: Measured & { beforeKb?: number };
    let reported: number;
    let importerSeconds: number | undefined;
    if (route === 'cli') {
      m = await viaCli(file, store.url, scratch);
      const line = /imported (\d+) nodes .* in ([\d.]+) s/.exec(m.stdout);
      if (!line) throw new Error(`petal import printed no summary: ${m.stdout.slice(0, 500)}`);
      reported = Number(line[1]);
      importerSeconds = Number(line[2]);
    } else {
      m = await viaHttp(file, store.url, scratch);
      reported = (JSON.parse(m.stdout) as { nodes: number }).nodes;
    }
    if (reported !== expected) throw new Error(`${route} ${format}: imported ${reported} nodes, expected ${expected}`);
    const seconds = m.ms / 1000;
    return {
      store: o.pg ? 'postgres' : 'sqlite', route, format, nodes: expected,
      fileMb: statSync(file).size / MB, seconds, nodesPerSecond: expected / seconds, peakRssMb: m.peakKb / 1024,
      ...(m.beforeKb !== undefined ? { rssBeforeMb: m.beforeKb / 1024 } : {}),
      ...(importerSeconds !== undefined ? { importerSeconds } : {}),
      loadAverage: load,
    };
  } finally {
    if (o.keep) process.stderr.write(`kept ${store.url}\n`);
    else {
      await store.drop();
      rmSync(scratch, { recursive: true, force: true });
    }
  }
}

function table(results: readonly RunResult[]): string {
  const rows = results.map((r) => `| ${r.store} | ${r.route === 'cli' ? 'petal import' : 'POST /.rest/import/v1'} | ${r.format} | ${r.nodes} `
    + `| ${r.fileMb.toFixed(1)} | ${r.seconds.toFixed(1)} | ${Math.round(r.nodesPerSecond)} | ${Math.round(r.peakRssMb)} `
    + `| ${r.rssBeforeMb !== undefined ? Math.round(r.rssBeforeMb) : '–'} | ${r.importerSeconds !== undefined ? r.importerSeconds.toFixed(1) : '–'} `
    + `| ${r.loadAverage} |`);
  return ['| store | route | format | nodes | file MB | s | nodes/s | peak RSS MB | RSS before MB | importer s | load average |',
    '|---|---|---|---|---|---|---|---|---|---|---|', ...rows].join('\n');
}

function list<T extends string>(text: string, allowed: readonly T[], flag: string): T[] {
  const items = text.split(',').filter((s) => s !== '');
  for (const item of items) if (!(allowed as readonly string[]).includes(item)) throw new Error(`${flag}: ${item} is not one of ${allowed.join(', ')}`);
  return items as T[];
}

export function parseOptions(argv: readonly string[]): Options {
  const o: Options = {
    nodes: 100_000, dir: join(ROOT, 'bench/data'), formats: ['yaml', 'xml'], routes: ['cli', 'http'],
    pg: false, pgUrl: 'postgres://postgres@127.0.0.1:5432', json: false, build: true, keep: false, bin: PETAL,
  };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i]!;
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${flag} needs a value`);
      return v;
    };
    if (flag === '--nodes') o.nodes = Number(value());
    else if (flag === '--dir') o.dir = resolve(value());
    else if (flag === '--formats') o.formats = list(value(), ['yaml', 'xml'] as const, flag);
    else if (flag === '--routes') o.routes = list(value(), ['cli', 'http'] as const, flag);
    else if (flag === '--pg') o.pg = true;
    else if (flag === '--pg-url') o.pgUrl = value().replace(/\/+$/, '');
    else if (flag === '--json') o.json = true;
    else if (flag === '--no-build') o.build = false;
    else if (flag === '--keep') o.keep = true;
    else if (flag === '--bin') o.bin = resolve(value());
    else throw new Error(`unknown flag ${flag}`);
  }
  if (!Number.isInteger(o.nodes) || o.nodes < 1) throw new Error('--nodes must be a positive integer');
  return o;
}

export async function main(argv: readonly string[]): Promise<RunResult[]> {
  const o = parseOptions(argv);
  if (o.build && o.bin === PETAL) ensureBuilt();
  petalBin = o.bin;
  const results: RunResult[] = [];
  for (const format of o.formats) {
    const started = performance.now();
    const file = await exportFile(o.dir, format, o.nodes);
    process.stderr.write(`${file}: ${(statSync(file).size / MB).toFixed(1)} MB, ${totalNodes(o.nodes)} nodes `
      + `(ready in ${((performance.now() - started) / 1000).toFixed(1)} s)\n`);
    for (const route of o.routes) {
      const r = await runOnce(o, format, route, file);
      process.stderr.write(`${r.store} ${route} ${format}: ${r.seconds.toFixed(1)} s, ${Math.round(r.nodesPerSecond)} nodes/s, `
        + `peak RSS ${Math.round(r.peakRssMb)} MB (load ${r.loadAverage})\n`);
      results.push(r);
    }
  }
  process.stdout.write(o.json ? `${JSON.stringify(results, null, 2)}\n` : `${table(results)}\n`);
  return results;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main(process.argv.slice(2)).catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
    process.exitCode = 1;
  });
}
