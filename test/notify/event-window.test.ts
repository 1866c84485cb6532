// The events a webhook sender keeps from the change follower's batches (notify/event-window.ts): it
// answers only for cursors it reaches back to, holds every event after its start with none missing,
// starts again at a gap, and forgets the oldest past its bound or once every webhook is past them.
import { describe, expect, it } from 'vitest';
import { EventWindow } from '../../src/notify/event-window.js';
import type { ChangeEvent } from '../../src/store/changes.js';

const event = (sequence: number): ChangeEvent => ({
  sequence, workspace: 'website', at: '2024-01-01T00:00:00.000Z', kind: 'nodes',
  created: [], changed: [], moved: [], removed: [], truncated: false, count: 0,
});
const seqs = (events: readonly ChangeEvent[] | undefined): number[] | undefined => events?.map((e) => e.sequence);

describe('event window', () => {
  it('answers for cursors from its start on; further back is the store\'s to answer', () => {
    const w = new EventWindow(10, 100);
    expect(w.end).toBe(10);
    expect(seqs(w.after(10, 5))).toEqual([]);
    w.add([event(12), event(13), event(15)], 10);
    expect(w.end).toBe(15);
    expect(seqs(w.after(10, 5))).toEqual([12, 13, 15]);
    expect(seqs(w.after(12, 1))).toEqual([13]);
    expect(seqs(w.after(15, 5))).toEqual([]);
    expect(seqs(w.after(20, 5))).toEqual([]); // the follower has not read that far: nothing yet
    expect(w.after(9, 5)).toBeUndefined();
  });

  it('before the follower\'s first read it answers for nothing', () => {
    const w = new EventWindow(undefined, 100);
    expect(w.end).toBeUndefined();
    expect(w.after(0, 5)).toBeUndefined();
    w.add([], 4); // the first read: the cursor, no events
    expect(seqs(w.after(4, 5))).toEqual([]);
  });

  it('starts again where a batch does not follow the last one (the database went back)', () => {
    const w = new EventWindow(10, 100);
    w.add([event(11), event(12)], 10);
    w.add([event(8)], 7);
    expect(w.end).toBe(8);
    expect(w.after(6, 5)).toBeUndefined();
    expect(seqs(w.after(7, 5))).toEqual([8]);
    expect(seqs(w.after(10, 5))).toEqual([]); // nothing the follower has read since
  });

  it('keeps at most its bound, and forgets what every webhook is past', () => {
    const w = new EventWindow(0, 3);
    w.add([1, 2, 3, 4, 5].map(event), 0);
    expect(w.after(1, 10)).toBeUndefined();
    expect(seqs(w.after(2, 10))).toEqual([3, 4, 5]);
    w.dropThrough(4);
    expect(w.after(3, 10)).toBeUndefined();
    expect(seqs(w.after(4, 10))).toEqual([5]);
  });
});
