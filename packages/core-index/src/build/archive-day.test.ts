import { describe, expect, it } from 'vitest';
import { BUCKETS_REF } from '../buckets/schema.js';
import { MemoryObjectStore } from '../index/memory-object-store.js';
import { ArchiveSchema } from '../index/schemas.js';
import { SPACES_REF } from '../spaces/catalog.js';
import { buildIndex, readArchive } from './builder.js';

// SYNTHETIC model and catalogs (made-up ids, hashes and catalog bytes).
const model = {
  id: 'synthetic-org/archive-day',
  revision: 'a'.repeat(40),
  files: [{ path: 'config.json', size: 2, sha256: 'b'.repeat(64) }],
  row: { downloads: 1 },
  sources: [{ source: 'mirror-a', type: 'http' as const }],
};

describe("the archive's day keeps the sections of that day", () => {
  it('records the spaces and buckets catalogs current when the day was built, and neither when there is none', async () => {
    const store = new MemoryObjectStore();
    const bare = await buildIndex(store, { date: '2026-11-23', models: [model] });
    expect(bare.day.spaces).toBeUndefined();
    expect(bare.day.buckets).toBeUndefined();

    const spaces = await store.put(new TextEncoder().encode('{"SYNTHETIC":"spaces"}'), {
      kind: 'model-hub.spaces',
      mediaType: 'application/json',
    });
    const buckets = await store.put(new TextEncoder().encode('{"SYNTHETIC":"buckets"}'), {
      kind: 'model-hub.buckets',
      mediaType: 'application/json',
    });
    await store.writeRef(SPACES_REF, spaces.meta.id);
    await store.writeRef(BUCKETS_REF, buckets.meta.id);
    const built = await buildIndex(store, { date: '2026-11-24', models: [model] });
    expect(built.day).toMatchObject({ spaces: spaces.meta.id, buckets: buckets.meta.id });
    const archive = ArchiveSchema.parse(await readArchive(store));
    expect(archive.days.map((d) => [d.date, d.buckets ?? null])).toEqual([
      ['2026-11-24', buckets.meta.id],
      ['2026-11-23', null],
    ]);
  });
});
