import { describe, expect, it } from 'vitest';
import { MEMO_CHUNK_KIND, MEMO_KIND } from '../build/build-memo.js';
import { type BuildModelInput, buildIndex, readArchive } from '../build/builder.js';
import { LOG_TILE_KIND } from '../tlog/log-store.js';
import { type Address, addressOf } from './blake3.js';
import { CATALOG_SHARD_KIND, CatalogReadError, readCatalog, splitCatalog } from './catalog-shards.js';
import { IndexLoadError, loadIndex, type WholeIndexStore } from './index-store.js';
import { MemoryObjectStore } from './memory-object-store.js';
import type { ObjectStore } from './object-store.js';
import { type CatalogObject, CatalogObjectSchema, CatalogShardSchema } from './schemas.js';
import { searchModels } from './search.js';

// SYNTHETIC models (made-up ids and hashes, not real data): enough rows that a lowered limit gives many shards.
function syntheticModels(n: number, changed = -1): BuildModelInput[] {
  return Array.from({ length: n }, (_, i) => {
    const hex = (i + (i === changed ? 100_000 : 0)).toString(16).padStart(8, '0');
    return {
      id: `bench-org-${i % 7}/model-${i}`,
      revision: hex.repeat(5),
      license: 'mit',
      files: [
        { path: 'README.md', size: 100 + i, sha256: hex.repeat(8) },
        { path: `model-${i}-Q4_K_M.gguf`, size: 1_000 + i, sha256: `${hex}${'f'.repeat(56)}` },
      ],
      row: { downloads: n - i, likes: i % 13, trendingScore: n - i, tags: ['gguf', `t${i % 5}`], pipeline_tag: 'text-generation' },
      sources: [{ source: 'mirror-a', type: 'http' as const }],
    };
  });
}

const LIMIT = 16 * 1024;
const text = new TextDecoder();

async function objectJson(store: MemoryObjectStore, address: string): Promise<unknown> {
  const stored = await store.get(address as Address);
  if (!stored) throw new Error(`missing ${address}`);
  expect(addressOf(stored.bytes)).toBe(address);
  return JSON.parse(text.decode(stored.bytes));
}

function view(index: WholeIndexStore) {
  return index.models().map((m) => ({ id: m.id, address: m.address, sources: m.sourceAddresses, row: m.row, rank: m.rank }));
}

