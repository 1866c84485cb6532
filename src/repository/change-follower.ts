// Repository layer: the one loop of a process that follows the store's change events. It owns the
// cursor (the newest event handed out), reads each batch once and hands it to everything that keeps
// or sends something per change: the caches (`subscribe`), the CDN purger, the webhook sender and the
// metrics (`follow`). Reads queue one after the other, whoever asks: a reader about to serve a content
// generation (`sync`: no cache serves an entry a committed change has hit), the store announcing a
// commit (`wake`, PostgreSQL's NOTIFY), and, once started, a poll (SQLite; PostgreSQL while its
// listener is down). Subscribers register callbacks; the follower never imports them nor waits for them.
//
// Caches may be told to drop everything (a reset) instead of being handed events: at the first read,
// when reading failed (and at the read after it: what the caches missed meanwhile is unknown to them),
// when more than a page was pending (cheaper than walking a backlog entry by entry), and when the
// database went back in time. Followers are handed every event once, in order, whatever the caches got:
// a failed read is read again from the same cursor, and a backlog is walked page by page.
import { CHANGES_PAGE_MAX, type ChangeEvent } from '../store/changes.js';
import type { ContentStore } from '../store/content-store.js';

/** Between two polls of a started follower: a change reaches the followers within about this. */
export const CHANGE_POLL_MS = 100;

/** The store calls the follower makes. */
export type FollowedStore = Pick<ContentStore, 'changes' | 'generationHint'>;

export type ChangeBatch =
  | { readonly kind: 'events'; readonly events: readonly ChangeEvent[] }
  /** Events could not be (or were not) handed out: anything may have changed. */
  | { readonly kind: 'reset' };

/** A cache's callback. */
export type ChangeSubscriber = (batch: ChangeBatch) => void;

/**
 * A follower's callback: `events` are every event after `after`, oldest first. An `after` other than
 * the previous call's last sequence means the cursor moved without events (the first read, a database
 * that went back): events before it are not owed.
 */
export type EventFollower = (events: readonly ChangeEvent[], after: number) => void | Promise<void>;

export interface ChangeFollowerOptions {
  readonly pollMs?: number;
  /** Subscribes to the commits the store learns of (`PostgresStore.onChange`); returns what stops it. */
  readonly wake?: (poke: () => void) => () => void;
  /** A read that failed (read again later), or a callback that threw. */
  readonly onError?: (err: unknown) => void;
}

export interface ChangeFollowerStats {
  /** Events handed out since the follower was made. */
  readonly events: number;
  /** Resets handed to the caches (the first read is one). */
  readonly resets: number;
  /** The newest sequence handed out; undefined before the first read. */
  readonly sequence: number | undefined;
}

export class ChangeFollower {
  readonly #store: FollowedStore;
  readonly #options: ChangeFollowerOptions;
  readonly #subscribers = new Set<ChangeSubscriber>();
  readonly #followers = new Set<EventFollower>();
  /** The newest event sequence handed out; undefined before the first read. */
  #sequence: number | undefined;
  /** The generation the caches are up to date with (a `sync` of it costs nothing). */
  #synced: number | undefined;
  /** The generation every event of which is handed out (a poll that finds it unchanged reads nothing). */
  #caughtUp: number | undefined;
  /** A read failed: the caches get a reset at the next read that succeeds. */
  #resetNext = false;
  #queue: Promise<void> = Promise.resolve();
  #events = 0;
  #resets = 0;
  #timer: NodeJS.Timeout | undefined;
  #unwake: (() => void) | undefined;
  /** A timer's or wake's poll is queued or running; `#again`: a wake came meanwhile. */
  #poking = false;
  #again = false;
  #started = false;
  #stopped = false;

  constructor(store: FollowedStore, options: ChangeFollowerOptions = {}) {
    this.#store = store;
    this.#options = options;
  }

