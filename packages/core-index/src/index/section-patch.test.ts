// Issue 39 (build side): the last build's term and digest buckets patched with a day's changes are the pages a build
// that tabulates every model writes, byte for byte (the same addresses), or the patch is given up. SYNTHETIC lists.
import { describe, expect, it } from 'vitest';
import { DigestPostings, writeShaPages } from './digest-postings.js';
import { fmix32 } from './fnv.js';
import { MemoryObjectStore } from './memory-object-store.js';
import { endsByPosition, type HashedMap, POSTINGS_SEGMENT, type SectionSizes } from './page-layout.js';
import { PageWriter } from './page-writer.js';
import { patchShaPages, patchTermPages, SectionDelta } from './section-patch.js';
import { ShortGrams, shortGramsOf, TermPostings, writeTermPages } from './term-pages.js';

/** A seeded generator of numbers in [0, 1) (mulberry32). */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The term buckets a whole tabulation writes for these lists (positions, ascending) and ids (lower-case, position). */
async function tabulated(store: MemoryObjectStore, lists: Record<string, number[]>, ids: Array<[string, number]> = []) {
  const all = [...new Set([...Object.values(lists).flat(), ...ids.map(([, p]) => p)])].sort((a, b) => a - b);
  const rank = new Map(all.map((p, r) => [p, r]));
  const events: Array<[number, string]> = [];
  for (const [key, list] of Object.entries(lists)) for (const p of list) events.push([rank.get(p) as number, key]);
  events.sort((a, b) => a[0] - b[0]);
  const terms = new TermPostings();
  for (const [r, key] of events) terms.add(key, r);
  const short = new ShortGrams();
  for (const [id, p] of [...ids].sort((a, b) => a[1] - b[1])) short.add(id, rank.get(p) as number);
  const w = new PageWriter(store);
  const out = await writeTermPages(w, terms, short, Uint32Array.from(all));
  await w.flush();
  return out;
}

/** `lists` with `change` applied (positions removed, then added). */
function applied(lists: Record<string, number[]>, change: Record<string, { add?: number[]; del?: number[] }>): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (const key of new Set([...Object.keys(lists), ...Object.keys(change)])) {
    const del = new Set(change[key]?.del ?? []);
    const list = [...(lists[key] ?? []).filter((p) => !del.has(p)), ...(change[key]?.add ?? [])].sort((a, b) => a - b);
    if (list.length > 0) out[key] = list;
  }
  return out;
}

/** The last build's buckets for `lists` patched with `change`, beside the buckets written from scratch after it. */
async function patchAndScratch(lists: Record<string, number[]>, change: Record<string, { add?: number[]; del?: number[] }>) {
  const store = new MemoryObjectStore();
  const last = await tabulated(store, lists);
  const delta = new SectionDelta();
  for (const [key, c] of Object.entries(change)) delta.terms.set(key, { add: c.add ?? [], del: c.del ?? [] });
  const w = new PageWriter(store);
  const sizes: SectionSizes = { terms: last.total, digests: 0, files: 0 };
  const patched = await patchTermPages(w, store, last.map, sizes, delta);
  await w.flush();
  return { patched, scratch: await tabulated(new MemoryObjectStore(), applied(lists, change)), store };
}

/** `count` positions ascending from 64, some gaps bigger, none of them where a posting list is cut by its hash. */
function uncut(count: number): number[] {
  const out: number[] = [];
  for (let p = 64; out.length < count; p += 64) if (!endsByPosition(p, 1, POSTINGS_SEGMENT)) out.push(p);
  return out;
}

