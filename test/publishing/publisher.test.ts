// requestPublication: now when `at` is absent, due or past; a stored schedule for a future `at`, after
// checking (then, not when it runs) that the node exists and that the caller may write it.
import { describe, expect, it } from 'vitest';
import { NodeWriteError, type NodeWriteGuard } from '../../src/repository/node-write.js';
import { requestPublication, type PublishRequest } from '../../src/publishing/publisher.js';
import { FakePublishingStore } from './fake-publishing-store.js';

const NOW = new Date('2026-06-01T12:00:00.000Z');
const LATER = new Date('2026-06-02T08:30:00.000+02:00');

function request(overrides: Partial<PublishRequest> = {}): PublishRequest {
  return { action: 'publish', workspace: 'website', path: '/travel', recursive: false, by: 'alice', runAs: 'user:alice', takenAlong: () => false, ...overrides };
}

function withNode(...paths: string[]): FakePublishingStore {
  const store = new FakePublishingStore();
  for (const p of paths) store.nodes.add(p);
  return store;
}

async function refusal(p: Promise<unknown>): Promise<string> {
  const err = await p.then(() => undefined, (e: unknown) => e);
  if (!(err instanceof NodeWriteError)) throw new Error(`expected a NodeWriteError, got ${String(err)}`);
  return err.reason;
}

const guard = (g: Partial<NodeWriteGuard>): NodeWriteGuard => ({ canRead: () => true, mayWrite: () => true, mayReplaceSubtree: () => true, ...g });

describe('requestPublication', () => {
  it('publishes at once without `at`, or with one due or past, passing the request through', async () => {
    for (const at of [undefined, NOW, new Date(NOW.getTime() - 1)]) {
      const store = withNode('website:/travel');
      const g = guard({});
      const out = await requestPublication(store, request({ recursive: true, comment: 'c', guard: g, ...(at ? { at } : {}) }), NOW);
      expect(out).toEqual({ kind: 'done', action: 'publish', result: { claimed: true, nodes: 1 } });
      expect(store.calls).toHaveLength(1);
      expect(store.calls[0]!.request).toMatchObject({ workspace: 'website', path: '/travel', recursive: true, comment: 'c', by: 'alice', guard: g });
      expect(store.calls[0]!.request.schedule).toBeUndefined();
      expect(store.schedules.size).toBe(0);
    }
  });

  it('unpublishes at once', async () => {
    const store = withNode('website:/travel');
    const out = await requestPublication(store, request({ action: 'unpublish' }), NOW);
    expect(out.kind).toBe('done');
    expect(store.calls.map((c) => c.action)).toEqual(['unpublish']);
  });

  it('stores a schedule (due in UTC) for a future `at`, and writes nothing now', async () => {
    const store = withNode('website:/travel');
    const out = await requestPublication(store, request({ at: LATER, recursive: true, comment: 'spring' }), NOW);
    expect(out.kind).toBe('scheduled');
    if (out.kind !== 'scheduled') return;
    expect(out.schedule).toMatchObject({
      action: 'publish', workspace: 'website', path: '/travel', recursive: true, comment: 'spring', by: 'alice', runAs: 'user:alice',
      due: '2026-06-02T06:30:00.000Z',
    });
    expect(store.schedules.has(out.schedule.id)).toBe(true);
    expect(store.calls).toEqual([]);
  });

  it('keeps whose rights the schedule runs with; a caller\'s guard cannot make an operator\'s schedule', async () => {
    const store = withNode('website:/travel');
    const made = async (more: Partial<PublishRequest>) => {
      const out = await requestPublication(store, request({ at: LATER, ...more }), NOW);
      return out.kind === 'scheduled' ? out.schedule.runAs : undefined;
    };
    expect(await made({ guard: guard({}), runAs: 'anonymous', by: 'anonymous' })).toBe('anonymous');
    expect(await made({ runAs: 'operator', by: 'root' })).toBe('operator');
    await expect(requestPublication(store, request({ at: LATER, guard: guard({}), runAs: 'operator' }), NOW)).rejects.toThrow(/runAs/);
  });

  it('refuses to schedule for a node that is not there, or that the caller may not read (missing)', async () => {
    expect(await refusal(requestPublication(withNode(), request({ at: LATER }), NOW))).toBe('missing');
    const store = withNode('website:/travel');
    expect(await refusal(requestPublication(store, request({ at: LATER, guard: guard({ canRead: () => false }) }), NOW))).toBe('missing');
    expect(store.schedules.size).toBe(0);
  });

  it('schedules an unpublish of a node left only in the published state', async () => {
    const store = withNode('website@published:/travel');
    expect((await requestPublication(store, request({ action: 'unpublish', at: LATER }), NOW)).kind).toBe('scheduled');
    expect(await refusal(requestPublication(store, request({ action: 'publish', at: LATER }), NOW))).toBe('missing');
  });

  it('refuses to schedule what the caller may not write (denied): the subtree for recursive and unpublish', async () => {
    const nodeOnly = guard({ mayReplaceSubtree: () => false });
    const store = withNode('website:/travel');
    expect((await requestPublication(store, request({ at: LATER, guard: nodeOnly }), NOW)).kind).toBe('scheduled');
    expect(await refusal(requestPublication(store, request({ at: LATER, guard: nodeOnly, recursive: true }), NOW))).toBe('denied');
    expect(await refusal(requestPublication(store, request({ at: LATER, guard: nodeOnly, action: 'unpublish' }), NOW))).toBe('denied');
    expect(await refusal(requestPublication(store, request({ at: LATER, guard: guard({ mayWrite: () => false }) }), NOW))).toBe('denied');
    expect(store.schedules.size).toBe(1);
  });

  it('refuses an invalid date', async () => {
    expect(await refusal(requestPublication(withNode('website:/travel'), request({ at: new Date('nope') }), NOW))).toBe('invalid');
  });
});
