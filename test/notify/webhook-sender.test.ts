// Webhooks (issue 18): the sender against each real store and a local receiver. At least once and in
// order per webhook: a receiver failing 3 times gets that event again after each failure, then every
// later event once; a change committed while no sender runs (or while one was stopped in a backoff) is
// delivered after a restart; a sender at the change follower's cursor sends its batches without reading
// them again; two senders on one database send each event once; a delivery failing
// for the whole retry window is marked failed and the later events go on; signed, filtered; publish
// and unpublish with publishing on.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ContentStore } from '../../src/store/content-store.js';
import type { WebhookConfig } from '../../src/config/notify-config.js';
import { WebhookSender, type WebhookSenderOptions, type SenderLog } from '../../src/notify/webhook-sender.js';
import { ChangeFollower, type ChangeFollowerOptions } from '../../src/repository/change-follower.js';
import { webhookTargets } from '../../src/notify/post-webhook.js';
import { verifySignature } from '../../src/notify/signature.js';
import { BACKENDS, type OpenBackend } from '../store/publish-backends.js';
import { request, seedSite } from '../store/publish-site.js';
import { freshWorkspace } from '../conformance/drafts.js';
import { startReceiver, until, type Receiver } from './receiver.js';
import { publishState, unpublishState, writeNodes } from '../../src/repository/writes.js';

const SECRET = 'shh-its-a-secret';
const env = { HOOK_SECRET: SECRET };
let hooks = 0;

const quietLog = (): SenderLog & { warnings: string[] } => {
  const warnings: string[] = [];
  return { warnings, info: () => undefined, warn: (_o, msg) => { warnings.push(msg ?? ''); }, error: () => undefined };
};

async function create(store: ContentStore, ws: string, path: string): Promise<void> {
  const at = path.lastIndexOf('/');
  const name = path.slice(at + 1);
  await writeNodes(store, ws, [{ op: 'create', parentPath: at === 0 ? '/' : path.slice(0, at), node: { name, properties: [], children: [], field: '' } }], { by: 'test' });
}

