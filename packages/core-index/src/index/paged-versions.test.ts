// Days whose index pages an earlier version wrote still open (page-layout.ts PAGES_VERSIONS_READ): each test writes
// the earlier form from a day built now (SYNTHETIC models) and asks the same look-ups of both.
import { describe, expect, it } from 'vitest';
import { buildWithPages, CountingObjectStore, syntheticModels } from '../testing/scale.js';
import type { Address } from './blake3.js';
import { canonicalBytes } from './canonical-json.js';
import { MemoryObjectStore } from './memory-object-store.js';
import type { ObjectStore } from './object-store.js';
import {
  bucketOf,
  type IdEntry,
  modelsPageBytes,
  PAGE_KIND,
  PAGES_KIND,
  type PagedEntry,
  type PagesRoot,
  type Postings,
} from './page-layout.js';
import { openPagedIndex, type PagedIndex } from './paged-index.js';
import type { ModelQuery } from './store-types.js';

const put = async (store: ObjectStore, kind: string, value: unknown) =>
  (await store.put(canonicalBytes(value), { kind, mediaType: 'application/json' })).meta.id as Address;

/**
 * A day of 60 models built now, and its models list written as version 3 wrote it: pages of 4 that say their first
 * rank, with each rank's page and where its model starts there.
 */
async function dayOf3(store: ObjectStore) {
  const models = syntheticModels(60);
  const { catalog, pages } = await buildWithPages(store, models);
  const now = (await openPagedIndex(store, pages, catalog)) as PagedIndex;
  const entries: Uint8Array[] = [];
  for await (const p of now.modelsPages())
    for (const e of (await now.page<{ models: PagedEntry[] }>(p.address)).models) entries.push(canonicalBytes(e));
  const list: string[] = [];
  const pageOf: string[] = [];
  const startOf: number[] = [];
  for (let first = 0; first < entries.length; first += 4) {
    const { bytes, starts } = modelsPageBytes(first, entries.slice(first, first + 4), canonicalBytes);
    const address = (await store.put(bytes, { kind: PAGE_KIND, mediaType: 'application/json' })).meta.id;
    list.push(address);
    for (const s of starts) {
      pageOf.push(address);
      startOf.push(s);
    }
  }
  // each id's entry of this day, by key, with its model's rank where this day names its position (versions before
  // 5 name ranks)
  const rankOf = new Map((now.root.models.positions as number[]).map((position, rank) => [position, rank]));
  const ids: Array<[string, IdEntry]> = [];
  for (const a of now.root.ids.pages ?? [])
    for (const [k, e] of Object.entries((await now.page<{ entries: Record<string, IdEntry> }>(a)).entries))
      ids.push([k, [e[0], rankOf.get(e[1]) as number, e[2], e[3], e[4], e[5]]]);
  const { headPositions: _, ...rest } = now.root;
  // (only the models list and the ids are written in the earlier form: these tests ask nothing else of them)
  const root = { ...rest, models: { per: 4, count: entries.length, pages: list } };
  return { models, catalog, now, root, ids, pageOf, startOf, rankOf };
}

/**
 * A day of 60 models built now, written as version 4 wrote it: the same models pages and list without positions, and
 * every look-up page naming ranks (ids, digests, terms), the orders in pages of up to 4,096 ranks.
 */
async function dayOf4(store: ObjectStore) {
  const { models, catalog, now, ids, rankOf } = await dayOf3(store);
  const ranks = (positions: number[]) => positions.map((p) => rankOf.get(p) as number);
  const { headPositions: _, ...rest } = now.root;
  const { positions: __, ...list } = now.root.models;
  const rewrite = async <T>(role: string, map: { buckets: number; pages?: string[] }, entry: (v: T) => unknown) => {
    const pages: string[] = [];
    for (const a of map.pages ?? []) {
      const { entries } = await now.page<{ entries: Record<string, T> }>(a);
      pages.push(
        await put(store, PAGE_KIND, {
          kind: PAGE_KIND,
          role,
          entries: Object.fromEntries(Object.entries(entries).map(([k, v]) => [k, entry(v)])),
        }),
      );
    }
    return { buckets: map.buckets, pages };
  };
  const orders: Record<string, unknown> = {};
  for (const [key, order] of Object.entries(now.root.orders)) {
    const items: number[] = [];
    for (const a of order.pages ?? []) items.push(...ranks((await now.page<{ items: number[] }>(a)).items));
    const page = await put(store, PAGE_KIND, { kind: PAGE_KIND, role: 'order', first: 0, items });
    orders[key] = { per: 4096, count: items.length, pages: [page] };
  }
  const root = {
    ...rest,
    version: 4,
    models: list,
    shas: await rewrite<number[]>('shas', now.root.shas, ranks),
    terms: await rewrite<Postings>('terms', now.root.terms, (p) => (p.r ? { ...p, r: ranks(p.r) } : p)),
    orders,
  };
  const v4 = await asVersion(store, catalog, root as PagesRoot, 4, ids);
  return { models, catalog, now, v4 };
}

/**
 * The day `root` (from {@link dayOf3}) as `version` wrote it, with these id entries in that version's buckets (as many
 * as the day built now has), opened.
 */
