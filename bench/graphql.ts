// Load benchmark of the GraphQL API (issue 32): N books (folders of 100, each with one or two authors
// and a cover asset) of the bookcase content types, served by `petal serve` twice: with the response
// cache (a GET query, cached) and without it (POST queries, and the delivery API's Query nodes over the
// same books for comparison: the same page, order and reference resolution).
// Usage: node --import tsx bench/graphql.ts [--books 1000] [--seconds 5]   (runs bin/petal.js: `npm run build` first)
// PETAL_BENCH_CPU_PROF=DIR writes a CPU profile of each server there (node --cpu-prof) when it stops.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { budget, span } from './smoke.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = join(ROOT, 'bin/petal.js');
const arg = (name: string, fallback: number) => (process.argv.includes(name) ? Number(process.argv[process.argv.indexOf(name) + 1]) : fallback);
const books = budget(arg('--books', 1000), 200);
const seconds = arg('--seconds', 5);
const authors = Math.max(10, Math.floor(books / 10));

const dir = mkdtempSync(join(tmpdir(), 'petal-bench-graphql-'));
const module = join(dir, 'modules', 'bookcase');
mkdirSync(join(module, 'contentTypes'), { recursive: true });
mkdirSync(join(module, 'restEndpoints', 'delivery'), { recursive: true });
mkdirSync(join(dir, 'content'), { recursive: true });
writeFileSync(join(module, 'contentTypes', 'book.yaml'), `datasource: { workspace: books }
model:
  nodeType: lib:book
  properties:
    title: {}
    price: { type: Double }
    pages: { type: Long }
    available: { type: Boolean }
    authors: { type: 'reference:author', multiple: true }
    cover: { type: asset }
`);
writeFileSync(join(module, 'contentTypes', 'author.yaml'), 'datasource: { workspace: authors }\nmodel:\n  nodeType: lib:author\n  properties:\n    name: {}\n');
writeFileSync(join(module, 'restEndpoints', 'delivery', 'books.yaml'), `$type: jcrDeliveryEndpoint_v2
workspace: books
nodeTypes: [lib:book]
limit: 20
references:
  - name: authors
    propertyName: authors
    referenceResolver: { $type: jcrReferenceResolver, targetWorkspace: authors }
`);
const uuid = (kind: number, i: number) => `${kind.toString(16).padStart(8, '0')}-0000-4000-8000-${i.toString(16).padStart(12, '0')}`;
const authorLines = ["'people':", "  'jcr:primaryType': 'mgnl:folder'"];
for (let a = 0; a < authors; a++) {
  authorLines.push(`  'a${a}':`, "    'jcr:primaryType': 'lib:author'", `    'jcr:uuid': '${uuid(1, a)}'`, `    'name': 'Author ${a}'`);
}
writeFileSync(join(dir, 'content', 'authors.people.yaml'), `${authorLines.join('\n')}\n`);
const damLines = ["'covers':", "  'jcr:primaryType': 'mgnl:folder'", "  'c0':", "    'jcr:primaryType': 'mgnl:asset'",
  `    'jcr:uuid': '${uuid(3, 0)}'`, "    'jcr:content':", "      'jcr:primaryType': 'mgnl:resource'", "      'fileName': 'c0.jpg'"];
writeFileSync(join(dir, 'content', 'dam.covers.yaml'), `${damLines.join('\n')}\n`);
const bookLines = ["'shelf':", "  'jcr:primaryType': 'mgnl:folder'"];
for (let f = 0; f < Math.ceil(books / 100); f++) {
  bookLines.push(`  'f${f}':`, "    'jcr:primaryType': 'mgnl:folder'");
  for (let b = f * 100; b < Math.min(books, (f + 1) * 100); b++) {
    const ids = [uuid(1, b % authors), ...(b % 3 === 0 ? [uuid(1, (b * 7) % authors)] : [])].map((x) => `'${x}'`).join(', ');
    bookLines.push(`    'b${b}':`, "      'jcr:primaryType': 'lib:book'", `      'jcr:uuid': '${uuid(2, b)}'`, `      'title': 'Book ${(b * 7919) % books}'`,
      `      'price': ${(b % 97) + 0.5}`, `      'pages': ${100 + (b % 400)}`, `      'available': ${b % 2 === 0}`, `      'authors': [${ids}]`,
      `      'cover': 'jcr:${uuid(3, 0)}'`);
  }
}
writeFileSync(join(dir, 'content', 'books.shelf.yaml'), `${bookLines.join('\n')}\n`);

