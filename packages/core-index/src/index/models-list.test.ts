// A rank's models page in a day's models list (models-list.ts), for lists written by layout 4 (pages of their own
// sizes, inline or in directories with their first ranks) and by layout 3 (per pages of `per`).
import { describe, expect, it } from 'vitest';
import { type ListDir, type ModelsPageAt, modelsPageOf, modelsPagesOf } from './models-list.js';
import type { ModelsList } from './page-layout.js';

/** SYNTHETIC page sizes of 1 to 16, and their addresses `p0`, `p1`, … */
const sizes = Array.from({ length: 40 }, (_, p) => 1 + ((p * 7) % 16));
const pages = sizes.map((_, p) => `p${p}`);
const count = sizes.reduce((n, s) => n + s, 0);

/** Each rank's page as a walk of the sizes gives it. */
function expected(): ModelsPageAt[] {
  const out: ModelsPageAt[] = [];
  let first = 0;
  for (const [p, size] of sizes.entries()) {
    for (let k = 0; k < size; k++) out.push({ address: `p${p}`, first, size });
    first += size;
  }
  return out;
}

/** The list in directories cut after pages 9, 10 and 29 (a directory of one page among them). */
function inDirs(): { list: ModelsList; dirs: Map<string, ListDir>; reads: string[] } {
  const cuts = [0, 10, 11, 30, 40];
  const dirs = new Map<string, ListDir>();
  const firsts: number[] = [];
  for (let d = 0; d + 1 < cuts.length; d++) {
    const from = cuts[d] as number;
    const to = cuts[d + 1] as number;
    dirs.set(`d${d}`, { pages: pages.slice(from, to), sizes: sizes.slice(from, to) });
    firsts.push(sizes.slice(0, from).reduce((n, s) => n + s, 0));
  }
  return { list: { per: 4, count, dirs: [...dirs.keys()], firsts }, dirs, reads: [] };
}

describe('a models list of layout 4', () => {
  it('finds every rank in pages listed inline, at once', () => {
    const list: ModelsList = { per: 4, count, pages, sizes };
    const want = expected();
    for (let rank = 0; rank < count; rank++)
      expect(
        modelsPageOf(list, 4, rank, () => ({ pages: [] })),
        `rank ${rank}`,
      ).toEqual(want[rank]);
  });

  it('finds every rank through its directory, reading that directory alone', async () => {
    const { list, dirs } = inDirs();
    const want = expected();
    for (let rank = 0; rank < count; rank++) {
      const read: string[] = [];
      const at = await modelsPageOf(list, 4, rank, (a) => {
        read.push(a);
        return dirs.get(a) as ListDir;
      });
      expect(at, `rank ${rank}`).toEqual(want[rank]);
      expect(read).toHaveLength(1);
    }
  });

  it('walks every page in order with its first rank and size', async () => {
    const { list, dirs } = inDirs();
    const walked: ModelsPageAt[] = [];
    for await (const p of modelsPagesOf(list, 4, async (a) => dirs.get(a) as ListDir)) walked.push(p);
    expect(walked).toEqual(expected().filter((p, rank, all) => rank === 0 || all[rank - 1]?.address !== p.address));
  });

  it('refuses a rank outside the list', () => {
    const { list, dirs } = inDirs();
    for (const rank of [-1, count, count + 5, 1.5, Number.NaN])
      expect(() => modelsPageOf(list, 4, rank, (a) => dirs.get(a) as ListDir), `rank ${rank}`).toThrow(RangeError);
  });
});

describe('a models list of layout 3 (pages of `per`)', () => {
  it('finds a rank by division, inline and through directories of 1,024 pages', async () => {
    const many = Array.from({ length: 2_100 }, (_, p) => `q${p}`);
    const list: ModelsList = { per: 4, count: 4 * 2_100 - 3, dirs: ['a', 'b', 'c'] };
    const dir = (a: string): ListDir => ({ pages: many.slice('abc'.indexOf(a) * 1024, ('abc'.indexOf(a) + 1) * 1024) });
    expect(await modelsPageOf(list, 3, 4 * 1_500 + 2, dir)).toEqual({ address: 'q1500', first: 6_000, size: 4 });
    expect(await modelsPageOf(list, 3, list.count - 1, dir)).toEqual({ address: 'q2099', first: 8_396, size: 1 });
    expect(modelsPageOf({ per: 4, count: 10, pages: ['x', 'y', 'z'] }, 3, 9, dir)).toEqual({ address: 'z', first: 8, size: 2 });
    const walked: ModelsPageAt[] = [];
    for await (const p of modelsPagesOf(list, 3, dir)) walked.push(p);
    expect(walked).toHaveLength(2_100);
    expect(walked[1_024]).toEqual({ address: 'q1024', first: 4_096, size: 4 });
  });
});
