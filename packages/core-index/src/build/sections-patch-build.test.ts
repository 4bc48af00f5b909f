// Issue 39 (build side): a day's search terms and digest map are the last build's patched with what changed (the
// models added, removed, moved or given other tags or files), with no model tabulated, and are the pages, and the
// sizes kept for the next day, of a build that tabulates every model. SYNTHETIC models (testing/section-days.ts).
import { describe, expect, it } from 'vitest';
import { MemoryObjectStore } from '../index/memory-object-store.js';
import { buildWithPages } from '../testing/scale.js';
import { countedBuild, day1, day2, day3, json, memoSizes, retagged } from '../testing/section-days.js';
import { MEMO_REF } from './build-memo.js';

describe("a day's terms and digest map patched from the last build's", () => {
  it('tabulate no model, and are the pages and sizes of a build that tabulates every one', async () => {
    const store = new MemoryObjectStore();
    const scratch = new MemoryObjectStore();
    expect((await countedBuild(store, day1, '2026-12-01')).tabulated).toBe(day1.length);
    await buildWithPages(scratch, day1, '2026-12-01');
    const patched = await countedBuild(store, day2, '2026-12-02');
    const whole = await countedBuild(scratch, day2, '2026-12-02', false, true);
    expect(patched.tabulated).toBe(0);
    expect(whole.tabulated).toBe(day2.length);
    expect(patched.pages).toBe(whole.pages);
    expect(await memoSizes(store)).toEqual(await memoSizes(scratch));
    expect(await memoSizes(store)).toMatchObject({ files: (day2.length - 1) * 4 + 300 });

    // a day on which half the models move: tabulated, the same pages
    const moved = await countedBuild(store, day3, '2026-12-03');
    expect(moved.tabulated).toBe(day3.length);
    expect(moved.pages).toBe((await countedBuild(scratch, day3, '2026-12-03', false, true)).pages);
    expect(await memoSizes(store)).toEqual(await memoSizes(scratch));
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
    const first = await countedBuild(store, day2, '2026-12-02');
    expect(first.tabulated).toBe(0);
    const scratch = new MemoryObjectStore();
    await buildWithPages(scratch, day1, '2026-12-01');
    expect(first.pages).toBe((await countedBuild(scratch, day2, '2026-12-02', false, true)).pages);
    const next = day2.map((m, i) => (i === 300 ? retagged(m) : m));
    const after = await countedBuild(store, next, '2026-12-03');
    expect(after.tabulated).toBe(0);
    expect(after.pages).toBe((await countedBuild(scratch, next, '2026-12-03', false, true)).pages);
  });
});
