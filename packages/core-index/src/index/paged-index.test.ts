import { describe, expect, it } from 'vitest';
import { countedPagedDay } from '../testing/counted-day.js';
import { buildWithPages, CountingObjectStore, syntheticModels } from '../testing/scale.js';
import type { Address } from './blake3.js';
import { canonicalBytes } from './canonical-json.js';
import { IndexLoadError, loadIndex } from './index-store.js';
import type { MemoryIndex } from './memory-index.js';
import { MemoryObjectStore } from './memory-object-store.js';
import type { ObjectStore } from './object-store.js';
import { bucketOf, MODELS_PER_PAGE, modelsPageBytes, PAGE_KIND } from './page-layout.js';
import { openPagedIndex, type PagedIndex } from './paged-index.js';
import { POSITION_GAP } from './positions.js';
import { SORT_KEYS } from './search.js';
import type { IndexStore, ModelQuery } from './store-types.js';

const ids = (p: { models: { id: string }[] }) => p.models.map((m) => m.id);

async function both(n: number, store: ObjectStore = new MemoryObjectStore()) {
  const models = syntheticModels(n);
  const { catalog, pages } = await buildWithPages(store, models);
  const whole = (await loadIndex(store, catalog)) as MemoryIndex;
  const paged = await openPagedIndex(store, pages, catalog);
  return { models, store, catalog, pages, whole, paged };
}

describe('the paged store answers every look-up as the whole-index store (SYNTHETIC index of 400 models)', async () => {
  const t = await both(400);
  const all = t.whole.models();

  it('has the same totals, source kinds, day and catalog', () => {
    expect(t.paged.totals).toEqual({ ...t.whole.totals, listed: t.whole.totals.listed, holders: t.whole.totals.holders });
    expect(t.paged.sourceKinds()).toEqual(t.whole.sourceKinds());
    expect([t.paged.snapshot, t.paged.catalogAddress]).toEqual([t.whole.snapshot, t.whole.catalogAddress]);
    expect(t.paged.head().map((m) => m.id)).toEqual(all.slice(0, t.paged.head().length).map((m) => m.id));
  });

  it('finds every model by id in any case, with the same files, sources and row, and its position; nothing for an unknown id', async () => {
    for (const m of all) {
      const p = await t.paged.model(m.id.toUpperCase());
      // (a first day's positions: its ranks, 1 on, times the gap)
      expect({ id: p?.id, rank: p?.rank, files: p?.files, sources: p?.sources, row: p?.row, address: p?.address }).toEqual({
        id: m.id,
        rank: (m.rank + 1) * POSITION_GAP,
        files: m.files,
        sources: m.sources,
        row: m.row,
        address: m.address,
      });
    }
    expect(await t.paged.model('nobody/nothing')).toBeUndefined();
  });

  it('resolves dash aliases and digests as the whole store does', async () => {
    for (const m of all.filter((x) => x.owner.includes('.'))) {
      const alias = `${m.owner.replace(/\./g, '-')}/${m.name}`;
      expect((await t.paged.dashAlias(alias))?.id).toBe((await t.whole.dashAlias(alias))?.id);
    }
    for (const m of all.slice(0, 60)) {
      for (const f of m.files) {
        const want = (await t.whole.filesBySha256(f.sha256)).map((x) => [x.model.id, x.file.path]);
        expect((await t.paged.filesBySha256(f.sha256)).map((x) => [x.model.id, x.file.path])).toEqual(want);
      }
    }
  });

  it('pages through the repository names as the whole store does', async () => {
    for (const [last, n] of [
      [undefined, 7],
      ['synthetic-org-3', 50],
      ['zzz', 5],
      ['dotted', 1000],
    ] as const) {
      expect(await t.paged.names(last, n)).toEqual(await t.whole.names(last, n));
    }
  });

  it('answers every search page as the whole store, in every sort order and direction', async () => {
    const queries: ModelQuery[] = [
      {},
      { search: 'model-1' },
      { search: 'gguf' },
      { search: 'org-1 model' },
      { search: 'dotted.org' },
      { search: 'zz' },
      { author: 'synthetic-org-5' },
      { filter: ['t3'] },
      { filter: ['gguf', 't0'] },
      { pipeline_tag: 'fill-mask', library: 'transformers' },
      { listed: true },
      { listed: true, search: 'model-2' },
      { search: 'model-399' },
    ];
    for (const base of queries)
      for (const sort of [undefined, ...SORT_KEYS])
        for (const direction of [undefined, 1, -1] as const) {
          const q: ModelQuery = { ...base, ...(sort ? { sort } : {}), ...(direction ? { direction } : {}) };
          for (const [offset, limit] of [
            [0, 5],
            [3, 50],
            [390, 20],
          ] as const) {
            const want = await t.whole.search(q, offset, limit);
            const got = await t.paged.search(q, offset, limit);
            expect([ids(got), got.more], JSON.stringify({ q, offset, limit })).toEqual([ids(want), want.more]);
            if (got.total !== undefined) expect(got.total).toBe(want.total);
          }
        }
  });
});

