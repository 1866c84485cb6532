// Security layer: limits failed logins per client address (never per a value the client chooses),
// so passwords cannot be guessed at speed. A success does not reset the count: it only stops adding.

export interface ThrottleLimits {
  readonly maxFailures: number;
  readonly windowMs: number;
}

export class LoginThrottle {
  readonly #failures = new Map<string, number[]>();

  constructor(private readonly limits: ThrottleLimits = { maxFailures: 10, windowMs: 15 * 60_000 },
    private readonly now: () => number = Date.now) {}

  /** Seconds until the client may try again, or 0 when it may try now. */
  retryAfter(client: string): number {
    const list = this.#recent(client);
    if (list.length < this.limits.maxFailures) return 0;
    return Math.max(1, Math.ceil((list[0]! + this.limits.windowMs - this.now()) / 1000));
  }

  fail(client: string): void {
    const list = this.#recent(client);
    list.push(this.now());
    this.#failures.set(client, list);
    if (this.#failures.size > 50_000) {
      for (const key of [...this.#failures.keys()].slice(0, 10_000)) this.#failures.delete(key);
    }
  }

  #recent(client: string): number[] {
    const since = this.now() - this.limits.windowMs;
    const list = (this.#failures.get(client) ?? []).filter((t) => t > since);
    if (list.length === 0) this.#failures.delete(client);
    return list;
  }
}
