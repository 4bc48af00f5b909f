// Issue 39 (build side): the builder reads its models as it builds them and holds no catalog: catalog shards and index
// pages are written from the models as they stream by, with exactly the bytes the whole-catalog writers give.
import { describe, expect, it } from 'vitest';
import type { Address } from '../index/blake3.js';
import { CatalogWriter, readCatalog, splitCatalog, utf8Length, writeCatalog } from '../index/catalog-shards.js';
import { MemoryObjectStore } from '../index/memory-object-store.js';
import type { ObjectStore } from '../index/object-store.js';
import type { ModelObject } from '../index/schemas.js';
import { writeIndexPages } from '../index/write-index-pages.js';
import { syntheticModelStream, syntheticModels } from '../testing/scale.js';
import { buildIndex } from './builder.js';
import { pagesFormat } from './pages-format.js';

const encoder = new TextEncoder();

/** The catalog written whole by `writeCatalog` and streamed row by row through `CatalogWriter`, each into its own store. */
async function bothWriters(catalog: Awaited<ReturnType<typeof readCatalog>>, limit: number | undefined) {
  const a = new MemoryObjectStore();
  const b = new MemoryObjectStore();
  const expected = await writeCatalog(a, catalog, limit);
  const writer = new CatalogWriter(b, { date: catalog.date, prev: catalog.prev }, limit);
  for (const row of catalog.rows) await writer.add(row, catalog.objects[row.id] as never);
  return { a, b, expected, streamed: await writer.finish() };
}

describe('the catalog streamed to CatalogWriter', () => {
  it('is written byte for byte as writeCatalog writes the whole catalog, one object or sharded', async () => {
    const built = await buildIndex(new MemoryObjectStore(), { date: '2026-11-28', models: syntheticModels(600) });
    const source = new MemoryObjectStore();
    const whole = await buildIndex(source, { date: '2026-11-28', models: syntheticModels(600) });
    const catalog = await readCatalog(source, whole.catalog);
    expect(built.catalog).toBe(whole.catalog);
    // Sharded, and at the edge: the whole catalog's size (one object) and a byte less (a root and shards).
    const wholeBytes = (await source.get(whole.catalog))?.bytes.length as number;
    for (const limit of [undefined, 16 * 1024, 64 * 1024, wholeBytes, wholeBytes - 1]) {
      const { a, b, expected, streamed } = await bothWriters(catalog, limit);
      expect(streamed).toEqual(expected);
      if (limit && limit < wholeBytes) {
        expect(streamed.shards.length).toBe(splitCatalog(catalog, limit).length);
        expect(streamed.shards.length).toBeGreaterThan(1);
      } else expect(streamed.shards).toEqual([]);
      for (const address of [streamed.address, ...streamed.shards])
        expect((await b.get(address))?.bytes).toEqual((await a.get(address))?.bytes);
    }
  });
});

describe('the builder over a stream of models', () => {
  it('writes objects while it still reads its input, and gives the same day as an array of the same models', async () => {
    const n = 5000;
    const store = new MemoryObjectStore();
    let puts = 0;
    const counting: ObjectStore = Object.assign(Object.create(store) as ObjectStore, {
      put: (...args: Parameters<ObjectStore['put']>) => {
        puts++;
        return store.put(...args);
      },
    });
    let putsWhenHalfRead = -1;
    async function* models() {
      let i = 0;
      for (const m of syntheticModelStream(n)) {
        if (++i === n / 2) putsWhenHalfRead = puts;
        yield m;
      }
    }
    const streamed = await buildIndex(counting, { date: '2026-11-28', models: models(), pages: true });
    // Half the input read: the objects of the models before it (at least one chunk, 2 or 3 objects a model) are put.
    expect(putsWhenHalfRead).toBeGreaterThan(1000 * 2);
    const array = await buildIndex(new MemoryObjectStore(), { date: '2026-11-28', models: syntheticModels(n), pages: true });
    expect(streamed.catalog).toBe(array.catalog);
    expect(streamed.day.pages).toBe(array.day.pages);
    expect({ models: streamed.models, files: streamed.files, bytes: streamed.bytes }).toEqual({
      models: n,
      files: n * 4,
      bytes: array.bytes,
    });
  }, 120_000);

  it('derives the same pages as writeIndexPages over the whole catalog and its objects', async () => {
    const store = new MemoryObjectStore();
    const built = await buildIndex(store, { date: '2026-11-28', models: syntheticModels(700), pages: true });
    const catalog = await readCatalog(store, built.catalog);
    const models = new Map<string, { json: Uint8Array }>();
    const sources = new Map<string, { bytes: Uint8Array }>();
    for (const entry of Object.values(catalog.objects)) {
      models.set(entry.model, { json: (await store.get(entry.model as Address))?.bytes as Uint8Array });
      for (const s of entry.sources) sources.set(s, { bytes: (await store.get(s as Address))?.bytes as Uint8Array });
    }
    const again = await writeIndexPages(new MemoryObjectStore(), catalog, built.catalog, { models, sources }, await pagesFormat());
    expect(again).toBe(built.day.pages);
    // A model object that is not what the catalog names changes the pages.
    const [first] = catalog.rows;
    const entry = catalog.objects[first?.id as string] as { model: string };
    const object = JSON.parse(new TextDecoder().decode(models.get(entry.model)?.json)) as ModelObject;
    models.set(entry.model, { json: encoder.encode(JSON.stringify({ ...object, license: 'apache-2.0' } satisfies ModelObject)) });
    expect(await writeIndexPages(new MemoryObjectStore(), catalog, built.catalog, { models, sources }, await pagesFormat())).not.toBe(
      built.day.pages,
    );
  }, 120_000);
});

describe('a streamed shard composed from its rows serialized once', () => {
  it('is the bytes of the shard object, with rows and ids beyond ASCII', async () => {
    const source = new MemoryObjectStore();
    const whole = await buildIndex(source, { date: '2026-11-28', models: syntheticModels(300) });
    const catalog = await readCatalog(source, whole.catalog);
    const odd = ['ü', '日本語', '😀', 'a"b\\c', 'tab\there', '\u0001', '\u07ff\u0800'];
    catalog.rows.forEach((row, i) => {
      row.tags = [odd[i % odd.length] as string, `t${i}`];
    });
    for (const limit of [8 * 1024, 20 * 1024]) {
      const { expected, streamed } = await bothWriters(catalog, limit);
      expect(streamed.shards.length).toBeGreaterThan(1);
      expect(streamed).toEqual(expected);
    }
  });

  it('counts UTF-8 bytes as the encoder writes them', () => {
    for (const s of ['', 'abc', 'ü', '日本語', '😀', '\ud800', '\udc00x', 'a\ud83d', '\u07ff\u0800\uffff'])
      expect(utf8Length(s)).toBe(encoder.encode(s).length);
  });
});
