// Issue 39 (build side): a day's search terms and digest map are the last build's patched with what changed (the
// models added, removed, moved or given other tags or files), with no model tabulated, and are the pages, and the
// sizes kept for the next day, of a build that tabulates every model. SYNTHETIC models.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Address } from '../index/blake3.js';
import { DaySections } from '../index/day-sections.js';
import { MemoryObjectStore } from '../index/memory-object-store.js';
import type { ObjectStore } from '../index/object-store.js';
import { buildWithPages, syntheticModels } from '../testing/scale.js';
import { MEMO_REF } from './build-memo.js';
import type { BuildModelInput } from './builder.js';

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

/** The day built on `store`, counting the models whose terms and digests were tabulated. */
async function counted(store: ObjectStore, models: BuildModelInput[], date: string, reuse = true) {
  const spy = vi.spyOn(DaySections.prototype, 'tabulate');
  const built = await buildWithPages(store, models, date, { reuse });
  // (the pages format's probe, build/pages-format.ts, builds a few models of its own once)
  const tabulated = spy.mock.calls.filter(([, lower]) => !lower.startsWith('probe')).length;
  spy.mockRestore();
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
    const whole = await counted(scratch, day2, '2026-12-02', false);
    expect(patched.tabulated).toBe(0);
    expect(whole.tabulated).toBe(day2.length);
    expect(patched.pages).toBe(whole.pages);
    expect(await sizesOf(store)).toEqual(await sizesOf(scratch));
    expect(await sizesOf(store)).toMatchObject({ files: (day2.length - 1) * 4 + 300 });

    // a day on which half the models move: tabulated, the same pages
    const moved = await counted(store, day3, '2026-12-03');
    expect(moved.tabulated).toBe(day3.length);
    expect(moved.pages).toBe((await counted(scratch, day3, '2026-12-03', false)).pages);
    expect(await sizesOf(store)).toEqual(await sizesOf(scratch));
  });

  it('are tabulated when the last build kept no sizes (a memo written before them), and patched the day after', async () => {
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
    expect(first.tabulated).toBe(day2.length);
    const scratch = new MemoryObjectStore();
    await buildWithPages(scratch, day1, '2026-12-01');
    expect(first.pages).toBe((await buildWithPages(scratch, day2, '2026-12-02', { reuse: false })).pages);
    const next = day2.map((m, i) => (i === 300 ? retagged(m) : m));
    const after = await counted(store, next, '2026-12-03');
    expect(after.tabulated).toBe(0);
    expect(after.pages).toBe((await buildWithPages(scratch, next, '2026-12-03', { reuse: false })).pages);
  });
});
