// Micro-benchmark of the uncached Read node work without HTTP: subtree read (store, then the
// repository's subtree cache) and JSON rendering of one page. Usage:
//   node --import tsx bench/render.ts STORE.db /landing [iterations]
import { SqliteStore } from '../src/store/sqlite/store.js';
import { Repository } from '../src/repository/session.js';
import { NodeTypeRegistry } from '../src/repository/node-types.js';
import { indexChildren, renderNode } from '../src/delivery/render-node.js';
import { compileEndpoint } from '../src/delivery/compile-endpoint.js';
import { parseEndpointDefinition } from '../src/delivery/endpoint-definition.js';
import { outputNameFor } from '../src/model/names.js';
import { resolveLocale } from '../src/delivery/resolve-locale.js';

const [file, path = '/landing', n = '20000'] = process.argv.slice(2);
const iterations = Number(n);
const store = new SqliteStore({ file: file! });
await store.open();
const types = new NodeTypeRegistry();
const parsed = parseEndpointDefinition(
  { $type: 'jcrDeliveryEndpoint_v2', workspace: 'website', depth: 2, nodeTypes: ['cms:page'], childNodeTypes: ['cms:area', 'cms:component'], systemProperties: ['cms:template'] },
  { source: 'bench', moduleName: 'bench', relativeFile: 'delivery/landing.yaml' } as never,
);
if (!parsed.ok) throw new Error(parsed.reason);
const endpoint = compileEndpoint(parsed.definition, types);
const locale = resolveLocale(undefined, undefined, { name: 'fallback', locales: ['en'], defaultLocale: 'en' });
const options = { depth: 2, childType: endpoint.childType, visible: endpoint.visibility, locale, outName: outputNameFor('cms'), refs: null };

async function time(name: string, f: () => Promise<unknown> | unknown): Promise<void> {
  for (let i = 0; i < 2000; i++) await f();
  const t = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) await f();
  console.log(`${name}: ${(Number(process.hrtime.bigint() - t) / iterations / 1000).toFixed(1)} µs`);
}

const rows = await store.reads.getSubtree('website', path, 2);
console.log(`${rows.length} rows, ${renderNode(rows[0]!, indexChildren(rows), options).length} bytes`);
await time('store.getSubtree', () => store.reads.getSubtree('website', path, 2));
const session = new Repository(store, types).systemSession();
await time('session.getSubtree (subtree cache)', () => session.getSubtree('website', path, 2));
// The same read with thousands of other entries cached, as a site's pages fill the cache: an LRU that
// moved the hot entry on every read paid for all of them (cache/byte-lru.ts).
const others = (await store.reads.getSubtree('tours', '/', 3)).slice(1, 3001);
for (const r of others) await session.getSubtree('tours', r.path, 1);
await time(`session.getSubtree, ${others.length} other entries cached`, () => session.getSubtree('website', path, 2));
await time('indexChildren + renderNode', () => renderNode(rows[0]!, indexChildren(rows), options));
await store.close(); // first store

// The whole uncached answer below HTTP: Read node (session, subtree cache, render), bytes and ETag.
{
  const { readNode } = await import('../src/delivery/deliver.js');
  const { etagOf } = await import('../src/http/etag.js');
  const store2 = new SqliteStore({ file: file! });
  await store2.open();
  const session2 = new Repository(store2, types).systemSession();
  const env = { session: session2, site: { name: 'fallback', locales: ['en'], defaultLocale: 'en' }, outName: outputNameFor('cms') };
  await time('readNode', () => readNode({ endpoint, path, query: {} }, env));
  await time('readNode + Buffer.from + etag', async () => {
    const r = await readNode({ endpoint, path, query: {} }, env);
    const b = Buffer.from(r.body, 'utf8');
    return etagOf(b);
  });
  await store2.close();
}

// Where the bytes-and-ETag time goes (experiment)
{
  const { readNode } = await import('../src/delivery/deliver.js');
  const { hash } = await import('node:crypto');
  const store3 = new SqliteStore({ file: file! });
  await store3.open();
  const session3 = new Repository(store3, types).systemSession();
  const env = { session: session3, site: { name: 'fallback', locales: ['en'], defaultLocale: 'en' }, outName: outputNameFor('cms') };
  await time('readNode + Buffer.from', async () => Buffer.from((await readNode({ endpoint, path, query: {} }, env)).body, 'utf8'));
  await time('readNode + flatten (charCodeAt)', async () => (await readNode({ endpoint, path, query: {} }, env)).body.charCodeAt(5000));
  const flat = Buffer.from((await readNode({ endpoint, path, query: {} }, env)).body);
  await time('sha1 of the bytes', () => hash('sha1', flat, 'base64url'));
  await time('sha256 of the bytes', () => hash('sha256', flat, 'base64url'));
  await store3.close();
}
