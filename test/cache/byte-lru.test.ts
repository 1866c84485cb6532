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

  it('keeps an entry read among the newer half, moving it only when it is not there already', () => {
    const lru = new ByteLru<number, number>(ENTRY_OVERHEAD * 1_000);
    for (let i = 0; i < 1_000; i++) lru.set(i, i, 0);
    const order = () => [...lru.keys()];
    expect(lru.get(10)).toBe(10); // among the oldest: moved to the end
    expect(order().at(-1)).toBe(10);
    expect(lru.get(900)).toBe(900); // among the newest already: left in place (no delete and re-add)
    expect(order().indexOf(900)).toBe(899);
    // Whatever the reads and writes, an entry just read has at most half the entries after it.
    let seed = 7;
    const next = () => (seed = (seed * 48_271) % 2_147_483_647);
    for (let step = 0; step < 20_000; step++) {
      const k = next() % 2_000;
      if (next() % 3 === 0) {
        lru.set(k, k, 0);
      } else if (lru.get(k) !== undefined) {
        const keys = order();
        expect(keys.length - 1 - keys.indexOf(k)).toBeLessThanOrEqual(keys.length >>> 1);
      }
    }
    // Evicting the older half (all but the newest half plus one) never takes an entry read since.
    const read = [...lru.keys()].slice(0, 10);
    for (const k of read) lru.get(k);
    lru.resize(ENTRY_OVERHEAD * ((lru.size >>> 1) + 1));
    for (const k of read) expect(lru.has(k)).toBe(true);
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
