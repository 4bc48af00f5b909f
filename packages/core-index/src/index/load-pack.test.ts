import { describe, expect, it } from 'vitest';
import { buildIndex } from '../build/builder.js';
import { LoadPackWriter } from '../build/load-pack-writer.js';
import { type Address, addressOf } from './blake3.js';
import { IndexLoadError, type LoadPackStorage, loadIndex, type WholeIndexStore } from './index-store.js';
import { LOAD_PACK_KIND, LOAD_PACK_VERSION, type PackDigest } from './load-pack-format.js';
import { MemoryObjectStore } from './memory-object-store.js';
import type { ObjectStore } from './object-store.js';
import { searchModels } from './search.js';
import { sha256Hex } from './sha256.js';

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

/** A digest a host might inject (node-server's is node:crypto SHA-256). */
const sha256Digest = (bytes: Uint8Array): string => `sha256:${sha256Hex(bytes)}`;

/** A digest these tests call directly (a host's may answer later). */
type SyncDigest = (bytes: Uint8Array) => string;

/** A pack storage in memory (node-server's is one file in the data folder), counting writes. */
function packStorage(digest?: PackDigest) {
  let bytes: Uint8Array | undefined;
  let writes = 0;
  const storage: LoadPackStorage = {
    ...(digest ? { digest } : {}),
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

/** The pack's head line (after the digest line). */
function packHead(bytes: Uint8Array | undefined) {
  const { body } = packBody(bytes);
  return JSON.parse(new TextDecoder().decode(body.subarray(0, body.indexOf(10))));
}

async function view(index: WholeIndexStore) {
  return {
    models: index.models().map((m) => ({
      id: m.id,
      owner: m.owner,
      name: m.name,
      revision: m.revision,
      address: m.address,
      object: m.object,
      files: m.files,
      file: m.files.map((f) => m.file(f.path)),
      sources: m.sources,
      sourceAddresses: m.sourceAddresses,
      weightBytes: m.weightBytes,
      row: m.row,
      rank: m.rank,
    })),
    lookups: index.models().map((m) => index.warm(m.id.toUpperCase())?.id),
    totals: index.totals,
    snapshot: index.snapshot,
    kinds: index.sourceKinds(),
    bySha: await Promise.all(
      index.models().flatMap((m) => m.files.map(async (f) => (await index.filesBySha256(f.sha256)).map((x) => [x.model.id, x.file.path]))),
    ),
  };
}

/** A pack changed behind the hub's back, and a model object flipped too: the full verification must refuse it. */
async function refusedAfter(store: MemoryObjectStore, catalog: Address, storage: LoadPackStorage, victim: Address) {
  const stored = await store.get(victim);
  if (!stored) throw new Error('no model');
  stored.bytes[20] = (stored.bytes[20] as number) ^ 1;
  await expect(loadIndex(store, catalog, { verified: true, pack: storage })).rejects.toBeInstanceOf(IndexLoadError);
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
    expect(packHead(pack.bytes())).toMatchObject({ kind: LOAD_PACK_KIND, version: LOAD_PACK_VERSION, catalog: built.catalog, models: 60 });
    // Local start state, never an object of the store (never listed, served or published).
    expect((await store.list({ limit: 1000 })).items.length).toBe(objectsBefore);

    const { wrapped, reads } = counting(store);
    const second = await loadIndex(wrapped, built.catalog, { verified: true, pack: pack.storage });
    expect([...reads.keys()]).toEqual([]); // the pack, nothing else (the store is asked whether it holds the catalog)
    expect(pack.writes()).toBe(1); // a load from the pack does not write it again
    expect(await view(second)).toEqual(await view(first));
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
    expect(await view(await loadIndex(wrapped, built.catalog, { verified: true, pack: pack.storage }))).toEqual(await view(first));
    expect(reads.size).toBeGreaterThan(60);
    const again = packBody(pack.bytes());
    expect(addressOf(again.body)).toBe(again.address);
    // A damaged pack again, and a model object flipped too: the full verification refuses it.
    const rewritten = pack.bytes() as Uint8Array;
    rewritten[rewritten.length - 3] = (rewritten[rewritten.length - 3] as number) ^ 1;
    await refusedAfter(store, built.catalog, pack.storage, first.models()[7]?.address as Address);
  });

  // Each damage below leaves the objects intact first (the full check passes, reads every object, gives the same
  // index and writes a sound pack), then a model object is flipped too (the full check refuses the index).
  const damages: Array<[string, (pack: Uint8Array, digest: SyncDigest) => Uint8Array]> = [
    ['a byte flipped in the head line', (p) => flip(p, p.indexOf(10) + 5)],
    ['a byte flipped in the models section', (p) => flip(p, p.indexOf(10, p.indexOf(10) + 1) + 30)],
    ['a byte flipped in the digest line', (p) => flip(p, 10)],
    ['truncated by one byte', (p) => p.subarray(0, p.length - 1)],
    ['truncated to its head', (p) => p.subarray(0, p.indexOf(10, p.indexOf(10) + 1) + 1)],
    ['empty', () => new Uint8Array(0)],
    ['no line break', (p) => p.subarray(0, 40)],
    [
      'another layout version (digest recomputed)',
      (p, digest) => rewriteHead(p, digest, (head) => ({ ...head, version: LOAD_PACK_VERSION + 1 })),
    ],
    ['another kind (digest recomputed)', (p, digest) => rewriteHead(p, digest, (head) => ({ ...head, kind: 'model-hub.other' }))],
    [
      'sections that do not add up (digest recomputed)',
      (p, digest) =>
        rewriteHead(p, digest, (head) => ({ ...head, sections: [(head.sections[0] as number) - 1, ...head.sections.slice(1)] })),
    ],
    [
      "a model's object placed beyond the payload (digest recomputed)",
      (p, digest) =>
        rewriteBody(p, digest, (lines) =>
          lines.map((l, i) => (i === 1 ? l.replace(/\t(\d+)\t/, (_, d: string) => `\t${'9'.repeat(d.length)}\t`) : l)),
        ),
    ],
    [
      "a model's line with a place that is not a number (digest recomputed)",
      (p, digest) =>
        rewriteBody(p, digest, (lines) =>
          lines.map((l, i) => (i === 1 ? l.replace(/\t(\d+)\t/, (_, d: string) => `\t${'x'.repeat(d.length)}\t`) : l)),
        ),
    ],
    [
      'one model fewer than its head says (digest recomputed)',
      (p, digest) => rewriteHead(p, digest, (head) => ({ ...head, models: head.models + 1 })),
    ],
    [
      'the version-1 layout (one JSON document, BLAKE3 line)',
      (p) => {
        const body = new TextEncoder().encode(
          JSON.stringify({ kind: LOAD_PACK_KIND, catalog: packHead(p).catalog, models: {}, sources: {} }),
        );
        return concat(new TextEncoder().encode(`${addressOf(body)}\n`), body);
      },
    ],
  ];
  for (const digest of [addressOf, sha256Digest])
    for (const [what, damage] of damages)
      it(`a pack ${what} (${digest === addressOf ? 'BLAKE3' : 'host SHA-256'} digest) means a full check`, async () => {
        const store = new MemoryObjectStore();
        const start = new LoadPackWriter();
        const built = await buildIndex(store, { date: '2026-11-24', models, onObject: start.add });
        const pack = packStorage(digest);
        await pack.storage.write(damage(await start.bytes(store, built.catalog, digest), digest));
        const full = await loadIndex(store, built.catalog);
        const { wrapped, reads } = counting(store);
        expect(await view(await loadIndex(wrapped, built.catalog, { verified: true, pack: pack.storage }))).toEqual(await view(full));
        expect(reads.size).toBeGreaterThan(60);
        expect(packHead(pack.bytes())).toMatchObject({ version: LOAD_PACK_VERSION, catalog: built.catalog });
        await pack.storage.write(damage(pack.bytes() as Uint8Array, digest));
        await refusedAfter(store, built.catalog, pack.storage, full.models()[9]?.address as Address);
      });

  it('a pack whose digest is not the one the host checks with is not trusted (full check)', async () => {
    const store = new MemoryObjectStore();
    const start = new LoadPackWriter();
    const built = await buildIndex(store, { date: '2026-11-24', models, onObject: start.add });
    const pack = packStorage(sha256Digest);
    await pack.storage.write(await start.bytes(store, built.catalog)); // a BLAKE3 line, read with SHA-256
    const { wrapped, reads } = counting(store);
    await loadIndex(wrapped, built.catalog, { verified: true, pack: pack.storage });
    expect(reads.size).toBeGreaterThan(60);
    expect(packBody(pack.bytes()).address).toBe(sha256Digest(packBody(pack.bytes()).body));
    // and the pack it wrote is then read without any object
    const again = counting(store);
    await loadIndex(again.wrapped, built.catalog, { verified: true, pack: pack.storage });
    expect(again.reads.size).toBe(0);
  });

  it('keeps nothing past maxModels (a day that large is served from its pages), and everything up to it', async () => {
    const store = new MemoryObjectStore();
    const large = new LoadPackWriter({ maxModels: 59 });
    const built = await buildIndex(store, { date: '2026-11-24', models, onObject: large.add });
    expect(large.skipped).toMatch(/more than 59 models/);
    expect(large.fault).toBeUndefined();
    expect([large.models.size, large.sources.size]).toEqual([0, 0]);
    await expect(large.bytes(store, built.catalog)).rejects.toThrow(/served from its index pages/);
    const fits = new LoadPackWriter({ maxModels: 60 });
    await buildIndex(new MemoryObjectStore(), { date: '2026-11-24', models, onObject: fits.add });
    expect([fits.skipped, fits.models.size]).toEqual([undefined, 60]);
  });

  it('a catalog missing from the store is refused even with a sound pack', async () => {
    const store = new MemoryObjectStore();
    const start = new LoadPackWriter();
    const built = await buildIndex(store, { date: '2026-11-24', models, onObject: start.add });
    const pack = packStorage();
    await pack.storage.write(await start.bytes(store, built.catalog));
    const gone: ObjectStore = Object.assign(Object.create(store) as ObjectStore, { has: async () => false });
    await expect(loadIndex(gone, built.catalog, { verified: true, pack: pack.storage })).rejects.toBeInstanceOf(IndexLoadError);
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
    expect(packHead(pack.bytes()).catalog).toBe(day2.catalog);
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

describe('the builder writes what the first start needs (LoadPackWriter through onObject)', () => {
  it('the first verified load after a build reads no object beyond the catalog, and equals a full load', async () => {
    const store = new MemoryObjectStore();
    for (const [date, list] of [
      ['2026-11-23', models],
      // The next day: 5 models changed, the others' objects kept from yesterday (not put again) and still packed.
      ['2026-11-24', models.map((m, i) => (i % 12 === 0 ? { ...m, license: 'apache-2.0' } : m))],
    ] as const) {
      const start = new LoadPackWriter();
      const built = await buildIndex(store, { date, models: [...list], onObject: start.add });
      expect(start.fault).toBeUndefined();
      const pack = packStorage();
      await pack.storage.write(await start.bytes(store, built.catalog));
      const { address, body } = packBody(pack.bytes());
      expect(addressOf(body)).toBe(address);
      const { wrapped, reads } = counting(store);
      const fast = await loadIndex(wrapped, built.catalog, { verified: true, pack: pack.storage });
      expect([...reads.keys()]).toEqual([]);
      expect(pack.writes()).toBe(1);
      const full = await loadIndex(store, built.catalog);
      expect(await view(fast)).toEqual(await view(full));
      // The same bytes a load writes for the same catalog (one pack format, whoever writes it).
      const loaded = packStorage();
      await loadIndex(store, built.catalog, { pack: loaded.storage });
      expect(packHead(loaded.bytes())).toEqual(packHead(pack.bytes()));
      expect(await view(await loadIndex(store, built.catalog, { verified: true, pack: loaded.storage }))).toEqual(await view(full));
    }
  });

  it('an object that fails its schema check is recorded as a fault (the host then writes no pack)', async () => {
    const start = new LoadPackWriter();
    const bad = [{ ...models[0], files: [{ path: 'config.json', size: -1, sha256: 'not-a-sha' }] }] as typeof models;
    await buildIndex(new MemoryObjectStore(), { date: '2026-11-24', models: bad, onObject: start.add });
    expect(start.fault).toMatch(/^model-hub\.model blake3:[0-9a-f]{64} does not match its schema/);
  });

  it('a damaged builder pack means a full check: a corrupted object is then refused', async () => {
    const store = new MemoryObjectStore();
    const start = new LoadPackWriter();
    const built = await buildIndex(store, { date: '2026-11-24', models, onObject: start.add });
    const bytes = await start.bytes(store, built.catalog);
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
    const start = new LoadPackWriter();
    const built = await buildIndex(store, { date: '2026-11-24', models, onObject: start.add });
    const pack = packStorage();
    await pack.storage.write(await start.bytes(store, built.catalog));
    expect(packHead(pack.bytes())).toMatchObject({ catalog: built.catalog, models: 60, sources: 120 });
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

function flip(bytes: Uint8Array, at: number): Uint8Array {
  const out = bytes.slice();
  out[at] = (out[at] as number) ^ 1;
  return out;
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** The pack with its head line changed and its digest line recomputed (as a pack written by another version would be). */
function rewriteHead(
  bytes: Uint8Array,
  digest: SyncDigest,
  change: (head: { sections: number[]; models: number; version: number }) => unknown,
): Uint8Array {
  const { body } = packBody(bytes);
  const end = body.indexOf(10);
  const head = change(JSON.parse(new TextDecoder().decode(body.subarray(0, end))));
  const next = concat(new TextEncoder().encode(JSON.stringify(head)), body.subarray(end));
  return concat(new TextEncoder().encode(`${digest(next)}\n`), next);
}

/**
 * The pack with its body's lines changed (ASCII test data, each change keeping the line's length, so the sections
 * still add up) and its digest line recomputed: a hand edit that kept the check.
 */
function rewriteBody(bytes: Uint8Array, digest: SyncDigest, change: (lines: string[]) => string[]): Uint8Array {
  const next = new TextEncoder().encode(change(new TextDecoder().decode(packBody(bytes).body).split('\n')).join('\n'));
  return concat(new TextEncoder().encode(`${digest(next)}\n`), next);
}
