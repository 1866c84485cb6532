// Issue 18 point 3: the purge calls in each vendor's form (local servers record them): batching by the
// vendors' limits, auth headers, the http target's signature, retries after a 500, a refused call not
// repeated, the bound on pending keys, and a missing token named at start. The store is a fake holding
// change events, so the key counts are exact.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { changeKeys, endpointKey, touchedKey, workspaceKey } from '../../src/repository/dependencies.js';
import type { ChangeEvent, ChangedNode } from '../../src/store/changes.js';
import { verifySignature } from '../../src/notify/signature.js';
import { Purger, type PurgeLog } from '../../src/notify/purger.js';
import { ChangeFollower, type FollowedStore } from '../../src/repository/change-follower.js';
import { purgeSenders } from '../../src/notify/purge-targets.js';
import type { PurgeTarget } from '../../src/config/notify-config.js';
import { allKeys, keysOf, startReceiver, type PurgeReceiver } from './purge-receiver.js';

const ENV = { H_PURGE_FASTLY: 'fastly-token', H_PURGE_CF: 'cf-token', H_PURGE_SECRET: 'hook-secret' };

class FakeStore implements FollowedStore {
  readonly events: ChangeEvent[] = [];
  readonly changes = {
    latest: async (): Promise<number> => this.events.at(-1)?.sequence ?? 0,
    since: async (sequence: number, limit: number): Promise<ChangeEvent[]> => this.events.filter((e) => e.sequence > sequence).slice(0, limit),
  };
  /** Records a change of `count` new nodes below `/` (2 + 2 × count keys: each path and id, `/`'s list, the workspace). */
  change(workspace: string, count: number, first = 0): ChangeEvent {
    const created: ChangedNode[] = Array.from({ length: count }, (_, i) => ({ id: `id-${first + i}`, path: `/p${first + i}`, type: 'mgnl:page' }));
    const event: ChangeEvent = {
      sequence: this.events.length + 1, workspace, at: new Date().toISOString(), kind: 'nodes',
      created, changed: [], moved: [], removed: [], truncated: false, count,
    };
    this.events.push(event);
    return event;
  }
}

function recorder(): PurgeLog & { errors: string[] } {
  const errors: string[] = [];
  return { errors, info: () => undefined, warn: () => undefined, error: (_o, msg) => { errors.push(msg ?? ''); } };
}

let fastly: PurgeReceiver;
let cloudflare: PurgeReceiver;
let hook: PurgeReceiver;
let purger: Purger | undefined;
const followers: ChangeFollower[] = [];

/** The process's change follower over `store`, started, polling once a minute (tests settle instead). */
async function followerOf(store: FakeStore): Promise<ChangeFollower> {
  const f = new ChangeFollower(store, { pollMs: 60_000 });
  followers.push(f);
  await f.start();
  return f;
}

beforeEach(async () => {
  [fastly, cloudflare, hook] = await Promise.all([startReceiver('{"k":"purge-id"}'), startReceiver(), startReceiver('')]);
});
afterEach(async () => {
  await purger?.stop(0);
  purger = undefined;
  for (const f of followers.splice(0)) await f.stop();
  await Promise.all([fastly.close(), cloudflare.close(), hook.close()]);
});

const targets = (): PurgeTarget[] => [
  { type: 'fastly', serviceId: 'SVC1', tokenEnv: 'H_PURGE_FASTLY', baseUrl: `${fastly.url}/` },
  { type: 'cloudflare', zoneId: 'ZONE1', tokenEnv: 'H_PURGE_CF', baseUrl: cloudflare.url },
  { type: 'http', url: `${hook.url}/revalidate`, secretEnv: 'H_PURGE_SECRET' },
];

async function started(store: FakeStore, options: { retryBaseMs?: number; pendingKeysMax?: number; log?: PurgeLog } = {}): Promise<Purger> {
  purger = new Purger(await followerOf(store), purgeSenders(targets(), ENV), { log: options.log ?? recorder(), retryBaseMs: options.retryBaseMs ?? 1, ...(options.pendingKeysMax !== undefined ? { pendingKeysMax: options.pendingKeysMax } : {}) });
  await purger.start();
  return purger;
}

