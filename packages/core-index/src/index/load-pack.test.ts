import { describe, expect, it } from 'vitest';
import { type Address, addressOf } from './blake3.js';
import { buildIndex } from './builder.js';
import { IndexLoadError, type IndexStore, LOAD_PACK_KIND, LOAD_PACK_REF, loadIndex } from './index-store.js';
import { MemoryObjectStore } from './memory-object-store.js';
import type { ObjectStore } from './object-store.js';
import { searchModels } from './search.js';

// SYNTHETIC models (made-up ids and hashes).
const models = Array.from({ length: 60 }, (_, i) => {
  const hex = i.toString(16).padStart(8, '0');
  return {
    id: `synthetic-org-${i % 4}/model-${i}`,
    revision: hex.repeat(5),
    files: [
      { path: 'config.json', size: 10 + i, sha256: hex.repeat(8) },
      { path: `model-${i}-Q4_K_M.gguf`, size: 1000 + i, sha256: `${hex}${'e'.repeat(56)}` },
    ],
    row: { downloads: 60 - i, tags: ['gguf', `t${i % 3}`] },
    sources: [
      { source: 'mirror-a', type: 'http' as const },
      { source: 'mirror-b', type: 'http' as const, paths: ['config.json'] },
    ],
  };
});

/** The store, counting reads of each object. */
function counting(store: ObjectStore) {
  const reads = new Map<string, number>();
  const wrapped: ObjectStore = Object.assign(Object.create(store) as ObjectStore, {
    get: async (a: Address) => {
      reads.set(a, (reads.get(a) ?? 0) + 1);
      return store.get(a);
    },
  });
  return { wrapped, reads };
}

function view(index: IndexStore) {
  return index.models().map((m) => ({ id: m.id, address: m.address, object: m.object, sources: m.sources, row: m.row, rank: m.rank }));
}

describe('the load pack: a start on a verified catalog reads one prepared object', () => {
  it('is written by a load, read by the next verified load instead of every object, with the same index', async () => {
    const store = new MemoryObjectStore();
    const built = await buildIndex(store, { date: '2026-11-24', models });
    const first = await loadIndex(store, built.catalog, { pack: true });
    const ref = (await store.readRef(LOAD_PACK_REF))?.split(' ');
    expect(ref?.[0]).toBe(built.catalog);
    expect((await store.meta(ref?.[1] as Address))?.kind).toBe(LOAD_PACK_KIND);

    const { wrapped, reads } = counting(store);
    const second = await loadIndex(wrapped, built.catalog, { verified: true, pack: true });
    expect([...reads.keys()].sort()).toEqual([built.catalog, ref?.[1]].sort()); // the catalog and the pack, nothing else
    expect(view(second)).toEqual(view(first));
    expect(searchModels(second, { search: 'model-1', filter: ['t1'] }).map((m) => m.id)).toEqual(
      searchModels(first, { search: 'model-1', filter: ['t1'] }).map((m) => m.id),
    );
    // Without `pack` (the edge), or on a load that is not trusted, every object is read as before.
    const plain = counting(store);
    await loadIndex(plain.wrapped, built.catalog, { verified: true });
    expect(plain.reads.size).toBeGreaterThan(60);
  });

  it('a damaged pack makes the load verify everything in full: a corrupted object is then refused', async () => {
    const store = new MemoryObjectStore();
    const built = await buildIndex(store, { date: '2026-11-24', models });
    const first = await loadIndex(store, built.catalog, { pack: true });
    const packAddress = (await store.readRef(LOAD_PACK_REF))?.split(' ')[1] as Address;
    const pack = await store.get(packAddress);
    if (!pack) throw new Error('no pack');
    pack.bytes[pack.bytes.length - 3] = (pack.bytes[pack.bytes.length - 3] as number) ^ 1; // behind the hub's back
    expect(addressOf(pack.bytes)).not.toBe(packAddress);
    // Objects intact: the full verification passes and gives the same index.
    const { wrapped, reads } = counting(store);
    expect(view(await loadIndex(wrapped, built.catalog, { verified: true, pack: true }))).toEqual(view(first));
    expect(reads.size).toBeGreaterThan(60);
    // A model object flipped too: the full verification refuses it.
    const victim = first.models()[7]?.address as Address;
    const stored = await store.get(victim);
    if (!stored) throw new Error('no model');
    stored.bytes[20] = (stored.bytes[20] as number) ^ 1;
    await expect(loadIndex(store, built.catalog, { verified: true, pack: true })).rejects.toBeInstanceOf(IndexLoadError);
  });

  it('a pack for another catalog is not used', async () => {
    const store = new MemoryObjectStore();
    const day1 = await buildIndex(store, { date: '2026-11-23', models });
    await loadIndex(store, day1.catalog, { pack: true });
    const day2 = await buildIndex(store, { date: '2026-11-24', models: models.slice(0, 30) });
    const second = await loadIndex(store, day2.catalog, { verified: true, pack: true });
    expect(second.models()).toHaveLength(30);
    expect((await store.readRef(LOAD_PACK_REF))?.split(' ')[0]).toBe(day2.catalog);
  });
});
