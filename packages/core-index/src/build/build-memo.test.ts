// Issue 39 (build side): a day on which few models changed reuses what the last build made (build-memo.ts), and gives
// exactly the catalog and pages addresses a build that reuses nothing gives for the same days. SYNTHETIC models.
import { describe, expect, it } from 'vitest';
import type { Address } from '../index/blake3.js';
import { MemoryObjectStore } from '../index/memory-object-store.js';
import type { ObjectStore } from '../index/object-store.js';
import { openPagedIndex } from '../index/paged-index.js';
import { BytesStore, lostModelObject } from '../testing/memo-stores.js';
import { syntheticModels } from '../testing/scale.js';
import { tabulatingWhole } from '../testing/section-days.js';
import { MEMO_CHUNK_KIND, MEMO_REF } from './build-memo.js';
import { type BuildModelInput, buildIndex } from './builder.js';

/** A store that records every address read with `get`, and can be made to fail at the archive's write. */
class WatchedStore extends BytesStore {
  readonly got: string[] = [];
  failArchive = false;
  override async get(address: Address) {
    this.got.push(address);
    return super.get(address);
  }
  override async writeRef(name: string, value: string) {
    if (name === 'archive' && this.failArchive) throw new Error('killed before the archive was written');
    return super.writeRef(name, value);
  }
}

type Day = { date: string; models: BuildModelInput[] };

const base = syntheticModels(240);
/** Day 2: a license changed every 25th model, a row changed (downloads) every 40th, one model gone, one new. */
const day2 = [
  ...base
    .filter((_, i) => i !== 17)
    .map((m, i) => (i % 25 === 3 ? { ...m, license: 'apache-2.0' } : i % 40 === 9 ? { ...m, row: { ...m.row, downloads: 1 } } : m)),
  { ...(base[5] as BuildModelInput), id: 'synthetic-new/model-x' },
];
const day4 = day2.map((m, i) =>
  i === 0 ? { ...m, license: 'mit-0' } : i === 30 ? { ...m, files: m.files.map((f) => ({ ...f, size: f.size + 1 })) } : m,
);
const day5 = day4.map((m, i) => (i === day4.length - 1 ? { ...m, license: 'cc0-1.0' } : m));
// day 7: the same models, two given with their files in another order (another input key, the same objects): the first
// model (changed on day 4, so its object has a `prev`) and one never changed
const day7 = day5.map((m, i) => (i === 0 || i === 50 ? { ...m, files: [...m.files].reverse() } : m));
const days: Day[] = [
  { date: '2026-11-28', models: base },
  { date: '2026-11-29', models: day2 },
  // day 3 unchanged; day 4 a file of one model changed, and the first model changed again
  { date: '2026-11-30', models: day2 },
  { date: '2026-12-01', models: day4 },
  // day 5: the last model alone changed (every models page before it is the last build's: the look-up tables catch up
  // from them), day 6 unchanged
  { date: '2026-12-02', models: day5 },
  { date: '2026-12-03', models: day5 },
  { date: '2026-12-04', models: day7 },
];

async function build(store: ObjectStore, day: Day, reuse: boolean, catalogLimit?: number) {
  const r = await buildIndex(store, { date: day.date, models: day.models, pages: true, reuse, catalogLimit });
  return { catalog: r.catalog, pages: r.day.pages };
}

/**
 * The most id buckets a change to the model at `rank` writes again: one for each id and dash alias of its models
 * page's models (their entries name that page).
 */
async function idsOfPage(store: ObjectStore, day: { catalog: string; pages?: string }, rank: number): Promise<number> {
  const index = await openPagedIndex(store, day.pages as Address, day.catalog as Address);
  return 2 * (await index.modelsPage(rank)).size;
}

