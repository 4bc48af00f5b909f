import { describe, expect, it } from 'vitest';
import { countedPagedDay } from '../testing/counted-day.js';
import type { Address } from './blake3.js';
import { openPagedIndex } from './paged-index.js';
import { READ_AHEAD } from './paged-search.js';

// The paged search's walk (paged-search.ts) on 10,000 SYNTHETIC models: bounded in reads, and read ahead over a store
// that answers with promises (R2).

const ids = (p: { models: { id: string }[] }) => p.models.map((m) => m.id);

describe('the walk of a paged search', async () => {
  const { models, catalog, pages, store, fresh } = await countedPagedDay(10_000);

  it('a search that no term bounds stops at its budget of reads, with more and no total', async () => {
    // 'zzz' is in no SYNTHETIC id and too short for a posting list: the search walks the browse order
    const unbounded = await fresh();
    store.reset();
    const all = await unbounded.search({ search: 'zzz' }, 0, 20);
    expect(all).toEqual({ models: [], more: false, total: 0 });
    expect(store.reads).toBeGreaterThan(2_000);
    store.reset();
    const bounded = await openPagedIndex(store, pages, catalog, { searchReadsMax: 100 });
    store.reset();
    const some = await bounded.search({ search: 'zzz' }, 0, 20);
    expect(some).toEqual({ models: [], more: true });
    expect(store.reads).toBeLessThanOrEqual(101);
    // a search its terms bound is not cut short
    expect(ids(await bounded.search({ search: models[6785]?.id }, 0, 20))).toEqual([models[6785]?.id]);
  });

  it('a search over a store that answers with promises keeps up to READ_AHEAD reads waiting at once, same answers', async () => {
    let inFlight = 0;
    let most = 0;
    const slow = new Proxy(store, {
      get(target, prop) {
        if (prop === 'get')
          return async (a: Address) => {
            most = Math.max(most, ++inFlight);
            await new Promise((r) => setTimeout(r, 1));
            inFlight--;
            return target.get(a);
          };
        if (prop === 'readBytes' || prop === 'readRange') return undefined;
        const v = Reflect.get(target, prop);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
    const index = await openPagedIndex(slow, pages, catalog);
    const sorted = await index.search({ sort: 'downloads', filter: ['t3'] }, 0, 20);
    const whole = await (await fresh()).search({ sort: 'downloads', filter: ['t3'] }, 0, 20);
    expect(ids(sorted)).toEqual(ids(whole));
    expect([sorted.more, sorted.total]).toEqual([whole.more, whole.total]);
    expect(most).toBeGreaterThan(1);
    expect(most).toBeLessThanOrEqual(READ_AHEAD);
  });
});
