// Issue 39 (build side): on a day whose models give the search terms and the digest map what the last build's gave
// (page-sections.ts), those sections are the last build's: their tables are not filled and their pages not keyed
// again, and the root is the same bytes as one written from scratch. SYNTHETIC models.
import { describe, expect, it } from 'vitest';
import { buildWithPages, syntheticModels } from '../testing/scale.js';
import type { Address } from './blake3.js';
import { IndexPagesWriter } from './index-pages.js';
import { MemoryObjectStore } from './memory-object-store.js';
import type { ModelsPageReuse } from './models-pages.js';
import type { PagedEntry, PagesRoot } from './page-layout.js';
import { POSITION_GAP } from './positions.js';

const decoder = new TextDecoder();
const json = async (store: MemoryObjectStore, a: string) => JSON.parse(decoder.decode((await store.get(a as Address))?.bytes));

/** Every look-up page's key to its address (as the memo keeps them), and each models page's section keys. */
class Recorded {
  readonly looks = new Map<string, string>();
  readonly sections: Array<{ terms: string; shas: string }> = [];
}

function reuseOf(now: Recorded, last?: { recorded: Recorded; root: PagesRoot }, asked?: string[], kept?: Set<string>): ModelsPageReuse {
  return {
    page: () => undefined,
    record: () => {},
    look: (k) => {
      asked?.push(k);
      return last?.recorded.looks.get(k);
    },
    recordLook: (k, a) => void now.looks.set(k, a),
    keepLooks: (addresses) => {
      for (const a of addresses) kept?.add(a);
    },
    section: (i) => last?.recorded.sections[i],
    sectionCount: () => last?.recorded.sections.length ?? 0,
    recordSection: (terms, shas) => void now.sections.push({ terms, shas }),
    lastRoot: async () => last?.root,
  };
}

/** The day's pages; each model at the position a first day gives its rank (as the builder gives the last build's). */
async function write(store: MemoryObjectStore, entries: PagedEntry[], reuse?: ModelsPageReuse): Promise<string> {
  const w = new IndexPagesWriter(store, reuse);
  for (const [i, e] of entries.entries())
    await w.add(e, e.row.id.toLowerCase(), `k${i}-${e.row.downloads}`, undefined, (i + 1) * POSITION_GAP);
  return w.finish('blake3:00' as Address, '2026-11-29');
}

describe('the terms and the digest map of a day whose models give them what the last build gave', () => {
  it("are the last build's pages, neither filled nor keyed again, and the root is the one written from scratch", async () => {
    const store = new MemoryObjectStore();
    const built = await buildWithPages(store, syntheticModels(200));
    const first = (await json(store, built.pages)) as PagesRoot;
    const entries: PagedEntry[] = [];
    for (const a of first.models.pages ?? []) entries.push(...((await json(store, a)) as { models: PagedEntry[] }).models);
    expect(entries).toHaveLength(200);

    const day1 = new Recorded();
    const root1 = (await json(store, await write(store, entries, reuseOf(day1)))) as PagesRoot;
    // day 2: one model's downloads changed (an order and its models page change; no term, no digest)
    const changed = entries.map((e, i) => (i === 150 ? { ...e, row: { ...e.row, downloads: 1 } } : e));
    const asked: string[] = [];
    const kept = new Set<string>();
    const day2 = new Recorded();
    const reused = await write(store, changed, reuseOf(day2, { recorded: day1, root: root1 }, asked, kept));
    expect(reused).toBe(await write(new MemoryObjectStore(), changed));
    const sectionPages = [...(root1.terms.pages ?? []), ...(root1.shas.pages ?? [])];
    const sectionKeys = new Set([...day1.looks].filter(([, a]) => sectionPages.includes(`blake3:${a}`)).map(([k]) => k));
    expect(sectionKeys.size).toBe(sectionPages.length);
    // no terms or digest page was keyed again (their tables were not filled), and their keys go on to the next memo
    expect(asked.filter((k) => sectionKeys.has(k))).toEqual([]);
    expect(asked.length).toBeGreaterThan(0);
    expect([...kept].sort()).toEqual([...sectionPages].sort());

    // day 3: a tag of an early model renamed (as many tags), so the terms are filled (caught up from the pages before it) and keyed
    const tagged = changed.map((e, i) =>
      i === 20 ? { ...e, row: { ...e.row, tags: ['renamed-tag', ...(e.row.tags ?? []).slice(1)] } } : e,
    );
    asked.length = 0;
    const again = await write(
      store,
      tagged,
      reuseOf(new Recorded(), { recorded: day2, root: (await json(store, reused)) as PagesRoot }, asked),
    );
    expect(again).toBe(await write(new MemoryObjectStore(), tagged));
    expect(asked.filter((k) => sectionKeys.has(k)).length).toBeGreaterThan(0);

    // day 4 (after day 2): a file of a late model holds another digest, so the digest map is filled and keyed again
    const digest = changed.map((e, i) =>
      i === 190
        ? { ...e, object: { ...e.object, files: e.object.files.map((f, k) => (k === 0 ? { ...f, sha256: 'f'.repeat(64) } : f)) } }
        : e,
    );
    asked.length = 0;
    const day4 = await write(
      store,
      digest,
      reuseOf(new Recorded(), { recorded: day2, root: (await json(store, reused)) as PagesRoot }, asked),
    );
    expect(day4).toBe(await write(new MemoryObjectStore(), digest));
  });
});
