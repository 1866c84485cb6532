// Security layer: bounds the password hashes in flight. Each scrypt verification takes a libuv worker
// and 128 MiB for a few hundred ms; without a bound a burst of logins fills the worker pool (and
// memory) and stalls everything else, legitimate logins included.
import { FULL, Semaphore } from '../concurrency/semaphore.js';

export interface HashGateLimits {
  /** Hashes computed at once. */
  readonly maxConcurrent: number;
  /** Hashes waiting for a slot; beyond it `run` refuses at once. */
  readonly maxQueued: number;
}

/** What `run` answers instead of a result when the gate and its queue are full. */
export { FULL as GATE_FULL };

export class HashGate {
  readonly #slots: Semaphore;

  constructor(limits: HashGateLimits) {
    this.#slots = new Semaphore(limits.maxConcurrent, limits.maxQueued);
  }

  get limits(): HashGateLimits {
    return { maxConcurrent: this.#slots.max, maxQueued: this.#slots.maxQueued };
  }

  /** New limits (a security reload) apply to the next hash. */
  set limits(l: HashGateLimits) {
    this.#slots.max = l.maxConcurrent;
    this.#slots.maxQueued = l.maxQueued;
  }

  get active(): number {
    return this.#slots.active;
  }

  get queued(): number {
    return this.#slots.queued;
  }

  /** Runs `work` when a slot is free, or answers GATE_FULL without running it. */
  run<T>(work: () => Promise<T>): Promise<T | typeof FULL> {
    return this.#slots.tryRun(work);
  }
}
