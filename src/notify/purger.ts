// Notify layer: purges the CDN on every committed change. A follower of the process's change events
// (repository/change-follower.ts, started by the server: a purge must go out whether or not anyone
// reads, so the follower polls), from the events read after it starts: it hands `changeKeys` of each to
// every target's queue. Each target sends its queue in batches of its vendor's limit, one call at a time,
// retrying failures with backoff a few times before logging and dropping them: a purge is best effort
// and the CDN's TTLs bound how stale a missed one leaves an answer. Nothing in the write path waits for
// it. Several instances each purge the same keys, which the CDNs treat as one (README: Purge).
import type { ChangeEvent } from '../store/changes.js';
import type { ChangeFollower } from '../repository/change-follower.js';
import { PendingKeys } from './pending-keys.js';
import { PurgeCallError, type PurgeBatch, type PurgeTargetSender } from './purge-target.js';
import type { NotifyLog } from './notify-log.js';

/** Calls per batch: the first and up to three retries. */
export const PURGE_ATTEMPTS = 4;
/** Delay before the first retry; each next one waits four times longer (0.25, 1, 4 s). */
export const PURGE_RETRY_BASE_MS = 250;
/** Calls a target's queue may amount to before its largest workspace collapses to the workspace keys. */
export const PENDING_CALLS_MAX = 20;
/** How long `stop` lets the queues drain. */
export const PURGE_FLUSH_MS = 2000;

export type { NotifyLog as PurgeLog } from './notify-log.js';

export interface PurgerOptions {
  readonly log: NotifyLog;
  readonly attempts?: number;
  readonly retryBaseMs?: number;
  /** Overrides PENDING_CALLS_MAX × the target's batch size (tests). */
  readonly pendingKeysMax?: number;
}

/** What the purger has done since it started (tests, diagnostics). */
export interface PurgerStats {
  /** The newest change event queued (the follower's cursor at start before any). */
  readonly sequence: number;
  readonly calls: number;
  readonly failedCalls: number;
  /** Keys of calls given up on. */
  readonly droppedKeys: number;
}

class TargetQueue {
  readonly sender: PurgeTargetSender;
  readonly pending: PendingKeys;
  /** The running drain, if any. */
  draining: Promise<void> | undefined;

  constructor(sender: PurgeTargetSender, limit: number) {
    this.sender = sender;
    this.pending = new PendingKeys(limit);
  }
}

/** The group of PendingKeys that holds keys given by purgeKeys (no workspace is named so: names hold no NUL). */
const ENDPOINT_GROUP = '\u0000endpoints';

export class Purger {
  readonly #changes: ChangeFollower;
  readonly #options: PurgerOptions;
  readonly #queues: TargetQueue[];
  /** Aborts calls and backoff waits when the flush deadline passes. */
  readonly #abort = new AbortController();
  /** The newest change event queued. */
  #sequence = 0;
  #unfollow: (() => void) | undefined;
  #stopped = false;
  #calls = 0;
  #failedCalls = 0;
  #droppedKeys = 0;

  constructor(changes: ChangeFollower, senders: readonly PurgeTargetSender[], options: PurgerOptions) {
    this.#changes = changes;
    this.#options = options;
    this.#queues = senders.map((s) => new TargetQueue(s, options.pendingKeysMax ?? PENDING_CALLS_MAX * s.maxKeysPerCall));
  }

  /**
   * Purges the changes the follower reads from now on: what it read before is not this process's to
   * purge (a server starts the follower, at the newest change, just before).
   */
  start(): void {
    this.#sequence = this.#changes.stats().sequence ?? 0;
    this.#unfollow ??= this.#changes.follow((events) => this.#queue(events));
  }

