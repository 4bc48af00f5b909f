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

  it('with secondAsk, keeps a key from its second offer: one-off keys pass through and push nothing out', () => {
    const lru = new ByteLru<number>(100, 100, { secondAsk: true });
    expect(lru.set('hot', 1, 10)).toBe(false);
    expect(lru.has('hot')).toBe(false);
    expect(lru.set('hot', 1, 10)).toBe(true);
    expect(lru.get('hot')).toBe(1);
    // 10,000 keys offered once each leave the kept key where it was
    for (let i = 0; i < 10_000; i++) expect(lru.set(`once-${i}`, i, 50)).toBe(false);
    expect(lru.get('hot')).toBe(1);
    expect(lru.bytes).toBe(10);
    // a kept key is replaced at once; keep() bypasses the rule
    expect(lru.set('hot', 2, 10)).toBe(true);
    expect(lru.keep('start', 3, 10)).toBe(true);
    expect(lru.get('start')).toBe(3);
    // numbers are keys too
    const byNumber = new ByteLru<string, number>(100, 100, { secondAsk: true });
    byNumber.set(7, 'a', 1);
    byNumber.set(8, 'b', 1);
    byNumber.set(7, 'a', 1);
    expect([byNumber.has(7), byNumber.has(8)]).toEqual([true, false]);
  });
});