describe('the term buckets patched', () => {
  const long = Array.from({ length: 40_000 }, (_, i) => (i + 1) * 64);
  const lists = { 'w:long': long, 'g:other': long.filter((_, i) => i % 3 === 0), 't:short': [64, 640, 6400], 'a:x': [128] };

  it('are the buckets and segments written from scratch, wherever the changes fall', async () => {
    const cutPoint = long.find((p) => (fmix32(p) & (POSTINGS_SEGMENT - 1)) === 0) as number;
    const cases: Array<Record<string, { add?: number[]; del?: number[] }>> = [
      { 'w:long': { add: [65] } },
      { 'w:long': { add: [1, 40_001 * 64 + 5] } },
      { 'w:long': { del: [64, 40_000 * 64] } },
      { 'w:long': { del: [cutPoint] } },
      { 'w:long': { add: [cutPoint + 1, cutPoint - 1] } },
      { 'g:other': { add: [65, 129, 193] }, 't:short': { del: [640] }, 'a:new': { add: [64] } },
      { 'a:x': { del: [128] }, 't:short': { add: [65] } },
      // a position one model leaves and another takes
      { 'w:long': { del: [640, cutPoint], add: [640, 65, cutPoint] }, 't:short': { del: [640], add: [640] } },
    ];
    const rng = random(39);
    for (let round = 0; round < 8; round++) {
      const add = new Set<number>();
      const del = new Set<number>();
      for (let k = 0; k < 1 + round * 3; k++) {
        add.add(1 + Math.floor(rng() * 40_000) * 64 + 1 + Math.floor(rng() * 62));
        del.add(long[Math.floor(rng() * long.length)] as number);
      }
      cases.push({ 'w:long': { add: [...add], del: [...del] }, 'g:other': { add: [...add].slice(0, 2) } });
    }
    for (const change of cases) {
      const { patched, scratch } = await patchAndScratch(lists, change);
      expect(patched, JSON.stringify(change)).toBeDefined();
      expect(patched?.map, JSON.stringify(change)).toEqual(scratch.map);
      expect(patched?.total).toBe(scratch.total);
    }
  });

  it('cut a list again to its end where no position of it cuts it (pages of 16,384 by the bound)', async () => {
    const flat = { 'w:flat': uncut(40_000) };
    for (const change of [{ 'w:flat': { add: [1] } }, { 'w:flat': { del: [flat['w:flat'][5] as number] } }]) {
      const { patched, scratch } = await patchAndScratch(flat, change);
      expect(patched?.map).toEqual(scratch.map);
    }
  });

  it('move a list between its bucket and segments when it passes 4,096 either way', async () => {
    const at = Array.from({ length: POSTINGS_SEGMENT }, (_, i) => (i + 1) * 64);
    const over = [...at, (POSTINGS_SEGMENT + 1) * 64];
    // other terms, so the list's move does not change the number of buckets (it would give the patch up)
    const others: Record<string, number[]> = {};
    for (let k = 0; k < 60; k++) others[`g:filler-${k}`] = at.slice(k, k + 4000);
    const cases: Array<[number[], { add?: number[]; del?: number[] }]> = [
      [at, { add: [7] }],
      [over, { del: [64] }],
      [over, { add: [7], del: [64, 128] }],
    ];
    for (const [list, edge] of cases) {
      const { patched, scratch } = await patchAndScratch({ ...others, 'w:edge': list }, { 'w:edge': edge });
      expect(scratch.map.buckets).toBe(1024);
      expect(patched?.map).toEqual(scratch.map);
    }
    // alone, the move changes the number of buckets: given up
    expect((await patchAndScratch({ 'w:edge': at }, { 'w:edge': { add: [7] } })).patched).toBeUndefined();
  });

  it('keeps the count of a short word past its cap, and is given up when one falls back under it', async () => {
    // 4,097 ids hold `q`: its term is its count alone
    const ids: Array<[string, number]> = Array.from({ length: POSTINGS_SEGMENT + 1 }, (_, i) => [`q/${i}`, (i + 1) * 64]);
    const store = new MemoryObjectStore();
    const last = await tabulated(store, {}, ids);
    const sizes: SectionSizes = { terms: last.total, digests: 0, files: 0 };
    const patch = async (add: number[], del: number[]) => {
      const delta = new SectionDelta();
      delta.terms.set('s:q', { add, del });
      return patchTermPages(new PageWriter(store), store, last.map, sizes, delta);
    };
    const more = await patch([1], []);
    const scratch = await tabulated(new MemoryObjectStore(), {}, [...ids, ['q/x', 1]]);
    // the buckets hold every other short word as before; `s:q` counts one more
    expect(more?.total).toBe(last.total);
    expect(more?.map.buckets).toBe(scratch.map.buckets);
    expect(await patch([], [64])).toBeUndefined();
  });

  it('is given up when the number of buckets would change, or a change does not fit the list', async () => {
    const many: Record<string, { add: number[] }> = {};
    for (let k = 0; k < 400; k++) many[`g:tag-${k}`] = { add: [64, 128] };
    const { patched, scratch } = await patchAndScratch({ 'a:x': [64] }, many);
    expect(scratch.map.buckets).toBeGreaterThan(1);
    expect(patched).toBeUndefined();
    expect((await patchAndScratch(lists, { 'w:long': { del: [65] } })).patched).toBeUndefined();
    expect((await patchAndScratch(lists, { 'w:long': { add: [64] } })).patched).toBeUndefined();
    expect((await patchAndScratch(lists, { 't:short': { del: [65] } })).patched).toBeUndefined();
  });

  it('names the short words a tabulation keeps for an id', () => {
    for (const id of ['a/b', 'org/model-7b', 'zz/zz', 'x/é-😀']) {
      const short = new ShortGrams();
      short.add(id, 0);
      expect(new Set([...short.terms()].map((t) => t.key))).toEqual(shortGramsOf(id));
    }
  });
});

