// A `petal serve` child over the bundled demo content (SQLite) whose process memory a parent can
// read after forcing garbage collection in it (test/helpers/memory-probe.mjs), and floods of distinct
// requests to send it: long random 404 paths, random orderBy and filters. Shared by the memory flood
// test (test/memory/) and bench/memory-flood.ts.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { freePort } from './free-port.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';

const ROOT = join(import.meta.dirname, '..', '..');
const PROBE = join(import.meta.dirname, 'memory-probe.mjs');
const DEMO = join(ROOT, 'demo');

/** The budgets the child is given (petal.yaml `cache.*` and `security.aclCacheMaxBytes`). */
export interface Budgets {
  readonly responseCache: number;
  readonly subtreeCache: number;
  readonly aclCache: number;
  readonly queryIndex: number;
}

export interface Usage {
  readonly rss: number;
  readonly heapUsed: number;
  readonly heapTotal: number;
  readonly external: number;
  readonly arrayBuffers: number;
  /** Bytes V8 has committed to its young generation (empty after a collection, yet resident). */
  readonly newSpace: number;
}

export interface FloodServer {
  readonly port: number;
  readonly pid: number;
  /** Memory of the child after full collections in it; `vmRss` read from /proc/<pid>/status. */
  usage(): Promise<Usage & { readonly vmRss: number }>;
  /** The child's `/.metrics` text (a bearer token is set up for it). */
  metrics(): Promise<string>;
  /** The last 4 KB the child wrote, and its exit code if it exited (for failures). */
  output(): string;
  stop(): Promise<void>;
}

const METRICS_TOKEN = 'memory-flood-metrics-token';

/**
 * Starts `petal serve` on the demo (modules and content) with the given budgets, rate limits off
 * (a flood from one client would otherwise meet 429s, not the caches). `bin` runs the built CLI
 * (bin/petal.js, dist/: what `npx petal serve` runs; or the petal.js given, of another build);
 * otherwise the sources through tsx.
 */
export async function startFloodServer(budgets: Budgets, o: { readonly bin?: boolean | string } = {}): Promise<FloodServer> {
  const dir = mkdtempSync(join(tmpdir(), 'petal-memory-'));
  const demo = parse(readFileSync(join(DEMO, 'petal.yaml'), 'utf8')) as Record<string, unknown>;
  const security = demo.security as Record<string, unknown>;
  const config = {
    ...demo,
    store: `sqlite:${join(dir, 'demo.db')}`,
    modules: [join(DEMO, 'light-modules')],
    content: [join(DEMO, 'content')],
    port: await freePort(),
    host: '127.0.0.1',
    baseUrl: 'http://127.0.0.1',
    // Not a line per request: the parent would have to read 6 KB a request.
    logLevel: 'warn',
    rateLimit: { enabled: false },
    metrics: { enabled: true, tokenEnv: 'PETAL_FLOOD_METRICS_TOKEN' },
    cache: { maxBytes: budgets.responseCache, subtreeMaxBytes: budgets.subtreeCache, queryIndexMaxBytes: budgets.queryIndex },
    security: { ...security, aclCacheMaxBytes: budgets.aclCache },
  };
  const file = join(dir, 'petal.yaml');
  writeFileSync(file, stringify(config));
  const entry = typeof o.bin === 'string' ? [o.bin]
    : o.bin === true ? [join(ROOT, 'bin', 'petal.js')]
      : ['--import', 'tsx', join(import.meta.dirname, 'serve-child.ts')];
  const child = spawn(process.execPath, ['--expose-gc', '--import', PROBE, ...entry, 'serve', '--config', file], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    env: { ...process.env, PETAL_LOG_FORMAT: 'json', PETAL_FLOOD_METRICS_TOKEN: METRICS_TOKEN },
  });
  const port = config.port;
  let tail = '';
  const keep = (c: Buffer) => { tail = (tail + c.toString('utf8')).slice(-4_096); };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  try {
    await ready(child, port, () => tail);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const pending = new Map<number, (u: Usage) => void>();
  let next = 0;
  child.on('message', (m: { type?: string; id?: number; usage?: Usage }) => {
    if (m.type !== 'petal-memory-probe' || m.id === undefined || m.usage === undefined) return;
    pending.get(m.id)?.(m.usage);
    pending.delete(m.id);
  });
  return {
    port,
    pid: child.pid!,
    usage: async () => {
      const id = ++next;
      const usage = await new Promise<Usage>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('the child did not answer the memory probe')), 30_000);
        pending.set(id, (u) => { clearTimeout(timer); resolve(u); });
        child.send({ type: 'petal-memory-probe', id });
      });
      return { ...usage, vmRss: vmRssOf(child.pid!) };
    },
    metrics: async () => (await get(port, '/.metrics', { authorization: `Bearer ${METRICS_TOKEN}` })).body,
    output: () => `${tail}${child.exitCode === null ? '' : `\n(exited ${child.exitCode}${child.signalCode === null ? '' : `, ${child.signalCode}`})`}`,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Resolves once the child answers /.health. */
