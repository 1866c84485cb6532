// Shop layer: per-client rate limits for the writes anyone can repeat without credentials (creating
// carts and wishlists, placing orders). A fixed one-minute window per client address; the addresses
// remembered are bounded (a ByteLru charging each the same slot), so a flood from many addresses costs
// at most `clients` entries: beyond that the least recently seen are forgotten (and start afresh).
import { ByteLru, ENTRY_OVERHEAD, stringBytes } from '../cache/byte-lru.js';
import { PetalError } from '../errors.js';

const WINDOW_MS = 60_000;
/** What one remembered client costs: its window object and an address of up to 64 characters. */
const SLOT_BYTES = 32 + stringBytes('x'.repeat(64));

/** 429 `tooManyRequests`, with `retryAfter` as the Retry-After header. */
export class RateLimited extends PetalError {
  constructor(readonly retryAfter: number, message: string) {
    super('tooManyRequests', message, { retryAfterSeconds: retryAfter });
  }
}

export class RateLimit {
  readonly #windows: ByteLru<string, { start: number; count: number }>;

  /** `what`: the writes counted, as the error message names them (`carts created`). */
  constructor(readonly perMinute: number, clients: number, readonly what: string) {
    this.#windows = new ByteLru(clients * (ENTRY_OVERHEAD + SLOT_BYTES));
  }

  /** Clients currently remembered. */
  get clients(): number {
    return this.#windows.size;
  }

  /** Counts one write of `client`, or throws RateLimited when its minute's allowance is used up. */
  take(client: string, now = Date.now()): void {
    let w = this.#windows.get(client);
    if (w === undefined || now - w.start >= WINDOW_MS) {
      w = { start: now, count: 0 };
      // Longer keys (never an IP address) are charged what they hold, so the bound stays in bytes.
      this.#windows.set(client, w, Math.max(SLOT_BYTES, 32 + stringBytes(client)));
    }
    if (w.count >= this.perMinute) {
      const wait = Math.max(1, Math.ceil((w.start + WINDOW_MS - now) / 1000));
      throw new RateLimited(wait, `At most ${this.perMinute} ${this.what} per minute from one client; retry in ${wait} s`);
    }
    w.count++;
  }
}
