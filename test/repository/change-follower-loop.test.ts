// The change follower as one loop per process (repository/change-follower.ts), over a store that counts
// its reads: each batch is read once whatever the number of subscribers; a subscriber that throws,
// rejects or never finishes does not stop the others; a started follower reads at once when woken (a
// commit announced) and otherwise at its poll, and reads nothing when the generation hint has not
// moved; followers get every event once and in order through a failed read and a backlog of more than
// a page (the caches get a reset instead), and nothing from before the start.
import { afterEach, describe, expect, it } from 'vitest';
import { ChangeFollower, type ChangeBatch, type FollowedStore } from '../../src/repository/change-follower.js';
import { CHANGES_PAGE_MAX, type ChangeEvent } from '../../src/store/changes.js';

class CountingStore implements FollowedStore {
  readonly events: ChangeEvent[] = [];
  reads = { since: 0, latest: 0 };
  fail = false;
  /** What `generationHint` answers; undefined: no hint (a lost PostgreSQL listener, an idle SQLite). */
  hint: number | undefined;
  readonly changes = {
    latest: async (): Promise<number> => {
      this.reads.latest++;
      if (this.fail) throw new Error('store unreachable');
      return this.events.at(-1)?.sequence ?? 0;
    },
    since: async (sequence: number, limit: number): Promise<ChangeEvent[]> => {
      this.reads.since++;
      if (this.fail) throw new Error('store unreachable');
      return this.events.filter((e) => e.sequence > sequence).slice(0, limit);
    },
  };
  generationHint(): number | undefined {
    return this.hint;
  }
  change(path = `/p${this.events.length + 1}`): ChangeEvent {
    const event: ChangeEvent = {
      sequence: this.events.length + 1, workspace: 'website', at: new Date().toISOString(), kind: 'nodes',
      created: [{ id: `id-${this.events.length + 1}`, path, type: 'mgnl:page' }], changed: [], moved: [], removed: [], truncated: false, count: 1,
    };
    this.events.push(event);
    return event;
  }
}

const sequences = (calls: (readonly ChangeEvent[])[]): number[] => calls.flat().map((e) => e.sequence);

const followers: ChangeFollower[] = [];
function follower(store: FollowedStore, o: ConstructorParameters<typeof ChangeFollower>[1] = {}): ChangeFollower {
  const f = new ChangeFollower(store, o);
  followers.push(f);
  return f;
}
afterEach(async () => {
  for (const f of followers.splice(0)) await f.stop();
});