  /** Calls `subscriber` with every batch from now on, or a reset in its place; returns what stops it. */
  subscribe(subscriber: ChangeSubscriber): () => void {
    this.#subscribers.add(subscriber);
    return () => { this.#subscribers.delete(subscriber); };
  }

  /** Calls `follower` with every event read from now on, once, in order; returns what stops it. */
  follow(follower: EventFollower): () => void {
    this.#followers.add(follower);
    return () => { this.#followers.delete(follower); };
  }

  stats(): ChangeFollowerStats {
    return { events: this.#events, resets: this.#resets, sequence: this.#sequence };
  }

  /** True when every change committed up to `generation` has been handed out (sync would do nothing). */
  caughtUp(generation: number): boolean {
    return generation === this.#synced;
  }

  /**
   * Resolves once every subscriber has seen the changes committed up to `generation` (read from the
   * store just before). Undefined, at no cost, when that generation is the one last synced (the hot
   * path of every cache hit: no promise to await). Never rejects: a failure to read is a reset.
   */
  sync(generation: number): Promise<void> | undefined {
    if (generation === this.#synced) return undefined;
    return this.#enqueue(() => this.#catchUp(generation));
  }

  /** Reads every event committed until now and hands it out; never rejects (a failure is reported). */
  poll(): Promise<void> {
    return this.#enqueue(() => this.#poll(true));
  }

  /**
   * The first read (the cursor at the newest event: what came before is not this process's to hand
   * out), then polls, and reads at once when the store announces a commit; the timer never keeps the
   * process alive. Without it the follower reads only when asked (`sync`, `poll`).
   */
  async start(): Promise<void> {
    if (this.#started) return;
    this.#started = true;
    await this.poll();
    this.#unwake = this.#options.wake?.(() => this.#poke());
    this.#schedule();
  }

  /** No more polls or wakes; resolves once the running read has ended. `sync` and `poll` still read. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#unwake?.();
    clearTimeout(this.#timer);
    await this.#queue;
  }

  #enqueue(read: () => Promise<void>): Promise<void> {
    this.#queue = this.#queue.then(read);
    return this.#queue;
  }

  async #catchUp(generation: number): Promise<void> {
    if (generation === this.#synced) return; // a sync queued before this one got there
    const before = this.#synced;
    try {
      if (this.#sequence === undefined) return this.#rebase(await this.#store.changes.latest(), generation);
      if (before !== undefined && generation < before) {
        // A reader that read the generation before a read that has run since, or a database that
        // went back (restored, failed over): only the latter has fewer events than were handed out.
        const latest = await this.#store.changes.latest();
        if (latest < this.#sequence) this.#rebase(latest, generation);
        return;
      }
      await this.#read();
      this.#synced = this.#caughtUp = generation;
    } catch (err) {
      this.#failed(err);
      this.#synced = generation;
    }
  }

  /** `exact`: read `latestChange` even when the generation hint has not moved (it may lag another process). */
  async #poll(exact: boolean): Promise<void> {
    // No commit since the last read (PostgreSQL: none announced): not even the one indexed read.
    const hint = this.#store.generationHint?.();
    if (!exact && hint !== undefined && hint === this.#caughtUp) return;
    try {
      const latest = await this.#store.changes.latest();
      if (this.#sequence === undefined || latest < this.#sequence) this.#rebase(latest, undefined);
      else if (latest > this.#sequence) await this.#read();
      this.#caughtUp = hint;
    } catch (err) {
      // Read again from the same cursor at the next poll. The caches keep what they hold: no reader
      // asked for this read, and while the store is unreachable they serve it (stale-if-error).
      this.#caughtUp = undefined;
      this.#options.onError?.(err);
    }
  }

  /**
   * Reads the events after the cursor. More than a page is walked to the end for the followers, and
   * the caches drop everything once instead.
   */
  async #read(): Promise<void> {
    const from = this.#sequence!;
    let events = await this.#store.changes.since(from, CHANGES_PAGE_MAX);
    if (events.length < CHANGES_PAGE_MAX) {
      this.#handOut(from, events);
      if (this.#resetNext) this.#resetCaches();
      else if (events.length > 0) this.#emit({ kind: 'events', events });
      return;
    }
    const latest = await this.#store.changes.latest();
    for (;;) {
      this.#handOut(this.#sequence!, events);
      if (events.length < CHANGES_PAGE_MAX || this.#sequence! >= latest) break;
      events = await this.#store.changes.since(this.#sequence!, CHANGES_PAGE_MAX);
    }
    this.#resetCaches();
  }

  /**
   * The sequence is read before the caches drop everything: whatever they keep after the reset was
   * read after that point, so events up to it are in what they read and need not be applied again.
   */
  #rebase(latest: number, generation: number | undefined): void {
    this.#sequence = latest;
    if (generation !== undefined) this.#synced = this.#caughtUp = generation;
    for (const follower of this.#followers) this.#call(() => follower([], latest));
    this.#resetCaches();
  }

  /** A reader's read failed: the caches drop everything. The cursor stays, so followers miss nothing. */
  #failed(err: unknown): void {
    this.#caughtUp = undefined;
    this.#resetCaches();
    this.#resetNext = true;
    this.#options.onError?.(err);
  }

  /** Moves the cursor and hands the events to the followers in the same step (nothing reads in between). */
  #handOut(after: number, events: readonly ChangeEvent[]): void {
    if (events.length === 0) return;
    this.#sequence = events[events.length - 1]!.sequence;
    this.#events += events.length;
    for (const follower of this.#followers) this.#call(() => follower(events, after));
  }

  #resetCaches(): void {
    this.#resetNext = false;
    this.#resets++;
    this.#emit({ kind: 'reset' });
  }

  #emit(batch: ChangeBatch): void {
    for (const subscriber of this.#subscribers) this.#call(() => subscriber(batch));
  }

  /** A callback's failure (or a slow one) is its own: the others still hear of the change. */
  #call(callback: () => void | Promise<void>): void {
    try {
      const done = callback();
      if (done instanceof Promise) done.catch((err: unknown) => this.#options.onError?.(err));
    } catch (err) {
      this.#options.onError?.(err);
    }
  }

  #schedule(): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => this.#poke(), this.#options.pollMs ?? CHANGE_POLL_MS);
    this.#timer.unref();
  }

  /** Polls now, or right after the running poll (a wake during a poll may announce what it missed). */
  #poke(): void {
    if (this.#stopped) return;
    if (this.#poking) {
      this.#again = true;
      return;
    }
    this.#poking = true;
    clearTimeout(this.#timer);
    void this.#enqueue(() => this.#poll(false)).finally(() => {
      this.#poking = false;
      if (this.#again) {
        this.#again = false;
        this.#poke();
      } else {
        this.#schedule();
      }
    });
  }
}
