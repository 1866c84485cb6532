// The documented verification code (examples/webhooks/verify.mjs, plain Node) accepts a real delivery
// of the sender and refuses it with a wrong secret, a changed body or a stale timestamp.
import { fileURLToPath } from 'node:url';
import { afterEach, expect, it } from 'vitest';
import { SqliteStore } from '../../src/store/sqlite/store.js';
import { WebhookSender } from '../../src/notify/webhook-sender.js';
import { ChangeFollower } from '../../src/repository/change-follower.js';
import { webhookTargets } from '../../src/notify/post-webhook.js';
import { startReceiver, until, type Receiver } from './receiver.js';
import { writeNodes } from '../../src/repository/writes.js';

type Verify = (secret: string, rawBody: string | Buffer, header: string | undefined, options?: { now?: number }) => boolean;
const EXAMPLE = fileURLToPath(new URL('../../examples/webhooks/verify.mjs', import.meta.url));

let receiver: Receiver | undefined;
let store: SqliteStore | undefined;
afterEach(async () => {
  await receiver?.close();
  await store?.close();
});

it('verifies a real delivery with the secret, and refuses a wrong secret, another body or an old timestamp', async () => {
  const { verifyPetalSignature } = (await import(EXAMPLE)) as { verifyPetalSignature: Verify };
  receiver = await startReceiver();
  store = new SqliteStore({ file: ':memory:' });
  await store.open();
  const changes = new ChangeFollower(store, { pollMs: 10 });
  await changes.start();
  const sender = new WebhookSender(store, changes, webhookTargets([{ name: 'example', url: receiver.url, secretEnv: 'S' }], { S: 'the-secret' }), {
    publishing: false, log: { info: () => undefined, warn: () => undefined, error: () => undefined }, retryMs: 10,
  });
  await sender.start();
  await writeNodes(store, 'website', [{ op: 'create', parentPath: '/', node: { name: 'home', properties: [], children: [], field: '' } }], { by: 'test' });
  await until(() => receiver!.received.length === 1, () => receiver!.received);
  await sender.stop();
  await changes.stop();
  const { body, headers } = receiver.received[0]!;
  const header = headers['petal-signature'] as string;
  expect(verifyPetalSignature('the-secret', body, header)).toBe(true);
  expect(verifyPetalSignature('the-secret', Buffer.from(body), header)).toBe(true);
  expect(verifyPetalSignature('wrong-secret', body, header)).toBe(false);
  expect(verifyPetalSignature('the-secret', body.replace('home', 'hom3'), header)).toBe(false);
  expect(verifyPetalSignature('the-secret', body, header, { now: Date.now() + 600_000 })).toBe(false);
  expect(verifyPetalSignature('the-secret', body, undefined)).toBe(false);
});
