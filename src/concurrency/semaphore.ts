// A counting semaphore with a bounded wait queue: at most `max` tasks run at once, at most `maxQueued`
// wait, and beyond that a task is refused at once (FULL) rather than queued without bound. Used where
// one kind of expensive work must not take the whole process (image resizes, password hashes).

/** What `tryRun` answers instead of a result when every slot and the queue are taken. */
export const FULL: unique symbol = Symbol('semaphore full');

export class Semaphore {
  #active = 0;
  readonly #waiting: (() => void)[] = [];

  /** Both bounds may change while tasks run (a configuration reload); they apply to the next task. */
  constructor(public max: number, public maxQueued: number = Infinity) {
    if (!(max >= 1)) throw new Error('Semaphore needs max >= 1');
  }

  get active(): number {
    return this.#active;
  }

  get queued(): number {
    return this.#waiting.length;
  }

  /** Runs `task` when a slot is free, or answers FULL without running it. */
  async tryRun<T>(task: () => Promise<T>): Promise<T | typeof FULL> {
    if (this.#active >= this.max) {
      if (this.#waiting.length >= this.maxQueued) return FULL;
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    } else {
      this.#active++;
    }
    try {
      return await task();
    } finally {
      // The slot passes straight to the next waiter, so `active` never drops below the bound while some wait.
      const next = this.#waiting.shift();
      if (next !== undefined) next();
      else this.#active--;
    }
  }
}
