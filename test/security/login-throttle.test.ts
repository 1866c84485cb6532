// Unit tests of the login throttle (issue 13 points 2 and 3): attempts counted before the check,
// successes given back, IPv6 keyed per /64, and the state bounded in bytes under a flood of clients.
import { describe, expect, it } from 'vitest';
import { clientKey, LoginThrottle } from '../../src/security/login-throttle.js';

describe('clientKey', () => {
  it('keys IPv4 by address, IPv4-mapped IPv6 as IPv4, and IPv6 by its /64', () => {
    expect(clientKey('192.0.2.1')).toBe('192.0.2.1');
    expect(clientKey('::ffff:192.0.2.1')).toBe('192.0.2.1');
    expect(clientKey('2001:db8:0:1::1')).toBe('2001:db8:0:1::/64');
    expect(clientKey('2001:0db8:0000:0001:ffff:ffff:ffff:ffff')).toBe('2001:db8:0:1::/64');
    expect(clientKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(clientKey('::1')).toBe('0:0:0:0::/64');
    expect(clientKey('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
  });
});

describe('LoginThrottle', () => {
  it('counts attempts before the check and takes successes back', () => {
    const throttle = new LoginThrottle({ maxFailures: 3, windowMs: 60_000 });
    const attempts = [throttle.attempt('10.0.0.1'), throttle.attempt('10.0.0.1'), throttle.attempt('10.0.0.1')];
    expect(attempts.every((a) => a.ok)).toBe(true);
    expect(throttle.attempt('10.0.0.1')).toMatchObject({ ok: false });
    if (attempts[0]!.ok) throttle.succeeded(attempts[0]!.attempt);
    expect(throttle.attempt('10.0.0.1').ok).toBe(true);
    expect(throttle.attempt('10.0.0.1').ok).toBe(false);
  });

  it('keeps its state under maxBytes whatever the number of clients', () => {
    const maxBytes = 32 * 1024;
    const throttle = new LoginThrottle({ maxFailures: 10, windowMs: 60_000, maxBytes });
    for (let i = 0; i < 20_000; i++) throttle.fail(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
    expect(throttle.stats.bytes).toBeLessThanOrEqual(maxBytes);
    expect(throttle.stats.clients).toBeGreaterThan(0);
    expect(throttle.stats.clients).toBeLessThan(20_000);
  });
});
