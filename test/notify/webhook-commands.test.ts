// `petal webhooks list | log | retry` (issue 18) on each store: a delivery given up is listed by
// `log --failed`, `retry` sends the same body again once and records the outcome, `list` shows where
// each webhook is; through `petal` itself: the dispatch, usage errors and a missing secret.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import { runCli } from '../helpers/run-cli.js';
import type { ContentStore } from '../../src/store/content-store.js';
import type { WebhookConfig } from '../../src/config/notify-config.js';
import { webhooksCommand } from '../../src/notify/webhook-commands.js';
import { WebhookSender } from '../../src/notify/webhook-sender.js';
import { ChangeFollower } from '../../src/repository/change-follower.js';
import { webhookTargets } from '../../src/notify/post-webhook.js';
import { BACKENDS, type OpenBackend } from '../store/publish-backends.js';
import { freshWorkspace } from '../conformance/drafts.js';
import { startReceiver, until, type Receiver } from './receiver.js';
import { writeNodes } from '../../src/repository/writes.js';

const SECRET = 'cli-secret';

async function capture(run: () => Promise<number>): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => { out += String(chunk); return true; });
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => { err += String(chunk); return true; });
  try {
    return { code: await run(), out, err };
  } finally {
    vi.restoreAllMocks();
  }
}

