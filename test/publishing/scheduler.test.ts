// The scheduler against an in-memory store: a due schedule runs once (claimed by its id), a refused
// one is marked failed and never retried, an outage leaves it for the next poll, stop() waits for the
// run in progress. The same against the real stores (two instances, a restart): scheduler-store.test.ts.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { NodeWriteError, type NodeWriteGuard } from '../../src/repository/node-write.js';
import type { StateResult } from '../../src/repository/publishing.js';
import { PublishScheduler, SCHEDULER_BATCH, type ScheduleRights, type SchedulerLog } from '../../src/publishing/scheduler.js';
import { FakePublishingStore, newSchedule } from './fake-publishing-store.js';

const NOW = new Date('2026-06-01T12:00:00.000Z');

function recordingLog(): SchedulerLog & { lines: { level: string; msg: string }[] } {
  const lines: { level: string; msg: string }[] = [];
  const at = (level: string) => (_obj: object, msg?: string) => { lines.push({ level, msg: msg ?? '' }); };
  return { lines, info: at('info'), warn: at('warn'), error: at('error') };
}

/** The rights of today: ed's guard and the anonymous caller's; nobody else is a user (any more). */
const ED: NodeWriteGuard = { canRead: () => true, mayWrite: () => true, mayReplaceSubtree: () => false };
const ANONYMOUS: NodeWriteGuard = { canRead: () => true, mayWrite: () => false, mayReplaceSubtree: () => false };
const asked: (string | undefined)[] = [];
const RIGHTS: ScheduleRights = {
  guardFor: (user) => {
    asked.push(user);
    return user === undefined ? ANONYMOUS : user === 'ed' ? ED : undefined;
  },
};

function scheduler(store: FakePublishingStore, log = recordingLog()): PublishScheduler {
  return new PublishScheduler(store, { takenAlong: (t) => t === 'cms:area', rights: RIGHTS, log, now: () => NOW });
}

afterEach(() => {
  vi.useRealTimers();
  asked.length = 0;
});

describe('PublishScheduler.poll', () => {
  it('runs a due schedule once, claiming it by its id, with what was scheduled', async () => {
    const store = new FakePublishingStore();
    const due = await store.addSchedule(newSchedule({ recursive: true, comment: 'spring', by: 'bob' }));
    await store.addSchedule(newSchedule({ path: '/later', due: '2026-06-01T12:00:00.001Z' }));
    const s = scheduler(store);
    expect(await s.poll()).toEqual({ ran: 1, failed: 0, retried: 0 });
    expect(await s.poll()).toEqual({ ran: 0, failed: 0, retried: 0 });
    expect(store.calls).toHaveLength(1);
    const { action, request } = store.calls[0]!;
    expect(action).toBe('publish');
    expect(request).toMatchObject({ workspace: 'website', path: '/travel', recursive: true, comment: 'spring', by: 'bob', schedule: due.id });
    expect(request.takenAlong('cms:area')).toBe(true);
    expect([...store.schedules.values()].map((x) => x.path)).toEqual(['/later']);
  });

  it('unpublishes for an unpublish schedule', async () => {
    const store = new FakePublishingStore();
    await store.addSchedule(newSchedule({ action: 'unpublish' }));
    await scheduler(store).poll();
    expect(store.calls.map((c) => c.action)).toEqual(['unpublish']);
  });

  it('counts a schedule another instance claimed first as not run by this one', async () => {
    const store = new FakePublishingStore();
    const s1 = await store.addSchedule(newSchedule());
    // The other instance commits its claim between this one's read and its transaction.
    store.onState = async () => { store.schedules.delete(s1.id); return { claimed: true, nodes: 3 }; };
    const log = recordingLog();
    expect(await scheduler(store, log).poll()).toEqual({ ran: 0, failed: 0, retried: 0 });
    expect(log.lines).toEqual([]);
  });

  it('marks a refused schedule failed with the reason, logs it, and never runs it again', async () => {
    const store = new FakePublishingStore();
    const s1 = await store.addSchedule(newSchedule());
    store.onState = async () => { throw new NodeWriteError('parentNotPublished', 'parent website:/ is not published yet'); };
    const log = recordingLog();
    const s = scheduler(store, log);
    expect(await s.poll()).toEqual({ ran: 0, failed: 1, retried: 0 });
    expect(await s.poll()).toEqual({ ran: 0, failed: 0, retried: 0 });
    expect(store.calls).toHaveLength(1);
    expect(store.schedules.get(s1.id)?.error).toBe('parent website:/ is not published yet');
    expect(log.lines).toEqual([{ level: 'warn', msg: expect.stringContaining('refused: parent website:/ is not published yet') }]);
  });

  it('runs a user\'s schedule with the rights that user has now, the anonymous caller\'s with theirs, the operator\'s with none', async () => {
    const store = new FakePublishingStore();
    await store.addSchedule(newSchedule({ path: '/ed', by: 'ed', runAs: 'user:ed' }));
    await store.addSchedule(newSchedule({ path: '/anyone', by: 'anonymous', runAs: 'anonymous' }));
    await store.addSchedule(newSchedule({ path: '/root', by: 'root', runAs: 'operator' }));
    expect(await scheduler(store).poll()).toEqual({ ran: 3, failed: 0, retried: 0 });
    const guards = new Map(store.calls.map((c) => [c.request.path, c.request.guard]));
    expect([guards.get('/ed'), guards.get('/anyone'), guards.get('/root')]).toEqual([ED, ANONYMOUS, undefined]);
    expect(asked).toEqual(['ed', undefined]);
  });

  it('marks failed, never running it, the schedule of a user who is gone or disabled', async () => {
    const store = new FakePublishingStore();
    const s1 = await store.addSchedule(newSchedule({ by: 'bob', runAs: 'user:bob' }));
    const log = recordingLog();
    expect(await scheduler(store, log).poll()).toEqual({ ran: 0, failed: 1, retried: 0 });
    expect(store.calls).toEqual([]);
    expect(store.schedules.get(s1.id)?.error).toBe('its author bob is no longer a user, or is disabled');
    expect(log.lines).toEqual([{ level: 'warn', msg: expect.stringContaining('refused: its author bob is no longer a user') }]);
  });

  it('keeps of a refusal for rights only the schedule\'s own node (the list shows it to others); the log has the detail', async () => {
    const store = new FakePublishingStore();
    const s1 = await store.addSchedule(newSchedule({ path: '/shop', by: 'ed', runAs: 'user:ed' }));
    store.onState = async () => { throw new NodeWriteError('denied', 'You may not publish or unpublish website:/shop/secret'); };
    const log = recordingLog();
    expect(await scheduler(store, log).poll()).toEqual({ ran: 0, failed: 1, retried: 0 });
    expect(store.schedules.get(s1.id)?.error).toBe('ed may no longer publish website:/shop (or what it takes along) with the rights ed has now');
    expect(log.lines).toEqual([{ level: 'warn', msg: expect.stringContaining('refused: You may not publish or unpublish website:/shop/secret') }]);
  });

  it('leaves a schedule whose run failed otherwise (store down) for the next poll, unmarked', async () => {
    const store = new FakePublishingStore();
    const s1 = await store.addSchedule(newSchedule());
    store.onState = async () => { throw new Error('connection refused'); };
    const log = recordingLog();
    const s = scheduler(store, log);
    expect(await s.poll()).toEqual({ ran: 0, failed: 0, retried: 1 });
    expect(store.schedules.get(s1.id)?.error).toBeUndefined();
    expect(log.lines.map((l) => l.level)).toEqual(['error']);
    store.onState = undefined;
    expect(await s.poll()).toEqual({ ran: 1, failed: 0, retried: 0 });
    expect(store.schedules.size).toBe(0);
  });

  it('takes the next batch at once after a full one', async () => {
    const store = new FakePublishingStore();
    for (let i = 0; i < SCHEDULER_BATCH + 3; i++) await store.addSchedule(newSchedule({ path: `/p${i}` }));
    expect(await scheduler(store).poll()).toEqual({ ran: SCHEDULER_BATCH + 3, failed: 0, retried: 0 });
  });
});

