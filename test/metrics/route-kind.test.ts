// The `route` label's kind of a path: a prefix counts only up to a segment boundary.
import { describe, expect, it } from 'vitest';
import { kindOfPattern } from '../../src/metrics/route-kind.js';

describe('kindOfPattern', () => {
  it('matches a prefix whole or followed by a slash, the longest first', () => {
    expect(kindOfPattern('/.rest')).toBe('delivery');
    expect(kindOfPattern('/.rest/delivery/pages/a')).toBe('delivery');
    expect(kindOfPattern('/.rest/nodes/v1')).toBe('nodes');
    expect(kindOfPattern('/.rest/nodes/v1/website/a')).toBe('nodes');
    expect(kindOfPattern('/.rest/import/v1')).toBe('import');
    expect(kindOfPattern('/shop/v1/carts')).toBe('shop');
    expect(kindOfPattern('/.health')).toBe('ops');
  });

  it('does not match a prefix that goes on within a segment', () => {
    expect(kindOfPattern('/.restful')).toBe('other');
    expect(kindOfPattern('/.rest/nodes/v1x/a')).toBe('delivery');
    expect(kindOfPattern('/.healthz')).toBe('other');
    expect(kindOfPattern('/shop/v10')).toBe('other');
    expect(kindOfPattern('/')).toBe('other');
    expect(kindOfPattern('')).toBe('other');
  });
});
