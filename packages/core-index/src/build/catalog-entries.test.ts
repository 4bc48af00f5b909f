// Issue 39 (build side): a build without a memo looks ids up in yesterday's catalog through its entries held
// compactly, shard by shard; they are the catalog's own entries. SYNTHETIC models.
import { describe, expect, it } from 'vitest';
import type { Address } from '../index/blake3.js';
import { readCatalog } from '../index/catalog-shards.js';
import { MemoryObjectStore } from '../index/memory-object-store.js';
import { syntheticModels } from '../testing/scale.js';
import { buildIndex } from './builder.js';
import { CatalogEntries, type CatalogEntry, SOURCE_PREFIX } from './catalog-entries.js';

/** An entry as the compact entries give it: each source address's first 8 bytes. */
const compact = (e: CatalogEntry | undefined) => e && { model: e.model, sources: e.sources.map((s) => s.slice(0, SOURCE_PREFIX)) };

// two ids whose key hashes are equal (found by a search over `org/m-N`): one is in the catalog, the other is not
const [held, twin] = ['org/m-412789', 'org/m-649192'];

describe("a catalog's entries held compactly", () => {
  it("are the catalog's entries, read shard by shard, and no other id's", async () => {
    const store = new MemoryObjectStore();
    const models = syntheticModels(600);
    models.push({ ...(models[1] as (typeof models)[number]), id: held });
    const built = await buildIndex(store, { date: '2026-12-01', models, catalogLimit: 40_000 });
    const whole = await readCatalog(store, built.catalog);
    expect(whole.shards?.length ?? 0).toBeGreaterThan(3);
    const entries = (await CatalogEntries.read(store, built.catalog)) as CatalogEntries;
    for (const [id, e] of Object.entries(whole.objects)) expect(entries.get(id), id).toEqual(compact(e));
    expect(entries.get(held)).toEqual(compact(whole.objects[held]));
    expect(entries.get(twin)).toBeUndefined();
    expect(entries.get('synthetic-org-1/MODEL-1')).toBeUndefined();
  });

  it('keep an entry whose addresses are in another form as it is, and are none for a catalog that cannot be read', async () => {
    const store = new MemoryObjectStore();
    const odd = { model: 'sha256:abc', sources: ['blake3:xyz'] };
    const usual = { model: `blake3:${'a'.repeat(64)}`, sources: [`blake3:${'b'.repeat(64)}`, `blake3:${'c'.repeat(64)}`] };
    const bytes = new TextEncoder().encode(JSON.stringify({ objects: { 'o/odd': odd, 'o/usual': usual } }));
    const { meta } = await store.put(bytes, { kind: 'model-hub.catalog', mediaType: 'application/json' });
    const entries = await CatalogEntries.read(store, meta.id as Address);
    expect(entries?.get('o/odd')).toEqual(odd);
    expect(entries?.get('o/usual')).toEqual(compact(usual));
    expect(await CatalogEntries.read(store, undefined)).toBeUndefined();
    expect(await CatalogEntries.read(store, `blake3:${'d'.repeat(64)}`)).toBeUndefined();
  });

  it("spare a build without the memo the puts of the objects yesterday's catalog named", async () => {
    const store = new MemoryObjectStore();
    const models = syntheticModels(300);
    await buildIndex(store, { date: '2026-12-01', models });
    const puts: string[] = [];
    const watched = Object.assign(Object.create(store) as MemoryObjectStore, {
      put: async (bytes: Uint8Array, o: { kind: string; mediaType: string }) => {
        if (o.kind === 'model-hub.model' || o.kind === 'model-hub.source') puts.push(o.kind);
        return store.put(bytes, o);
      },
    });
    // one model's license changed: its model object is new, its source objects are the ones yesterday's catalog names
    const changed = models.map((m, i) => (i === 5 ? { ...m, license: 'synthetic-license' } : m));
    await buildIndex(watched, { date: '2026-12-02', models: changed, reuse: false });
    expect(puts).toEqual(['model-hub.model']);
  });
});