describe('catalog shards (a catalog over the message limit is a root plus content-addressed shards)', () => {
  it('a small catalog stays one object with no shards', async () => {
    const store = new MemoryObjectStore();
    const built = await buildIndex(store, { date: '2026-11-24', models: syntheticModels(5) });
    const root = CatalogObjectSchema.parse(await objectJson(store, built.catalog));
    expect(root.shards).toBeUndefined();
    expect(root.rows).toHaveLength(5);
  });

  it('build → load: every row verifies from the one catalog address down, and the hub sees the same index', async () => {
    const models = syntheticModels(300);
    const plain = new MemoryObjectStore();
    const whole = await buildIndex(plain, { date: '2026-11-24', models });
    const sharded = new MemoryObjectStore();
    const built = await buildIndex(sharded, { date: '2026-11-24', models, catalogLimit: LIMIT });

    // The root: no rows of its own, shards named by BLAKE3 address, itself under the limit.
    const rootBytes = (await sharded.get(built.catalog))?.bytes as Uint8Array;
    expect(rootBytes.length).toBeLessThanOrEqual(LIMIT);
    const root = CatalogObjectSchema.parse(await objectJson(sharded, built.catalog));
    expect(root.rows).toEqual([]);
    expect(root.objects).toEqual({});
    expect(root.shards?.length).toBeGreaterThan(3);
    expect((await sharded.meta(built.catalog))?.kind).toBe('model-hub.catalog');

    // Walk it as a client would: every shard hashes to the address the root names, parses, fits the limit.
    const rows: CatalogObject['rows'] = [];
    const entries: CatalogObject['objects'] = {};
    for (const ref of root.shards ?? []) {
      const shard = CatalogShardSchema.parse(await objectJson(sharded, ref.address));
      expect((await sharded.get(ref.address as Address))?.bytes.length).toBeLessThanOrEqual(LIMIT);
      expect((await sharded.meta(ref.address as Address))?.kind).toBe(CATALOG_SHARD_KIND);
      expect(shard.rows).toHaveLength(ref.models);
      rows.push(...shard.rows);
      Object.assign(entries, shard.objects);
    }
    // ... and down to every row: its model object and sources hash to the addresses the shard names.
    for (const row of rows) {
      const entry = entries[row.id];
      expect(entry?.model).toBe(row.svc.manifest);
      const model = (await objectJson(sharded, entry?.model as string)) as { id: string };
      expect(model.id).toBe(row.id);
      for (const s of entry?.sources ?? []) await objectJson(sharded, s);
    }
    // The joined rows and objects are the unsharded catalog's.
    const one = CatalogObjectSchema.parse(await objectJson(plain, whole.catalog));
    expect(rows).toEqual(one.rows);
    expect(entries).toEqual(one.objects);
    const joined = await readCatalog(sharded, built.catalog);
    expect(joined.rows).toEqual(one.rows);
    expect(joined.objects).toEqual(one.objects);

    // Loaded, the hub sees the same models in the same order and answers searches the same.
    const a = await loadIndex(plain, whole.catalog);
    const b = await loadIndex(sharded, built.catalog);
    expect(view(b)).toEqual(view(a));
    expect(b.catalogAddress).toBe(built.catalog);
    for (const q of [{ search: 'model-1' }, { search: 'org-3', sort: 'downloads' as const }, { filter: ['t2'], limit: 10 }]) {
      expect(searchModels(b, q).map((m) => m.id)).toEqual(searchModels(a, q).map((m) => m.id));
    }
    expect((await loadIndex(sharded, built.catalog, { verified: true })).models().map((m) => m.id)).toEqual(a.models().map((m) => m.id));
  });

  it('a flipped bit in one shard is caught on load; a missing shard refuses the load', async () => {
    const store = new MemoryObjectStore();
    const built = await buildIndex(store, { date: '2026-11-24', models: syntheticModels(200), catalogLimit: LIMIT });
    const root = CatalogObjectSchema.parse(await objectJson(store, built.catalog));
    const victim = root.shards?.[2]?.address as Address;
    const stored = await store.get(victim);
    if (!stored) throw new Error('no shard');
    const at = text.decode(stored.bytes).indexOf('model-') + 6;
    stored.bytes[at] = (stored.bytes[at] as number) ^ 1; // behind the hub's back
    await expect(loadIndex(store, built.catalog)).rejects.toBeInstanceOf(IndexLoadError);
    await expect(loadIndex(store, built.catalog)).rejects.toThrow(`shard 2 ${victim} does not hash to its address`);
    await expect(readCatalog(store, built.catalog)).rejects.toBeInstanceOf(CatalogReadError);

    const other = new MemoryObjectStore();
    const again = await buildIndex(other, { date: '2026-11-24', models: syntheticModels(200), catalogLimit: LIMIT });
    expect(again.catalog).toBe(built.catalog); // deterministic: the same input gives the same addresses
    // The same store with that shard gone.
    const partial: ObjectStore = Object.assign(Object.create(other) as ObjectStore, {
      get: async (a: Address) => (a === victim ? undefined : other.get(a)),
    });
    await expect(loadIndex(partial, built.catalog)).rejects.toThrow(/is missing from the object store/);
  });

  it('the archive chain holds: day two chains to day one, and one changed model changes few shards', async () => {
    const store = new MemoryObjectStore();
    const day1 = await buildIndex(store, { date: '2026-11-23', models: syntheticModels(300), catalogLimit: LIMIT });
    const day2 = await buildIndex(store, { date: '2026-11-24', models: syntheticModels(300, 150), catalogLimit: LIMIT });
    const root1 = CatalogObjectSchema.parse(await objectJson(store, day1.catalog));
    const root2 = CatalogObjectSchema.parse(await objectJson(store, day2.catalog));
    expect(root1.prev).toBeNull();
    expect(root2.prev).toBe(day1.catalog);
    const archive = await readArchive(store);
    expect(archive.days.map((d) => [d.date, d.index, d.prev])).toEqual([
      ['2026-11-24', day2.catalog, day1.catalog],
      ['2026-11-23', day1.catalog, null],
    ]);
    expect(await store.readRef('current')).toBe(day2.catalog);
    // Content-defined boundaries: the changed model's shard is new, the others are shared with day one.
    const one = new Set(root1.shards?.map((s) => s.address));
    const fresh = (root2.shards ?? []).filter((s) => !one.has(s.address));
    expect(root2.shards?.length).toBeGreaterThan(3);
    expect(fresh.length).toBeLessThanOrEqual(2);
    const loaded = await loadIndex(store, day2.catalog);
    expect(loaded.warm('bench-org-3/model-150')?.object.revision).toBe((150 + 100_000).toString(16).padStart(8, '0').repeat(5));
    expect((await loadIndex(store, day1.catalog)).warm('bench-org-3/model-150')?.object.revision).toBe(
      (150).toString(16).padStart(8, '0').repeat(5),
    );
  });

  it('splitCatalog refuses a row that alone passes the limit', () => {
    const catalog: CatalogObject = {
      kind: 'model-hub.catalog',
      date: '2026-11-24',
      rows: [
        { id: 'a/b', svc: { manifest: `blake3:${'0'.repeat(64)}`, files: 0, weight_bytes: 0, sources: [] }, tags: ['x'.repeat(500)] },
      ] as never,
      objects: {},
      prev: null,
    };
    expect(() => splitCatalog(catalog, 300)).toThrow(/over the shard limit/);
  });
});

