// Notify layer: the change events the process's follower handed out lately, kept for the webhooks
// riding it. It holds every event after `from` up to `end` with none missing (the follower reads them
// in order), so a webhook whose stored cursor lies in that range takes its next events from here; one
// further back (at start, after a long backoff) reads its pages from the store until it gets here.
import type { ChangeEvent } from '../store/changes.js';

export class EventWindow {
  readonly #max: number;
  /** Every event after this sequence up to `end` is held; undefined before the follower's first read. */
  #from: number | undefined;
  #events: ChangeEvent[] = [];

  /** `from`: the follower's cursor when the window starts; `max`: most events held (the oldest go). */
  constructor(from: number | undefined, max: number) {
    this.#from = from;
    this.#max = max;
  }

  /** The newest sequence the window covers; undefined while it covers none. */
  get end(): number | undefined {
    return this.#events.at(-1)?.sequence ?? this.#from;
  }

  /** Events the follower handed out after `after`: a gap before them starts the window again. */
  add(events: readonly ChangeEvent[], after: number): void {
    if (after !== this.end) {
      this.#from = after;
      this.#events = [];
    }
    this.#events.push(...events);
    if (this.#events.length > this.#max) this.#forget(this.#events.length - this.#max);
  }

  /**
   * At most `limit` of the events after `sequence`, oldest first; empty when the window ends at or
   * before it (the next ones are not read yet); undefined when the window does not reach back to it.
   */
  after(sequence: number, limit: number): ChangeEvent[] | undefined {
    if (this.#from === undefined || sequence < this.#from) return undefined;
    const first = this.#events.findIndex((e) => e.sequence > sequence);
    return first < 0 ? [] : this.#events.slice(first, first + limit);
  }

  /** Forgets the events up to `sequence` (every webhook of the process is past them). */
  dropThrough(sequence: number): void {
    let n = 0;
    while (n < this.#events.length && this.#events[n]!.sequence <= sequence) n++;
    this.#forget(n);
  }

  #forget(n: number): void {
    if (n === 0) return;
    this.#from = this.#events[n - 1]!.sequence;
    this.#events = this.#events.slice(n);
  }
}