describe('purge calls in the vendors\' forms', () => {
  it('sends 300 keys as 2 Fastly calls (256 a call), 3 Cloudflare calls (100 a call) and 1 http call, each with its auth', async () => {
    const store = new FakeStore();
    const p = await started(store);
    const event = store.change('website', 149);
    const expected = changeKeys(event);
    expect(expected.size).toBe(300);
    await p.settle();

    expect(fastly.calls.map((c) => keysOf(c).length)).toEqual([256, 44]);
    for (const c of fastly.calls) {
      expect(c.method).toBe('POST');
      expect(c.path).toBe('/service/SVC1/purge');
      expect(c.headers['fastly-key']).toBe('fastly-token');
    }
    expect(cloudflare.calls.map((c) => keysOf(c).length)).toEqual([100, 100, 100]);
    for (const c of cloudflare.calls) {
      expect(c.path).toBe('/zones/ZONE1/purge_cache');
      expect(c.headers.authorization).toBe('Bearer cf-token');
      expect(c.headers['content-type']).toBe('application/json');
      expect(Object.keys(JSON.parse(c.body) as object)).toEqual(['tags']);
    }
    expect(hook.calls).toHaveLength(1);
    expect(hook.calls[0]!.path).toBe('/revalidate');
    const body = JSON.parse(hook.calls[0]!.body) as { keys: string[]; sequence: number; at: string };
    expect(body.sequence).toBe(event.sequence);
    expect(body.at).toBe(event.at);
    for (const r of [fastly, cloudflare, hook]) expect(allKeys(r.calls)).toEqual(expected);
  });

  it('purges endpoint keys given outright (definitions reloaded) at every target', async () => {
    const store = new FakeStore();
    const p = await started(store);
    const keys = [endpointKey('/delivery/pages/v1'), endpointKey('/delivery/tours/v1')];
    p.purgeKeys(keys);
    await p.settle();
    for (const r of [fastly, cloudflare, hook]) expect(allKeys(r.calls)).toEqual(new Set(keys));
  });

  it('signs the http target\'s body: the signature verifies with the secret, not with another, nor over another body', async () => {
    const store = new FakeStore();
    const p = await started(store);
    store.change('website', 2);
    await p.settle();
    const call = hook.calls[0]!;
    const header = call.headers['petal-signature'] as string;
    expect(header).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(verifySignature('hook-secret', call.body, header)).toBe(true);
    expect(verifySignature('wrong-secret', call.body, header)).toBe(false);
    expect(verifySignature('hook-secret', call.body.replace('"keys"', '"keys" '), header)).toBe(false);
  });

  it('sends no signature to an http target without a secret', async () => {
    const store = new FakeStore();
    purger = new Purger(await followerOf(store), purgeSenders([{ type: 'http', url: hook.url }], {}), { log: recorder() });
    await purger.start();
    store.change('website', 1);
    await purger.settle();
    expect(hook.calls).toHaveLength(1);
    expect(hook.calls[0]!.headers['petal-signature']).toBeUndefined();
  });

  it('retries a call answered 500 (and 429) with the same keys, and purges nothing twice once it went through', async () => {
    const store = new FakeStore();
    const log = recorder();
    const p = await started(store, { log });
    fastly.fail(500, 429);
    cloudflare.fail(503);
    const expected = changeKeys(store.change('website', 3));
    await p.settle();
    expect(fastly.calls).toHaveLength(3);
    expect(cloudflare.calls).toHaveLength(2);
    for (const c of [...fastly.calls, ...cloudflare.calls]) expect(new Set(keysOf(c))).toEqual(expected);
    expect(p.stats()).toMatchObject({ failedCalls: 3, droppedKeys: 0 });
    expect(log.errors).toEqual([]);
  });

  it('gives up after four attempts and logs the keys dropped; the next change is purged as usual', async () => {
    const store = new FakeStore();
    const log = recorder();
    const p = await started(store, { log });
    fastly.fail(500, 500, 500, 500);
    store.change('website', 1);
    await p.settle();
    expect(fastly.calls).toHaveLength(4);
    expect(p.stats().droppedKeys).toBe(4);
    expect(log.errors).toEqual([expect.stringMatching(/gave up on 4 keys: .*answered 500/)]);
    const next = changeKeys(store.change('website', 1, 10));
    await p.settle();
    expect(fastly.calls).toHaveLength(5);
    expect(new Set(keysOf(fastly.calls[4]!))).toEqual(next);
  });

  it('does not repeat a call refused with 403 (a wrong token stays wrong), nor a Cloudflare 200 with success: false', async () => {
    const store = new FakeStore();
    const log = recorder();
    const p = await started(store, { log });
    fastly.fail(403);
    await cloudflare.close();
    cloudflare = await startReceiver('{"success":false,"errors":[{"code":1134}]}');
    const cf = new Purger(await followerOf(store), purgeSenders([{ type: 'cloudflare', zoneId: 'Z', tokenEnv: 'H_PURGE_CF', baseUrl: cloudflare.url }], ENV), { log, retryBaseMs: 1 });
    await cf.start();
    store.change('website', 1);
    await Promise.all([p.settle(), cf.settle()]);
    await cf.stop(0);
    expect(fastly.calls).toHaveLength(1);
    expect(cloudflare.calls).toHaveLength(1);
    expect(log.errors).toEqual(expect.arrayContaining([expect.stringMatching(/answered 403/), expect.stringMatching(/success: false/)]));
  });

  it('merges the changes of one poll into one call, and past the pending bound purges the workspace keys instead of the node keys', async () => {
    const store = new FakeStore();
    const p = await started(store, { pendingKeysMax: 50 });
    const small = changeKeys(store.change('dam', 3));
    store.change('website', 40, 0);
    store.change('website', 40, 100);
    await p.settle();
    // dam's 8 keys fit; website's 2 + 160 do not: its workspace key and "anything read" key stand for them.
    const expected = new Set([...small, workspaceKey('website'), touchedKey('website')]);
    for (const r of [fastly, cloudflare, hook]) expect(allKeys(r.calls)).toEqual(expected);
    expect(fastly.calls).toHaveLength(1);
  });

  it('names the missing environment variable at start', () => {
    expect(() => purgeSenders(targets(), { H_PURGE_FASTLY: 'x' })).toThrow(/target 2 \(cloudflare\) tokenEnv names the environment variable H_PURGE_CF, which is not set/);
    expect(() => purgeSenders(targets(), { H_PURGE_FASTLY: 'x', H_PURGE_CF: 'y' })).toThrow(/H_PURGE_SECRET/);
  });

  it('on stop, purges the changes committed before it and flushes the queue', async () => {
    const store = new FakeStore();
    const p = await started(store);
    const expected = changeKeys(store.change('website', 2));
    await p.stop();
    purger = undefined;
    for (const r of [fastly, cloudflare, hook]) expect(allKeys(r.calls)).toEqual(expected);
  });

  it('starts after the newest change: what came before is not purged', async () => {
    const store = new FakeStore();
    store.change('website', 5);
    const p = await started(store);
    await p.settle();
    expect(fastly.calls).toEqual([]);
  });
});