const config = (cache: boolean) => `store: sqlite:${join(dir, 'petal.db')}
modules: ['${join(dir, 'modules')}']
logLevel: warn
rateLimit: { enabled: false }
${cache ? '' : 'cache: { maxBytes: 0 }\n'}security:
  roles:
    anonymous:
      uriPermissions: [{ path: /.health, permission: get }]
      workspacePermissions: { '*': [{ path: /, permission: read }, { path: /*, permission: read }] }
`;
writeFileSync(join(dir, 'on.yaml'), config(true));
writeFileSync(join(dir, 'off.yaml'), config(false));

function run(args: readonly string[]): Promise<void> {
  return new Promise((res, rej) => {
    const p = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'ignore', 'inherit'] });
    p.on('exit', (code) => (code === 0 ? res() : rej(new Error(`petal ${args[0]} failed: ${code}`))));
  });
}

async function serve(configFile: string, port: number): Promise<ChildProcess> {
  const prof = process.env.PETAL_BENCH_CPU_PROF;
  const child = spawn(process.execPath, [...(prof !== undefined ? ['--cpu-prof', '--cpu-prof-dir', prof] : []), CLI, 'serve', '--config', configFile, '--port', String(port), '--host', '127.0.0.1'], { stdio: ['ignore', 'ignore', 'inherit'] });
  for (let i = 0; i < 150; i++) {
    try { if ((await fetch(`http://127.0.0.1:${port}/.health`)).ok) return child; } catch { /* starting */ }
    await new Promise((r) => setTimeout(r, 200));
  }
  child.kill('SIGKILL');
  throw new Error('petal serve did not start');
}

const LIST = '{ books(limit: 20, sort: PRICE_ASC, filter: "@available = true") { title price pages authors { name } } }';
const SINGLE = `{ book(id: "${uuid(2, 7)}") { title price authors { name } cover { link } } }`;

async function measure(name: string, o: autocannon.Options): Promise<void> {
  await autocannon({ ...o, connections: 8, ...span(1) });
  const r = await autocannon({ ...o, connections: 8, ...span(seconds) });
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${name}: ${r.non2xx} non-2xx answers, ${r.errors} errors`);
  console.log(`| ${name} | ${r.requests.average.toFixed(0)} req/s | p50 ${r.latency.p50} ms | p99 ${r.latency.p99} ms |`);
}

const post = (url: string, query: string): autocannon.Options => ({ url, method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) });
const servers: ChildProcess[] = [];
try {
  await run(['import', '--config', join(dir, 'on.yaml'), join(dir, 'content')]);
  const on = 18_310;
  const off = 18_311;
  servers.push(await serve(join(dir, 'on.yaml'), on), await serve(join(dir, 'off.yaml'), off));
  const check = await (await fetch(`http://127.0.0.1:${off}/.graphql`, post('', LIST) as RequestInit)).json() as { data?: { books: unknown[] }; errors?: unknown };
  if (check.data === undefined || check.data.books.length !== 20) throw new Error(`unexpected answer: ${JSON.stringify(check).slice(0, 300)}`);
  console.log(`${books} books, ${authors} authors (load average ${(await import('node:os')).loadavg().map((x) => x.toFixed(2)).join(' ')})`);
  console.log('| scenario | throughput | median | p99 |\n|---|---|---|---|');
  await measure('GraphQL GET, cached: 20 books, filter + sort + authors', { url: `http://127.0.0.1:${on}/.graphql?query=${encodeURIComponent(LIST)}` });
  await measure('GraphQL POST (uncached): 20 books, filter + sort + authors', post(`http://127.0.0.1:${off}/.graphql`, LIST));
  await measure('delivery Query nodes (cache off): 20 books, available=true, orderBy price, authors resolved',
    { url: `http://127.0.0.1:${off}/.rest/delivery/books?available=true&orderBy=price&limit=20` });
  await measure('GraphQL POST (uncached): one book by id, authors and cover', post(`http://127.0.0.1:${off}/.graphql`, SINGLE));
} finally {
  for (const s of servers) s.kill('SIGTERM');
  // A profile is written as the server exits.
  await Promise.all(servers.map((s) => (s.exitCode === null ? new Promise((r) => s.once('exit', r)) : undefined)));
  rmSync(dir, { recursive: true, force: true });
}