/** The shared test store, whose close() the command's own would end. */
function unclosable(store: ContentStore): ContentStore {
  return new Proxy(store, {
    get(target, key) {
      if (key === 'close') return async () => undefined;
      const value = Reflect.get(target, key, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

afterEach(() => { delete process.env.PETAL_CLI_HOOK_SECRET; });

for (const backend of BACKENDS) {
  // Skipped for PostgreSQL when PETAL_TEST_PG is not set (backend.skip says so); CI sets it.
  describe.skipIf(backend.skip !== false)(`petal webhooks (${backend.name})`, () => {
    let open: OpenBackend | undefined;
    let receiver: Receiver;
    beforeAll(async () => {
      open = await backend.open();
      receiver = await startReceiver(() => 500);
    });
    afterAll(async () => {
      await receiver.close();
      await open?.close();
    });

    it('logs a delivery given up, retries it once with the same body, lists the webhooks', async () => {
      const store = open!.store;
      const ws = freshWorkspace('cli');
      const config: WebhookConfig = { name: `cli-${backend.name}`, url: receiver.url, secretEnv: 'PETAL_CLI_HOOK_SECRET', workspaces: [ws] };
      const changes = new ChangeFollower(store, { pollMs: 10 });
      await changes.start();
      const sender = new WebhookSender(store, changes, webhookTargets([config], { PETAL_CLI_HOOK_SECRET: SECRET }), {
        publishing: false, log: { info: () => undefined, warn: () => undefined, error: () => undefined }, retryMs: 10, backoff: { initialMs: 5, giveUpMs: 30 },
      });
      await sender.start();
      await writeNodes(store, ws, [{ op: 'create', parentPath: '/', node: { name: 'page', properties: [], children: [], field: '' } }], { by: 'cli' });
      await until(async () => (await store.webhooks.deliveries({ webhook: config.name, status: 'failed', limit: 1 })).length === 1, () => receiver.received.length);
      await sender.stop();
      await changes.stop();
      const petal = (...args: string[]) => capture(() => webhooksCommand(args, async () => ({ store: unclosable(store), url: 'test', config: { webhooks: [config] } })));

      const failed = await petal('log', '--failed', '--json');
      expect(failed.code).toBe(0);
      const [row] = JSON.parse(failed.out) as { id: string; status: string; payload: { nodes: { path: string }[] } }[];
      expect(row).toMatchObject({ status: 'failed', webhook: config.name, event: 'changed', lastError: 'HTTP 500', payload: { workspace: ws, nodes: [{ path: '/page' }] } });
      const text = await petal('log', '--webhook', config.name);
      expect(text.out).toMatch(new RegExp(`^${row!.id}\\s+failed\\s+changed\\s+\\d+\\s+\\S+\\s+HTTP 500$`, 'm'));

      // No secret in the environment: refused before anything is sent.
      const sent = receiver.received.length;
      expect(await petal('retry', row!.id)).toMatchObject({ code: 1, err: expect.stringContaining('PETAL_CLI_HOOK_SECRET') });
      expect(receiver.received).toHaveLength(sent);

      process.env.PETAL_CLI_HOOK_SECRET = SECRET;
      expect(await petal('retry', row!.id)).toMatchObject({ code: 1, out: `${row!.id} failed again: HTTP 500\n` });
      receiver.answer = () => 204;
      const before = await store.webhooks.delivery(row!.id);
      expect(await petal('retry', row!.id)).toMatchObject({ code: 0, out: `delivered ${row!.id} to ${receiver.url}\n` });
      const again = receiver.received.at(-1)!;
      expect([again.body, again.headers['petal-delivery']]).toEqual([before!.body, row!.id]);
      expect(await store.webhooks.delivery(row!.id)).toMatchObject({ status: 'delivered', attempts: before!.attempts + 1 });
      expect((await petal('log', '--failed')).out).not.toContain(row!.id);

      expect(await petal('retry', 'no-such-delivery')).toMatchObject({ code: 1, err: 'petal webhooks: no delivery "no-such-delivery"\n' });
      const listed = await petal('list');
      const latest = await store.changes.latest();
      expect(listed.out).toMatch(new RegExp(`^${config.name}\\s+${receiver.url}\\s+all\\s+${latest}/${latest}$`, 'm'));
      const json = JSON.parse((await petal('list', '--json')).out) as { webhooks: { name: string; cursor: number }[] };
      expect(json.webhooks).toEqual([expect.objectContaining({ name: config.name, cursor: latest })]);
    });
  });
}

describe('petal webhooks (dispatch)', () => {
  let dir: string;
  beforeAll(() => { dir = mkdtempSync(join(tmpdir(), 'h-hooks-cli-')); });
  afterAll(() => { rmSync(dir, { recursive: true, force: true }); });

  it('runs from petal with --config; refuses unknown subcommands and bad limits', async () => {
    writeFileSync(join(dir, 'petal.yaml'), `store: sqlite:${join(dir, 'petal.db')}\nwebhooks:\n  - name: site\n    url: http://127.0.0.1:9/hook\n    secretEnv: PETAL_CLI_HOOK_SECRET\n`);
    const petal = async (...args: string[]) => {
      const r = await runCli(['webhooks', ...args, '--config', join(dir, 'petal.yaml')]);
      return { code: r.code, out: r.stdout, err: r.stderr };
    };
    // list and log only read: no store yet is refused, and none is made (issue 29).
    expect(await petal('list')).toMatchObject({ code: 1, err: `petal: no store at ${join(dir, 'petal.db')} (run \`petal serve\` or \`petal import\` first, or pass --store)\n` });
    expect(await petal('log')).toMatchObject({ code: 1 });
    const made = new SqliteStore({ file: join(dir, 'petal.db') });
    await made.open();
    await made.close();
    expect(await petal('list')).toMatchObject({ code: 0, out: expect.stringMatching(/^site\s+http:\/\/127\.0\.0\.1:9\/hook\s+all\s+not started$/m) });
    expect(await petal('log')).toMatchObject({ code: 0, out: 'no deliveries\n' });
    expect(await petal('log', '--failed')).toMatchObject({ code: 0, out: 'no failed deliveries\n' });
    expect(await petal('resend')).toMatchObject({ code: 2, err: expect.stringContaining('unknown subcommand "resend"') });
    expect(await petal('retry')).toMatchObject({ code: 2, err: expect.stringContaining('retry takes one delivery ID') });
    expect(await petal('log', '--limit', '0')).toMatchObject({ code: 2, err: expect.stringContaining('--limit must be') });
    expect((await runCli(['help'])).stdout).toContain('petal webhooks list | log');
  });
});
