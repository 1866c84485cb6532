// Cached versus uncached Read node versus the ceiling: a bare node:http server sending the same bytes.
// Servers run in child processes; rounds alternate so noise hits all alike.
// Usage: npm run build && node --import tsx bench/ceiling.ts [--seconds 8] [--rounds 3] [--path P] [--entries N] [--bin OTHER/bin/petal.js] [--pin] [STORE]
// `--entries N` fills each Petal's response cache with N other answers first (the path with `?entry=i`),
// as a site's cache holds many pages: the cost of a hit must not grow with them.
// The store gets bench/content (the 31-node landing page) imported first. Petal runs with bench/petal.yaml,
// otherwise the default configuration (metrics on, rate limits on, cache tags as configured by default).
// `--bin` adds the servers of another build (a checkout of another commit, built) to the same rounds.
// `--pin` (Linux, two cores or more) runs every server on the last core and this process, the client,
// on the first (`taskset`): on a 2-core machine the client and the server under test otherwise take
// turns on both cores, and how the scheduler places them moves req/s more than the server's own work.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { span } from './smoke.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = (name: string, d: number) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : d);
const seconds = opt('--seconds', 8);
const rounds = opt('--rounds', 3);
const store = args.find((a) => a.endsWith('.db')) ?? join(ROOT, 'bench/data/tours-10000.db');
const PATH = args.includes('--path') ? args[args.indexOf('--path') + 1]! : '/.rest/delivery/landing/landing';
const OTHER = args.includes('--bin') ? args[args.indexOf('--bin') + 1]! : undefined;
const ENTRIES = opt('--entries', 0);
const BIN = join(ROOT, 'bin/petal.js');
const PIN = args.includes('--pin');
const SERVER_CORE = String(availableParallelism() - 1);
if (PIN) execFileSync('taskset', ['-pc', '0', String(process.pid)], { stdio: 'ignore' });
/** Starts a server process, on the server core with `--pin`. */
function server(argv: string[], env?: NodeJS.ProcessEnv): ChildProcess {
  const [cmd, list] = PIN ? ['taskset', ['-c', SERVER_CORE, process.execPath, ...argv]] as const : [process.execPath, argv] as const;
  return spawn(cmd, list, { stdio: 'ignore', ...(env !== undefined ? { env } : {}) });
}
execFileSync(process.execPath, [join(ROOT, 'bin/petal.js'), 'import', '--store', `sqlite:${store}`, join(ROOT, 'bench/content')], { stdio: 'ignore' });

const dir = mkdtempSync(join(tmpdir(), 'petal-ceiling-'));
const base = readFileSync(join(ROOT, 'bench/petal.yaml'), 'utf8').replace('modules: [./modules]', `modules: ['${join(ROOT, 'bench/modules')}']`);
writeFileSync(join(dir, 'on.yaml'), base);
writeFileSync(join(dir, 'off.yaml'), `${base}\ncache: { maxBytes: 0 }\n`);

