// Metrics: what the caches, the store and the renditions hold, read when Prometheus scrapes (never on
// the request path). Cumulative figures the components already count (cache hits, evictions) become
// counters set to the component's total; change events are counted as the change follower hands them out.
import { Counter, Gauge, type Registry } from 'prom-client';
import type { RenditionService } from '../assets/render-rendition.js';
import type { Repository } from '../repository/session.js';
import type { ChangeKind } from '../store/changes.js';
import type { ContentStore } from '../store/content-store.js';

/** What is read of the response cache (the HTTP layer's ResponseCache has it): its running totals. */
export interface ResponseCacheTotals {
  stats(): {
    readonly hits: number; readonly misses: number; readonly evictions: number; readonly staleHits: number;
    readonly bytes: number; readonly entries: number;
  };
}

export interface StateSources {
  readonly responseCache: () => ResponseCacheTotals | null;
  readonly repository: Repository;
  readonly renditions: RenditionService;
}

/** A pg.Pool's counts, when the store has one (PostgreSQL), without importing the backend. */
interface PoolCounts { readonly totalCount: number; readonly idleCount: number; readonly waitingCount: number }
function poolOf(store: ContentStore): PoolCounts | undefined {
  const pool = (store as Partial<{ readonly primaryPool: unknown }>).primaryPool;
  return typeof pool === 'object' && pool !== null && 'totalCount' in pool ? pool as PoolCounts : undefined;
}

/** A counter whose value is a total kept elsewhere, read at scrape time. */
function total(registry: Registry, name: string, help: string, read: () => number | undefined): void {
  new Counter({
    name, help, registers: [registry],
    collect() {
      const v = read();
      this.reset();
      if (v !== undefined) this.inc(v);
    },
  });
}

function gauge(registry: Registry, name: string, help: string, read: () => number | undefined): void {
  new Gauge({
    name, help, registers: [registry],
    collect() {
      const v = read();
      if (v !== undefined) this.set(v);
    },
  });
}

export function registerStateCollectors(registry: Registry, s: StateSources): void {
  const cache = () => s.responseCache()?.stats();
  total(registry, 'petal_response_cache_hits_total', 'Delivery answers served from the response cache', () => cache()?.hits);
  total(registry, 'petal_response_cache_misses_total', 'Delivery answers looked up in the response cache and not found', () => cache()?.misses);
  total(registry, 'petal_response_cache_evictions_total', 'Response cache entries evicted for room', () => cache()?.evictions);
  total(registry, 'petal_response_cache_stale_hits_total', 'Cached answers served while the store was unreachable', () => cache()?.staleHits);
  gauge(registry, 'petal_response_cache_bytes', 'Bytes held by the response cache', () => cache()?.bytes);
  gauge(registry, 'petal_response_cache_entries', 'Answers held by the response cache', () => cache()?.entries);

  const subtrees = () => s.repository.subtreeCacheStats();
  gauge(registry, 'petal_subtree_cache_bytes', 'Bytes held by the subtree cache', () => subtrees().bytes);
  gauge(registry, 'petal_subtree_cache_entries', 'Subtrees held by the subtree cache', () => subtrees().entries);

  const store = s.repository.store;
  const memory = () => store.caches?.stats();
  new Gauge({
    name: 'petal_query_index_bytes', help: 'Bytes held by the in-memory query index, by part', labelNames: ['part'], registers: [registry],
    collect() {
      const q = memory()?.queryIndex;
      if (q === undefined) return;
      this.set({ part: 'columns' }, q.perName.bytes);
      this.set({ part: 'results' }, q.results.bytes);
      this.set({ part: 'records' }, q.records.bytes);
      this.set({ part: 'deltas' }, q.deltaBytes);
    },
  });
  total(registry, 'petal_query_index_loads_total', 'Full workspace loads of the query index', () => memory()?.queryIndex.loads);
  gauge(registry, 'petal_store_statement_cache_bytes', 'Bytes of prepared statements kept (SQLite)', () => memory()?.statements?.bytes);
  new Gauge({
    name: 'petal_store_pool_connections', help: 'Connections of the PostgreSQL pool, by state', labelNames: ['state'], registers: [registry],
    collect() {
      const pool = poolOf(store);
      if (pool === undefined) return;
      this.set({ state: 'total' }, pool.totalCount);
      this.set({ state: 'idle' }, pool.idleCount);
      this.set({ state: 'waiting' }, pool.waitingCount);
    },
  });

  const renditions = s.renditions.cache;
  total(registry, 'petal_rendition_cache_hits_total', 'Renditions served from the disk cache', () => renditions.stats.hits);
  total(registry, 'petal_rendition_cache_produced_total', 'Renditions computed', () => renditions.stats.produced);
  gauge(registry, 'petal_rendition_cache_bytes', 'Bytes of renditions on disk', () => renditions.usage.bytes);
  gauge(registry, 'petal_rendition_cache_files', 'Renditions on disk', () => renditions.usage.files);

  // Change events of the database (imports, node writes, publishes, unpublishes, from any instance)
  // as the process's change follower hands them out from now on; a scrape has it read up to now first.
  const changes = s.repository.changes;
  const counted = new Map<ChangeKind, number>();
  changes.follow((events) => {
    for (const e of events) counted.set(e.kind, (counted.get(e.kind) ?? 0) + 1);
  });
  let latest = 0;
  const readChanges = async (): Promise<void> => {
    await changes.poll();
    latest = changes.stats().sequence ?? latest;
  };
  // Both metrics below are collected concurrently by one scrape: they share one read.
  let reading: Promise<void> | undefined;
  const refresh = (): Promise<void> => reading ??= readChanges().finally(() => { reading = undefined; });
  new Gauge({
    name: 'petal_change_sequence', help: 'Sequence number of the newest change event of the store', registers: [registry],
    async collect() {
      await refresh();
      this.set(latest);
    },
  });
  new Counter({
    name: 'petal_changes_total', help: 'Change events (one per workspace a write touched), by kind: import, nodes, publish, unpublish',
    labelNames: ['kind'], registers: [registry],
    async collect() {
      await refresh();
      this.reset();
      for (const [kind, n] of counted) this.inc({ kind }, n);
    },
  });
}
