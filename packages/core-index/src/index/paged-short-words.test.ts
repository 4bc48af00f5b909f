import { describe, expect, it } from 'vitest';
import { countedPagedDay, olderRoot } from '../testing/counted-day.js';
import { loadIndex } from './index-store.js';
import { openPagedIndex } from './paged-index.js';
import { POSITION_GAP } from './positions.js';
import { SHORT_GRAM_LIST_MAX } from './term-pages.js';

// Search words of one or two characters on a paged day of 10,000 SYNTHETIC models (term-pages.ts `s:` terms,
// paged-search.ts): a rare word is found from its list, an absent one at once, a common one by walking the order; and
// a walk that its budget stops ends the list instead of linking to empty pages for ever.

const ids = (p: { models: { id: string }[] }) => p.models.map((m) => m.id);

describe('search words of one or two characters', async () => {
  const { models, catalog, pages, store, inner, fresh } = await countedPagedDay(10_000);
  const whole = await loadIndex(inner, catalog);
  const holding = (w: string) => models.filter((m) => m.id.toLowerCase().includes(w)).length;

  it('the terms list the words few ids hold, count the ones many hold, and have none for a word no id holds', async () => {
    const index = await fresh();
    expect(index.root.shortGrams).toBe(SHORT_GRAM_LIST_MAX);
    // '.' and 'd.' only in the dotted owners (about one id in 97), 'gg' in every third id ('-GGUF'), 'mo' in all
    for (const w of ['.', 'd.', 'gg', 'u']) {
      const p = await index.postings(`s:${w}`);
      expect(p?.n, w).toBe(holding(w));
      expect(p?.r?.length, w).toBe(holding(w));
      // each model by its position (a first day's: its rank, 1 on, times the gap)
      expect(p?.r, w).toEqual(models.flatMap((m, rank) => (m.id.toLowerCase().includes(w) ? [(rank + 1) * POSITION_GAP] : [])));
    }
    expect(holding('mo')).toBeGreaterThan(SHORT_GRAM_LIST_MAX);
    expect(await index.postings('s:mo')).toEqual({ n: holding('mo') });
    expect(await index.postings('s:zz')).toBeUndefined();
  });

  it('every such word answers as the whole store in three orders; a rare or absent one reads a few pages', async () => {
    for (const search of ['zz', 'z', 'd.', '.', 'gg', 'gg 7', 'mo', 'o', '-9', 'gg d.', 'D.'])
      for (const sort of [undefined, 'downloads', 'id'] as const) {
        const q = { search, ...(sort ? { sort } : {}) };
        const index = await openPagedIndex(store, pages, catalog, { searchReadsMax: 600 });
        store.reset();
        const got = await index.search(q, 0, 50);
        const expected = await whole.search(q, 0, 50);
        expect(ids(got), `${search} ${sort}`).toEqual(ids(expected));
        expect(got.more, `${search} ${sort}`).toBe(expected.more);
        // a total when the search knows it (a walk of the order stops at its page; a few candidates are all tested)
        if (got.total !== undefined) expect(got.total, `${search} ${sort}`).toBe(expected.total);
        if (sort && (expected.total ?? 0) < 100) expect(got.total, `${search} ${sort}`).toBe(expected.total);
        // the term's bucket and the models pages of the page's matches (51 at most), not the 2,500 pages of the order
        if (!sort && ['zz', 'z', 'd.', '.'].includes(search)) expect(store.reads, search).toBeLessThanOrEqual(70);
      }
    // the rare word's later pages, and its total
    const index = await fresh();
    const later = await index.search({ search: 'd.' }, 50, 100);
    expect(ids(later)).toEqual(ids(await whole.search({ search: 'd.' }, 50, 100)));
    expect(later.total).toBe(holding('d.'));
    // one short word alone: its total is its term's count, also when the walk stops at the page
    for (const w of ['mo', 'gg', 'G']) expect((await index.search({ search: w }, 0, 10)).total, w).toBe(holding(w.toLowerCase()));
  });

  it('a walk its budget stops goes on in the next page from where it stopped, never from the start', async () => {
    // a day written before the short words' terms: 'zz' walks the whole browse order
    const older = await olderRoot(inner, pages, 'shortGrams');
    const unbounded = await openPagedIndex(store, older, catalog);
    store.reset();
    expect(await unbounded.search({ search: 'zz' }, 0, 20)).toEqual({ models: [], more: false, total: 0 });
    expect(store.reads).toBeGreaterThan(2_000);
    const bounded = await openPagedIndex(store, older, catalog, { searchReadsMax: 100 });
    store.reset();
    const first = await bounded.search({ search: 'zz' }, 0, 20);
    expect(store.reads).toBeLessThanOrEqual(101);
    // an empty page, and where the walk stopped: the next page goes on there (before: the same walk again, for ever)
    expect(first.models).toEqual([]);
    expect(first.more).toBe(true);
    expect(first.after).toBeGreaterThan(100);
    const second = await bounded.search({ search: 'zz' }, 0, 20, first.after);
    expect(second.after).toBeGreaterThan(first.after as number);
    // a common word's page past what the budget reaches, asked by offset alone (a link of an older hub): the walk
    // cannot know how many matches lie before it, so the list ends there
    const far = await bounded.search({ search: 'gg' }, 3_000, 20);
    expect(far).toEqual({ models: [], more: false });
    // a page the budget reaches is the whole store's
    const near = await bounded.search({ search: 'gg' }, 20, 20);
    expect(ids(near)).toEqual(ids(await whole.search({ search: 'gg' }, 20, 20)));
    expect(near.more).toBe(true);
    // in another order, more candidates than the budget walk that order: its first matches, in its order (before: the
    // candidates the budget reached, sorted, which were not the first)
    const listed = await openPagedIndex(store, pages, catalog, { searchReadsMax: 100 });
    expect(holding('d.')).toBeGreaterThan(100);
    const sorted = await listed.search({ search: 'd.', sort: 'downloads' }, 0, 50);
    const firsts = ids(await whole.search({ search: 'd.', sort: 'downloads' }, 0, 50));
    expect(sorted.models.length).toBeGreaterThan(0);
    expect(ids(sorted)).toEqual(firsts.slice(0, sorted.models.length));
    // a search its terms bound is not cut short
    expect(ids(await bounded.search({ search: models[6785]?.id }, 0, 20))).toEqual([models[6785]?.id]);
  });

  it('following the pages of a walk lists every match once, in order, each page within its budget', async () => {
    const older = await olderRoot(inner, pages, 'shortGrams');
    // pages the budget fills (the next goes on from the first match past it) and pages it stops (from where it stopped)
    const cases = [
      { root: older, q: { search: 'zz' }, limit: 200 }, // no match: the walk crosses the whole order a budget at a time
      { root: older, q: { search: 'gg' }, limit: 30 }, // a match in every third id, in the browse order
      { root: pages, q: { search: 'mo', sort: 'id' as const }, limit: 60 }, // in every id: another order's pages, walked
      { root: pages, q: { search: 'gg', sort: 'downloads' as const, direction: 1 as const }, limit: 20 },
      { root: pages, q: { search: 'd.', sort: 'downloads' as const }, limit: 50 }, // more candidates than the budget
    ];
    for (const { root, q, limit } of cases) {
      const label = JSON.stringify(q);
      const index = await openPagedIndex(store, root, catalog, { searchReadsMax: 100 });
      const all = await whole.search(q, 0, models.length);
      const got: string[] = [];
      let at: { offset: number; from?: number } = { offset: 0 };
      let last: Awaited<ReturnType<typeof index.search>> | undefined;
      for (let page = 0; page < 1_000; page++) {
        store.reset();
        last = await index.search(q, at.offset, limit, at.from);
        // a page reads its budget and the page of the model it stopped at, whatever its depth
        expect(store.reads, `${label} page ${page}`).toBeLessThanOrEqual(103);
        got.push(...ids(last));
        if (!last.more) break;
        if (at.from !== undefined && last.after !== undefined) expect(last.after, label).toBeGreaterThan(at.from);
        at = { offset: at.offset + last.models.length, from: last.after };
      }
      expect(last?.more, label).toBe(false);
      expect(got, label).toEqual(ids(all));
      // the last page of a walk that went to the end counts every match
      if (last?.total !== undefined) expect(last.total, label).toBe(all.total);
    }
  });

  it('a long walk over pages read at once lets other work run between its steps', async () => {
    const older = await olderRoot(inner, pages, 'shortGrams');
    const index = await openPagedIndex(inner, older, catalog);
    let done = false;
    let ranDuring = false;
    setImmediate(() => {
      ranDuring = !done;
    });
    expect((await index.search({ search: 'zz' }, 0, 20)).total).toBe(0);
    done = true;
    expect(ranDuring).toBe(true);
  });
});
