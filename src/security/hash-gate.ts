// Security layer: bounds the password hashes in flight. Each scrypt verification takes a libuv worker
// and 128 MiB for a few hundred ms; without a bound a burst of logins fills the worker pool (and
// memory) and stalls everything else, legitimate logins included.

export interface HashGateLimits {
  /** Hashes computed at once. */
  readonly maxConcurrent: number;
  /** Hashes waiting for a slot; beyond it `run` refuses at once. */
  readonly maxQueued: number;
}

/** What `run` answers instead of a result when the gate and its queue are full. */
export const GATE_FULL: unique symbol = Symbol('gate full');

export class HashGate {
  #active = 0;
  readonly #waiting: (() => void)[] = [];

  constructor(public limits: HashGateLimits) {}

  get active(): number {
    return this.#active;
  }

  get queued(): number {
    return this.#waiting.length;
  }

  /** Runs `work` when a slot is free, or answers GATE_FULL without running it. */
  async run<T>(work: () => Promise<T>): Promise<T | typeof GATE_FULL> {
    if (this.#active >= this.limits.maxConcurrent) {
      if (this.#waiting.length >= this.limits.maxQueued) return GATE_FULL;
      await new Promise<void>((resolve) => this.#waiting.push(resolve));
    } else {
      this.#active++;
    }
    try {
      return await work();
    } finally {
      // The slot passes straight to the next waiter, so `active` never drops below the bound while some wait.
      const next = this.#waiting.shift();
      if (next !== undefined) next();
      else this.#active--;
    }
  }
}
