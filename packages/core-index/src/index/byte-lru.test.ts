import { describe, expect, it } from 'vitest';
import { ByteLru } from './byte-lru.js';

describe('ByteLru: bounded in bytes, least recently used out first', () => {
  it('evicts the oldest first, a hit makes an entry the newest, and the bound holds after any mix', () => {
    const lru = new ByteLru<number>(100);
    for (let i = 0; i < 10; i++) lru.set(`k${i}`, i, 10);
    expect(lru.bytes).toBe(100);
    expect(lru.get('k0')).toBe(0); // k0 is now the newest
    lru.set('k10', 10, 10); // evicts k1, the oldest
    expect(lru.has('k1')).toBe(false);
    expect(lru.has('k0')).toBe(true);
    lru.set('k11', 11, 25); // evicts k2, k3, k4 (25 bytes over the bound needs three of 10)
    expect(['k2', 'k3', 'k4'].map((k) => lru.has(k))).toEqual([false, false, false]);
    expect(lru.has('k5')).toBe(true);
    expect(lru.bytes).toBeLessThanOrEqual(100);
    // after many moves and evictions the iterator still stands at the oldest: every survivor is among the newest
    for (let i = 0; i < 5000; i++) {
      lru.set(`m${i % 37}`, i, 7);
      if (i % 3 === 0) lru.get(`m${(i * 11) % 37}`);
      expect(lru.bytes).toBeLessThanOrEqual(100);
    }
    expect(lru.size).toBe(14);
  });

  it('never keeps a value over its entry bound, and replacing a key counts it once', () => {
    const lru = new ByteLru<string>(100, 30);
    lru.set('big', 'x', 31);
    expect(lru.has('big')).toBe(false);
    lru.set('a', 'one', 20);
    lru.set('a', 'two', 25);
    expect(lru.bytes).toBe(25);
    expect(lru.get('a')).toBe('two');
  });
});
