// `petal publish`, `petal unpublish` and `petal schedules` in process, over an in-memory store: with
// publishing enabled they go through the publisher (now, or a schedule for a future --at); without it
// publish stores a version only and what needs the published state is refused; a bad --at exits 2.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { publishCommand, schedulesCommand, unpublishCommand } from '../../src/ingest/publish-commands.js';
import type { StoreOpener } from '../../src/ingest/version-commands.js';
import { NodeWriteError } from '../../src/repository/node-write.js';
import { FakePublishingStore, newSchedule } from '../publishing/fake-publishing-store.js';

afterEach(() => vi.restoreAllMocks());

function capture(): { out: () => string; err: () => string } {
  let out = '';
  let err = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => { out += String(chunk); return true; });
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => { err += String(chunk); return true; });
  return { out: () => out, err: () => err };
}

function setup(enabled: boolean, nodeTypes: Record<string, string[]> = {}, horizon = 366): { store: FakePublishingStore; open: StoreOpener; opened: () => number } {
  const store = new FakePublishingStore();
  store.nodes.add('website:/travel');
  let opened = 0;
  const open: StoreOpener = async () => {
    opened++;
    return { store: store.asContentStore(), publications: store, url: 'sqlite:/x.db', config: { ...(enabled ? { publishing: { previewContextPath: '/preview', previewRoles: [], scheduleIntervalMs: 2000, scheduleHorizonDays: horizon } } : {}), nodeTypes } };
  };
  return { store, open, opened: () => opened };
}

/** A day about a month ahead: within publishing.scheduleHorizonDays, as yyyy-mm-dd. */
const SOON = new Date(Date.now() + 30 * 86_400_000).toISOString().slice(0, 10);

const VERSION = { workspace: 'website', path: '/travel', name: '1.3', nodeId: 'n', created: '2026-06-01T12:00:00.000Z', createdBy: 'alice', nodes: 12 };

describe('petal publish and unpublish, publishing enabled', () => {
  it('publishes now through the publisher, with --recursive, --comment, --by and the configured types', async () => {
    const { store, open } = setup(true, { 'acme:teaser': ['cms:component'] });
    store.onState = async () => ({ claimed: true, nodes: 12, version: VERSION });
    const io = capture();
    expect(await publishCommand(['website', 'travel/', '--recursive', '--comment', 'spring', '--by', 'alice'], open)).toBe(0);
    expect(io.out()).toBe('published website:/travel (12 nodes) as version 1.3 by alice\n');
    const { action, request } = store.calls[0]!;
    expect(action).toBe('publish');
    expect(request).toMatchObject({ workspace: 'website', path: '/travel', recursive: true, comment: 'spring', by: 'alice' });
    expect(request.takenAlong('acme:teaser')).toBe(true);
    expect(request.takenAlong('cms:page')).toBe(false);
    expect(store.versions).toEqual([]);
    expect(store.closed).toBe(1);
  });

  it('schedules for a future --at and says when (UTC) and its id', async () => {
    const { store, open } = setup(true);
    const io = capture();
    expect(await publishCommand(['website', '/travel', '--at', `${SOON}T08:00:00+02:00`, '--by', 'alice'], open)).toBe(0);
    const [schedule] = store.schedules.values();
    expect(io.out()).toBe(`scheduled publish of website:/travel for ${SOON}T06:00:00.000Z by alice (id ${schedule!.id})\n`);
    expect(store.calls).toEqual([]);
  });

  it('runs a past --at now', async () => {
    const { store, open } = setup(true);
    capture();
    expect(await publishCommand(['website', '/travel', '--at', '2020-01-01T00:00:00Z'], open)).toBe(0);
    expect(store.calls).toHaveLength(1);
    expect(store.schedules.size).toBe(0);
  });

  it('says which parent is not published yet (exit 1)', async () => {
    const { store, open } = setup(true);
    store.onState = async () => { throw new NodeWriteError('parentNotPublished', 'The parent of this node is not published yet'); };
    const io = capture();
    expect(await publishCommand(['website', '/travel/asia'], open)).toBe(1);
    expect(io.err()).toBe('petal publish: parent website:/travel is not published yet: publish it first (petal publish website /travel)\n');
  });

  it('refuses to schedule for a node that is not there (exit 1)', async () => {
    const { store, open } = setup(true);
    const io = capture();
    expect(await publishCommand(['website', '/nothing', '--at', `${SOON}T00:00:00Z`], open)).toBe(1);
    expect(io.err()).toBe('petal publish: no node at website:/nothing in sqlite:/x.db\n');
    expect(store.schedules.size).toBe(0);
  });

  it('unpublishes now, or at --at', async () => {
    const { store, open } = setup(true);
    store.onState = async () => ({ claimed: true, nodes: 2 });
    const io = capture();
    expect(await unpublishCommand(['website', '/travel', '--by', 'bob'], open)).toBe(0);
    expect(await unpublishCommand(['website', '/travel', '--by', 'bob', '--at', `${SOON}T00:00:00Z`], open)).toBe(0);
    const [schedule] = store.schedules.values();
    expect(io.out()).toBe(`unpublished website:/travel (2 nodes) by bob\nscheduled unpublish of website:/travel for ${SOON}T00:00:00.000Z by bob (id ${schedule!.id})\n`);
    expect(store.calls.map((c) => c.action)).toEqual(['unpublish']);
  });

  it('refuses --recursive and --comment on unpublish (exit 2)', async () => {
    const { open, opened } = setup(true);
    const io = capture();
    expect(await unpublishCommand(['website', '/travel', '--recursive'], open)).toBe(2);
    expect(await unpublishCommand(['website', '/travel', '--comment', 'x'], open)).toBe(2);
    expect(io.err()).toContain('--recursive does not apply');
    expect(io.err()).toContain('--comment does not apply');
    expect(opened()).toBe(0);
  });
});