describe('on an index of 10,000 SYNTHETIC models a request reads a bounded number of objects', async () => {
  const { models, catalog, pages, inner, store, fresh } = await countedPagedDay(10_000);

  it('lists the repository names through pages cut by the names, as the whole store does, each page read once', async () => {
    const index = await fresh();
    const whole = await loadIndex(inner, catalog);
    const count = index.root.names.pageCount as number;
    expect(count).toBeGreaterThan(1);
    store.reset();
    let last: string | undefined;
    let asked = 0;
    for (;;) {
      const page = await index.names(last, 997);
      expect(page, String(last)).toEqual(await whole.names(last, 997));
      asked++;
      if (!page.more) break;
      last = page.names.at(-1);
    }
    expect(asked).toBe(Math.ceil(models.length / 997));
    // each page read once, and at most a binary search's reads more (the pages are kept)
    expect(store.reads).toBeLessThanOrEqual(count + Math.ceil(Math.log2(count)) + 1);
  });

  it('opens on one read (the root), and a look-up by id reads its bucket and its models page', async () => {
    const index = await fresh();
    expect(store.reads).toBe(1);
    store.reset();
    const id = models[7211]?.id as string;
    const m = await index.model(id);
    expect(m?.id).toBe(id);
    expect(store.reads).toBeLessThanOrEqual(3);
    store.reset();
    // a first ask keeps nothing (a stream of one-off look-ups passes through the caches); the second keeps it warm
    expect(index.warm(id)).toBeUndefined();
    await index.model(id);
    expect(store.reads).toBeGreaterThan(0);
    store.reset();
    // warm: no read at all
    expect(index.warm(id.toUpperCase())?.id).toBe(id);
    await index.model(id);
    expect(store.reads).toBe(0);
  });

  it('a look-up reads its own model by range, not its models page, and checks it against its id entry', async () => {
    const index = await fresh();
    store.reset();
    const m = await index.model(models[4242]?.id as string);
    expect(m?.id).toBe(models[4242]?.id);
    // the id bucket whole, then one ranged read of the models page
    expect(store.ranges).toHaveLength(1);
    const [page, start, length] = store.ranges[0] as [string, number, number];
    const whole = (await inner.get(page as Address))?.bytes as Uint8Array;
    expect(length).toBeLessThan(whole.length / 2);
    const entry = JSON.parse(new TextDecoder().decode(whole.subarray(start, start + length)));
    expect(entry.id).toBe(models[4242]?.id);
    // a model whose bytes were changed in its page is refused, naming the page
    const lying = new Proxy(store, {
      get(target, prop) {
        if (prop !== 'readRange') return Reflect.get(target, prop);
        return (a: Address, s0: number, n: number) => {
          const bytes = (inner.readRange(a, s0, n) as Uint8Array).slice();
          bytes[10] = (bytes[10] as number) ^ 1;
          return bytes;
        };
      },
    });
    const damaged = await openPagedIndex(lying, pages, catalog);
    await expect(damaged.model(models[4242]?.id as string)).rejects.toThrow(
      `index page ${page}: the model at position ${4243 * POSITION_GAP}`,
    );
  });

  it('a digest look-up (an OCI blob by digest) reads its bucket and the holders’ models pages', async () => {
    const index = await fresh();
    store.reset();
    const sha = models[5001]?.files[1]?.sha256 as string;
    const found = await index.filesBySha256(sha);
    expect(found.map((x) => x.model.id)).toEqual([models[5000]?.id, models[5001]?.id]);
    expect(store.reads).toBeLessThanOrEqual(1 + 2 * 2);
  });

  it('a search that matches one model reads its terms and one models page; a browse page reads its models pages', async () => {
    const index = await fresh();
    store.reset();
    const one = await index.search({ search: models[6785]?.id }, 0, 20);
    expect(ids(one)).toEqual([models[6785]?.id]);
    // at most one bucket per term (4-grams of the word) and a few models pages
    expect(store.reads).toBeLessThanOrEqual(30);
    // the models pages that hold the last 50 (pages are cut by the ids, about 4 models each)
    const held = new Set<string>();
    const lister = await fresh();
    for (let rank = 9_950; rank < 10_000; rank++) held.add((await lister.modelsPage(rank)).address);
    expect(held.size).toBeLessThanOrEqual(Math.ceil(50 / MODELS_PER_PAGE) + 8);
    store.reset();
    const last = await index.search({}, 9_950, 50);
    expect(ids(last)).toEqual(models.slice(9_950).map((m) => m.id));
    // its models pages, and a directory page of the models list
    expect(store.reads).toBeLessThanOrEqual(held.size + 1);
    store.reset();
    const sorted = await index.search({ sort: 'downloads' }, 9_950, 50);
    expect(sorted.models).toHaveLength(50);
    expect(store.reads).toBeLessThanOrEqual(2 + 50);
  });

  it('shares a read under way between concurrent asks, unless told not to (the edge: one request per read)', async () => {
    // two models of one id bucket, asked at once over a store whose reads are promises
    const buckets = (await fresh()).root.ids.buckets;
    const first = models[7211]?.id as string;
    const inBucket = (id: string) => bucketOf(id.toLowerCase(), buckets);
    const other = models.find((m) => m.id !== first && inBucket(m.id) === inBucket(first))?.id as string;
    for (const [share, twice] of [
      [true, 0],
      [false, 1],
    ] as const) {
      const index = await openPagedIndex(store, pages, catalog, { sharePending: share });
      store.reset();
      const [a, b] = await Promise.all([index.model(first), index.model(other)]);
      expect([a?.id, b?.id]).toEqual([first, other]);
      // the bucket (and its directory, beyond 1,024 buckets) read once shared, once per ask unshared
      const read = store.addresses.filter((x) => !store.ranges.some((r) => r[0] === x));
      expect(read.length - new Set(read).size, `sharePending ${share}`).toBeGreaterThanOrEqual(twice);
      if (share) expect(read.length).toBe(new Set(read).size);
    }
  });

  it('reads the same number at 10,000 as at 400 models for a look-up (the cost does not grow with the index)', async () => {
    const small = await both(400, new CountingObjectStore(new MemoryObjectStore()));
    const counted = small.store as CountingObjectStore;
    const index = await openPagedIndex(counted, small.pages, small.catalog);
    counted.reset();
    await index.model(small.models[301]?.id as string);
    const smallReads = counted.reads;
    const big = await fresh();
    store.reset();
    await big.model(models[9301]?.id as string);
    expect(store.reads).toBeLessThanOrEqual(smallReads + 1);
  });
});

