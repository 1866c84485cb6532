// Micro-benchmark of Query nodes without HTTP (the query index path, parse → query → render), for
// profiling: node --import tsx [--cpu-prof] bench/query.ts STORE.db [seconds] [query string] [workspace] [index|sql]
// (`sql` runs it through the SQL path, the one a SQLite store with `queryIndexThreshold` above the
// workspace's size takes).
import { SqliteStore } from '../src/store/sqlite/store.js';
import { Repository } from '../src/repository/session.js';
import { NodeTypeRegistry } from '../src/repository/node-types.js';
import { compileEndpoint } from '../src/delivery/compile-endpoint.js';
import { parseEndpointDefinition } from '../src/delivery/endpoint-definition.js';
import { outputNameFor } from '../src/model/names.js';
import { queryNodes } from '../src/delivery/deliver.js';

const [file, secs = '5', qs = 'category=c07&price[gt]=900&orderBy=price desc', workspace = 'tours', path = 'index'] = process.argv.slice(2);
const store = new SqliteStore({ file: file!, queryIndexThreshold: path === 'sql' ? Infinity : 0 });
await store.open();
const types = new NodeTypeRegistry();
const parsed = parseEndpointDefinition(
  { $type: 'jcrDeliveryEndpoint_v2', workspace, nodeTypes: ['cms:content'], limit: 10 },
  { source: 'bench', moduleName: 'bench', relativeFile: 'delivery/tours.yaml' } as never,
);
if (!parsed.ok) throw new Error(parsed.reason);
const endpoint = compileEndpoint(parsed.definition, types);
const query: Record<string, string> = Object.fromEntries(new URLSearchParams(qs));
// Anonymous callers of bench/petal.yaml read `/` and `/*` of every workspace: the security layer
// answers that with no per-node rules (null), as here.
const session = new Repository(store, types).session({ rulesFor: () => null, canRead: () => true });
const env = { session, site: { name: 'fallback', locales: ['en'], defaultLocale: 'en' }, outName: outputNameFor('cms') };
const first = performance.now();
const r = await queryNodes({ endpoint, path: '/', query }, env);
console.log(`first query ${(performance.now() - first).toFixed(0)} ms, ${r.body.length} bytes, ${r.body.slice(0, 40)}`);
let n = 0;
const end = Date.now() + Number(secs) * 1000;
const t = performance.now();
while (Date.now() < end) {
  await queryNodes({ endpoint, path: '/', query }, env);
  n++;
}
console.log(`${((performance.now() - t) / n * 1000).toFixed(0)} µs per query (${n} runs)`);
await store.close();
