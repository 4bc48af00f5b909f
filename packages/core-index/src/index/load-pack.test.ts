import { describe, expect, it } from 'vitest';
import { type Address, addressOf } from './blake3.js';
import { buildIndex } from './builder.js';
import { IndexLoadError, type IndexStore, type LoadPackStorage, loadIndex } from './index-store.js';
import { MemoryObjectStore } from './memory-object-store.js';
import type { ObjectStore } from './object-store.js';
import { searchModels } from './search.js';
import { LOAD_PACK_KIND, StartPack } from './start-pack.js';

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

/** A pack storage in memory (node-server's is one file in the data folder), counting writes. */
function packStorage() {
  let bytes: Uint8Array | undefined;
  let writes = 0;
  const storage: LoadPackStorage = {
    read: async () => bytes,
    write: async (b) => {
      writes++;
      bytes = b;
    },
  };
  return { storage, bytes: () => bytes, writes: () => writes };
}

/** The pack's body (after the line holding its address). */
function packBody(bytes: Uint8Array | undefined) {
  if (!bytes) throw new Error('no pack');
  const newline = bytes.indexOf(10);
  return { address: new TextDecoder().decode(bytes.subarray(0, newline)), body: bytes.subarray(newline + 1) };
}

function view(index: IndexStore) {
  return index.models().map((m) => ({ id: m.id, address: m.address, object: m.object, sources: m.sources, row: m.row, rank: m.rank }));
}

describe('the load pack: a start on a verified catalog reads one prepared blob', () => {
  it('is written by a load, read by the next verified load instead of every object, with the same index', async () => {
    const store = new MemoryObjectStore();
    const built = await buildIndex(store, { date: '2026-11-24', models });
    const pack = packStorage();
    const objectsBefore = (await store.list({ limit: 1000 })).items.length;
    const first = await loadIndex(store, built.catalog, { pack: pack.storage });
    const { address, body } = packBody(pack.bytes());
    expect(addressOf(body)).toBe(address);
    expect(JSON.parse(new TextDecoder().decode(body))).toMatchObject({ kind: LOAD_PACK_KIND, catalog: built.catalog });
    // Local start state, never an object of the store (never listed, served or published).
    expect((await store.list({ limit: 1000 })).items.length).toBe(objectsBefore);

    const { wrapped, reads } = counting(store);
    const second = await loadIndex(wrapped, built.catalog, { verified: true, pack: pack.storage });
    expect([...reads.keys()]).toEqual([built.catalog]); // the catalog and the pack, nothing else
    expect(pack.writes()).toBe(1); // a load from the pack does not write it again
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
    const pack = packStorage();
    const first = await loadIndex(store, built.catalog, { pack: pack.storage });
    const bytes = pack.bytes() as Uint8Array;
    bytes[bytes.length - 3] = (bytes[bytes.length - 3] as number) ^ 1; // behind the hub's back
    const { address, body } = packBody(bytes);
    expect(addressOf(body)).not.toBe(address);
    // Objects intact: the full verification passes and gives the same index (and writes a sound pack again).
    const { wrapped, reads } = counting(store);
    expect(view(await loadIndex(wrapped, built.catalog, { verified: true, pack: pack.storage }))).toEqual(view(first));
    expect(reads.size).toBeGreaterThan(60);
    const again = packBody(pack.bytes());
    expect(addressOf(again.body)).toBe(again.address);
    // A damaged pack again, and a model object flipped too: the full verification refuses it.
    const rewritten = pack.bytes() as Uint8Array;
    rewritten[rewritten.length - 3] = (rewritten[rewritten.length - 3] as number) ^ 1;
    const victim = first.models()[7]?.address as Address;
    const stored = await store.get(victim);
    if (!stored) throw new Error('no model');
    stored.bytes[20] = (stored.bytes[20] as number) ^ 1;
    await expect(loadIndex(store, built.catalog, { verified: true, pack: pack.storage })).rejects.toBeInstanceOf(IndexLoadError);
  });

  it('a pack for another catalog is not used, and the next one replaces it', async () => {
    const store = new MemoryObjectStore();
    const pack = packStorage();
    const day1 = await buildIndex(store, { date: '2026-11-23', models });
    await loadIndex(store, day1.catalog, { pack: pack.storage });
    const day2 = await buildIndex(store, { date: '2026-11-24', models: models.slice(0, 30) });
    const { wrapped, reads } = counting(store);
    const second = await loadIndex(wrapped, day2.catalog, { verified: true, pack: pack.storage });
    expect(second.models()).toHaveLength(30);
    expect(reads.size).toBeGreaterThan(30); // read object by object
    expect(JSON.parse(new TextDecoder().decode(packBody(pack.bytes()).body)).catalog).toBe(day2.catalog);
    expect(pack.writes()).toBe(2);
  });

  it('a pack for another catalog on a trusted load means a full check: a corrupted object is refused', async () => {
    const store = new MemoryObjectStore();
    const pack = packStorage();
    const day1 = await buildIndex(store, { date: '2026-11-23', models });
    await loadIndex(store, day1.catalog, { pack: pack.storage });
    const day2 = await buildIndex(store, { date: '2026-11-24', models: models.map((m) => ({ ...m, license: 'mit' })) });
    const victim = (await loadIndex(store, day2.catalog)).models()[3]?.address as Address;
    const stored = await store.get(victim);
    if (!stored) throw new Error('no model');
    stored.bytes[20] = (stored.bytes[20] as number) ^ 1;
    await expect(loadIndex(store, day2.catalog, { verified: true, pack: pack.storage })).rejects.toBeInstanceOf(IndexLoadError);
  });
});