/** A store whose copy of one object has a byte flipped (as a disk or a bucket may damage it). */
function damaging(inner: ObjectStore, address: string): ObjectStore {
  return new Proxy(inner, {
    get(target, prop) {
      if (prop === 'get')
        return async (a: Address) => {
          const s = await target.get(a);
          if (!s || a !== address) return s;
          const bytes = s.bytes.slice();
          bytes[bytes.length - 3] = (bytes[bytes.length - 3] as number) ^ 1;
          return { ...s, bytes };
        };
      const v = Reflect.get(target, prop);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}

describe('the paged store’s caches hold at most cacheBytes together (SYNTHETIC index of 10,000 models)', async () => {
  const { models, catalog, pages, inner } = await countedPagedDay(10_000);

  it('after every model is looked up and memoised twice and every order browsed, its five caches sum to at most the bound', async () => {
    const bound = 1024 * 1024;
    const index = await openPagedIndex(inner, pages, catalog, { cacheBytes: bound });
    for (let round = 0; round < 2; round++) {
      for (const m of models.slice(0, 4_000)) {
        const found = await index.model(m.id);
        expect(found?.id).toBe(m.id);
        index.memo(`body:${m.id}`, () => new Uint8Array(600));
      }
      for (const sort of SORT_KEYS) await index.search({ sort } as ModelQuery, 0, 200);
      await index.search({ search: 'model-12' } as ModelQuery, 0, 50);
    }
    // filled: well past half the bound, and never past it (the parts were a quarter each of five: 5/4 of it)
    expect(index.cachedBytes()).toBeGreaterThan(bound / 2);
    expect(index.cachedBytes()).toBeLessThanOrEqual(bound);
  });
});

describe('a damaged index page is refused as any object is', () => {
  it('names the page that does not hash to its address, and a root of another catalog is refused', async () => {
    const store = new MemoryObjectStore();
    const { catalog, pages } = await buildWithPages(store, syntheticModels(40));
    const index: IndexStore = await openPagedIndex(store, pages, catalog);
    const root = (index as PagedIndex).root;
    const asked = syntheticModels(40).map((m) => m.id);
    // the bucket of a model not kept warm (the head is)
    const bucket = root.ids.pages?.[bucketOf(asked[30]?.toLowerCase() as string, root.ids.buckets)] as string;
    const damaged = await openPagedIndex(damaging(store, bucket), pages, catalog);
    const results = await Promise.allSettled(asked.map((id) => damaged.model(id)));
    const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult | undefined;
    expect(refused?.reason).toBeInstanceOf(IndexLoadError);
    expect(String(refused?.reason)).toContain(`index page ${bucket} does not hash to its address`);
    await expect(openPagedIndex(damaging(store, pages), pages, catalog)).rejects.toThrow(/do not hash to their address/);
    await expect(openPagedIndex(store, pages, 'blake3:'.concat('0'.repeat(64)) as Address)).rejects.toThrow(/derived from/);
  });
});

describe('a filter on the signature verdict (design 11.2)', () => {
  it('lists the same signed models from the pages as from the whole store', async () => {
    const store = new MemoryObjectStore();
    const models = syntheticModels(60).map((m, i) =>
      i % 7 === 2
        ? { ...m, signature: { status: i % 2 ? ('failed' as const) : ('verified' as const), method: 'key' as const, covered: 4 } }
        : m,
    );
    const { catalog, pages } = await buildWithPages(store, models);
    const whole = await loadIndex(store, catalog);
    const paged = await openPagedIndex(store, pages, catalog);
    for (const status of ['verified', 'failed']) {
      const q = { filter: [`signature:${status}`] };
      const want = (await whole.search(q, 0, 100)).models.map((m) => m.id);
      expect(want.length).toBeGreaterThan(0);
      expect((await paged.search(q, 0, 100)).models.map((m) => m.id)).toEqual(want);
    }
  });
});

describe("a models page assembled from its models' own bytes", () => {
  it('is byte for byte the canonical JSON of the page, and each model lies where its start says', () => {
    const models = [
      { id: 'a/b', n: 1, s: 'x"y\u00e9' },
      { id: 'c/d', list: [1, 2, { z: null }] },
      { id: 'e/f', deep: { b: 1, a: [] } },
    ];
    for (const some of [models, models.slice(0, 1), []]) {
      const entries = some.map((m) => canonicalBytes(m));
      // as version 4 writes it, and with its first rank as version 3 did
      for (const first of [undefined, 12]) {
        const { bytes, starts } = modelsPageBytes(first, entries, canonicalBytes);
        expect(new TextDecoder().decode(bytes)).toBe(
          new TextDecoder().decode(
            canonicalBytes({ kind: PAGE_KIND, role: 'models', ...(first === undefined ? {} : { first }), models: some }),
          ),
        );
        entries.forEach((e, k) => {
          expect(bytes.subarray(starts[k] as number, (starts[k] as number) + e.length)).toEqual(e);
        });
      }
    }
  });
});

describe('the sort orders by time, whatever form the times take', () => {
  it('lists by createdAt and lastModified as the whole store does, with times in toISOString form or not', async () => {
    // SYNTHETIC times in several forms: toISOString's, without milliseconds, with an offset, a date alone, none
    const forms = (ms: number, i: number) => {
      const iso = new Date(ms).toISOString();
      return [iso, iso.replace('.000Z', 'Z').replace(/\.\d{3}Z$/, 'Z'), iso.replace('Z', '+00:00'), iso.slice(0, 10), undefined][i % 5];
    };
    for (const mixed of [false, true]) {
      const models = syntheticModels(120).map((m, i) => {
        const row = { ...m.row } as Record<string, unknown>;
        if (mixed) {
          row.createdAt = forms(Date.UTC(2024, 0, 1) + ((i * 7_777_777) % 600_000_000), i);
          row.lastModified = forms(Date.UTC(2024, 0, 1) + ((i * 3_333_331) % 600_000_000), i + 2);
        } else if (i % 7 === 0) delete row.createdAt;
        for (const k of ['createdAt', 'lastModified']) if (row[k] === undefined) delete row[k];
        return { ...m, row: row as typeof m.row };
      });
      const store = new MemoryObjectStore();
      const { catalog, pages } = await buildWithPages(store, models);
      const whole = await loadIndex(store, catalog);
      const paged = await openPagedIndex(store, pages, catalog);
      for (const sort of ['createdAt', 'lastModified'] as const)
        for (const direction of [1, -1] as const) {
          const want = (await whole.search({ sort, direction }, 0, 120)).models.map((m) => m.id);
          const got = (await paged.search({ sort, direction }, 0, 120)).models.map((m) => m.id);
          expect(got, `${mixed ? 'mixed' : 'iso'} ${sort} ${direction}`).toEqual(want);
        }
    }
  });
});
