// Load benchmark of references and renditions: the react-demos tours endpoint (tourTypes and
// destination resolved to categories, image to an asset with renditions) over the travel-spa content,
// and the time to produce first renditions. Usage: node --import tsx bench/references.ts [--seconds 8]
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { budget, span } from './smoke.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const CORPORA = process.env.PETAL_CORPORA ?? join(ROOT, '..', 'shared', 'corpora');
const seconds = Number(process.argv[process.argv.indexOf('--seconds') + 1] || 8);

const dir = mkdtempSync(join(tmpdir(), 'petal-bench-refs-'));
writeFileSync(join(dir, 'petal.yaml'), `
store: sqlite:./petal.db
modules: ['${join(CORPORA, 'react-demos/light-modules')}', '${join(CORPORA, 'travel-spa/magnolia/light-modules')}']
logLevel: warn
sites: { fallback: { locales: [en, de], defaultLocale: en, theme: travel-demo-theme } }
security:
  roles:
    anonymous:
      uriPermissions: [{ path: /dam/*, permission: get }, { path: /.imaging/*, permission: get }, { path: /.health, permission: get }]
      workspacePermissions: { dam: [{ path: /, permission: read }, { path: /*, permission: read }] }
`);
const node = process.execPath;
const cli = join(ROOT, 'bin/petal.js');
await new Promise<void>((res, rej) => {
  const p = spawn(node, [cli, 'import', '--config', join(dir, 'petal.yaml'), join(CORPORA, 'travel-spa/magnolia/_dev')], { stdio: 'ignore' });
  p.on('exit', (code) => (code === 0 ? res() : rej(new Error(`import failed: ${code}`))));
});
const port = 18_200;
const server = spawn(node, [cli, 'serve', '--config', join(dir, 'petal.yaml'), '--port', String(port), '--host', '127.0.0.1'],
  { stdio: 'ignore', env: { ...process.env, PETAL_LOG_FORMAT: 'json' } });
try {
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    try { if ((await fetch(`${base}/.health`)).ok) break; } catch { /* starting */ }
    await new Promise((r) => setTimeout(r, 200));
  }
  const list = `${base}/.rest/delivery/demoTours/v1?limit=10`;
  const body = await (await fetch(list)).json() as { results: { image: { renditions: Record<string, { link: string }> } }[] };
  await autocannon({ url: list, connections: 8, ...span(2) });
  const r = await autocannon({ url: list, connections: 8, ...span(seconds) });
  if (r.non2xx > 0) throw new Error(`tour list: ${r.non2xx} non-2xx answers`);
  console.log(`| tour list, 10 tours with tourTypes, destination and image (2 renditions) resolved | ${r.requests.average.toFixed(0)} req/s | p50 ${r.latency.p50} ms | p99 ${r.latency.p99} ms |`);

  const firsts: number[] = [];
  for (const tour of body.results.slice(0, budget(body.results.length, 2))) {
    const link = tour.image.renditions['960x720']!.link;
    const started = performance.now();
    const res = await fetch(base + link);
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`${link}: ${res.status}`);
    firsts.push(performance.now() - started);
  }
  firsts.sort((a, b) => a - b);
  console.log(`| first rendition (960x720 of a 1-2 MB JPEG, cold cache), ${firsts.length} images | median ${firsts[firsts.length >> 1]!.toFixed(0)} ms | max ${firsts.at(-1)!.toFixed(0)} ms |`);
  const cached = base + body.results[0]!.image.renditions['960x720']!.link;
  const c = await autocannon({ url: cached, connections: 8, ...span(seconds) });
  if (c.non2xx > 0) throw new Error(`cached rendition: ${c.non2xx} non-2xx answers`);
  console.log(`| cached rendition | ${c.requests.average.toFixed(0)} req/s | p50 ${c.latency.p50} ms | p99 ${c.latency.p99} ms |`);
} finally {
  server.kill('SIGTERM');
  rmSync(dir, { recursive: true, force: true });
}
