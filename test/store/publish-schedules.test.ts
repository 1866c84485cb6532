// Publishing (issue 17), store side: scheduled publishes and unpublishes are stored, listed soonest
// first, handed out when due unless they failed, marked failed, and cancelled. Each backend.
import { describe, expect, it } from 'vitest';
import type { ContentStore } from '../../src/store/content-store.js';
import type { NewSchedule } from '../../src/store/schedules.js';
import { BACKENDS, openForSuite } from './publish-backends.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

const at = (due: string, more: Partial<NewSchedule> = {}): NewSchedule => ({
  action: 'publish', workspace: 'website', path: '/home', recursive: false, by: 'alice', runAs: 'user:alice', due, ...more,
});

for (const backend of BACKENDS) {
  // Skipped for PostgreSQL when PETAL_TEST_PG is not set (backend.skip says so); CI sets it.
  describe.skipIf(backend.skip !== false)(`schedules (${backend.name})`, () => {
    let store: ContentStore;
    openForSuite(backend, (s) => { store = s; });

    it('stores, lists soonest first, hands out the due ones that have not failed, and cancels', async () => {
      expect(await store.schedules.list()).toEqual([]);
      const started = Date.now();
      // Offsets and precisions differ: the instants are what orders them.
      const late = await store.schedules.add(at('2030-06-01T12:00:00+02:00', { action: 'unpublish', recursive: true, comment: 'summer' }));
      const early = await store.schedules.add(at('2030-06-01T09:30Z', { path: '/news', by: 'bob', runAs: 'operator' }));
      const middle = await store.schedules.add(at('2030-06-01T09:59:59.500Z'));
      expect(early).toEqual({
        id: expect.stringMatching(UUID), action: 'publish', workspace: 'website', path: '/news', recursive: false, by: 'bob', runAs: 'operator',
        due: '2030-06-01T09:30:00.000Z', created: expect.any(String),
      });
      expect(Date.parse(early.created)).toBeGreaterThanOrEqual(started - 1000);
      expect(late).toMatchObject({ action: 'unpublish', recursive: true, comment: 'summer', runAs: 'user:alice', due: '2030-06-01T10:00:00.000Z' });
      expect(new Set([late.id, early.id, middle.id]).size).toBe(3);
      expect(await store.schedules.list()).toEqual([early, middle, late]);

      expect(await store.schedules.due('2030-06-01T09:00:00Z', 10)).toEqual([]);
      expect(await store.schedules.due('2030-06-01T10:00:00Z', 10)).toEqual([early, middle, late]);
      expect(await store.schedules.due('2030-06-01T10:00:00Z', 2)).toEqual([early, middle]);

      await store.schedules.fail(middle.id, 'Parent content website:/ is not published yet');
      const failed = { ...middle, error: 'Parent content website:/ is not published yet' };
      expect(await store.schedules.list()).toEqual([early, failed, late]);
      expect(await store.schedules.due('2031-01-01T00:00:00Z', 10)).toEqual([early, late]);

      expect(await store.schedules.cancel(early.id)).toEqual(early);
      expect(await store.schedules.cancel(early.id)).toBeUndefined();
      expect(await store.schedules.cancel('no-such-schedule')).toBeUndefined();
      expect(await store.schedules.list()).toEqual([failed, late]);
    });

    it('keeps whose rights each runs with: a user\'s, the anonymous caller\'s, the operator\'s', async () => {
      const made = await Promise.all((['user:ed', 'anonymous', 'operator'] as const).map((runAs) => store.schedules.add(at('2031-01-01T00:00:00Z', { runAs }))));
      const listed = new Map((await store.schedules.list()).map((s) => [s.id, s.runAs]));
      expect(made.map((s) => listed.get(s.id))).toEqual(['user:ed', 'anonymous', 'operator']);
      for (const s of made) await store.schedules.cancel(s.id);
    });

    it('refuses a due time that is no instant', async () => {
      await expect(store.schedules.add(at('tomorrow'))).rejects.toThrow(RangeError);
      await expect(store.schedules.due('soon', 10)).rejects.toThrow(RangeError);
    });
  });
}
