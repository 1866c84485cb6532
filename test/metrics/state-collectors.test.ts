// metrics/state-collectors.ts reads the response cache through ResponseCacheTotals only: the totals of
// any cache that has them (the HTTP layer's ResponseCache among them) are what a scrape reports.
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import type { RenditionService } from '../../src/assets/render-rendition.js';
import { ResponseCache } from '../../src/http/response-cache.js';
import { registerStateCollectors, type ResponseCacheTotals, type StateSources } from '../../src/metrics/state-collectors.js';
import type { Repository } from '../../src/repository/session.js';

/** Sources whose repository and renditions are not scraped by these tests (only what registering reads). */
function sources(responseCache: () => ResponseCacheTotals | null): StateSources {
  const changes = { follow: () => () => undefined, poll: async () => undefined, stats: () => ({ sequence: 0 }) };
  const repository = { changes } as unknown as Repository;
  return { responseCache, repository, renditions: { cache: {} } as unknown as RenditionService };
}

async function scraped(registry: Registry, name: string): Promise<number | undefined> {
  const metric = registry.getSingleMetric(name);
  return (await metric?.get())?.values[0]?.value;
}

describe('state collectors: the response cache', () => {
  it('reports the totals the cache keeps, read at scrape time', async () => {
    let totals = { hits: 7, misses: 3, evictions: 2, staleHits: 1, bytes: 4096, entries: 5 };
    const registry = new Registry();
    registerStateCollectors(registry, sources(() => ({ stats: () => totals })));
    expect(await scraped(registry, 'petal_response_cache_hits_total')).toBe(7);
    expect(await scraped(registry, 'petal_response_cache_misses_total')).toBe(3);
    expect(await scraped(registry, 'petal_response_cache_evictions_total')).toBe(2);
    expect(await scraped(registry, 'petal_response_cache_stale_hits_total')).toBe(1);
    expect(await scraped(registry, 'petal_response_cache_bytes')).toBe(4096);
    expect(await scraped(registry, 'petal_response_cache_entries')).toBe(5);
    totals = { ...totals, hits: 9 };
    expect(await scraped(registry, 'petal_response_cache_hits_total')).toBe(9);
  });

  it('reads the HTTP layer\'s ResponseCache, and reports 0 without a cache', async () => {
    const withCache = new Registry();
    registerStateCollectors(withCache, sources(() => new ResponseCache({ maxBytes: 1 << 20 })));
    expect(await scraped(withCache, 'petal_response_cache_entries')).toBe(0);
    const without = new Registry();
    registerStateCollectors(without, sources(() => null));
    expect(await scraped(without, 'petal_response_cache_hits_total')).toBe(0);
    expect(await scraped(without, 'petal_response_cache_entries')).toBe(0);
  });
});