describe('the builder writes what the first start needs (StartPack through onObject)', () => {
  it('the first verified load after a build reads no object beyond the catalog, and equals a full load', async () => {
    const store = new MemoryObjectStore();
    for (const [date, list] of [
      ['2026-11-23', models],
      // The next day: 5 models changed, the others' objects kept from yesterday (not put again) and still packed.
      ['2026-11-24', models.map((m, i) => (i % 12 === 0 ? { ...m, license: 'apache-2.0' } : m))],
    ] as const) {
      const start = new StartPack();
      const built = await buildIndex(store, { date, models: [...list], onObject: start.add });
      expect(start.fault).toBeUndefined();
      const pack = packStorage();
      await pack.storage.write(start.bytes(built.catalog));
      const { address, body } = packBody(pack.bytes());
      expect(addressOf(body)).toBe(address);
      const { wrapped, reads } = counting(store);
      const fast = await loadIndex(wrapped, built.catalog, { verified: true, pack: pack.storage });
      expect([...reads.keys()]).toEqual([built.catalog]);
      expect(pack.writes()).toBe(1);
      const full = await loadIndex(store, built.catalog);
      expect(view(fast)).toEqual(view(full));
      // The same bytes a load writes for the same catalog (one pack format, whoever writes it).
      const loaded = packStorage();
      await loadIndex(store, built.catalog, { pack: loaded.storage });
      expect(JSON.parse(new TextDecoder().decode(packBody(loaded.bytes()).body))).toEqual(JSON.parse(new TextDecoder().decode(body)));
    }
  });

  it('an object that fails its schema check is recorded as a fault (the host then writes no pack)', async () => {
    const start = new StartPack();
    const bad = [{ ...models[0], files: [{ path: 'config.json', size: -1, sha256: 'not-a-sha' }] }] as typeof models;
    await buildIndex(new MemoryObjectStore(), { date: '2026-11-24', models: bad, onObject: start.add });
    expect(start.fault).toMatch(/^model-hub\.model blake3:[0-9a-f]{64} does not match its schema/);
  });

  it('a damaged builder pack means a full check: a corrupted object is then refused', async () => {
    const store = new MemoryObjectStore();
    const start = new StartPack();
    const built = await buildIndex(store, { date: '2026-11-24', models, onObject: start.add });
    const bytes = start.bytes(built.catalog);
    bytes[bytes.length - 3] = (bytes[bytes.length - 3] as number) ^ 1;
    const pack = packStorage();
    await pack.storage.write(bytes);
    const victim = [...start.models.keys()][5] as Address;
    const stored = await store.get(victim);
    if (!stored) throw new Error('no model');
    stored.bytes[20] = (stored.bytes[20] as number) ^ 1;
    await expect(loadIndex(store, built.catalog, { verified: true, pack: pack.storage })).rejects.toBeInstanceOf(IndexLoadError);
  });

  it('a load from the pack gives the event loop turns while it reads (a hub that switches keeps answering)', async () => {
    const store = new MemoryObjectStore();
    const start = new StartPack();
    const built = await buildIndex(store, { date: '2026-11-24', models, onObject: start.add });
    const pack = packStorage();
    await pack.storage.write(start.bytes(built.catalog));
    // One entry per line inside one JSON document.
    const { body } = packBody(pack.bytes());
    const text = new TextDecoder().decode(body);
    expect(text.split('\n')).toHaveLength(1 + 60 + 1 + 120 + 1);
    expect(JSON.parse(text).catalog).toBe(built.catalog);
    let turns = 0;
    const tick = setInterval(() => turns++, 0);
    try {
      await loadIndex(store, built.catalog, { verified: true, pack: pack.storage });
    } finally {
      clearInterval(tick);
    }
    expect(turns).toBeGreaterThan(0);
  });
});