  stats(): PurgerStats {
    return { sequence: this.#sequence, calls: this.#calls, failedCalls: this.#failedCalls, droppedKeys: this.#droppedKeys };
  }

  /**
   * Has the follower read the changes committed until now, stops following, and lets the queues drain
   * for at most `flushMs`; calls still running then are aborted and their keys dropped (logged).
   */
  async stop(flushMs: number = PURGE_FLUSH_MS): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    await this.#changes.poll();
    this.#unfollow?.();
    const drained = Promise.all(this.#queues.map((q) => q.draining));
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => { timer = setTimeout(() => resolve('late'), flushMs); });
    if (await Promise.race([drained, late]) === 'late') this.#abort.abort();
    clearTimeout(timer);
    await drained;
    for (const q of this.#queues) if (q.pending.size > 0) this.#drop(q.sender, q.pending.take(), 'the process is stopping');
  }

  /** Has the follower read the changes committed until now, whose keys are then queued (tests). */
  poll(): Promise<void> {
    return this.#changes.poll();
  }

  /** Polls, then resolves once every target has sent (or dropped) what it had queued (tests, a CLI). */
  async settle(): Promise<void> {
    await this.#changes.poll();
    for (let q = this.#queues.find((x) => x.draining); q !== undefined; q = this.#queues.find((x) => x.draining)) await q.draining;
  }

  /**
   * Purges keys no change event names: the endpoint keys (dependencies.ts `endpointKey`) when endpoint
   * definitions are reloaded, since every answer of an endpoint carries its key.
   */
  purgeKeys(keys: readonly string[]): void {
    if (keys.length === 0 || this.#stopped) return;
    for (const q of this.#queues) {
      q.pending.addKeys(ENDPOINT_GROUP, keys);
      this.#kick(q);
    }
  }

  #queue(events: readonly ChangeEvent[]): void {
    if (events.length === 0) return;
    this.#sequence = events[events.length - 1]!.sequence;
    for (const q of this.#queues) {
      for (const e of events) q.pending.add(e);
      this.#kick(q);
    }
  }

  /** Starts the queue's drain unless one runs; keys queued as a drain ended start another. */
  #kick(q: TargetQueue): void {
    if (q.draining !== undefined || q.pending.size === 0 || this.#abort.signal.aborted) return;
    q.draining = this.#drain(q).finally(() => {
      q.draining = undefined;
      this.#kick(q);
    });
  }

  async #drain(q: TargetQueue): Promise<void> {
    while (q.pending.size > 0 && !this.#abort.signal.aborted) {
      const all = q.pending.take();
      const max = q.sender.maxKeysPerCall;
      for (let i = 0; i < all.keys.length; i += max) {
        await this.#send(q.sender, { keys: all.keys.slice(i, i + max), sequence: all.sequence, at: all.at });
      }
    }
  }

  async #send(sender: PurgeTargetSender, batch: PurgeBatch): Promise<void> {
    const attempts = this.#options.attempts ?? PURGE_ATTEMPTS;
    const signal = this.#abort.signal;
    for (let attempt = 1; ; attempt++) {
      if (signal.aborted) return this.#drop(sender, batch, 'the process is stopping');
      this.#calls++;
      try {
        await sender.send(batch, signal);
        return;
      } catch (err) {
        this.#failedCalls++;
        const retriable = !(err instanceof PurgeCallError) || err.retriable;
        const message = err instanceof Error ? err.message : String(err);
        if (!retriable || attempt >= attempts) return this.#drop(sender, batch, message);
        const wait = (err instanceof PurgeCallError ? err.retryAfterMs : undefined)
          ?? (this.#options.retryBaseMs ?? PURGE_RETRY_BASE_MS) * 4 ** (attempt - 1);
        this.#options.log.warn({ target: sender.name, attempt, keys: batch.keys.length }, `cdn purge: ${message} (retrying in ${wait} ms)`);
        await sleep(wait, signal);
      }
    }
  }

  #drop(sender: PurgeTargetSender, batch: PurgeBatch, why: string): void {
    this.#droppedKeys += batch.keys.length;
    this.#options.log.error({ target: sender.name, keys: batch.keys.length, sequence: batch.sequence },
      `cdn purge: gave up on ${batch.keys.length} keys: ${why} (the CDN serves them until their TTL ends)`);
  }
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done);
  });
}
