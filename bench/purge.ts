// Issue 18: the time from a write's commit to the CDN purge call's arrival. One Nodes API write at a
// time (store.writeNodes, one node updated), timed from the moment the write resolved (committed) to
// the arrival of the http target's signed POST naming that node's key at a local server; the next write
// waits for the arrival plus a random 0–200 ms (two poll periods: commits fall uniformly between polls). With
// `--other`, a second store instance on the same database writes (another server: on PostgreSQL the
// commit is announced by NOTIFY, on SQLite seen by the poll). Usage:
//   node --import tsx bench/purge.ts [sqlite | postgres://…] [changes=1000] [--other] [--dist]
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { ContentStore } from '../src/store/content-store.js';
import type { NodeDraft } from '../src/repository/import-document.js';
import { importDocuments, writeNodes } from '../src/repository/writes.js';

const dist = process.argv.includes('--dist');
const other = process.argv.includes('--other');
const load = <T>(path: string): Promise<T> => import(`${dist ? '../dist' : '../src'}/${path}`) as Promise<T>;
const { Purger } = await load<typeof import('../src/notify/purger.js')>('notify/purger.js');
const { ChangeFollower, CHANGE_POLL_MS: PURGE_POLL_MS } = await load<typeof import('../src/repository/change-follower.js')>('repository/change-follower.js');
const { purgeSenders } = await load<typeof import('../src/notify/purge-targets.js')>('notify/purge-targets.js');
const { nodeKey } = await load<typeof import('../src/repository/dependencies.js')>('repository/dependencies.js');
const { PostgresStore } = await load<typeof import('../src/store/postgres/store.js')>('store/postgres/store.js');
const { SqliteStore } = await load<typeof import('../src/store/sqlite/store.js')>('store/sqlite/store.js');

const [target = 'sqlite', changesText = '1000'] = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const changes = Number(changesText);
const PAGES = 50;

const now = (): number => performance.timeOrigin + performance.now();
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Opens the database twice when `--other` (the purger's instance and the writer's). */
async function openStores(dir: string): Promise<{ store: ContentStore; writer: ContentStore; dispose: () => Promise<void> }> {
  if (!target.startsWith('postgres')) {
    const file = join(dir, 'bench.db');
    const store = new SqliteStore({ file });
    await store.open();
    const writer = other ? new SqliteStore({ file }) : store;
    await writer.open();
    return { store, writer, dispose: async () => { if (writer !== store) await writer.close(); await store.close(); } };
  }
  const schema = `petal_bench_purge_${randomBytes(4).toString('hex')}`;
  const store = new PostgresStore({ url: target, schema });
  await store.open();
  const writer = other ? new PostgresStore({ url: target, schema }) : store;
  await writer.open();
  return {
    store, writer,
    dispose: async () => {
      if (writer !== store) await writer.close();
      await store.close();
      const c = new pg.Client({ connectionString: target });
      await c.connect();
      await c.query(`DROP SCHEMA ${schema} CASCADE`);
      await c.end();
    },
  };
}

const dir = mkdtempSync(join(tmpdir(), 'h-purge-bench-'));
const { store, writer, dispose } = await openStores(dir);
/** Key → resolve of the write waiting for its purge. */
const waiting = new Map<string, (at: number) => void>();
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const at = now();
    res.end();
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { keys: string[] };
    for (const k of body.keys) waiting.get(k)?.(at);
  });
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/purge`;

try {
  const pages: NodeDraft[] = Array.from({ length: PAGES }, (_, i) => ({ name: `p${i}`, type: 'cms:page', mixins: [], properties: [['title', 'String', `Page ${i}`]], children: [] }));
  await importDocuments(store, [{ source: 'bench', workspace: 'website', parentPath: '/', roots: [{ name: 'site', type: 'cms:page', mixins: [], properties: [], children: pages }], blobs: [] }], { onUuidCollision: 'new' });
  // As petal serve does: one change follower, woken on PostgreSQL by the commit's notification.
  const follower = new ChangeFollower(store, store instanceof PostgresStore ? { wake: (poke: () => void) => store.onChange(poke) } : {});
  await follower.start();
  const purger = new Purger(follower, purgeSenders([{ type: 'http', url, secretEnv: 'BENCH_SECRET' }], { BENCH_SECRET: 'bench' }), {
    log: { info: () => undefined, warn: (o, m) => console.warn(m), error: (o, m) => console.error(m) },
  });
  purger.start();

  const latencies: number[] = [];
  for (let i = 0; i < changes; i++) {
    const path = `/site/p${i % PAGES}`;
    const arrived = new Promise<number>((resolve) => waiting.set(nodeKey('website', path), resolve));
    await writeNodes(writer, 'website', [{ op: 'update', path, node: { name: `p${i % PAGES}`, properties: [['title', 'String', `Page ${i}`]], children: [], field: '' } }], { by: 'bench' });
    const committed = now();
    latencies.push((await arrived) - committed);
    waiting.clear();
    await sleep(Math.random() * 2 * PURGE_POLL_MS);
  }
  await purger.stop();
  await follower.stop();
  latencies.sort((a, b) => a - b);
  const q = (p: number): string => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]!.toFixed(1);
  console.log(`purge latency, ${store.capabilities.name}${other ? ', written by another instance' : ''}, poll ${PURGE_POLL_MS} ms, ${changes} changes: `
    + `p50 ${q(0.5)} ms, p90 ${q(0.9)} ms, p99 ${q(0.99)} ms, max ${latencies.at(-1)!.toFixed(1)} ms`);
} finally {
  server.close();
  await dispose();
  rmSync(dir, { recursive: true, force: true });
}
