// Security layer: limits failed logins per client address (never per a value the client chooses),
// so passwords cannot be guessed at speed. An attempt is counted before its password is hashed, so
// concurrent attempts cannot all slip under the limit; a success takes its own attempt back (it does
// not reset the count). State is bounded in bytes: the least recently active clients are forgotten.
import { isIPv4, isIPv6 } from 'node:net';
import { ByteLru, stringBytes } from '../cache/byte-lru.js';

export interface ThrottleLimits {
  readonly maxFailures: number;
  readonly windowMs: number;
  /** Bytes of throttle state kept at most (default 8 MiB: about 50,000 busy clients). */
  readonly maxBytes?: number;
}

const DEFAULT_LIMITS: ThrottleLimits = { maxFailures: 10, windowMs: 15 * 60_000 };
const DEFAULT_MAX_BYTES = 8 * 1024 * 1024;

/** Proof of a counted attempt, handed back with `succeeded`. */
export interface Attempt {
  readonly key: string;
  readonly at: number;
}

export type AttemptResult = { readonly ok: true; readonly attempt: Attempt } | { readonly ok: false; readonly retryAfter: number };

/**
 * The throttle key of an address: IPv6 clients by their /64 (one customer usually holds a whole /64,
 * so per-address keys would give them 2^64 budgets); IPv4, and IPv4-mapped IPv6, by the address.
 */
export function clientKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  if (isIPv4(address) || !isIPv6(address)) return address;
  const bare = address.split('%')[0]!.toLowerCase();
  const [head, tail] = bare.includes('::') ? bare.split('::') as [string, string] : [bare, undefined];
  const front = head === '' ? [] : head.split(':');
  const back = tail === undefined || tail === '' ? [] : tail.split(':');
  // An embedded IPv4 tail only touches the low 64 bits, which are dropped anyway.
  const groups = tail === undefined ? front : [...front, ...Array<string>(Math.max(0, 8 - front.length - back.length)).fill('0'), ...back];
  return `${groups.slice(0, 4).map((g) => (g === '' ? '0' : g.replace(/^0+(?=.)/, ''))).join(':')}::/64`;
}

export class LoginThrottle {
  readonly #failures: ByteLru<string, number[]>;
  readonly #limits: ThrottleLimits;

  constructor(limits: ThrottleLimits = DEFAULT_LIMITS, private readonly now: () => number = Date.now) {
    this.#limits = limits;
    this.#failures = new ByteLru(limits.maxBytes ?? DEFAULT_MAX_BYTES);
  }

  /** Seconds until the client may try again, or 0 when it may try now. */
  retryAfter(client: string): number {
    return this.#wait(this.#recent(clientKey(client)));
  }

  /**
   * Counts an attempt of `client` now, before its password is checked, or refuses it (with the
   * seconds to wait) when the client has used up its budget. Hand the attempt back on success.
   */
  attempt(client: string): AttemptResult {
    const key = clientKey(client);
    const list = this.#recent(key);
    const wait = this.#wait(list);
    if (wait > 0) return { ok: false, retryAfter: wait };
    const at = this.now();
    list.push(at);
    this.#store(key, list);
    return { ok: true, attempt: { key, at } };
  }

  /** The password was right (or never checked): the attempt is not a failure. */
  succeeded(attempt: Attempt): void {
    const list = this.#failures.peek(attempt.key);
    if (list === undefined) return;
    const i = list.indexOf(attempt.at);
    if (i >= 0) list.splice(i, 1);
    if (list.length === 0) this.#failures.delete(attempt.key);
  }

  /** Records one failure (kept for callers that check passwords without `attempt`). */
  fail(client: string): void {
    const key = clientKey(client);
    const list = this.#recent(key);
    list.push(this.now());
    this.#store(key, list);
  }

  get stats(): { clients: number; bytes: number } {
    return { clients: this.#failures.size, bytes: this.#failures.bytes };
  }

  #wait(list: readonly number[]): number {
    if (list.length < this.#limits.maxFailures) return 0;
    return Math.max(1, Math.ceil((list[list.length - this.#limits.maxFailures]! + this.#limits.windowMs - this.now()) / 1000));
  }

  #store(key: string, list: number[]): void {
    // The list never grows past maxFailures entries: older ones no longer decide anything.
    if (list.length > this.#limits.maxFailures) list.splice(0, list.length - this.#limits.maxFailures);
    this.#failures.set(key, list, stringBytes(key) + 32 + list.length * 8);
  }

  #recent(key: string): number[] {
    const since = this.now() - this.#limits.windowMs;
    const list = (this.#failures.get(key) ?? []).filter((t) => t > since);
    if (list.length === 0) this.#failures.delete(key);
    return list;
  }
}
