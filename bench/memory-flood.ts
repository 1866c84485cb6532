// Memory under floods of misses (issue 28, point 6): the RSS of a `petal serve` child over the demo
// content (SQLite) when idle, after 30,000 and 90,000 random 6,000-character 404 paths, after 90,000
// random orderBy/filter queries, and after 90,000 random 1,000-character 404 paths (short enough to be
// cached), each read after full collections in the child. Budgets are the defaults unless given
// (bytes). Usage:
//   npx tsc -p tsconfig.build.json && node --import tsx bench/memory-flood.ts [--response N] [--subtree N] [--acl N] [--query-index N] [--scale F] [--bin PATH]
// `--scale 0.1` sends a tenth of each flood (a quick look); `--bin other/bin/petal.js` runs another
// build (a copy of the repository at another commit, built).
import { parseArgs } from 'node:util';
import { loadavg } from 'node:os';
import { flood, metricValue, random404Path, randomQueryPath, startFloodServer, type FloodServer } from '../test/helpers/memory-flood.js';

const MiB = 1024 * 1024;
const { values } = parseArgs({
  options: {
    response: { type: 'string', default: String(64 * MiB) },
    subtree: { type: 'string', default: String(64 * MiB) },
    acl: { type: 'string', default: String(16 * MiB) },
    'query-index': { type: 'string', default: String(1024 * MiB) },
    scale: { type: 'string', default: '1' },
    bin: { type: 'string' },
  },
});
const budgets = {
  responseCache: Number(values.response), subtreeCache: Number(values.subtree),
  aclCache: Number(values.acl), queryIndex: Number(values['query-index']),
};
const scale = Number(values.scale);
const mb = (n: number) => (n / MiB).toFixed(0);

async function report(server: FloodServer, label: string, idle?: number): Promise<number> {
  const u = await server.usage();
  const m = await server.metrics();
  const parts = [
    `response cache ${mb(metricValue(m, 'petal_response_cache_bytes') ?? 0)}`,
    `subtree ${mb(metricValue(m, 'petal_subtree_cache_bytes') ?? 0)}`,
    `query index results ${mb(metricValue(m, 'petal_query_index_bytes{part="results"}') ?? 0)}`,
    `columns ${mb(metricValue(m, 'petal_query_index_bytes{part="columns"}') ?? 0)}`,
  ];
  const over = idle === undefined ? '' : ` (+${mb(u.vmRss - idle)})`;
  console.log(`| ${label} | ${mb(u.vmRss)}${over} | ${mb(u.heapUsed)} / ${mb(u.heapTotal)} (${mb(u.newSpace)}) | ${mb(u.external)} | ${parts.join(', ')} | ${loadavg()[0]!.toFixed(1)} |`);
  return u.vmRss;
}

const server = await startFloodServer(budgets, { bin: values.bin ?? true });
try {
  console.log(`budgets (MiB): response ${mb(budgets.responseCache)}, subtree ${mb(budgets.subtreeCache)}, ACL ${mb(budgets.aclCache)}, query index ${mb(budgets.queryIndex)}`);
  console.log('| after | RSS MB (over idle) | heap used / total MB (young generation) | external MB | counted by the caches (MB) | load average |');
  console.log('|---|---|---|---|---|---|');
  // Warm: each kind of request, then 2,000 requests of four URLs (cache hits, nothing new kept), so
  // that idle includes the code the floods run and the young generation V8 grows under load.
  await flood(server.port, 200, (i) => (i % 2 === 0 ? random404Path('/.rest/delivery/plants/v1', 200) : randomQueryPath('/.rest/delivery/plants/v1')), 4);
  const same = [random404Path('/.rest/delivery/plants/v1', 200), random404Path('/.rest/delivery/plants/v1', 1_000),
    randomQueryPath('/.rest/delivery/plants/v1'), '/.rest/delivery/plants/v1/catalog'];
  await flood(server.port, 2_000, (i) => same[i % same.length]!);
  const idle = await report(server, 'idle (after 2,200 warm-up requests)');
  const paths = (n: number) => Math.round(n * scale);
  const statuses: string[] = [];
  const note = (what: string, s: Map<number, number>) => statuses.push(`${what}: ${[...s].map(([k, n]) => `${n}× ${k}`).join(', ')}`);
  note('404 flood', await flood(server.port, paths(30_000), () => random404Path('/.rest/delivery/plants/v1', 6_000)));
  await report(server, `${paths(30_000)} random 6,000-char 404s`, idle);
  note('404 flood', await flood(server.port, paths(60_000), () => random404Path('/.rest/delivery/plants/v1', 6_000)));
  await report(server, `${paths(90_000)} random 6,000-char 404s`, idle);
  note('query flood', await flood(server.port, paths(90_000), () => randomQueryPath('/.rest/delivery/plants/v1')));
  await report(server, `then ${paths(90_000)} random orderBy/filter queries`, idle);
  // Paths short enough to be cached as misses: what fills the response, subtree and ACL budgets.
  note('1,000-char 404 flood', await flood(server.port, paths(90_000), () => random404Path('/.rest/delivery/plants/v1', 1_000)));
  await report(server, `then ${paths(90_000)} random 1,000-char 404s`, idle);
  console.log(`\nstatuses: ${statuses.join('; ')}`);
} catch (err) {
  console.error(`failed: ${String(err)}\nthe server's last output:\n${server.output()}`);
  process.exitCode = 1;
} finally {
  await server.stop();
}
