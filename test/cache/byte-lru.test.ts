import { describe, expect, it } from 'vitest';
import { ByteLru, ENTRY_OVERHEAD, stringBytes } from '../../src/cache/byte-lru.js';

describe('ByteLru', () => {
  it('never holds more than its bound, whatever is stored', () => {
    const lru = new ByteLru<string, string>(10_000);
    for (let i = 0; i < 100_000; i++) lru.set(`k${i}`, 'v', stringBytes(`k${i}`));
    expect(lru.bytes).toBeLessThanOrEqual(10_000);
    expect(lru.size).toBeGreaterThan(0);
    expect(lru.stats().evictions).toBe(100_000 - lru.size);
  });

  it('counts an empty value (a cached miss) as costing its overhead', () => {
    const lru = new ByteLru<number, null>(ENTRY_OVERHEAD * 3);
    for (let i = 0; i < 10; i++) lru.set(i, null, 0);
    expect(lru.size).toBe(3);
  });

  it('evicts the least recently used first', () => {
    const lru = new ByteLru<string, number>(ENTRY_OVERHEAD * 2);
    lru.set('a', 1, 0);
    lru.set('b', 2, 0);
    expect(lru.get('a')).toBe(1);
    lru.set('c', 3, 0);
    expect(lru.has('a')).toBe(true);
    expect(lru.has('b')).toBe(false);
  });

  it('keeps nothing that alone exceeds the bound, and reports evictions to onEvict', () => {
    const evicted: string[] = [];
    const lru = new ByteLru<string, number>(ENTRY_OVERHEAD + 10, (key) => evicted.push(key));
    expect(lru.set('big', 1, 11)).toBe(false);
    expect(lru.size).toBe(0);
    lru.set('a', 1, 5);
    lru.set('b', 2, 5);
    expect(evicted).toEqual(['a']);
    lru.resize(0);
    expect(lru.size).toBe(0);
    expect(lru.bytes).toBe(0);
  });
});
