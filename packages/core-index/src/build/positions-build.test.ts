// Issue 39 (build side): the look-up pages name models by their positions (positions.ts), so a day that adds and
// removes a few models writes the id, digest, term and order pages that name them, not every page after them; and a
// day's pages are the same with the memo, without it, and with a memo the build cannot trust. SYNTHETIC models.
import { describe, expect, it } from 'vitest';
import { type Address, addressOf } from '../index/blake3.js';
import { MemoryObjectStore } from '../index/memory-object-store.js';
import type { ObjectStore } from '../index/object-store.js';
import type { PagesRoot, Postings } from '../index/page-layout.js';
import { openPagedIndex } from '../index/paged-index.js';
import type { ModelQuery } from '../index/store-types.js';
import { buildWithPages, syntheticModels } from '../testing/scale.js';
import { MEMO_REF } from './build-memo.js';
import type { BuildModelInput } from './builder.js';

const decoder = new TextDecoder();
const json = async <T>(store: ObjectStore, a: string) => JSON.parse(decoder.decode((await store.get(a as Address))?.bytes)) as T;

/** The look-up pages of a day by kind: id, digest and term buckets (with their postings segments), order pages. */
async function lookPages(store: ObjectStore, pages: string): Promise<Record<'ids' | 'shas' | 'terms' | 'orders', Set<string>>> {
  const root = await json<PagesRoot>(store, pages);
  const listed = async (l: { pages?: string[]; dirs?: string[] }) => {
    const out = [...(l.pages ?? [])];
    for (const d of l.dirs ?? []) out.push(...(await json<{ pages: string[] }>(store, d)).pages);
    return out;
  };
  const terms = new Set(await listed(root.terms));
  for (const t of [...terms])
    for (const p of Object.values((await json<{ entries: Record<string, Postings> }>(store, t)).entries))
      for (const s of p.s ?? []) terms.add(s);
  const orders = new Set<string>();
  for (const o of Object.values(root.orders)) for (const p of await listed(o)) orders.add(p);
  return { ids: new Set(await listed(root.ids)), shas: new Set(await listed(root.shas)), terms, orders };
}

const n = 3000;
const first = syntheticModels(n);
const added = (k: number): BuildModelInput => ({
  ...(first[k] as BuildModelInput),
  id: `synthetic-added/model-${k}`,
  files: (first[k] as BuildModelInput).files.map((f) => ({ ...f, sha256: `a${f.sha256.slice(1)}` })),
});
// two models added (near the top and in the middle) and one removed: every rank after the first of them moves
const second = [...first.slice(0, 10), added(10), ...first.slice(10, 1500), added(1500), ...first.slice(1500, 2200), ...first.slice(2201)];

describe('a day that adds and removes a few models', async () => {
  const store = new MemoryObjectStore();
  const day1 = await buildWithPages(store, first, '2026-12-01');
  const day2 = await buildWithPages(store, second, '2026-12-02');
  const [before, after] = [await lookPages(store, day1.pages), await lookPages(store, day2.pages)];
  const made = (k: keyof typeof before) => [...after[k]].filter((a) => !before[k].has(a)).length;

  it('writes the look-up pages that name the models added and removed, not every page after them', async () => {
    // ids: the three models' buckets, and those of the models whose models page was made again (a page of up to 16)
    expect(made('ids')).toBeLessThanOrEqual(3 + 6 * 16);
    expect(made('ids') * 4).toBeLessThan(after.ids.size);
    // digests: the buckets of the files of the three models (four files each)
    expect(made('shas')).toBeLessThanOrEqual(3 * 4);
    expect(made('shas') * 8).toBeLessThan(after.shas.size);
    // terms: the buckets of the three models' terms (their author, tags, task, library, 4-grams, short words)
    expect(made('terms') * 2).toBeLessThan(after.terms.size);
    // orders: each order's pages that held or now hold one of them (at this size an order is a few pages)
    expect(made('orders')).toBeLessThanOrEqual(11 * 3 * 2);
  });

  it('answers as a day built from scratch, and names the models it kept by the positions they had', async () => {
    const fresh = new MemoryObjectStore();
    const alone = await buildWithPages(fresh, second, '2026-12-02');
    const [kept, scratch] = [
      await openPagedIndex(store, day2.pages, day2.catalog),
      await openPagedIndex(fresh, alone.pages, alone.catalog),
    ];
    const was = await openPagedIndex(store, day1.pages, day1.catalog);
    for (const k of [0, 9, 10, 11, 1499, 1500, 1501, 2198, 2199, 2200, 2997]) {
      const id = (second[k] as BuildModelInput).id;
      const [a, b] = [await kept.model(id), await scratch.model(id)];
      expect(a?.address).toBe(b?.address);
      expect((await kept.modelAtRank(k)).id).toBe(id);
      const old = await was.model(id);
      if (old) expect(a?.rank, id).toBe(old.rank);
    }
    const ids = (p: { models: Array<{ id: string }> }) => p.models.map((m) => m.id);
    for (const q of [
      {},
      { sort: 'downloads' },
      { sort: 'createdAt', direction: 1 },
      { search: 'model-15' },
      { search: 'added' },
      { search: 'gguf', sort: 'likes' },
    ] as ModelQuery[])
      for (const [offset, limit] of [
        [0, 50],
        [1490, 30],
        [2990, 20],
      ] as const)
        expect(ids(await kept.search(q, offset, limit)), JSON.stringify([q, offset])).toEqual(ids(await scratch.search(q, offset, limit)));
    const sha = added(1500).files[0]?.sha256 as string;
    expect((await kept.filesBySha256(sha)).map((x) => x.model.id)).toEqual(['synthetic-added/model-1500']);
  });

  it('gives the same pages without the memo, and with a memo it cannot read', async () => {
    const without = new MemoryObjectStore();
    await buildWithPages(without, first, '2026-12-01');
    expect((await buildWithPages(without, second, '2026-12-02', { reuse: false })).pages).toBe(day2.pages);
    // the memo's root damaged: no memo; the positions are read from the last day's id buckets
    const damaged = new MemoryObjectStore();
    await buildWithPages(damaged, first, '2026-12-01');
    const memo = (await damaged.readRef(MEMO_REF)) as string;
    const bytes = (await damaged.get(memo as Address))?.bytes as Uint8Array;
    const lying = Object.assign(Object.create(damaged) as MemoryObjectStore, {
      get: async (a: Address) =>
        a === memo ? { ...(await damaged.get(a)), bytes: bytes.map((b, i) => (i === 3 ? b ^ 1 : b)) } : damaged.get(a),
    });
    expect(addressOf(bytes)).toBe(memo);
    expect((await buildWithPages(lying, second, '2026-12-02')).pages).toBe(day2.pages);
  });
});
