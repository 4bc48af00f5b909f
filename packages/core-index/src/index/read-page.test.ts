// readAhead: a walk of pages in order with several reads in flight (index/read-page.ts).
import { describe, expect, it } from 'vitest';
import { readAhead } from './read-page.js';

describe('readAhead', () => {
  it('gives every item in order with its read, never more than `ahead` reads in flight', async () => {
    let inFlight = 0;
    let most = 0;
    const read = async (x: number) => {
      most = Math.max(most, ++inFlight);
      // later items finish first
      await new Promise((r) => setTimeout(r, (20 - x) % 7));
      inFlight--;
      return x * 10;
    };
    async function* items() {
      for (let x = 0; x < 20; x++) yield x;
    }
    const got: Array<[number, number]> = [];
    for await (const pair of readAhead(items(), read, 4)) got.push(pair);
    expect(got).toEqual(Array.from({ length: 20 }, (_, x) => [x, x * 10]));
    expect(most).toBe(4);
  });

  it("throws a read's failure when its item's turn comes, and starts no read after", async () => {
    const started: number[] = [];
    const read = async (x: number) => {
      started.push(x);
      if (x === 2) throw new Error('page 2 is damaged');
      return x;
    };
    const got: number[] = [];
    await expect(
      (async () => {
        for await (const [x] of readAhead([0, 1, 2, 3, 4, 5, 6, 7], read, 3)) got.push(x);
      })(),
    ).rejects.toThrow('page 2 is damaged');
    expect(got).toEqual([0, 1]);
    expect(Math.max(...started)).toBeLessThan(6);
  });
});
