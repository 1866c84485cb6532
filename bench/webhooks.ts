// Issue 18: the time from a write's commit (store.writeNodes resolving) to the webhook's arrival at a
// local receiver, over 1,000 changes written at about 50 a second (random gaps, so writes fall at
// every phase of the poll), with the change follower and the sender as `petal serve` runs them (the
// follower polls every 250 ms unless told). Usage:
//   node --import tsx bench/webhooks.ts [sqlite | postgres://…] [changes=1000] [pollMs=250]
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { PostgresStore } from '../src/store/postgres/store.js';
import { benchStore } from './bench-store.js';
import { WebhookSender } from '../src/notify/webhook-sender.js';
import { ChangeFollower } from '../src/repository/change-follower.js';
import { webhookTargets } from '../src/notify/post-webhook.js';
import type { WebhookPayload } from '../src/notify/webhook-events.js';
import { writeNodes } from '../src/repository/writes.js';

const [target = 'sqlite', changesText = '1000', pollText = '250'] = process.argv.slice(2);
const changes = Number(changesText);
const pollMs = Number(pollText);


const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'h-hooks-bench-'));
  const { store, dispose } = await benchStore(target, dir, 'hooks');
  const committed = new Map<string, number>();
  const latencies: number[] = [];
  let done: () => void = () => undefined;
  const all = new Promise<void>((resolve) => { done = resolve; });
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const arrived = performance.now();
      const payload = JSON.parse(Buffer.concat(chunks).toString('utf8')) as WebhookPayload;
      const at = committed.get(payload.nodes[0]!.path);
      if (at !== undefined) latencies.push(arrived - at);
      res.writeHead(204).end();
      if (latencies.length === changes) done();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  // As petal serve does: PostgreSQL's notification of a commit wakes the process's change follower at once.
  const follower = new ChangeFollower(store, { pollMs, ...(store instanceof PostgresStore ? { wake: (poke: () => void) => store.onChange(poke) } : {}) });
  const sender = new WebhookSender(store, follower, webhookTargets([{ name: 'bench', url, secretEnv: 'S' }], { S: 'bench-secret' }), {
    publishing: false, log: { info: () => undefined, warn: console.warn, error: console.error },
  });
  try {
    await follower.start();
    await sender.start();
    for (let i = 0; i < changes; i++) {
      const path = `/n${i}`;
      await writeNodes(store, 'website', [{ op: 'create', parentPath: '/', node: { name: `n${i}`, properties: [['title', 'String', `Node ${i}`]], children: [], field: '' } }], { by: 'bench' });
      committed.set(path, performance.now());
      await sleep(Math.random() * 40);
    }
    await all;
    console.log(`store ${store.capabilities.name}, poll ${pollMs} ms: commit → webhook arrival over ${latencies.length} changes: `
      + `p50 ${quantile(latencies, 0.5).toFixed(1)} ms, p99 ${quantile(latencies, 0.99).toFixed(1)} ms, max ${Math.max(...latencies).toFixed(1)} ms`);
  } finally {
    await sender.stop();
    await follower.stop();
    server.close();
    await store.close();
    await dispose();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