for (const backend of BACKENDS) {
  // Skipped for PostgreSQL when PETAL_TEST_PG is not set (backend.skip says so); CI sets it.
  describe.skipIf(backend.skip !== false)(`webhook sender (${backend.name})`, () => {
    let open: OpenBackend | undefined;
    let store: ContentStore;
    let receiver: Receiver;
    const senders: WebhookSender[] = [];
    const followers: ChangeFollower[] = [];
    beforeAll(async () => {
      open = await backend.open();
      store = open.store;
    });
    afterAll(async () => { await open?.close(); });
    afterEach(async () => {
      for (const s of senders.splice(0)) await s.stop();
      for (const f of followers.splice(0)) await f.stop();
      await receiver?.close();
    });

    /** A sender of one webhook on `on` (a process: its own change follower, polling fast), with short backoffs. */
    async function sender(config: WebhookConfig, more: Partial<WebhookSenderOptions> = {}, on: ContentStore = store, changes: ChangeFollowerOptions = {}): Promise<WebhookSender> {
      const follower = new ChangeFollower(on, { pollMs: 10, ...changes });
      followers.push(follower);
      await follower.start();
      const s = new WebhookSender(on, follower, webhookTargets([config], env), { publishing: false, log: quietLog(), retryMs: 10, backoff: { initialMs: 20, maxMs: 40 }, ...more });
      senders.push(s);
      await s.start();
      return s;
    }
    const hook = (ws: string, more: Partial<WebhookConfig> = {}): WebhookConfig =>
      ({ name: `hook${++hooks}`, url: receiver.url, secretEnv: 'HOOK_SECRET', workspaces: [ws], ...more });
    const paths = () => receiver.received.map((r) => r.payload.nodes.map((n) => n.path).join(','));

    it('sends an event again after each of 3 failures, then every later event once, in order', async () => {
      receiver = await startReceiver((_r, before) => (before < 3 ? 500 : 204));
      const ws = freshWorkspace('retry');
      const config = hook(ws);
      await sender(config);
      for (const p of ['/a', '/b', '/c']) await create(store, ws, p);
      await until(() => receiver.received.length >= 6, paths);
      expect(paths()).toEqual(['/a', '/a', '/a', '/a', '/b', '/c']);
      const ids = receiver.received.map((r) => r.payload.id);
      expect(new Set(ids.slice(0, 4)).size).toBe(1);
      const sequences = receiver.received.slice(3).map((r) => r.payload.sequence);
      expect(sequences).toEqual([...sequences].sort((x, y) => x - y));
      const first = await store.webhooks.delivery(ids[0]!);
      expect(first).toMatchObject({ status: 'delivered', attempts: 4, event: 'changed', webhook: config.name });
      await senders[0]!.stop();
      expect(receiver.received).toHaveLength(6);
    });

    it('is woken by a commit\'s notification instead of waiting for its next poll', async () => {
      receiver = await startReceiver(() => 204);
      const ws = freshWorkspace('wake');
      let poke: (() => void) | undefined;
      // A poll an hour away: only the wake can deliver in time.
      await sender(hook(ws), {}, store, { pollMs: 3_600_000, wake: (p) => { poke = p; return () => { poke = undefined; }; } });
      await new Promise((r) => setTimeout(r, 500)); // the start's own poll is over (no sign of it; room for a loaded machine)
      await create(store, ws, '/woken');
      expect(receiver.received).toHaveLength(0);
      poke!();
      await until(() => receiver.received.length === 1, paths);
      expect(paths()).toEqual(['/woken']);
    });

    it('rides the change follower: a webhook at its cursor sends the events it hands out without reading them again', async () => {
      receiver = await startReceiver(() => 204);
      const ws = freshWorkspace('ride');
      let reads = 0;
      const changes = { since: (s: number, l: number) => { reads++; return store.changes.since(s, l); }, latest: () => store.changes.latest() };
      const counting = new Proxy(store, {
        get(target, prop, receiver) {
          if (prop === 'changes') return changes;
          const v = Reflect.get(target, prop, receiver) as unknown;
          return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
        },
      });
      // The follower reads the real store; the sender's own reads are counted.
      const follower = new ChangeFollower(store, { pollMs: 10 });
      followers.push(follower);
      await follower.start();
      const s = new WebhookSender(counting, follower, webhookTargets([hook(ws)], env), { publishing: false, log: quietLog(), retryMs: 10 });
      senders.push(s);
      await s.start();
      for (const p of ['/a', '/b', '/c']) await create(store, ws, p);
      await until(() => receiver.received.length >= 3, paths);
      expect(paths()).toEqual(['/a', '/b', '/c']);
      expect(reads).toBe(0);
    });

    it('delivers after a restart what was committed while no sender ran, and resumes a backoff', async () => {
      receiver = await startReceiver(() => 500);
      const ws = freshWorkspace('restart');
      const config = hook(ws);
      await (await sender(config)).stop(); // the webhook's cursor exists; then the process "dies"
      await create(store, ws, '/first');
      const second = await sender(config, { backoff: { initialMs: 60_000 } });
      await until(() => receiver.received.length >= 1, paths);
      await second.stop(); // killed in the middle of a one-minute backoff
      const [pending] = await store.webhooks.deliveries({ webhook: config.name, limit: 5 });
      expect(pending).toMatchObject({ status: 'pending', attempts: 1, lastError: 'HTTP 500' });
      await create(store, ws, '/second');
      receiver.answer = () => 204;
      // A new process keeps the stored schedule: with a short clock jump it is due at once.
      await sender(config, { now: () => Date.now() + 61_000 });
      await until(() => receiver.received.length >= 3, paths);
      expect(paths()).toEqual(['/first', '/first', '/second']);
      expect(await store.webhooks.delivery(pending!.id)).toMatchObject({ status: 'delivered', attempts: 2 });
    });

    it('takes over from a process killed while holding the lease, once the lease runs out', async () => {
      receiver = await startReceiver();
      const ws = freshWorkspace('killed');
      const config = hook(ws);
      await (await sender(config)).stop();
      // What a process killed mid-delivery leaves: its lease, which nobody will release.
      expect((await store.webhooks.claim(config.name, 'killed-process', 300)).acquired).toBe(true);
      await create(store, ws, '/after');
      await sender(config, { leaseMs: 300 });
      await until(() => receiver.received.length >= 1, paths);
      expect(paths()).toEqual(['/after']);
    });

    it('two senders on one database send each event once, in order', async () => {
      receiver = await startReceiver();
      const ws = freshWorkspace('two');
      const config = hook(ws);
      const other = await open!.another();
      await sender(config);
      await sender(config, {}, other);
      const expected: string[] = [];
      for (let i = 0; i < 12; i++) {
        await create(i % 2 === 0 ? store : other, ws, `/n${i}`);
        expected.push(`/n${i}`);
      }
      await until(() => receiver.received.length >= 12, paths);
      for (const s of senders.splice(0)) await s.stop();
      expect(paths()).toEqual(expected);
    });

    it('marks a delivery failed after the retry window and sends the later events', async () => {
      receiver = await startReceiver((r) => (r.payload.nodes.some((n) => n.path === '/bad') ? 503 : 204));
      const ws = freshWorkspace('giveup');
      const config = hook(ws);
      const log = quietLog();
      await sender(config, { log, backoff: { initialMs: 10, maxMs: 20, giveUpMs: 80 } });
      await create(store, ws, '/bad');
      await create(store, ws, '/good');
      await until(() => paths().includes('/good'), paths);
      const bad = receiver.received[0]!.payload.id;
      expect(paths().filter((p) => p === '/bad').length).toBeGreaterThanOrEqual(2);
      expect(paths().at(-1)).toBe('/good');
      expect(await store.webhooks.delivery(bad)).toMatchObject({ status: 'failed', lastError: 'HTTP 503' });
      expect((await store.webhooks.deliveries({ status: 'failed', webhook: config.name, limit: 5 })).map((d) => d.id)).toEqual([bad]);
      expect(log.warnings.join('\n')).toContain(`petal webhooks retry ${bad}`);
    });

    it('signs each delivery and sends only what the filters let through; history before it is not sent', async () => {
      receiver = await startReceiver();
      const ws = freshWorkspace('filters');
      await create(store, ws, '/keep');
      await create(store, ws, '/keep/early');
      const config = hook(ws, { paths: ['/keep/*'] });
      await sender(config);
      for (const p of ['/keep/a', '/drop', '/keep/b']) await create(store, ws, p);
      await until(() => receiver.received.length >= 2, paths);
      await senders[0]!.stop();
      expect(paths()).toEqual(['/keep/a', '/keep/b']);
      for (const r of receiver.received) {
        expect(verifySignature(SECRET, r.body, r.headers['petal-signature'] as string)).toBe(true);
        expect(verifySignature('wrong', r.body, r.headers['petal-signature'] as string)).toBe(false);
        expect(r.headers['content-type']).toBe('application/json');
        expect(r.headers['petal-delivery']).toBe(r.payload.id);
        expect(r.payload).toMatchObject({ id: `${config.name}-${r.payload.sequence}`, event: 'changed', workspace: ws, at: expect.any(String) });
        expect(r.payload.tags.length).toBeGreaterThan(0);
      }
    });

    it('with publishing on, tells published and unpublished of the logical workspace, not the working marks', async () => {
      receiver = await startReceiver();
      const { ws } = await seedSite(store, 'pub');
      await sender(hook(ws), { publishing: true });
      await publishState(store, request(ws, '/home'));
      await unpublishState(store, request(ws, '/home'));
      await until(() => receiver.received.length >= 2, paths);
      await senders[0]!.stop();
      expect(receiver.received.map((r) => [r.payload.event, r.payload.workspace])).toEqual([['published', ws], ['unpublished', ws]]);
      expect(receiver.received[0]!.payload.nodes.map((n) => n.path)).toContain('/home');
    });
  });
}