describe('petal publish --at', () => {
  it('must be an ISO 8601 instant with an offset or Z: anything else exits 2 before the store opens', async () => {
    const { open, opened } = setup(true);
    for (const at of ['tomorrow', '2026-05-01T08:00:00', '2026-05-01', '2026-13-01T00:00:00Z', '2026-05-01 08:00:00Z', '',
      // Days and clocks off the calendar, which Date.parse rolls over (2030-02-30 to March 2).
      '2030-02-30T00:00:00Z', '2027-02-29T00:00:00Z', '2030-04-31T10:00:00+02:00', '2030-01-01T24:00:00Z', '2030-01-01T10:60:00Z',
      '2030-01-01T10:00:60Z', '2030-01-01T10:00:00+24:00', '2030-01-01T10:00:00+01:60']) {
      const io = capture();
      expect(await publishCommand(['website', '/travel', '--at', at], open), at).toBe(2);
      expect(io.err()).toContain(`--at must be an ISO 8601 date-time on the calendar with its offset or Z, such as 2026-05-01T08:00:00+02:00 (got ${JSON.stringify(at)})`);
      vi.restoreAllMocks();
    }
    expect(opened()).toBe(0);
  });

  it('takes a leap day, lower-case t and z, and a fraction', async () => {
    const { store, open } = setup(true, {}, 36_600);
    capture();
    for (const at of ['2028-02-29T12:00:00Z', '2030-01-01t10:00:00.123456789z', '2030-01-01T10:00-05:30']) {
      expect(await publishCommand(['website', '/travel', '--at', at], open), at).toBe(0);
    }
    expect([...store.schedules.values()].map((s) => s.due)).toEqual(['2028-02-29T12:00:00.000Z', '2030-01-01T10:00:00.123Z', '2030-01-01T15:30:00.000Z']);
  });

  it('is at most publishing.scheduleHorizonDays ahead (exit 2, nothing stored)', async () => {
    const { store, open } = setup(true, {}, 10);
    const io = capture();
    const beyond = new Date(Date.now() + 11 * 86_400_000).toISOString();
    for (const at of ['9999-12-31T23:59:59Z', beyond]) expect(await publishCommand(['website', '/travel', '--at', at], open), at).toBe(2);
    expect(io.err()).toContain(`petal publish: --at must be at most 10 days ahead (publishing.scheduleHorizonDays), not 9999-12-31T23:59:59.000Z (got "9999-12-31T23:59:59Z")`);
    expect(store.schedules.size).toBe(0);
    expect(await publishCommand(['website', '/travel', '--at', new Date(Date.now() + 9 * 86_400_000).toISOString()], open)).toBe(0);
    expect(store.schedules.size).toBe(1);
  });
});

