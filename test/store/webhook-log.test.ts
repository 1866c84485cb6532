// Webhooks (issue 18), store side: a webhook's cursor starts at the newest change, one owner at a time
// holds its lease (until released or expired), the cursor only moves forward under the lease, and the
// delivery log keeps a delivery's first attempt across updates. Each backend, two instances on one
// PostgreSQL database claiming at once.
import { describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ContentStore } from '../../src/store/content-store.js';
import type { WebhookDelivery } from '../../src/store/webhook-log.js';
import { BACKENDS, openForSuite } from './publish-backends.js';
import { freshWorkspace } from '../conformance/drafts.js';
import { writeNodes } from '../../src/repository/writes.js';

const LEASE = 60_000;

async function change(store: ContentStore, ws: string, name: string): Promise<void> {
  await writeNodes(store, ws, [{ op: 'create', parentPath: '/', node: { name, properties: [], children: [], field: '' } }], { by: 'test' });
}

const delivery = (id: string, more: Partial<WebhookDelivery> = {}): WebhookDelivery => ({
  id, webhook: 'site', sequence: 1, event: 'changed', body: '{"id":"x"}', status: 'pending', attempts: 1,
  firstAttemptAt: '2026-01-01T00:00:00.000Z', lastAttemptAt: '2026-01-01T00:00:00.000Z', ...more,
});

for (const backend of BACKENDS) {
  // Skipped for PostgreSQL when PETAL_TEST_PG is not set (backend.skip says so); CI sets it.
  describe.skipIf(backend.skip !== false)(`webhook log (${backend.name})`, () => {
    let store: ContentStore;
    const open = openForSuite(backend, (s) => { store = s; });

    it('starts a new webhook at the newest change and lets one owner at a time hold its lease', async () => {
      const ws = freshWorkspace('hook');
      await change(store, ws, 'a');
      const latest = await store.changes.latest();
      expect(latest).toBeGreaterThan(0);
      const hooks = store.webhooks;
      expect(await hooks.claim('lease', 'A', LEASE)).toEqual({ acquired: true, sequence: latest });
      expect(await hooks.claim('lease', 'B', LEASE)).toEqual({ acquired: false, sequence: latest });
      expect(await hooks.claim('lease', 'A', LEASE)).toEqual({ acquired: true, sequence: latest });

      await change(store, ws, 'b');
      const next = await store.changes.latest();
      expect(await hooks.advance('lease', 'B', next, LEASE)).toBe(false);
      expect(await hooks.advance('lease', 'A', next, LEASE)).toBe(true);
      expect(await hooks.advance('lease', 'A', latest, LEASE)).toBe(true); // never back
      expect(await hooks.claim('lease', 'B', LEASE)).toEqual({ acquired: false, sequence: next });
      const [cursor] = (await hooks.cursors()).filter((c) => c.name === 'lease');
      expect(cursor).toMatchObject({ name: 'lease', sequence: next, leaseOwner: 'A' });

      await hooks.release('lease', 'B'); // not B's: nothing
      expect((await hooks.claim('lease', 'B', LEASE)).acquired).toBe(false);
      await hooks.release('lease', 'A');
      expect(await hooks.claim('lease', 'B', LEASE)).toEqual({ acquired: true, sequence: next });
      expect((await hooks.cursors()).find((c) => c.name === 'lease')?.leaseOwner).toBe('B');
    });

    it('hands an expired lease to another owner; the old one can no longer move the cursor', async () => {
      const hooks = store.webhooks;
      expect((await hooks.claim('expiring', 'A', 1)).acquired).toBe(true);
      await sleep(30);
      expect((await hooks.claim('expiring', 'B', LEASE)).acquired).toBe(true);
      expect(await hooks.advance('expiring', 'A', 1e9, LEASE)).toBe(false);
    });

    it('claims from two instances at once: exactly one wins', async () => {
      const other = await open().another();
      const claims = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? store : other).webhooks.claim('race', `owner-${i}`, LEASE)));
      expect(claims.filter((c) => c.acquired)).toHaveLength(1);
    });

    it('logs deliveries: updates keep the first attempt; lists newest first, by status and webhook', async () => {
      const hooks = store.webhooks;
      await hooks.saveDelivery(delivery('site-1', { lastError: 'HTTP 500', nextAttemptAt: '2026-01-01T00:00:01.000Z' }));
      await hooks.saveDelivery(delivery('site-1', {
        attempts: 2, status: 'delivered', firstAttemptAt: '2030-01-01T00:00:00.000Z', lastAttemptAt: '2026-01-01T00:00:01.000Z', deliveredAt: '2026-01-01T00:00:01.000Z',
      }));
      await hooks.saveDelivery(delivery('site-2', { sequence: 2, status: 'failed', lastAttemptAt: '2026-01-02T00:00:00.000Z', lastError: 'no answer' }));
      await hooks.saveDelivery(delivery('other-2', { webhook: 'other', sequence: 2, lastAttemptAt: '2026-01-03T00:00:00.000Z' }));
      const first = await hooks.delivery('site-1');
      expect(first).toEqual(delivery('site-1', {
        attempts: 2, status: 'delivered', lastAttemptAt: '2026-01-01T00:00:01.000Z', deliveredAt: '2026-01-01T00:00:01.000Z',
      }));
      expect(await hooks.delivery('nope')).toBeUndefined();
      expect((await hooks.deliveries({ limit: 10 })).map((d) => d.id)).toEqual(['other-2', 'site-2', 'site-1']);
      expect((await hooks.deliveries({ limit: 2 })).map((d) => d.id)).toEqual(['other-2', 'site-2']);
      expect((await hooks.deliveries({ limit: 10, status: 'failed' })).map((d) => d.id)).toEqual(['site-2']);
      expect((await hooks.deliveries({ limit: 10, webhook: 'site' })).map((d) => d.id)).toEqual(['site-2', 'site-1']);
    });
  });
}
