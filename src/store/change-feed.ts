// Store layer: the change events of a store, read once per process and handed to every cache that
// keeps content (the subtree cache, the response cache; the query index could follow). Readers name
// the content generation they are about to serve; the feed reads the events committed since the last
// sequence it handed out (`changesSince`) and passes them on before the reader goes on, so no cache
// serves an entry a committed change has hit. When the events cannot be read (the store failed, more
// were pending than one page, the database went back in time) subscribers get a reset: drop
// everything, as before events existed. Correctness first, hit ratio second.
import { CHANGES_PAGE_MAX, type ChangeEvent } from './changes.js';
import type { ContentStore } from './content-store.js';

export type ChangeBatch =
  | { readonly kind: 'events'; readonly events: readonly ChangeEvent[] }
  /** Events could not be read: anything may have changed. */
  | { readonly kind: 'reset' };

export type ChangeSubscriber = (batch: ChangeBatch) => void;

export interface ChangeFeedStats {
  /** Events handed out since the feed started. */
  readonly events: number;
  /** Resets handed out (the first sync of a feed is one). */
  readonly resets: number;
  /** The newest sequence handed out; undefined while unknown. */
  readonly sequence: number | undefined;
}

export class ChangeFeed {
  readonly #store: ContentStore;
  readonly #subscribers = new Set<ChangeSubscriber>();
  /** The generation subscribers are up to date with; undefined before the first sync. */
  #generation: number | undefined;
  /** The newest event sequence handed out; undefined when unknown (then the next sync resets). */
  #sequence: number | undefined;
  /** Syncs run one after the other: each reads from where the previous one left off. */
  #queue: Promise<void> = Promise.resolve();
  #events = 0;
  #resets = 0;

  constructor(store: ContentStore) {
    this.#store = store;
  }

  /** Calls `subscriber` with every batch from now on; returns the function that stops it. */
  subscribe(subscriber: ChangeSubscriber): () => void {
    this.#subscribers.add(subscriber);
    return () => { this.#subscribers.delete(subscriber); };
  }

  stats(): ChangeFeedStats {
    return { events: this.#events, resets: this.#resets, sequence: this.#sequence };
  }

  /**
   * Resolves once every subscriber has seen the changes committed up to `generation` (read from the
   * store just before). Undefined, at no cost, when that generation is the one last synced (the hot
   * path of every cache hit: no promise to await). Never rejects: a failure to read events is handed
   * out as a reset.
   */
  sync(generation: number): Promise<void> | undefined {
    if (generation === this.#generation) return undefined;
    this.#queue = this.#queue.then(() => this.#catchUp(generation));
    return this.#queue;
  }

  async #catchUp(generation: number): Promise<void> {
    if (generation === this.#generation) return; // a sync queued before this one got there
    const before = this.#generation;
    const sequence = this.#sequence;
    try {
      if (sequence === undefined) return await this.#reset(generation);
      if (before !== undefined && generation < before) {
        // A reader that read the generation before a sync that has run since, or a database that
        // went back (restored, failed over): only the latter has fewer events than were handed out.
        if (await this.#store.changes.latest() < sequence) return await this.#reset(generation);
        return;
      }
      const events = await this.#store.changes.since(sequence, CHANGES_PAGE_MAX);
      // A full page may leave more behind: rather than walk a backlog, start again from scratch.
      if (events.length >= CHANGES_PAGE_MAX) return await this.#reset(generation);
      if (events.length > 0) {
        this.#sequence = events[events.length - 1]!.sequence;
        this.#events += events.length;
        this.#emit({ kind: 'events', events });
      }
      this.#generation = generation;
    } catch {
      this.#sequence = undefined;
      this.#generation = generation;
      this.#resets++;
      this.#emit({ kind: 'reset' });
    }
  }

  /**
   * The sequence is read before subscribers drop everything: whatever they cache after the reset was
   * read after that point, so events up to it are in what they read and need not be applied again.
   */
  async #reset(generation: number): Promise<void> {
    this.#sequence = await this.#store.changes.latest();
    this.#generation = generation;
    this.#resets++;
    this.#emit({ kind: 'reset' });
  }

  #emit(batch: ChangeBatch): void {
    for (const subscriber of this.#subscribers) {
      try {
        subscriber(batch);
      } catch {
        // a subscriber's failure is its own; the others still hear of the change
      }
    }
  }
}
