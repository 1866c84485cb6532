// Memory of many small workspaces (issue 20): W workspaces of N generated tours each (bench/generate.ts
// tourNode), each asked the three lists of bench/run.ts's products scenarios (parse → query → render, as
// bench/query.ts), through the query index or through SQL. Prints the RSS before and after, and what the
// index keeps (its byte-bounded caches; the node tables of the loaded workspaces are not in them).
// Usage: node --import tsx bench/small-workspaces.ts STORE.db index|sql [workspaces 100] [nodes 1000]
// (fills STORE.db first when it is empty; run each path in its own process for a clean RSS).
import { randomUUID } from 'node:crypto';
import { SqliteStore } from '../src/store/sqlite/store.js';
import { Repository } from '../src/repository/session.js';
import { NodeTypeRegistry } from '../src/repository/node-types.js';
import { compileEndpoint } from '../src/delivery/compile-endpoint.js';
import { parseEndpointDefinition } from '../src/delivery/endpoint-definition.js';
import { outputNameFor } from '../src/model/names.js';
import { queryNodes } from '../src/delivery/deliver.js';
import type { NodeDraft } from '../src/repository/import-document.js';
import { tourNode } from './generate.js';
import { importDocuments } from '../src/repository/writes.js';

const [file, path = 'index', w = '100', n = '1000'] = process.argv.slice(2);
const workspaces = Array.from({ length: Number(w) }, (_, i) => `small${String(i).padStart(4, '0')}`);
const LISTS = ['price[gt]=100&orderBy=title desc&limit=10', 'q=rare37&limit=10', 'title[like]=%25river%25&orderBy=price&limit=10'];
const mb = () => Math.round(process.memoryUsage().rss / 1024 / 1024);

const store = new SqliteStore({ file: file!, queryIndexThreshold: path === 'sql' ? Infinity : 0 });
await store.open();
if ((await store.reads.countNodes()) === 0) {
  let seed = 42;
  const rand = () => ((seed = (seed * 1664525 + 1013904223) >>> 0) / 4294967296);
  for (const workspace of workspaces) {
    const children: NodeDraft[] = Array.from({ length: Number(n) }, (_, i) => ({ ...tourNode(i, rand), id: randomUUID() }));
    const folder: NodeDraft = { name: 'catalog', type: 'cms:folder', mixins: [], properties: [], children };
    await importDocuments(store, [{ source: 'bench', workspace, parentPath: '/', roots: [folder], blobs: [] }], { onUuidCollision: 'new' });
  }
  console.log(`filled ${workspaces.length} workspaces of ${n} nodes`);
}
const types = new NodeTypeRegistry();
const session = new Repository(store, types).session({ rulesFor: () => null, canRead: () => true });
const env = { session, site: { name: 'fallback', locales: ['en'], defaultLocale: 'en' }, outName: outputNameFor('cms') };
global.gc?.();
const before = mb();
const started = performance.now();
let bytes = 0;
for (const workspace of workspaces) {
  const parsed = parseEndpointDefinition(
    { $type: 'jcrDeliveryEndpoint_v2', workspace, nodeTypes: ['cms:content'], limit: 10 },
    { source: 'bench', moduleName: 'bench', relativeFile: `delivery/${workspace}.yaml` } as never,
  );
  if (!parsed.ok) throw new Error(parsed.reason);
  const endpoint = compileEndpoint(parsed.definition, types);
  for (const qs of LISTS) bytes += (await queryNodes({ endpoint, path: '/', query: Object.fromEntries(new URLSearchParams(qs)) }, env)).body.length;
}
const ms = performance.now() - started;
global.gc?.();
const q = store.caches.stats().queryIndex;
console.log(`${path}: ${workspaces.length} workspaces × ${LISTS.length} lists in ${ms.toFixed(0)} ms (${bytes} bytes of answers); ` +
  `RSS ${before} MB before, ${mb()} MB after; index loads ${q.loads}, kept ${Math.round((q.perName.bytes + q.results.bytes + q.records.bytes) / 1024 / 1024)} MB ` +
  `(columns and keys ${Math.round(q.perName.bytes / 1024 / 1024)} MB, bit sets ${Math.round(q.results.bytes / 1024 / 1024)} MB, rows ${Math.round(q.records.bytes / 1024 / 1024)} MB)`);
await store.close();
