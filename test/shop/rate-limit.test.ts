// The shop's per-client rate limit: a fixed one-minute window per client, and a bounded number of
// clients remembered whatever the flood of distinct addresses.
import { describe, expect, it } from 'vitest';
import { RateLimit, RateLimited } from '../../src/shop/rate-limit.js';

describe('RateLimit', () => {
  it('allows perMinute writes per client and window, then throws RateLimited with the seconds left', () => {
    const limit = new RateLimit(3, 100, 'carts created');
    for (let i = 0; i < 3; i++) limit.take('a', 1_000);
    const err = (() => { try { limit.take('a', 15_000); } catch (e) { return e; } return undefined; })();
    expect(err).toBeInstanceOf(RateLimited);
    expect((err as RateLimited).retryAfter).toBe(46);
    expect((err as RateLimited).code).toBe('tooManyRequests');
    limit.take('b', 15_000); // another client
    limit.take('a', 61_000); // the next window
  });

  it('remembers at most `clients` addresses under a flood of distinct ones (IPv6 and longer keys too)', () => {
    const limit = new RateLimit(1, 100, 'orders');
    for (let i = 0; i < 20_000; i++) {
      limit.take(i % 2 === 0 ? `2001:db8::${i.toString(16)}` : `client-${'x'.repeat(i % 300)}-${i}`, 0);
      expect(limit.clients).toBeLessThanOrEqual(100);
    }
    expect(limit.clients).toBeGreaterThan(10); // long keys cost more, IP addresses one slot each
    const fresh = new RateLimit(1, 100, 'orders');
    for (let i = 0; i < 1000; i++) fresh.take(`198.51.100.${i}`, 0);
    expect(fresh.clients).toBe(100);
  });
});