/** The digest buckets a whole tabulation writes for these files ([digest, position], positions ascending per digest). */
async function digestMap(store: MemoryObjectStore, files: Array<[string, number]>) {
  const all = [...new Set(files.map(([, p]) => p))].sort((a, b) => a - b);
  const rank = new Map(all.map((p, r) => [p, r]));
  const shas = new DigestPostings();
  for (const [d, p] of [...files].sort((a, b) => a[1] - b[1])) shas.add(d, rank.get(p) as number);
  const w = new PageWriter(store);
  const out = await writeShaPages(w, shas, Uint32Array.from(all));
  await w.flush();
  return out;
}

describe('the digest buckets patched', () => {
  const digest = (n: number) => (n * 2654435761).toString(16).padStart(8, '0').repeat(8).slice(0, 64);
  const files: Array<[string, number]> = [];
  for (let m = 1; m <= 3000; m++) for (let f = 0; f < 4; f++) files.push([digest(f === 3 ? m % 40 : m * 4 + f), m * 64]);

  const patch = async (
    add: Array<[string, number]>,
    del: Array<[string, number]>,
    store: MemoryObjectStore,
    last: HashedMap,
    sizes: SectionSizes,
  ) => {
    const delta = new SectionDelta();
    for (const [d, p, sign] of [...add.map(([d, p]) => [d, p, 1] as const), ...del.map(([d, p]) => [d, p, -1] as const)]) {
      const c = delta.shas.get(d) ?? { add: [], del: [] };
      (sign > 0 ? c.add : c.del).push(p);
      delta.shas.set(d, c);
    }
    delta.files = add.length - del.length;
    const w = new PageWriter(store);
    const out = await patchShaPages(w, store, last, sizes, delta);
    await w.flush();
    return out;
  };

  it('are the buckets written from scratch: a model added, one removed, a digest shared and one gone', async () => {
    const store = new MemoryObjectStore();
    const last = await digestMap(store, files);
    const sizes = { terms: 0, digests: last.digests, files: last.files };
    const added: Array<[string, number]> = [
      [digest(99_999), 65],
      [digest(5), 65],
      [digest(3 * 4 + 1), 65],
    ];
    const removed = files.filter(([, p]) => p === 64 * 7);
    const after = [...files.filter(([, p]) => p !== 64 * 7), ...added];
    const got = await patch(added, removed, store, last.map, sizes);
    const scratch = await digestMap(new MemoryObjectStore(), after);
    expect(got?.map).toEqual(scratch.map);
    expect([got?.digests, got?.files]).toEqual([scratch.digests, scratch.files]);
  });

  it('is given up when the number of buckets would change', async () => {
    const store = new MemoryObjectStore();
    const last = await digestMap(store, files);
    const sizes = { terms: 0, digests: last.digests, files: last.files };
    const added = Array.from({ length: 20_000 }, (_, k) => [digest(500_000 + k), 64 * 3001] as [string, number]);
    expect(await patch(added, [], store, last.map, sizes)).toBeUndefined();
  });
});
