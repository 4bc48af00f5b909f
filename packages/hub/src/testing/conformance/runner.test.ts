import { describe, expect, it } from 'vitest';
import { withRetries } from './runner.js';

describe('the conformance runner retries a request that was reset', () => {
  const flaky = (failures: number) => {
    let calls = 0;
    const attempt = async () => {
      calls++;
      if (calls <= failures) throw new Error(`reset ${calls}`);
      return `answer after ${calls}`;
    };
    return { attempt, calls: () => calls };
  };

  it('answers at the first try without a pause', async () => {
    const f = flaky(0);
    expect(await withRetries(f.attempt, [5_000, 5_000])).toBe('answer after 1');
    expect(f.calls()).toBe(1);
  });

  it('tries once more after each pause', async () => {
    const f = flaky(2);
    expect(await withRetries(f.attempt, [20, 40])).toBe('answer after 3');
    expect(f.calls()).toBe(3);
  });

  it('gives up after the last pause with the last error', async () => {
    const f = flaky(10);
    await expect(withRetries(f.attempt, [1, 1])).rejects.toThrow('reset 3');
    expect(f.calls()).toBe(3);
  });
});