describe('rebuilds over a sharded catalog (issue 18, build speed)', () => {
  it("a changed model chains to yesterday's object and unchanged ones are not put again, as with one catalog object", async () => {
    for (const catalogLimit of [undefined, LIMIT]) {
      const store = new MemoryObjectStore();
      const day1 = await buildIndex(store, { date: '2026-11-24', models: syntheticModels(300), ...(catalogLimit ? { catalogLimit } : {}) });
      const yesterday = await readCatalog(store, day1.catalog);
      let puts = 0; // objects written (created)
      const counting: ObjectStore = Object.assign(Object.create(store) as ObjectStore, {
        put: async (...args: Parameters<ObjectStore['put']>) => {
          const r = await store.put(...args);
          // the log's grown tiles and the build memo's objects are not the index's objects
          if (r.created && args[1].kind !== LOG_TILE_KIND && args[1].kind !== MEMO_KIND && args[1].kind !== MEMO_CHUNK_KIND) puts++;
          return r;
        },
      });
      const day2 = await buildIndex(counting, {
        date: '2026-11-25',
        models: syntheticModels(300, 42),
        ...(catalogLimit ? { catalogLimit } : {}),
      });
      const today = await readCatalog(store, day2.catalog);
      const id = 'bench-org-0/model-42';
      const changed = (await objectJson(store, today.objects[id]?.model as string)) as { prev: string };
      expect(changed.prev).toBe(yesterday.objects[id]?.model);
      expect(today.objects['bench-org-1/model-43']).toEqual(yesterday.objects['bench-org-1/model-43']);
      // the changed model's model and source objects, and the catalog (its root and at most two shards when sharded)
      expect(puts).toBeGreaterThanOrEqual(3);
      expect(puts).toBeLessThanOrEqual(catalogLimit ? 2 + 1 + 2 : 3);
    }
  });

  it("reads yesterday's model object only for models that changed at some point; the chain is the same as reading every one", async () => {
    const store = new MemoryObjectStore();
    const counted = new Set<string>(); // model objects named by day 1's or day 2's catalog
    let reads = 0;
    const counting: ObjectStore = Object.assign(Object.create(store) as ObjectStore, {
      get: async (address: Address) => {
        if (counted.has(address)) reads++;
        return store.get(address);
      },
    });
    const day1 = await buildIndex(counting, { date: '2026-11-24', models: syntheticModels(50) });
    const c1 = await readCatalog(store, day1.catalog);
    for (const e of Object.values(c1.objects)) counted.add(e.model);
    // day 2: model 7 changed; the 49 others are unchanged since day 1 (their objects' prev is null): no read. Nor for
    // model 7: the build memo knows its object's prev (without the memo it is read, day 3 below)
    reads = 0;
    const day2 = await buildIndex(counting, { date: '2026-11-25', models: syntheticModels(50, 7) });
    expect(reads).toBe(0);
    const c2 = await readCatalog(store, day2.catalog);
    for (const e of Object.values(c2.objects)) counted.add(e.model);
    const id7 = 'bench-org-0/model-7';
    expect(c2.objects[id7]?.model).not.toBe(c1.objects[id7]?.model);
    expect(((await objectJson(store, c2.objects[id7]?.model as string)) as { prev: string }).prev).toBe(c1.objects[id7]?.model);
    // day 3: nothing changed since day 2. Without the build memo, model 7's object has a prev, so it alone is read; it
    // keeps day 2's object. With the memo (the default), no model object is read at all, and the day is the same.
    reads = 0;
    const day3 = await buildIndex(counting, { date: '2026-11-26', models: syntheticModels(50, 7), reuse: false });
    expect(reads).toBe(1);
    const c3 = await readCatalog(store, day3.catalog);
    expect(c3.objects).toEqual(c2.objects);
    reads = 0;
    expect((await buildIndex(counting, { date: '2026-11-26', models: syntheticModels(50, 7) })).catalog).toBe(day3.catalog);
    expect(reads).toBe(0);
    // day 4: model 7 back as on day 1. Its object chains to day 3's (a new object: content as day 1's, prev day 3's).
    const day4 = await buildIndex(counting, { date: '2026-11-27', models: syntheticModels(50) });
    const c4 = await readCatalog(store, day4.catalog);
    expect(((await objectJson(store, c4.objects[id7]?.model as string)) as { prev: string }).prev).toBe(c3.objects[id7]?.model);
    for (const id of Object.keys(c1.objects)) if (id !== id7) expect(c4.objects[id]).toEqual(c1.objects[id]);
  });
});