describe('a build that reuses the last build (the build memo)', () => {
  it('gives every day the catalog and pages addresses of a build that reuses nothing, without reading the catalog before', async () => {
    const reusing = new WatchedStore();
    const full = new MemoryObjectStore();
    let yesterday: string | undefined;
    for (const day of days) {
      reusing.got.length = 0;
      const a = await build(reusing, day, true);
      expect(a).toEqual(await build(full, day, false));
      // the memo told the builder what yesterday's catalog named: it was not read; nor was any model object (the memo
      // knows each one's `prev`, which tells a changed model from one given in another form)
      if (yesterday) expect(reusing.got).not.toContain(yesterday);
      const kinds = await Promise.all(reusing.got.map(async (a) => (await reusing.meta(a as Address))?.kind));
      expect(kinds).not.toContain('model-hub.model');
      yesterday = a.catalog;
    }
  });

  it('gives a rebuild of the same day (a memo of a build on the same base) the addresses of a full rebuild', async () => {
    const reusing = new BytesStore();
    const full = new MemoryObjectStore();
    for (const [i, day] of [days[0], days[1], { ...(days[3] as Day), date: '2026-11-29' }].entries()) {
      const a = await build(reusing, day as Day, true);
      expect(a, `build ${i}`).toEqual(await build(full, day as Day, false));
    }
  });

  it('uses a memo whose build was killed before its day was committed, and gives the addresses of a full build', async () => {
    const reusing = new WatchedStore();
    const full = new MemoryObjectStore();
    await build(reusing, days[0] as Day, true);
    await build(full, days[0] as Day, false);
    reusing.failArchive = true;
    await expect(build(reusing, days[1] as Day, true)).rejects.toThrow('killed');
    reusing.failArchive = false;
    // the memo now names a catalog that never became a day; the next build chains to day 1 as that build did
    for (const day of [days[3], days[2]] as Day[]) expect(await build(reusing, day, true)).toEqual(await build(full, day, false));
  });

  it('does the whole work when the memo is damaged, and still gives the addresses of a full build', async () => {
    const reusing = new WatchedStore();
    const full = new MemoryObjectStore();
    const first = await build(reusing, days[0] as Day, true);
    await build(full, days[0] as Day, false);
    // the memo's root names its chunks; one chunk's bytes replaced by others (a store that answers wrong bytes)
    const root = JSON.parse(new TextDecoder().decode((await reusing.get((await reusing.readRef(MEMO_REF)) as Address))?.bytes));
    const chunk = root.models[0] as Address;
    const flipped = (bytes: Uint8Array) => bytes.map((b, i) => (i === 40 ? b ^ 1 : b));
    const damaged = Object.assign(Object.create(reusing) as WatchedStore, {
      get: async (a: Address) => {
        reusing.got.push(a);
        const s = await reusing.get(a);
        return a === chunk && s ? { ...s, bytes: flipped(s.bytes) } : s;
      },
      readBytes: (a: Address) => {
        const bytes = reusing.readBytes(a);
        return a === chunk && bytes ? flipped(bytes) : bytes;
      },
    });
    reusing.got.length = 0;
    expect(await build(damaged, days[1] as Day, true)).toEqual(await build(full, days[1] as Day, false));
    // without a memo it can trust, the builder read yesterday's catalog
    expect(reusing.got).toContain(first.catalog);
  });

  it('takes a memo record that does not check when read by its place as missing, and gives the addresses of a full build', async () => {
    const inner = new BytesStore();
    const full = new MemoryObjectStore();
    const chunks = new Set<string>();
    let damaged = 0;
    // the memo's chunks answer their whole bytes as stored, and every range of them with a byte changed
    const reusing = Object.assign(Object.create(inner) as BytesStore, {
      put: async (bytes: Uint8Array, o: { kind: string; mediaType: string }) => {
        const r = await inner.put(bytes, o);
        if (o.kind === MEMO_CHUNK_KIND) chunks.add(r.meta.id);
        return r;
      },
      readRange: (a: Address, start: number, length: number) => {
        const got = inner.readRange(a, start, length);
        if (!got || !chunks.has(a) || length === 0) return got;
        damaged++;
        return got.map((b, i) => (i === length - 1 ? b ^ 1 : b));
      },
    });
    for (const day of days.slice(0, 4)) expect(await build(reusing, day, true)).toEqual(await build(full, day, false));
    expect(damaged).toBeGreaterThan(0);
  });

  it("derives the look-up pages again when the last build's are not all stored, and gives the addresses of a full build", async () => {
    const reusing = new BytesStore();
    const full = new MemoryObjectStore();
    const first = await build(reusing, days[0] as Day, true);
    await build(full, days[0] as Day, false);
    const root = JSON.parse(new TextDecoder().decode((await reusing.get(first.pages as Address))?.bytes));
    const termsPage = root.terms.pages[0] as string;
    const lost = Object.assign(Object.create(reusing) as BytesStore, {
      has: async (a: Address) => a !== termsPage && reusing.has(a),
    });
    // day 1 again, as a new day: every models page is the last build's, but one of its look-up pages is gone
    const again = { ...(days[0] as Day), date: '2026-11-29' };
    expect(await build(lost, again, true)).toEqual(await build(full, again, false));
  });

  it('puts again a reused object the store lost', async () => {
    const reusing = new BytesStore();
    const full = new MemoryObjectStore();
    await build(reusing, days[0] as Day, true);
    await build(full, days[0] as Day, false);
    const model = (base[1] as BuildModelInput).id;
    const puts: string[] = [];
    const watched = lostModelObject(reusing, model, puts);
    expect(await build(watched, days[2] as Day, true)).toEqual(await build(full, days[2] as Day, false));
    expect(puts.some((p) => p.includes(`"id":"${model}"`))).toBe(true);
  });

  it('writes again only the look-up pages whose content changed (a page key per bucket and page), and the lost ones', async () => {
    const made = (store: MemoryObjectStore, roles: Map<string, number>) =>
      Object.assign(Object.create(store) as BytesStore, {
        put: async (bytes: Uint8Array, o: { kind: string; mediaType: string }) => {
          if (o.kind === 'model-hub.index-page') {
            const role = (JSON.parse(new TextDecoder().decode(bytes)) as { role: string }).role;
            roles.set(role, (roles.get(role) ?? 0) + 1);
          }
          return store.put(bytes, o);
        },
      });
    const reusing = new BytesStore();
    const full = new MemoryObjectStore();
    const first = await build(reusing, days[0] as Day, true);
    await build(full, days[0] as Day, false);
    // the next day: one model's row changed (its downloads), so its models page, the id entries of that page's models
    // and the downloads orders changed; no file, term or id did
    const next: Day = { date: '2026-11-29', models: base.map((m, i) => (i === 101 ? { ...m, row: { ...m.row, downloads: 7 } } : m)) };
    // and the store lost one digest bucket of the last build, which is put again
    const root = JSON.parse(new TextDecoder().decode((await reusing.get(first.pages as Address))?.bytes));
    const lostPage = root.shas.pages[3] as string;
    const lost = Object.assign(Object.create(reusing) as BytesStore, {
      has: async (a: Address) => a !== lostPage && reusing.has(a),
    });
    const withMemo = new Map<string, number>();
    const without = new Map<string, number>();
    const watched = made(lost, withMemo);
    const got = await build(watched, next, true);
    // a full build: no memo, and no patch of the last day's terms and digests told from its pages (day-sections.ts)
    expect(got).toEqual(await tabulatingWhole(() => build(made(full, without), next, false)));
    // a full build writes every look-up page; the reusing one the changed ones and the lost one
    expect(without.get('shas')).toBe(root.shas.pages.length);
    expect(withMemo.get('shas')).toBe(1);
    expect(withMemo.get('terms') ?? 0).toBe(0);
    expect(withMemo.get('names') ?? 0).toBe(0);
    expect(withMemo.get('ids') ?? 0).toBeGreaterThan(0);
    const bound = await idsOfPage(full, got, 101);
    expect(withMemo.get('ids') ?? 0).toBeLessThanOrEqual(bound);
    expect(bound).toBeLessThan(without.get('ids') ?? 0);
    expect(withMemo.get('order') ?? 0).toBeGreaterThan(0);
    expect(withMemo.get('order') ?? 0).toBeLessThan(without.get('order') ?? 0);
  });

  it('cuts a sharded catalog as a full build does, names the unchanged shards without composing them, and puts a lost one again', async () => {
    // a store that records the catalog shards put, and can be told it lost some
    const shardPuts: string[] = [];
    const lostShards = new Set<string>();
    const inner = new BytesStore();
    const reusing = Object.assign(Object.create(inner) as BytesStore, {
      put: async (bytes: Uint8Array, o: { kind: string; mediaType: string }) => {
        const r = await inner.put(bytes, o);
        if (o.kind === 'model-hub.catalog-shard') shardPuts.push(r.meta.id);
        return r;
      },
      has: async (a: Address) => !lostShards.has(a) && inner.has(a),
    });
    const full = new MemoryObjectStore();
    const limit = 16 * 1024;
    let shards: string[] = [];
    for (const [i, day] of days.entries()) {
      shardPuts.length = 0;
      const a = await build(reusing, day, true, limit);
      expect(a, day.date).toEqual(await build(full, day, false, limit));
      const root = JSON.parse(new TextDecoder().decode((await inner.get(a.catalog as Address))?.bytes)) as {
        shards: Array<{ address: string }>;
      };
      const named = root.shards.map((r) => r.address);
      expect(named.length, day.date).toBeGreaterThan(3);
      // an unchanged day composes and puts no shard; a day of changes, only the shards of changed rows
      if (i === 2 || i === 5) expect(shardPuts, day.date).toEqual([]);
      else if (i > 2) expect(shardPuts.length, day.date).toBeLessThan(named.length / 3);
      shards = named;
    }
    // the store lost one of the last day's shards: the next (unchanged) day puts it again, from its rows
    lostShards.add(shards[1] as string);
    shardPuts.length = 0;
    const again = { ...(days[6] as Day), date: '2026-12-05' };
    expect(await build(reusing, again, true, limit)).toEqual(await build(full, again, false, limit));
    expect(shardPuts).toEqual([shards[1]]);
  });

  it("copies an unchanged row from the last catalog's bytes, only when they hash to its address", async () => {
    for (const [damaged, limit] of [
      [false, undefined],
      [false, 16 * 1024],
      [true, 16 * 1024],
    ] as const) {
      const inner = new BytesStore();
      const read: string[] = [];
      // the last catalog's bytes damaged (the memo's chunks are not: a damaged one makes the build do the whole work)
      const chunks = new Set<string>();
      const reusing = Object.assign(Object.create(inner) as BytesStore, {
        put: async (bytes: Uint8Array, o: { kind: string; mediaType: string }) => {
          const r = await inner.put(bytes, o);
          if (o.kind === MEMO_CHUNK_KIND) chunks.add(r.meta.id);
          return r;
        },
        readBytes: (a: Address) => {
          const bytes = inner.readBytes(a);
          if (chunks.has(a)) return bytes;
          read.push(a);
          return damaged && bytes ? bytes.map((b, i) => (i === 60 ? b ^ 1 : b)) : bytes;
        },
      });
      const full = new MemoryObjectStore();
      for (const day of days.slice(0, 2)) {
        read.length = 0;
        const a = await build(reusing, day, true, limit);
        expect(a, `${day.date} ${limit} ${damaged}`).toEqual(await build(full, day, false, limit));
        // a changed day composes its catalog or its changed shards from the last catalog's rows
        if (day !== days[0]) expect(read.length, day.date).toBeGreaterThan(0);
      }
    }
  });

  it("keeps the look-up page keys through a day whose pages were the last build's whole", async () => {
    const ids = new Map<string, number>();
    const counting = (store: MemoryObjectStore, key: string) =>
      Object.assign(Object.create(store) as BytesStore, {
        put: async (bytes: Uint8Array, o: { kind: string; mediaType: string }) => {
          if (o.kind === 'model-hub.index-page' && (JSON.parse(new TextDecoder().decode(bytes)) as { role: string }).role === 'ids')
            ids.set(key, (ids.get(key) ?? 0) + 1);
          return store.put(bytes, o);
        },
      });
    const reusing = new BytesStore();
    const full = new MemoryObjectStore();
    const next = base.map((m, i) => (i === 101 ? { ...m, row: { ...m.row, downloads: 7 } } : m));
    let last = { catalog: '' } as { catalog: string; pages?: string };
    for (const day of [
      { date: '2026-11-28', models: base },
      { date: '2026-11-29', models: base },
      { date: '2026-11-30', models: next },
    ]) {
      last = await build(counting(reusing, day.date), day, true);
      expect(last).toEqual(await build(counting(full, `full ${day.date}`), day, false));
    }
    // the third day writes the id buckets of one models page's models, as it would the day after a changed day
    expect(ids.get('2026-11-30') ?? 0).toBeGreaterThan(0);
    const bound = await idsOfPage(reusing, last, 101);
    expect(ids.get('2026-11-30') ?? 0).toBeLessThanOrEqual(bound);
    expect(bound).toBeLessThan(ids.get('full 2026-11-30') ?? 0);
  });
});