async function ready(child: ChildProcess, port: number, tail: () => string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`petal serve exited (${child.exitCode}): ${tail()}`);
    try {
      if ((await get(port, '/.health')).status === 200) return;
    } catch { /* not listening yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`petal serve did not answer within 60 s: ${tail()}`);
}

/** VmRSS of a process in bytes (Linux). */
export function vmRssOf(pid: number): number {
  const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (m === null) throw new Error(`no VmRSS for ${pid}`);
  return Number(m[1]) * 1024;
}

const agent = new Agent({ keepAlive: true, maxSockets: 16 });

/**
 * A GET over a kept-alive connection; retried once on a reset (the server may close an idle
 * connection just as it is reused: a GC probe between floods takes seconds).
 */
export async function get(port: number, path: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  try {
    return await getOnce(port, path, headers);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ECONNRESET') throw err;
    return getOnce(port, path, headers);
  }
}

function getOnce(port: number, path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * Sends `count` requests, `concurrency` at a time, to the paths `pathOf(i)` gives; returns how many
 * answered each status (0: no answer, the connection failed).
 */
export async function flood(port: number, count: number, pathOf: (i: number) => string, concurrency = 16): Promise<Map<number, number>> {
  const statuses = new Map<number, number>();
  let i = 0;
  const worker = async () => {
    while (i < count) {
      const status = await get(port, pathOf(i++)).then((r) => r.status, () => 0);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return statuses;
}

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789-';

function randomWord(length: number): string {
  const bytes = randomBytes(length);
  for (let i = 0; i < length; i++) bytes[i] = ALPHABET.charCodeAt(bytes[i]! % ALPHABET.length);
  return bytes.toString('latin1');
}

/**
 * A random path of `length` characters below a read endpoint: segments of 8 to 40 letters, one of them
 * holding `€` (percent-encoded), so the decoded path is a two-byte string, the costlier kind in V8.
 */
export function random404Path(prefix: string, length: number): string {
  const head = `${prefix}/${randomWord(8)}%E2%82%AC/`;
  const tail = Buffer.from(randomWord(Math.max(0, length - head.length)), 'latin1');
  // Segments of 8 to 40 letters.
  for (let i = 0, next = 8 + (tail[0]! % 33); i < tail.length - 1; i++) {
    if (i === next) {
      tail[i] = 0x2f;
      next = i + 9 + (tail[i + 1]! % 33);
    }
  }
  return head + tail.toString('latin1');
}

const OPERATORS = ['eq', 'ne', 'gt', 'lt', 'gte', 'like', 'ilike'];
/** Properties of the demo's plants: half the names a query uses are these, half random. */
const PLANT_PROPERTIES = ['name', 'price', 'stock', 'perennial', 'latinName', 'colors', 'planted'];

function pick<T>(list: readonly T[]): T {
  return list[Math.floor(Math.random() * list.length)]!;
}

const someName = () => (Math.random() < 0.5 ? pick(PLANT_PROPERTIES) : randomWord(6 + Math.floor(Math.random() * 20)));

/** A query of a query endpoint with a random orderBy and two random filters (names and values). */
export function randomQueryPath(endpoint: string): string {
  return `${endpoint}?orderBy=${someName()}%20${Math.random() < 0.5 ? 'asc' : 'desc'}`
    + `&${someName()}[${pick(OPERATORS)}]=${randomWord(1 + Math.floor(Math.random() * 40))}&price[gt]=${(Math.random() * 10).toFixed(3)}`;
}

/** The value of one sample of a Prometheus text exposition (`name` with its labels as written). */
export function metricValue(text: string, name: string): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith(`${name} `)) return Number(line.slice(name.length + 1));
  }
  return undefined;
}
