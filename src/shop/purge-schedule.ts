// Shop layer (records): when expired carts and wishlists are deleted. Every cookieless POST /cart
// stores a cart, so without a purge anyone could grow the database without bound. Each store purges
// when it opens and then every hour, in small batches so that other writes get in between.
import type { PurgeResult } from './shop-store.js';
import { PeriodicTask } from '../concurrency/periodic-task.js';

export const PURGE_INTERVAL_MS = 3600_000;
/**
 * Only records expired at least this long ago are purged: a request that read a cart as unexpired a
 * moment ago, or an instance whose clock is a little behind, never finds it deleted under its feet.
 */
export const PURGE_GRACE_MS = 10 * 60_000;
/** Records deleted per transaction. */
export const PURGE_BATCH = 500;

export interface PurgeOptions {
  readonly intervalMs?: number;
  /** Each completed purge (the operator's log). */
  readonly onPurged?: (r: PurgeResult) => void;
  /** A failed purge; the next one runs on schedule. */
  readonly onError?: (err: unknown) => void;
}

/**
 * Runs `batch(size)` until a batch deletes fewer than `size` records of each kind, or `stopped()`.
 * Each batch is one transaction of the store's own.
 */
export async function purgeInBatches(
  batch: (size: number) => Promise<PurgeResult>, size: number, stopped: () => boolean,
): Promise<PurgeResult> {
  let carts = 0;
  let wishlists = 0;
  for (;;) {
    const r = await batch(size);
    carts += r.carts;
    wishlists += r.wishlists;
    if ((r.carts < size && r.wishlists < size) || stopped()) return { carts, wishlists };
    await new Promise((resolve) => setImmediate(resolve)); // SQLite is synchronous: let requests in
  }
}

export class PurgeSchedule {
  readonly #task: PeriodicTask;

  constructor(purge: (before: number) => Promise<PurgeResult>, options: PurgeOptions = {}) {
    this.#task = new PeriodicTask(() => purge(Date.now() - PURGE_GRACE_MS)
      .then((r) => options.onPurged?.(r))
      .catch((err: unknown) => options.onError?.(err)), options.intervalMs ?? PURGE_INTERVAL_MS);
  }

  get stopped(): boolean {
    return this.#task.stopped;
  }

  /** Purges now, then every interval; the timer never keeps the process alive. */
  start(): void {
    this.#task.start();
  }

  /** No further purges; resolves once the one running (if any) has stopped after its current batch. */
  stop(): Promise<void> {
    return this.#task.stop();
  }
}
