// Issue 39 (build side): a day's search terms and digest map are the last build's patched with what changed (the
// models added, removed, moved or given other tags or files), with no model tabulated, and are the pages, and the
// sizes kept for the next day, of a build that tabulates every model. SYNTHETIC models.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Address } from '../index/blake3.js';
import { DaySections } from '../index/day-sections.js';
import { MemoryObjectStore } from '../index/memory-object-store.js';
import { type ListDir, modelsPagesOf } from '../index/models-list.js';
import type { ObjectStore } from '../index/object-store.js';
import type { PagedEntry, PagesRoot } from '../index/page-layout.js';
import { PageWriter } from '../index/page-writer.js';
import { sectionFactsOf } from '../index/table-facts.js';
import { buildWithPages, syntheticModels } from '../testing/scale.js';
import { MEMO_REF } from './build-memo.js';
import type { BuildModelInput } from './builder.js';
import { pagesFormat } from './pages-format.js';

const decoder = new TextDecoder();
const json = async <T>(store: ObjectStore, a: string) => JSON.parse(decoder.decode((await store.get(a as Address))?.bytes)) as T;

const n = 2000;
const base = syntheticModels(n);
// a model of 300 files: more than a memo record of section facts holds, so its last ones are read from its models page
const big: BuildModelInput = {
  ...(base[40] as BuildModelInput),
  id: 'synthetic-big/many-files',
  files: Array.from({ length: 300 }, (_, k) => ({
    path: `shard-${k}.bin`,
    size: 1000 + k,
    sha256: (k + 1).toString(16).padStart(64, 'b'),
  })),
};
const day1 = [...base.slice(0, 40), big, ...base.slice(40)];
const added = (k: number): BuildModelInput => ({
  ...(base[k] as BuildModelInput),
  id: `synthetic-added/model-${k}`,
  files: (base[k] as BuildModelInput).files.map((f) => ({ ...f, sha256: `e${f.sha256.slice(1)}` })),
});
const retagged = (m: BuildModelInput): BuildModelInput => ({
  ...m,
  row: { ...m.row, tags: ['retagged', ...(m.row?.tags ?? []).slice(1)] },
});
const refiled = (m: BuildModelInput): BuildModelInput => ({
  ...m,
  files: m.files.map((f, k) => (k === 0 ? { ...f, sha256: `f${f.sha256.slice(1)}` } : f)),
});
// day 2: two models added, one removed, two moved far down (the big one too), one retagged, one file changed
const day2 = [
  ...day1.slice(0, 10),
  added(10),
  ...day1.slice(10, 40),
  ...day1.slice(42, 700),
  retagged(day1[700] as BuildModelInput),
  ...day1.slice(701, 900),
  refiled(day1[900] as BuildModelInput),
  ...day1.slice(901, 1500),
  added(1500),
  ...day1.slice(1500, 1800),
  ...day1.slice(1801, 1900),
  day1[40] as BuildModelInput,
  day1[41] as BuildModelInput,
  ...day1.slice(1900),
];
// day 3: the first half reversed: too many models move for a patch, every one is tabulated
const day3 = [...day2.slice(0, 1000).reverse(), ...day2.slice(1000)];

/**
 * The day built on `store`, counting the models whose terms and digests were tabulated; `whole`: every model is (a
 * patch of the base day's pages told from them is given up), the reference the patches are held to.
 */
async function counted(store: ObjectStore, models: BuildModelInput[], date: string, reuse = true, whole = false) {
  const spy = vi.spyOn(DaySections.prototype, 'tabulate');
  if (whole)
    vi.spyOn(DaySections.prototype as unknown as { patchFromPages(): Promise<undefined> }, 'patchFromPages').mockResolvedValue(undefined);
  const built = await buildWithPages(store, models, date, { reuse });
  // (the pages format's probe, build/pages-format.ts, builds a few models of its own once)
  const tabulated = spy.mock.calls.filter(([, lower]) => !lower.startsWith('probe')).length;
  vi.restoreAllMocks();
  return { ...built, tabulated };
}

const sizesOf = async (store: ObjectStore) =>
  (await json<{ sectionSizes?: unknown }>(store, (await store.readRef(MEMO_REF)) as string)).sectionSizes;

describe("a day's terms and digest map patched from the last build's", () => {
  afterEach(() => vi.restoreAllMocks());

  it('tabulate no model, and are the pages and sizes of a build that tabulates every one', async () => {
    const store = new MemoryObjectStore();
    const scratch = new MemoryObjectStore();
    expect((await counted(store, day1, '2026-12-01')).tabulated).toBe(day1.length);
    await buildWithPages(scratch, day1, '2026-12-01');
    const patched = await counted(store, day2, '2026-12-02');
    const whole = await counted(scratch, day2, '2026-12-02', false, true);
    expect(patched.tabulated).toBe(0);
    expect(whole.tabulated).toBe(day2.length);
    expect(patched.pages).toBe(whole.pages);
    expect(await sizesOf(store)).toEqual(await sizesOf(scratch));
    expect(await sizesOf(store)).toMatchObject({ files: (day2.length - 1) * 4 + 300 });

    // a day on which half the models move: tabulated, the same pages
    const moved = await counted(store, day3, '2026-12-03');
    expect(moved.tabulated).toBe(day3.length);
    expect(moved.pages).toBe((await counted(scratch, day3, '2026-12-03', false, true)).pages);
    expect(await sizesOf(store)).toEqual(await sizesOf(scratch));
  });

  it("are patched from the base day's pages when the memo kept no sizes (one written before them), and from the memo the day after", async () => {
    const store = new MemoryObjectStore();
    await buildWithPages(store, day1, '2026-12-01');
    // the memo as one written before: no `sectionSizes`
    const memo = (await store.readRef(MEMO_REF)) as string;
    const { sectionSizes: _, ...older } = await json<Record<string, unknown>>(store, memo);
    const put = await store.put(new TextEncoder().encode(JSON.stringify(older)), {
      kind: 'model-hub.build-memo.v3',
      mediaType: 'application/json',
    });
    await store.writeRef(MEMO_REF, put.meta.id);
    const first = await counted(store, day2, '2026-12-02');
    expect(first.tabulated).toBe(0);
    const scratch = new MemoryObjectStore();
    await buildWithPages(scratch, day1, '2026-12-01');
    expect(first.pages).toBe((await counted(scratch, day2, '2026-12-02', false, true)).pages);
    const next = day2.map((m, i) => (i === 300 ? retagged(m) : m));
    const after = await counted(store, next, '2026-12-03');
    expect(after.tabulated).toBe(0);
    expect(after.pages).toBe((await counted(scratch, next, '2026-12-03', false, true)).pages);
  });
});