describe('PublishScheduler start and stop', () => {
  it('polls at start and then every interval', async () => {
    vi.useFakeTimers();
    const store = new FakePublishingStore();
    const read = vi.spyOn(store, 'dueSchedules');
    const s = new PublishScheduler(store, { takenAlong: () => false, rights: RIGHTS, log: recordingLog(), intervalMs: 500 });
    s.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(read).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1000);
    expect(read).toHaveBeenCalledTimes(3);
    await s.stop();
    await vi.advanceTimersByTimeAsync(1000);
    expect(read).toHaveBeenCalledTimes(3);
  });

  it('stop() resolves only once the run in progress has finished, and starts no other', async () => {
    const store = new FakePublishingStore();
    await store.addSchedule(newSchedule({ path: '/a' }));
    await store.addSchedule(newSchedule({ path: '/b' }));
    let finish!: (r: StateResult) => void;
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => { entered = resolve; });
    store.onState = async (call) => {
      if (call.request.path !== '/a') return { claimed: true, nodes: 1 };
      entered();
      return new Promise<StateResult>((resolve) => { finish = resolve; });
    };
    const s = scheduler(store);
    s.start();
    await inside;
    let stopped = false;
    const stopping = s.stop().then(() => { stopped = true; });
    await new Promise((resolve) => setImmediate(resolve));
    expect(stopped).toBe(false);
    finish({ claimed: true, nodes: 1 });
    await stopping;
    expect(stopped).toBe(true);
    // The run in progress completed (claimed /a); /b waits for the next start.
    expect(store.calls.map((c) => c.request.path)).toEqual(['/a']);
    expect([...store.schedules.values()].map((x) => x.path)).toEqual(['/b']);
  });

  it('logs a failed poll and keeps polling', async () => {
    vi.useFakeTimers();
    const store = new FakePublishingStore();
    const read = vi.spyOn(store, 'dueSchedules').mockRejectedValueOnce(new Error('connection refused'));
    const log = recordingLog();
    const s = new PublishScheduler(store, { takenAlong: () => false, rights: RIGHTS, log, intervalMs: 500 });
    s.start();
    await vi.advanceTimersByTimeAsync(500);
    expect(read).toHaveBeenCalledTimes(2);
    expect(log.lines).toEqual([{ level: 'error', msg: expect.stringContaining('polling the schedules failed') }]);
    await s.stop();
  });
});