async function up(url: string): Promise<void> {
  for (let i = 0; i < 150; i++) {
    try { if ((await fetch(url)).ok) return; } catch { /* starting */ }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not come up`);
}

function petal(config: string, port: number, bin = BIN): ChildProcess {
  return server([bin, 'serve', '--config', config, '--store', `sqlite:${store}`,
    '--port', String(port), '--host', '127.0.0.1', '--log-level', 'warn'], { ...process.env, PETAL_LOG_FORMAT: 'json' });
}

const children: ChildProcess[] = [];

/** User and system CPU seconds of a child process so far (/proc/<pid>/stat). */
function cpuSeconds(child: ChildProcess): number {
  const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}
try {
  children.push(petal(join(dir, 'on.yaml'), 18_301), petal(join(dir, 'off.yaml'), 18_302));
  await up(`http://127.0.0.1:18301${PATH}`);
  await up(`http://127.0.0.1:18302${PATH}`);
  if (OTHER !== undefined) {
    children.push(petal(join(dir, 'on.yaml'), 18_304, OTHER), petal(join(dir, 'off.yaml'), 18_305, OTHER));
    await up(`http://127.0.0.1:18304${PATH}`);
    await up(`http://127.0.0.1:18305${PATH}`);
  }
  for (const port of [18_301, ...(OTHER !== undefined ? [18_304] : [])]) {
    const sep = PATH.includes('?') ? '&' : '?';
    for (let i = 0; i < ENTRIES; i += 50) {
      await Promise.all(Array.from({ length: Math.min(50, ENTRIES - i) }, async (_, j) => {
        const res = await fetch(`http://127.0.0.1:${port}${PATH}${sep}entry=${i + j}`);
        await res.arrayBuffer();
        if (!res.ok) throw new Error(`filling the cache: ${res.status}`);
      }));
    }
  }
  const body = Buffer.from(await (await fetch(`http://127.0.0.1:18301${PATH}`)).arrayBuffer());
  writeFileSync(join(dir, 'body.json'), body);
  writeFileSync(join(dir, 'bare.mjs'), `import http from 'node:http'; import { readFileSync } from 'node:fs';
const body = readFileSync(${JSON.stringify(join(dir, 'body.json'))});
http.createServer((req, res) => { res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length }); res.end(body); }).listen(18303, '127.0.0.1');`);
  children.push(server([join(dir, 'bare.mjs')]));
  await up(`http://127.0.0.1:18303${PATH}`);
  // Started in this order: cached, cache off, the other build's two (with --bin), bare.
  const targets: [string, number, ChildProcess][] = [['Petal, cached', 18_301, children[0]!], ['Petal, cache off', 18_302, children[1]!],
    ['bare node:http, same bytes', 18_303, children.at(-1)!]];
  if (OTHER !== undefined) {
    targets.splice(2, 0, [`Petal, cached (${OTHER})`, 18_304, children[2]!], [`Petal, cache off (${OTHER})`, 18_305, children[3]!]);
  }
  const rps = new Map<string, number[]>();
  const p99 = new Map<string, number[]>();
  // The server's CPU time per answer: steadier than req/s on a shared machine (other work takes the
  // cores, not the server's instructions per request).
  const cpu = new Map<string, number[]>();
  for (let r = 0; r < rounds; r++) {
    for (const [name, port, child] of targets) {
      await autocannon({ url: `http://127.0.0.1:${port}${PATH}`, connections: 8, ...span(r === 0 ? 2 : 1) }); // warm-up
      const cpu0 = cpuSeconds(child);
      const res = await autocannon({ url: `http://127.0.0.1:${port}${PATH}`, connections: 8, ...span(seconds) });
      if (res.non2xx > 0) throw new Error(`${name}: ${res.non2xx} non-2xx`);
      cpu.set(name, [...(cpu.get(name) ?? []), ((cpuSeconds(child) - cpu0) * 1e6) / res.requests.total]);
      rps.set(name, [...(rps.get(name) ?? []), Math.round(res.requests.average)]);
      p99.set(name, [...(p99.get(name) ?? []), res.latency.p99]);
    }
  }
  console.log(`Read node ${PATH} (${body.length} bytes) on ${store}${ENTRIES > 0 ? `, ${ENTRIES} other answers cached` : ''}${PIN ? `, servers on core ${SERVER_CORE}, client on core 0` : ''}`);
  console.log('| server | req/s per round | p99 ms per round | server CPU µs per answer, per round |');
  console.log('|---|---|---|---|');
  for (const [name] of targets) console.log(`| ${name} | ${rps.get(name)!.join(' / ')} | ${p99.get(name)!.join(' / ')} | ${cpu.get(name)!.map((c) => c.toFixed(1)).join(' / ')} |`);
  const mean = (m: Map<string, number[]>, name: string) => m.get(name)!.reduce((a, b) => a + b, 0) / rounds;
  const bareName = 'bare node:http, same bytes';
  // On a shared machine the speed of every server drifts from round to round: a round's own ratio
  // (its servers measured one after the other) cancels what drifts slower than a round.
  const median = (xs: number[]) => { const a = [...xs].sort((x, y) => x - y); const m = a.length >> 1; return a.length % 2 === 1 ? a[m]! : (a[m - 1]! + a[m]!) / 2; };
  const perRound = (m: Map<string, number[]>, name: string, inverted: boolean) =>
    median(m.get(name)!.map((v, r) => (inverted ? m.get(bareName)![r]! / v : v / m.get(bareName)![r]!)));
  for (const [name] of targets.slice(0, -1)) {
    console.log(`${name}: ${(mean(rps, name) / mean(rps, bareName)).toFixed(3)} of the bare server's req/s, ${(mean(cpu, bareName) / mean(cpu, name)).toFixed(3)} of its CPU per answer inverted (means of ${rounds} rounds; medians of the rounds' own ratios: ${perRound(rps, name, false).toFixed(3)} and ${perRound(cpu, name, true).toFixed(3)}; load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')})`);
  }
} finally {
  for (const c of children) c.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}
