// Conformance harness: the fixture a backend supplies, and how suites register stores and tests against it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContentStore } from '../../src/store/content-store.js';

/** One backend under test (Oak's NodeStoreFixture, Hono's `runTest({ newRouter, skip })`). */
export interface StoreFixture {
  /** Backend name, the title of the block that holds every suite. */
  name: string;
  /** True, or the reason the backend cannot run here; then every suite is skipped and the reason printed. */
  available(): Promise<true | string>;
  /** A fresh, empty, open store. */
  create(): Promise<ContentStore>;
  /** Closes the store and removes whatever `create` made for it. */
  dispose(store: ContentStore): Promise<void>;
  /** Tests (by title) this backend does not pass, each group with its reason; never silent. */
  skip?: { reason: string; tests: string[] }[];
}

/** A suite module's export: registers one `describe` block against the fixture. */
export type ConformanceSuite = (fixture: StoreFixture) => void;

type Body = () => Promise<void> | void;

const TITLES = new WeakMap<StoreFixture, Set<string>>();

/** Runs the suites against the fixture, or skips them all (saying why) when the backend is unavailable. */
export async function runConformance(fixture: StoreFixture, suites: readonly ConformanceSuite[]): Promise<void> {
  const availability = await fixture.available();
  if (availability !== true) console.warn(`${fixture.name} conformance suites skipped: ${availability}`);
  // Skipped when the backend cannot be reached (PostgreSQL without PETAL_TEST_PG); the warning above says why.
  describe.skipIf(availability !== true)(fixture.name, () => {
    for (const suite of suites) suite(fixture);
    it('every skip entry names a conformance test', () => {
      const titles = TITLES.get(fixture) ?? new Set<string>();
      const stale = (fixture.skip ?? []).flatMap((s) => s.tests).filter((t) => !titles.has(t));
      expect(stale).toEqual([]);
    });
  });
}

/** The `it` of a suite: honours the fixture's skip list, showing the reason in the test's title. */
export function conformanceTest(fixture: StoreFixture): (title: string, body: Body, timeout?: number) => void {
  let titles = TITLES.get(fixture);
  if (!titles) TITLES.set(fixture, (titles = new Set()));
  const registered = titles;
  return (title, body, timeout) => {
    if (registered.has(title)) throw new Error(`two conformance tests are titled ${JSON.stringify(title)}`);
    registered.add(title);
    const skip = fixture.skip?.find((s) => s.tests.includes(title));
    // A test the backend's fixture declares not to apply, with its reason in the title.
    if (skip) it.skip(`${title} [skipped on ${fixture.name}: ${skip.reason}]`, body, timeout);
    else it(title, body, timeout);
  };
}

/** One store for the enclosing `describe` (a fresh one per suite), seeded once; returns its getter. */
export function useStore(fixture: StoreFixture, seed?: (store: ContentStore) => Promise<void>): () => ContentStore {
  let store: ContentStore | undefined;
  beforeAll(async () => {
    store = await fixture.create();
    if (seed) await seed(store);
  });
  afterAll(async () => {
    if (store) await fixture.dispose(store);
    store = undefined;
  });
  return () => {
    if (!store) throw new Error(`no ${fixture.name} store: create() failed or the suite is over`);
    return store;
  };
}

/** For tests that need an empty store of their own (totals, workspace lists, "leaves the store empty"). */
export async function withFreshStore(fixture: StoreFixture, body: (store: ContentStore) => Promise<void>): Promise<void> {
  const store = await fixture.create();
  try {
    await body(store);
  } finally {
    await fixture.dispose(store);
  }
}