async function until(check: () => boolean, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('change follower: one loop for every subscriber', () => {
  it('reads each batch once, whatever the number of followers and caches', async () => {
    const store = new CountingStore();
    const f = follower(store);
    await f.start();
    const got = Array.from({ length: 5 }, () => [] as (readonly ChangeEvent[])[]);
    const batches = Array.from({ length: 3 }, () => [] as ChangeBatch[]);
    got.forEach((calls) => f.follow((events) => { if (events.length > 0) calls.push(events); }));
    batches.forEach((seen) => f.subscribe((b) => seen.push(b)));
    store.change();
    store.change();
    const before = { ...store.reads };
    await f.poll();
    expect(store.reads).toEqual({ since: before.since + 1, latest: before.latest + 1 });
    for (const calls of got) expect(sequences(calls)).toEqual([1, 2]);
    for (const seen of batches) expect(seen).toEqual([{ kind: 'events', events: store.events }]);
    // A reader's sync of the generation after it reads once more, and finds nothing left to hand out.
    await f.sync(7);
    expect(store.reads.since).toBe(before.since + 2);
    for (const calls of got) expect(calls).toHaveLength(1);
  });

  it('a subscriber that throws, rejects or never finishes does not stop the others, nor the next batch', async () => {
    const store = new CountingStore();
    const errors: unknown[] = [];
    const f = follower(store, { onError: (err) => errors.push(err) });
    await f.start();
    f.follow(() => { throw new Error('follower broke'); });
    f.follow(() => new Promise<void>(() => undefined)); // never finishes
    f.follow(async () => { throw new Error('follower rejected'); });
    f.subscribe(() => { throw new Error('cache broke'); });
    const calls: (readonly ChangeEvent[])[] = [];
    const seen: ChangeBatch[] = [];
    f.follow((events) => { calls.push(events); });
    f.subscribe((b) => seen.push(b));
    store.change();
    await f.poll();
    store.change();
    await f.poll();
    expect(sequences(calls)).toEqual([1, 2]);
    expect(seen.map((b) => b.kind)).toEqual(['events', 'events']);
    await until(() => errors.length === 6);
    expect(errors.map((e) => (e as Error).message).sort()).toEqual(['cache broke', 'cache broke', 'follower broke', 'follower broke', 'follower rejected', 'follower rejected']);
  });

  it('started, it reads at once when woken, and otherwise at its poll', async () => {
    const store = new CountingStore();
    let poke: (() => void) | undefined;
    const woken = follower(store, { pollMs: 3_600_000, wake: (p) => { poke = p; return () => { poke = undefined; }; } });
    const calls: (readonly ChangeEvent[])[] = [];
    woken.follow((events) => { calls.push(events); });
    await woken.start();
    store.change();
    await new Promise((r) => setTimeout(r, 50));
    expect(sequences(calls)).toEqual([]); // an hour to the next poll
    poke!();
    await until(() => calls.flat().length === 1);

    const polled = follower(store, { pollMs: 10 });
    const heard: (readonly ChangeEvent[])[] = [];
    polled.follow((events) => { heard.push(events); });
    await polled.start();
    store.change();
    await until(() => sequences(heard).includes(2));
    expect(sequences(heard)).toEqual([2]);
    await woken.stop();
    expect(poke).toBeUndefined();
  });

  it('a wake or poll reads nothing while the generation hint has not moved; an explicit poll reads anyway', async () => {
    const store = new CountingStore();
    store.hint = 5;
    let poke: (() => void) | undefined;
    const f = follower(store, { pollMs: 3_600_000, wake: (p) => { poke = p; return () => undefined; } });
    await f.start();
    const before = { ...store.reads };
    poke!();
    await new Promise((r) => setTimeout(r, 20));
    expect(store.reads).toEqual(before);
    store.change();
    store.hint = 6;
    const calls: (readonly ChangeEvent[])[] = [];
    f.follow((events) => { calls.push(events); });
    poke!();
    await until(() => calls.flat().length === 1);
    store.change(); // committed elsewhere, not announced yet
    await f.poll();
    expect(sequences(calls)).toEqual([1, 2]);
  });

  it('starts at the newest event: what came before is not handed out', async () => {
    const store = new CountingStore();
    store.change();
    const f = follower(store);
    const calls: { events: readonly ChangeEvent[]; after: number }[] = [];
    f.follow((events, after) => { calls.push({ events, after }); });
    await f.start();
    expect(calls).toEqual([{ events: [], after: 1 }]);
    expect(f.stats().sequence).toBe(1);
  });
});

describe('change follower: every event for followers, resets for caches', () => {
  it('a failed read is read again from the same event: followers miss nothing, caches reset', async () => {
    const store = new CountingStore();
    const errors: unknown[] = [];
    const f = follower(store, { onError: (err) => errors.push(err) });
    await f.start();
    const calls: (readonly ChangeEvent[])[] = [];
    const seen: ChangeBatch[] = [];
    f.follow((events) => { if (events.length > 0) calls.push(events); });
    f.subscribe((b) => seen.push(b));
    store.change();
    store.fail = true;
    await f.sync(1); // a reader's read fails: the caches drop everything
    await f.poll(); // a background read fails: the caches keep what they hold
    expect(errors).toHaveLength(2);
    expect(seen.map((b) => b.kind)).toEqual(['reset']);
    store.fail = false;
    store.change();
    await f.poll();
    expect(sequences(calls)).toEqual([1, 2]);
    expect(seen.map((b) => b.kind)).toEqual(['reset', 'reset']);
  });

  it('a backlog of more than a page is walked for followers; caches get one reset instead', async () => {
    const store = new CountingStore();
    const f = follower(store);
    await f.start();
    const calls: (readonly ChangeEvent[])[] = [];
    const seen: ChangeBatch[] = [];
    f.follow((events) => { if (events.length > 0) calls.push(events); });
    f.subscribe((b) => seen.push(b));
    for (let i = 0; i < CHANGES_PAGE_MAX * 2 + 5; i++) store.change();
    await f.sync(1);
    expect(calls.map((c) => c.length)).toEqual([CHANGES_PAGE_MAX, CHANGES_PAGE_MAX, 5]);
    expect(sequences(calls)).toEqual(store.events.map((e) => e.sequence));
    expect(seen).toEqual([{ kind: 'reset' }]);
    expect(f.stats()).toMatchObject({ sequence: CHANGES_PAGE_MAX * 2 + 5, events: CHANGES_PAGE_MAX * 2 + 5 });
  });

  it('a database that went back: followers are told where the cursor is now, caches reset', async () => {
    const store = new CountingStore();
    store.change();
    store.change();
    const f = follower(store);
    await f.start();
    const calls: { events: readonly ChangeEvent[]; after: number }[] = [];
    const seen: ChangeBatch[] = [];
    f.follow((events, after) => { calls.push({ events, after }); });
    f.subscribe((b) => seen.push(b));
    store.events.splice(1); // restored from a backup taken after the first change
    await f.poll();
    expect(calls).toEqual([{ events: [], after: 1 }]);
    expect(seen).toEqual([{ kind: 'reset' }]);
    const next = store.change();
    await f.poll();
    expect(calls.at(-1)).toEqual({ events: [next], after: 1 });
  });
});
