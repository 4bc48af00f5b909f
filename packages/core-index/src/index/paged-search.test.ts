import { describe, expect, it, vi } from 'vitest';
import { countedPagedDay } from '../testing/counted-day.js';
import { buildWithPages, syntheticModels } from '../testing/scale.js';
import type { Address } from './blake3.js';
import { canonicalBytes } from './canonical-json.js';
import { IndexPagesWriter } from './index-pages.js';
import { loadIndex } from './index-store.js';
import { MemoryObjectStore } from './memory-object-store.js';
import { PAGES_KIND, type PagedEntry } from './page-layout.js';
import { openPagedIndex } from './paged-index.js';
import { MAX_ID_CHARS, READ_AHEAD } from './paged-search.js';

// The paged search's walk (paged-search.ts) on 10,000 SYNTHETIC models: bounded in reads, and read ahead over a store
// that answers with promises (R2).

const ids = (p: { models: { id: string }[] }) => p.models.map((m) => m.id);

describe('the walk of a paged search', async () => {
  const { catalog, pages, store, inner, fresh } = await countedPagedDay(10_000);

  it('a word of three characters reads the grams that hold it, not the order: every match and its total within the edge budget', async () => {
    const whole = await loadIndex(inner, catalog);
    // '999' is in about twenty ids spread over the browse order; 'zzz' in none
    for (const [search, sort] of [
      ['999', undefined],
      ['999', 'downloads'],
      ['zzz', undefined],
      ['999 model', undefined],
    ] as const) {
      const q = { search, ...(sort ? { sort } : {}) } as const;
      const expected = await whole.search(q, 0, 50);
      const index = await openPagedIndex(store, pages, catalog, { searchReadsMax: 600 });
      store.reset();
      const got = await index.search(q, 0, 50);
      expect(ids(got), search).toEqual(ids(expected));
      expect([got.more, got.total], search).toEqual([expected.more, expected.total]);
      // at most two 4-grams per character of the ids (about 30 here) and the matches' models pages
      expect(store.reads, search).toBeLessThanOrEqual(150);
    }
    expect((await whole.search({ search: '999' }, 0, 50)).total).toBeGreaterThan(10);
  });

  it('a common word of three characters in another order walks that order: its first page is right within the budget', async () => {
    const whole = await loadIndex(inner, catalog);
    const q = { search: 'org', sort: 'downloads' as const };
    const index = await openPagedIndex(store, pages, catalog, { searchReadsMax: 600 });
    store.reset();
    const got = await index.search(q, 0, 50);
    expect(ids(got)).toEqual(ids(await whole.search(q, 0, 50)));
    expect(got.more).toBe(true);
    expect(store.reads).toBeLessThanOrEqual(600);
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

describe('words of three characters', async () => {
  // SYNTHETIC ids chosen for the edges of the gram rule: an id of three characters (no 4-gram holds it), a word at
  // an id's start and end, characters beyond ASCII, and a day written before the root recorded its ids' characters.
  const base = syntheticModels(40);
  const odd = ['a/b', 'ab/c', 'xa/b', 'Übü/cöde', 'q/zab', 'zab/q'];
  const models = [...base, ...odd.map((id, i) => ({ ...(base[i] as (typeof base)[number]), id }))];
  const inner = new MemoryObjectStore();
  const { catalog, pages } = await buildWithPages(inner, models);
  const whole = await loadIndex(inner, catalog);

  it('the paged store answers as the whole store for every three-character word, in both orders', async () => {
    const index = await openPagedIndex(inner, pages, catalog);
    expect(index.root.idChars).toContain('/');
    expect(index.root.idChars).toContain('ü');
    const words = ['a/b', 'b/c', 'zab', 'ab/', '/q', 'übü', 'öde', 'b/c', 'del', '-1-', 'l-3', 'xyz', 'A/B'];
    for (const search of words)
      for (const sort of [undefined, 'downloads', 'id'] as const) {
        const q = { search, ...(sort ? { sort } : {}) };
        const [got, expected] = [await index.search(q, 0, 100), await whole.search(q, 0, 100)];
        expect(ids(got), `${search} ${sort}`).toEqual(ids(expected));
        expect([got.more, got.total], `${search} ${sort}`).toEqual([expected.more, expected.total]);
      }
    expect(ids(await index.search({ search: 'a/b' }, 0, 10))).toContain('a/b');
  });

  it('a day whose ids use more than MAX_ID_CHARS characters walks the order: same answers, no term read per character', async () => {
    const scripts = Array.from({ length: MAX_ID_CHARS + 10 }, (_, i) => String.fromCharCode(0x4e00 + i));
    const many = scripts.map((c, i) => ({ ...(base[i % base.length] as (typeof base)[number]), id: `cjk/${c}${c}${c}-${i}` }));
    const store = new MemoryObjectStore();
    const day = await buildWithPages(store, [...base, ...many]);
    const index = await openPagedIndex(store, day.pages, day.catalog);
    expect(index.root.idChars?.length).toBeGreaterThan(MAX_ID_CHARS);
    const wholeMany = await loadIndex(store, day.catalog);
    const looked = vi.spyOn(index, 'postings');
    const word = `${scripts[3]}${scripts[3]}-`;
    const got = await index.search({ search: word }, 0, 20);
    expect(ids(got)).toEqual(ids(await wholeMany.search({ search: word }, 0, 20)));
    expect(ids(got)).toEqual([`cjk/${scripts[3]}${scripts[3]}${scripts[3]}-3`]);
    // the walk of the order, not a term look-up for each of 2 × 168 grams
    expect(looked).not.toHaveBeenCalled();
  });

  it("a day whose root does not record its ids' characters still finds them by walking the order", async () => {
    const stored = await inner.get(pages);
    const { idChars: _, ...older } = JSON.parse(new TextDecoder().decode(stored?.bytes)) as Record<string, unknown>;
    const put = await inner.put(canonicalBytes(older), { kind: PAGES_KIND, mediaType: 'application/json' });
    const index = await openPagedIndex(inner, put.meta.id as Address, catalog);
    expect(index.root.idChars).toBeUndefined();
    for (const search of ['a/b', 'zab', 'öde'])
      expect(ids(await index.search({ search }, 0, 100)), search).toEqual(ids(await whole.search({ search }, 0, 100)));
  });
});

describe('a search sorted by trending score in memory (SYNTHETIC models, some without a score, some below zero)', () => {
  it('orders the models without a score among the scored ones as the whole store does, both ways, whatever their positions', async () => {
    const models = syntheticModels(40).map((m, i) => ({
      ...m,
      row: { ...m.row, trendingScore: i % 3 === 0 ? undefined : i % 3 === 1 ? -(i % 4) : i % 5 },
    }));
    const store = new MemoryObjectStore();
    const { catalog, pages } = await buildWithPages(store, models);
    // the same day's pages with the models at positions far apart (as a day after many insertions may give them)
    const entries: PagedEntry[] = [];
    for await (const p of (await openPagedIndex(store, pages, catalog)).modelsPages())
      entries.push(
        ...(JSON.parse(new TextDecoder().decode((await store.get(p.address as Address))?.bytes)) as { models: PagedEntry[] }).models,
      );
    const w = new IndexPagesWriter(store);
    for (const [i, e] of entries.entries()) await w.add(e, e.row.id.toLowerCase(), undefined, undefined, 100_000_000 * (i + 1));
    const far = await openPagedIndex(store, await w.finish(catalog, '2026-11-28'), catalog);
    const whole = await loadIndex(store, catalog);
    expect((await far.model(models[39]?.id as string))?.rank).toBe(4_000_000_000);
    // a word few ids hold: its candidates are sorted in memory
    for (const direction of [-1, 1] as const) {
      const q = { search: 'model-1', sort: 'trendingScore', direction } as const;
      expect(ids(await far.search(q, 0, 50)), String(direction)).toEqual(ids(await whole.search(q, 0, 50)));
    }
  });
});