async function asVersion(
  store: ObjectStore,
  catalog: Address,
  root: PagesRoot,
  version: number,
  ids: ReadonlyArray<[string, unknown]>,
): Promise<PagedIndex> {
  const buckets = root.ids.buckets;
  const split: Array<Record<string, unknown>> = Array.from({ length: buckets }, () => ({}));
  for (const [key, entry] of ids) (split[bucketOf(key, buckets, version)] as Record<string, unknown>)[key] = entry;
  const pages: string[] = [];
  for (const entries of split) pages.push(await put(store, PAGE_KIND, { kind: PAGE_KIND, role: 'ids', entries }));
  return openPagedIndex(store, await put(store, PAGES_KIND, { ...root, version, ids: { buckets, pages } }), catalog);
}

describe('a day of pages of an earlier version still opens', () => {
  it('version 4: models pages cut by their ids, and the look-up pages naming ranks', async () => {
    const store = new MemoryObjectStore();
    const { models, now, v4 } = await dayOf4(store);
    for (const m of models) expect((await v4.model(m.id.toUpperCase()))?.id).toBe(m.id);
    expect((await v4.model(models[7]?.id as string))?.rank).toBe(7);
    for (const m of models.slice(0, 20))
      for (const f of m.files)
        expect((await v4.filesBySha256(f.sha256)).map((x) => x.model.id)).toEqual(
          (await now.filesBySha256(f.sha256)).map((x) => x.model.id),
        );
    const ids = (p: { models: Array<{ id: string }> }) => p.models.map((m) => m.id);
    for (const q of [
      {},
      { sort: 'downloads' },
      { sort: 'id', direction: 1 },
      { search: 'model-1' },
      { search: 'gguf', sort: 'likes' },
      { author: 'dotted.org-5' },
    ] as ModelQuery[])
      for (const [offset, limit] of [
        [0, 50],
        [10, 7],
      ] as const)
        expect(ids(await v4.search(q, offset, limit)), JSON.stringify(q)).toEqual(ids(await now.search(q, offset, limit)));
    expect((await v4.dashAlias('dotted-org-5/model-5'))?.id).toBe('dotted.org-5/model-5');
  });

  it('version 3: models pages of 4 that say their first rank; an id names its page, rank and bytes', async () => {
    const store = new CountingObjectStore(new MemoryObjectStore());
    const { models, catalog, now, root, ids, pageOf, startOf } = await dayOf3(store);
    const three = ids.map(([k, [, rank, , length, entry]]): [string, unknown] => [k, [pageOf[rank], rank, startOf[rank], length, entry]]);
    const v3 = await asVersion(store, catalog, root, 3, three);
    store.reset();
    for (const m of models) expect((await v3.model(m.id.toUpperCase()))?.id).toBe(m.id);
    // each model read by its own range of a page of 4
    expect(store.ranges.length).toBeGreaterThan(0);
    for (let rank = 0; rank < models.length; rank++) expect((await v3.modelAt(rank)).id).toBe((await now.modelAtRank(rank)).id);
    const listed = [];
    for await (const p of v3.modelsPages()) listed.push([p.address, p.first, p.size]);
    expect(listed).toEqual(root.models.pages.map((a, p) => [a, 4 * p, 4]));
    expect((await v3.search({}, 10, 20)).models.map((m) => m.id)).toEqual(models.slice(10, 30).map((m) => m.id));
    expect((await v3.dashAlias('dotted-org-5/model-5'))?.id).toBe('dotted.org-5/model-5');
  });

  it('version 2: an id names its models page and rank, and the look-up reads the page whole', async () => {
    const store = new CountingObjectStore(new MemoryObjectStore());
    const { models, catalog, root, ids, pageOf } = await dayOf3(store);
    const v2 = await asVersion(
      store,
      catalog,
      root,
      2,
      ids.map(([k, [, rank]]) => [k, [pageOf[rank], rank]]),
    );
    store.reset();
    for (const m of models) expect((await v2.model(m.id.toUpperCase()))?.id).toBe(m.id);
    expect(store.ranges).toHaveLength(0);
    expect((await v2.dashAlias('dotted-org-5/model-5'))?.id).toBe('dotted.org-5/model-5');
  });

  it('version 1: an id names its rank, bucketed by FNV-1a alone', async () => {
    const store = new MemoryObjectStore();
    const { models, catalog, root, ids } = await dayOf3(store);
    const v1 = await asVersion(
      store,
      catalog,
      root,
      1,
      ids.map(([k, [, rank]]) => [k, rank]),
    );
    for (const m of models) expect((await v1.model(m.id.toUpperCase()))?.id).toBe(m.id);
    expect(await v1.model('synthetic-org-1/none')).toBeUndefined();
    expect((await v1.dashAlias('dotted-org-5/model-5'))?.id).toBe('dotted.org-5/model-5');
    await expect(openPagedIndex(store, await put(store, PAGES_KIND, { ...root, version: 6 }), catalog)).rejects.toThrow(
      /version 1 or 2 or 3 or 4 or 5/,
    );
  });
});