/** The `sectionSizes` of a day's pages root. */
const rootSizes = async (store: ObjectStore, pages: string) => (await json<PagesRoot>(store, pages)).sectionSizes;

describe("a day's terms and digest map without the memo (lost, damaged, or not to be used)", () => {
  afterEach(() => vi.restoreAllMocks());

  it("are the base day's pages patched with what changed as told from them, and the pages and sizes of a whole tabulation", async () => {
    const store = new MemoryObjectStore();
    const scratch = new MemoryObjectStore();
    for (const s of [store, scratch]) await buildWithPages(s, day1, '2026-12-01');
    const patched = await counted(store, day2, '2026-12-02', false);
    const whole = await counted(scratch, day2, '2026-12-02', false, true);
    expect(patched.tabulated).toBe(0);
    expect(whole.tabulated).toBe(day2.length);
    expect(patched.pages).toBe(whole.pages);
    expect(await rootSizes(store, patched.pages)).toEqual(await rootSizes(scratch, whole.pages));
    expect(await rootSizes(store, patched.pages)).toMatchObject({ ...((await sizesOf(store)) as object), format: await pagesFormat() });
    // half the models move: too many for a patch, every one tabulated, the same pages
    const moved = await counted(store, day3, '2026-12-03', false);
    expect(moved.tabulated).toBe(day3.length);
    expect(moved.pages).toBe((await counted(scratch, day3, '2026-12-03', false, true)).pages);
  });

  it('are patched from the base day when the same day is built again (its memo is of that day)', async () => {
    const store = new MemoryObjectStore();
    const scratch = new MemoryObjectStore();
    for (const s of [store, scratch]) await buildWithPages(s, day1, '2026-12-01');
    await buildWithPages(store, day1, '2026-12-02');
    const again = await counted(store, day2, '2026-12-02');
    expect(again.tabulated).toBe(0);
    expect(again.pages).toBe((await counted(scratch, day2, '2026-12-02', false, true)).pages);
  });

  it('are tabulated when a models page of the base day is lost, with the same pages', async () => {
    const store = new MemoryObjectStore();
    const first = await buildWithPages(store, day1, '2026-12-01');
    const root = await json<PagesRoot>(store, first.pages);
    const lostPage = (root.models.pages ?? (await json<{ pages: string[] }>(store, root.models.dirs?.[0] as string)).pages)[3] as string;
    const lost = Object.assign(Object.create(store) as MemoryObjectStore, {
      get: async (a: Address) => (a === lostPage ? undefined : store.get(a)),
    });
    const built = await counted(lost, day2, '2026-12-02', false);
    expect(built.tabulated).toBe(day2.length);
    const scratch = new MemoryObjectStore();
    await buildWithPages(scratch, day1, '2026-12-01');
    expect(built.pages).toBe((await counted(scratch, day2, '2026-12-02', false, true)).pages);
  });

  it('are not patched from pages written another way, nor from a base day whose root has no sizes', async () => {
    const store = new MemoryObjectStore();
    const root = await json<PagesRoot>(store, (await buildWithPages(store, day1, '2026-12-01')).pages);
    const format = await pagesFormat();
    expect(root.sectionSizes?.format).toBe(format);
    const { sectionSizes: _, ...unstamped } = root;
    // the base day again, each model at its position: nothing to patch, unless the pages cannot be patched
    const entries: Array<{ e: PagedEntry; at: number }> = [];
    const dir = (a: string) => json<ListDir>(store, a);
    for await (const at of modelsPagesOf(root.models, root.version, dir))
      for (const [k, e] of (await json<{ models: PagedEntry[] }>(store, at.address)).models.entries())
        entries.push({ e, at: at.positions?.[k] as number });
    const replayed = async (base: PagesRoot, stamp: string) => {
      const sections = new DaySections(new PageWriter(store), store, undefined, { format: stamp, root: async () => base });
      for (const [r, { e, at }] of entries.entries()) sections.add(r, e.id.toLowerCase(), () => sectionFactsOf(e), false, at);
      const replay = vi.fn(async () => {});
      const positions = Uint32Array.from(entries, (x) => x.at);
      const written = await sections.write(
        positions,
        positions,
        entries.map((x) => x.e.id.toLowerCase()),
        replay,
        async () => {},
      );
      return { replays: replay.mock.calls.length, written };
    };
    const same = await replayed(root, format);
    expect(same).toMatchObject({ replays: 0, written: { patched: true, terms: root.terms, shas: root.shas } });
    expect((await replayed(root, 'another')).replays).toBe(1);
    expect((await replayed(unstamped, format)).replays).toBe(1);
  });
});
