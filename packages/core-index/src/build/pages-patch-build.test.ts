// Issue 39 (build side): a day built without the memo of the build that wrote the base day (lost, damaged, of
// another build, or `reuse: false`) patches the base day's terms and digest map with what changed, as told from the
// base day's models pages (index/pages-delta.ts), and gives the pages of a whole tabulation. SYNTHETIC models
// (testing/section-days.ts).
import { describe, expect, it, vi } from 'vitest';
import type { Address } from '../index/blake3.js';
import { DaySections } from '../index/day-sections.js';
import { MemoryObjectStore } from '../index/memory-object-store.js';
import { type ListDir, modelsPagesOf } from '../index/models-list.js';
import type { ObjectStore } from '../index/object-store.js';
import type { PagedEntry, PagesRoot } from '../index/page-layout.js';
import { PageWriter } from '../index/page-writer.js';
import { sectionFactsOf } from '../index/table-facts.js';
import { buildWithPages } from '../testing/scale.js';
import { countedBuild, day1, day2, day3, json, memoSizes } from '../testing/section-days.js';
import { pagesFormat } from './pages-format.js';

/** The `sectionSizes` of a day's pages root. */
const rootSizes = async (store: ObjectStore, pages: string) => (await json<PagesRoot>(store, pages)).sectionSizes;

describe("a day's terms and digest map without the memo (lost, damaged, or not to be used)", () => {
  it("are the base day's pages patched with what changed as told from them, and the pages and sizes of a whole tabulation", async () => {
    const store = new MemoryObjectStore();
    const scratch = new MemoryObjectStore();
    for (const s of [store, scratch]) await buildWithPages(s, day1, '2026-12-01');
    const patched = await countedBuild(store, day2, '2026-12-02', false);
    const whole = await countedBuild(scratch, day2, '2026-12-02', false, true);
    expect(patched.tabulated).toBe(0);
    expect(whole.tabulated).toBe(day2.length);
    expect(patched.pages).toBe(whole.pages);
    expect(await rootSizes(store, patched.pages)).toEqual(await rootSizes(scratch, whole.pages));
    expect(await rootSizes(store, patched.pages)).toMatchObject({ ...((await memoSizes(store)) as object), format: await pagesFormat() });
    // half the models move: too many for a patch, every one tabulated, the same pages
    const moved = await countedBuild(store, day3, '2026-12-03', false);
    expect(moved.tabulated).toBe(day3.length);
    expect(moved.pages).toBe((await countedBuild(scratch, day3, '2026-12-03', false, true)).pages);
  });

  it('are patched from the base day when the same day is built again (its memo is of that day)', async () => {
    const store = new MemoryObjectStore();
    const scratch = new MemoryObjectStore();
    for (const s of [store, scratch]) await buildWithPages(s, day1, '2026-12-01');
    await buildWithPages(store, day1, '2026-12-02');
    const again = await countedBuild(store, day2, '2026-12-02');
    expect(again.tabulated).toBe(0);
    expect(again.pages).toBe((await countedBuild(scratch, day2, '2026-12-02', false, true)).pages);
  });

  it('are tabulated when a models page of the base day is lost, with the same pages', async () => {
    const store = new MemoryObjectStore();
    const first = await buildWithPages(store, day1, '2026-12-01');
    const root = await json<PagesRoot>(store, first.pages);
    const lostPage = (root.models.pages ?? (await json<{ pages: string[] }>(store, root.models.dirs?.[0] as string)).pages)[3] as string;
    const lost = Object.assign(Object.create(store) as MemoryObjectStore, {
      get: async (a: Address) => (a === lostPage ? undefined : store.get(a)),
    });
    const built = await countedBuild(lost, day2, '2026-12-02', false);
    expect(built.tabulated).toBe(day2.length);
    const scratch = new MemoryObjectStore();
    await buildWithPages(scratch, day1, '2026-12-01');
    expect(built.pages).toBe((await countedBuild(scratch, day2, '2026-12-02', false, true)).pages);
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
