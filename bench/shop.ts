// Load benchmark of the deprecated /shop/v1 API: GET /catalog/<id>/products over a generated catalog
// of 1,000 products (autocannon), and the add-to-cart → order flow (POST /cart, POST /cart/item ×2,
// POST /order) run by concurrent clients, each with its own cookie.
// Usage: node --import tsx bench/shop.ts [--seconds 8] [--store postgres://…]
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, copyFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { budget, span } from './smoke.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const arg = (name: string): string | undefined => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : undefined);
const seconds = Number(arg('--seconds') ?? 8);
const storeUrl = arg('--store') ?? 'sqlite:./petal.db';
const PRODUCTS = budget(1_000, 50);
const CATALOG = '5ca70000-0000-4000-8000-0000000000b1';

const dir = mkdtempSync(join(tmpdir(), 'petal-bench-shop-'));
const content = join(dir, 'content');
mkdirSync(content);
for (const f of readdirSync(join(ROOT, 'demo/content')).filter((f) => f.startsWith('shop'))) copyFileSync(join(ROOT, 'demo/content', f), join(content, f));
const uuid = (n: number) => `5ca7b000-0000-4000-8000-${String(n).padStart(12, '0')}`;
writeFileSync(join(content, 'shopCatalogs.bench.yaml'), `'bench':
  'jcr:primaryType': 'shop:catalog'
  'jcr:uuid': '${CATALOG}'
  'currencies': ['EUR']
  'shippingMethods': ['5e1a0000-0000-4000-8000-000000000001']
`);
let products = `'bench':\n  'jcr:primaryType': 'mgnl:folder'\n`;
for (let i = 1; i <= PRODUCTS; i++) {
  products += `  'p${i}':\n    'jcr:primaryType': 'shop:product'\n    'jcr:uuid': '${uuid(i)}'\n    'title': 'Product ${i}'\n    'sku': 'B-${String(i).padStart(5, '0')}'\n    'taxRate': '19'\n` +
    `    'eur':\n      'jcr:primaryType': 'shop:price'\n      'currency': 'EUR'\n      'amount': ${100 + ((i * 7919) % 9000)}\n`;
}
writeFileSync(join(content, 'shopProducts.bench.yaml'), products);
const read = '[{ path: /, permission: read }, { path: /*, permission: read }]';
writeFileSync(join(dir, 'petal.yaml'), `
store: ${storeUrl}
content: [./content]
logLevel: warn
# The bench measures serving, not the limits: every client of it sends from one address, so the
# per-address limits of shop writes, carts and orders are raised beyond what it can send.
rateLimit: { shopWrites: { max: 1000000000, windowMs: 60000 } }
shop: { rateLimit: { cartsPerMinute: 1000000000, ordersPerMinute: 1000000000 } }
security:
  roles:
    anonymous:
      workspacePermissions: { shopCatalogs: ${read}, shopCategories: ${read}, shopProducts: ${read}, shopCurrencies: ${read}, shopShippingMethods: ${read} }
`);

const port = 18_300;
const server = spawn(process.execPath, [join(ROOT, 'bin/petal.js'), 'serve', '--config', join(dir, 'petal.yaml'), '--port', String(port), '--host', '127.0.0.1'],
  { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, PETAL_LOG_FORMAT: 'json' } });
try {
  const base = `http://127.0.0.1:${port}/shop/v1`;
  for (let i = 0; i < 300; i++) {
    try { if ((await fetch(`http://127.0.0.1:${port}/.health`)).ok) break; } catch { /* starting */ }
    await new Promise((r) => setTimeout(r, 200));
  }
  console.log(`store ${storeUrl.split(':')[0]}, ${PRODUCTS} products, ${seconds} s per scenario, ${new Date().toISOString()}`);
  console.log('| scenario | req/s | p50 ms | p99 ms |');
  console.log('|---|---|---|---|');
  for (const [name, query] of [['20 products, natural order', ''], ['20 products, sort=price:desc', '&sort=price:desc']] as const) {
    const url = `${base}/catalog/${CATALOG}/products?limit=20&offset=100${query}`;
    await autocannon({ url, connections: 8, ...span(2) });
    const r = await autocannon({ url, connections: 8, ...span(seconds) });
    if (r.non2xx > 0) throw new Error(`${name}: ${r.non2xx} non-2xx answers`);
    console.log(`| GET /catalog/<id>/products, ${name} | ${r.requests.average.toFixed(0)} | ${r.latency.p50} | ${r.latency.p99} |`);
  }

  const address = { firstName: 'A', lastName: 'B', street: 'S 1', postalCode: '1000', city: 'C', country: 'DE', email: 'a@example.com' };
  const orderBody = JSON.stringify({ billingAddress: address, shippingAddress: address, shippingMethodId: '5e1a0000-0000-4000-8000-000000000001' });
  const json = { 'content-type': 'application/json' };
  const latencies: number[] = [];
  let flows = 0;
  let requests = 0;
  const until = Date.now() + seconds * 1000;
  const worker = async (w: number): Promise<void> => {
    for (let n = 0; Date.now() < until; n++) {
      const started = performance.now();
      const created = await fetch(`${base}/cart`, { method: 'POST' });
      const cookie = created.headers.getSetCookie()[0]!.split(';')[0]!;
      await created.arrayBuffer();
      for (const p of [1 + ((w * 131 + n) % PRODUCTS), 1 + ((w * 17 + n * 3) % PRODUCTS)]) {
        const r = await fetch(`${base}/cart/item`, { method: 'POST', headers: { ...json, cookie }, body: JSON.stringify({ productId: uuid(p), quantity: 1 }) });
        if (r.status !== 200) throw new Error(`add: ${r.status} ${await r.text()}`);
        await r.arrayBuffer();
      }
      const o = await fetch(`${base}/order`, { method: 'POST', headers: { ...json, cookie, 'idempotency-key': `${w}-${n}-${Date.now()}` }, body: orderBody });
      if (o.status !== 201) throw new Error(`order: ${o.status} ${await o.text()}`);
      await o.arrayBuffer();
      latencies.push(performance.now() - started);
      flows++;
      requests += 4;
    }
  };
  await Promise.all(Array.from({ length: 8 }, (_, w) => worker(w)));
  latencies.sort((a, b) => a - b);
  const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * p))]!.toFixed(0);
  console.log(`| add-to-cart → order flow (4 requests), 8 clients | ${(requests / seconds).toFixed(0)} (${(flows / seconds).toFixed(0)} orders/s) | ${q(0.5)} per flow | ${q(0.99)} per flow |`);
} finally {
  server.kill('SIGTERM');
  await new Promise((r) => server.once('exit', r));
  rmSync(dir, { recursive: true, force: true });
}
