import { describe, expect, it } from 'vitest';
import { cacheBudget, SERVER_CACHE_BYTES } from './cache-budget.js';

describe('the cache budget', () => {
  it('shares one total out: half to the index, a fifth each to answers and objects, a tenth to rows, never more than the total', () => {
    for (const total of [1, 1000, 131_072, 48 * 2 ** 20, SERVER_CACHE_BYTES, 7_777_777]) {
      const b = cacheBudget(total);
      expect(b.index + b.answers + b.objects + b.rows).toBeLessThanOrEqual(total);
      expect(b.total).toBe(total);
    }
    expect(cacheBudget(SERVER_CACHE_BYTES)).toEqual({
      total: 134_217_728,
      index: 67_108_864,
      answers: 26_843_545,
      objects: 26_843_545,
      rows: 13_421_772,
    });
  });

  it('refuses a total that is not a positive number', () => {
    for (const bad of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) expect(() => cacheBudget(bad)).toThrow(RangeError);
  });
});