describe('petal publish and unpublish, publishing off', () => {
  it('publish stores a version only, as before', async () => {
    const { store, open } = setup(false);
    const io = capture();
    expect(await publishCommand(['website', '/travel', '--by', 'alice'], open)).toBe(0);
    expect(io.out()).toBe('published website:/travel as version 1.0 (2 nodes) by alice into sqlite:/x.db\n');
    expect(store.versions).toEqual(['website:/travel']);
    expect(store.calls).toEqual([]);
  });

  it('refuses --recursive, --comment, --at and unpublish with what to set (exit 2), writing nothing', async () => {
    const { store, open } = setup(false);
    const io = capture();
    expect(await publishCommand(['website', '/travel', '--recursive', '--at', '2999-01-01T00:00:00Z'], open)).toBe(2);
    expect(await publishCommand(['website', '/travel', '--comment', 'c'], open)).toBe(2);
    expect(await unpublishCommand(['website', '/travel'], open)).toBe(2);
    expect(io.err()).toBe([
      'petal publish: --recursive, --at needs the published state',
      'petal publish: --comment needs the published state',
      'petal unpublish: unpublish needs the published state',
    ].map((l) => `${l}: set publishing: {enabled: true} in petal.yaml (without it petal publish only stores a version of the node)\n`).join(''));
    expect(store.versions).toEqual([]);
    expect(store.schedules.size).toBe(0);
    expect(store.closed).toBe(3);
  });
});

describe('petal schedules', () => {
  it('lists the schedules soonest first, with why a failed one was refused, or says there are none', async () => {
    const { store, open } = setup(true);
    const io = capture();
    expect(await schedulesCommand([], open)).toBe(0);
    expect(io.out()).toBe('no schedules\n');
    const a = await store.addSchedule(newSchedule({ path: '/b', due: '2026-07-01T00:00:00.000Z', recursive: true }));
    const b = await store.addSchedule(newSchedule({ action: 'unpublish', path: '/a', due: '2026-06-01T00:00:00.000Z', by: 'bob' }));
    await store.failSchedule(b.id, 'parent website:/ is not published');
    const text = capture();
    expect(await schedulesCommand([], open)).toBe(0);
    const lines = text.out().trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID +ACTION +WHERE +DUE +BY +ERROR$/);
    expect(lines[1]).toMatch(new RegExp(`^${b.id} +unpublish +website:/a +2026-06-01T00:00:00.000Z +bob +parent website:/ is not published$`));
    expect(lines[2]).toMatch(new RegExp(`^${a.id} +publish -r +website:/b +2026-07-01T00:00:00.000Z +alice$`));
    const json = capture();
    expect(await schedulesCommand(['--json'], open)).toBe(0);
    expect((JSON.parse(json.out()) as { id: string }[]).map((s) => s.id)).toEqual([b.id, a.id]);
  });

  it('cancels one by id; an unknown id exits 1', async () => {
    const { store, open } = setup(true);
    const s = await store.addSchedule(newSchedule());
    const io = capture();
    expect(await schedulesCommand(['--cancel', s.id], open)).toBe(0);
    expect(io.out()).toBe(`cancelled publish of website:/travel due 2026-01-01T00:00:00.000Z (id ${s.id})\n`);
    expect(store.schedules.size).toBe(0);
    expect(await schedulesCommand(['--cancel', s.id], open)).toBe(1);
    expect(io.err()).toBe(`petal schedules: no schedule ${JSON.stringify(s.id)}\n`);
  });
});
