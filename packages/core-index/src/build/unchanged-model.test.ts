// Issue 39 (a day in proportion): models a change feed says did not change are given to the builder without their
// input (unchanged-model.ts), taken from the last build's memo, and every day still gets exactly the catalog and pages
// addresses of a build that reuses nothing. SYNTHETIC models.
import { describe, expect, it } from 'vitest';
import type { Address } from '../index/blake3.js';
import { MemoryObjectStore } from '../index/memory-object-store.js';
import type { ModelsPageAt } from '../index/models-list.js';
import type { ObjectStore } from '../index/object-store.js';
import { MODELS_PER_PAGE } from '../index/page-layout.js';
import { openPagedIndex } from '../index/paged-index.js';
import { BytesStore, lostModelObject } from '../testing/memo-stores.js';
import { syntheticModels } from '../testing/scale.js';
import { type BuildModelInput, buildIndex } from './builder.js';
import type { UnchangedModelInput } from './unchanged-model.js';

const base = syntheticModels(240);
const day2 = [
  ...base
    .filter((_, i) => i !== 17)
    .map((m, i) => (i % 25 === 3 ? { ...m, license: 'apache-2.0' } : i % 40 === 9 ? { ...m, row: { ...m.row, downloads: 1 } } : m)),
  { ...(base[5] as BuildModelInput), id: 'synthetic-new/model-x' },
];
const day4 = day2.map((m, i) => (i === 0 ? { ...m, license: 'mit-0' } : m));
const day5 = day4.map((m, i) => (i === day4.length - 1 ? { ...m, license: 'cc0-1.0' } : m));
/** Days: the first, a day of changes (a model gone, one new), unchanged, the first model changed, the last, unchanged. */
const days = [base, day2, day2, day4, day5, day5].map((models, i) => ({ date: `2026-12-0${i + 1}`, models }));

/**
 * A day's input as a change feed gives it: a model whose input is the one of the day before (the same object) comes
 * without its input, and `calls` counts the inputs asked for.
 */
function fed(models: BuildModelInput[], before: BuildModelInput[] | undefined, calls: { n: number }) {
  const was = new Set(before ?? []);
  return models.map((m): BuildModelInput | UnchangedModelInput =>
    was.has(m)
      ? {
          id: m.id,
          input: () => {
            calls.n++;
            return m;
          },
        }
      : m,
  );
}

async function build(store: ObjectStore, date: string, models: Array<BuildModelInput | UnchangedModelInput>, o: object = {}) {
  const r = await buildIndex(store, { date, models, pages: true, stamp: () => `input of ${date}`, ...o });
  return { catalog: r.catalog, pages: r.day.pages, files: r.files, bytes: r.bytes, models: r.models };
}

/** A built day's models pages in browse order, as its paged store lists them. */
async function modelsPagesOf(store: ObjectStore, day: { catalog: string; pages?: string }): Promise<ModelsPageAt[]> {
  const index = await openPagedIndex(store, day.pages as Address, day.catalog as Address);
  const out: ModelsPageAt[] = [];
  for await (const page of index.modelsPages()) out.push(page);
  return out;
}

/** How many models the pages holding these ranks hold together (each page once). */
function neighbours(pages: readonly ModelsPageAt[], ranks: Iterable<number>): number {
  const held = new Set<ModelsPageAt>();
  for (const rank of ranks) for (const p of pages) if (rank >= p.first && rank < p.first + p.size) held.add(p);
  return [...held].reduce((n, p) => n + p.size, 0);
}

describe('models given as unchanged since the last build', () => {
  it('give every day the addresses and totals of a full build, and their inputs are not asked for on a day they make nothing', async () => {
    for (const catalogLimit of [undefined, 16 * 1024]) {
      const fedStore = new BytesStore();
      const full = new MemoryObjectStore();
      const asked: number[] = [];
      let last: ModelsPageAt[] = [];
      for (const [i, day] of days.entries()) {
        const calls = { n: 0 };
        const models = fed(day.models, days[i - 1]?.models, calls);
        const since = i > 0 ? `input of ${days[i - 1]?.date}` : undefined;
        const a = await build(fedStore, day.date, models, { since, catalogLimit });
        const b = await build(full, day.date, day.models, { reuse: false, catalogLimit });
        expect(a, `${day.date}, catalog limit ${catalogLimit}`).toEqual(b);
        asked.push(calls.n);
        last = await modelsPagesOf(fedStore, a);
      }
      // the unchanged days ask for nothing: no page, shard or row is made again
      expect(asked[2]).toBe(0);
      expect(asked[5]).toBe(0);
      // a day on which the last model alone changed asks for the inputs of its models page's neighbours and of the
      // browse list's head (the pages root holds the first models' entries), no more
      expect(asked[4]).toBeLessThanOrEqual(neighbours(last, [day5.length - 1]) + MODELS_PER_PAGE);
      // a day of changes asks for some: the neighbours in composed models pages, rows of composed shards, the tables
      expect(asked[1]).toBeGreaterThan(0);
    }
  });

  it('fill the look-up tables, terms and digests from the memo: a day of a few changes asks only for their neighbours', async () => {
    // some rows without a trending score (its key is made from the rank) and one time not in toISOString's form (the
    // tables then sort the times as texts, and that model's facts are not kept)
    const first = syntheticModels(240).map((m, i) => {
      const { trendingScore: _, ...row } = m.row as Record<string, unknown>;
      return i % 7 === 2 ? { ...m, row } : i === 50 ? { ...m, row: { ...m.row, createdAt: '2024-01-01' } } : m;
    });
    // a few models changed: a license; downloads and likes (which move a model in those orders); tags (the search
    // terms are made again); a file's digest (the digest map is made again)
    const changed = first.map((m, i) => {
      if (i % 60 === 11) return { ...m, license: 'apache-2.0' };
      if (i % 60 === 41) return { ...m, row: { ...m.row, downloads: 10 ** 9 + i, likes: i } };
      if (i === 100) return { ...m, row: { ...m.row, tags: ['changed'] } };
      if (i === 150) return { ...m, files: m.files.map((f, k) => (k === 0 ? { ...f, sha256: 'f'.repeat(64) } : f)) };
      return m;
    });
    const changes = changed.filter((m, i) => m !== first[i]).length;
    for (const catalogLimit of [undefined, 16 * 1024]) {
      const fedStore = new BytesStore();
      const full = new MemoryObjectStore();
      const asked: number[] = [];
      const bounds: number[] = [];
      const steps: Array<[string, BuildModelInput[], BuildModelInput[] | undefined]> = [
        ['2026-12-01', first, undefined],
        ['2026-12-02', changed, first],
        ['2026-12-03', first, changed],
      ];
      const ranks = changed.flatMap((m, i) => (m !== first[i] ? [i] : []));
      for (const [i, [date, models, before]] of steps.entries()) {
        const calls = { n: 0 };
        const since = i > 0 ? `input of ${steps[i - 1]?.[0]}` : undefined;
        const a = await build(fedStore, date, fed(models, before, calls), { since, catalogLimit });
        expect(a, `${date}, catalog limit ${catalogLimit}`).toEqual(await build(full, date, models, { reuse: false, catalogLimit }));
        asked.push(calls.n);
        // the neighbours in each changed model's models page, the browse list's head, and the model whose facts were
        // not kept; not the other models (whose rows the tables would otherwise be filled from)
        bounds.push(neighbours(await modelsPagesOf(fedStore, a), ranks) + MODELS_PER_PAGE + 1);
      }
      expect(ranks).toHaveLength(changes);
      for (const [i, n] of asked.entries()) if (i > 0) expect(n).toBeLessThanOrEqual(bounds[i] as number);
      expect(bounds[1]).toBeLessThan(first.length / 3);
    }
  });

  it('a day that adds and removes models makes the models pages that hold them, not every page after them', async () => {
    const first = syntheticModels(240);
    // two models added (one near the top, one in the middle) and one removed: every rank after them moves
    const added = (k: number) => ({ ...(first[k] as BuildModelInput), id: `synthetic-added/model-${k}` });
    const changed = [...first.slice(0, 10), added(10), ...first.slice(10, 130), added(130), ...first.slice(130, 200), ...first.slice(201)];
    for (const catalogLimit of [undefined, 16 * 1024]) {
      const store = new BytesStore();
      const full = new MemoryObjectStore();
      const day1 = await build(store, '2026-12-01', first, { catalogLimit });
      await build(full, '2026-12-01', first, { reuse: false, catalogLimit });
      const calls = { n: 0 };
      const day2 = await build(store, '2026-12-02', fed(changed, first, calls), { since: 'input of 2026-12-01', catalogLimit });
      expect(day2).toEqual(await build(full, '2026-12-02', changed, { reuse: false, catalogLimit }));
      // the same pages but for the ones around the three places (a page may split or two join where the change is)
      const before = new Set((await modelsPagesOf(store, day1)).map((p) => p.address));
      const after = await modelsPagesOf(store, day2);
      const made = after.filter((p) => !before.has(p.address));
      expect(made.length).toBeGreaterThan(0);
      expect(made.length).toBeLessThanOrEqual(2 * 3);
      // the inputs asked for are those of the models in the pages made, and of the browse list's head
      expect(calls.n).toBeLessThanOrEqual(made.reduce((n, p) => n + p.size, 0) + MODELS_PER_PAGE);
    }
  });

  it('are built from their input when the memo is of another input, or there is none', async () => {
    const store = new BytesStore();
    const full = new MemoryObjectStore();
    await build(store, days[0]?.date as string, base);
    await build(full, days[0]?.date as string, base, { reuse: false });
    for (const o of [{ since: 'input of another day' }, {}, { since: `input of ${days[0]?.date}`, reuse: false }]) {
      const calls = { n: 0 };
      const models = fed(day2, base, calls);
      expect(await build(store, '2026-12-02', models, o)).toEqual(await build(full, '2026-12-02', day2, { reuse: false }));
      // every unchanged model's input was asked for (the memo could not serve it)
      expect(calls.n, JSON.stringify(o)).toBe(models.filter((m) => 'input' in m).length);
    }
  });

  it('leave a memo a rebuild of the same day chains from: a model changed again chains to the base day object', async () => {
    const store = new BytesStore();
    const full = new MemoryObjectStore();
    // day 2 changed model 3; day 3 is fed as unchanged, then built again with model 3 changed once more
    const again = day2.map((m, i) => (i === 3 ? { ...m, license: 'mit-0' } : m));
    const steps: Array<[string, BuildModelInput[], BuildModelInput[] | undefined, string | undefined]> = [
      ['2026-12-01', base, undefined, undefined],
      ['2026-12-02', day2, base, 'input of 2026-12-01'],
      ['2026-12-03', day2, day2, 'input of 2026-12-02'],
      ['2026-12-03', again, day2, 'input of 2026-12-03'],
    ];
    for (const [date, models, before, since] of steps) {
      const a = await build(store, date, fed(models, before, { n: 0 }), { since });
      expect(a, date).toEqual(await build(full, date, models, { reuse: false }));
    }
  });

  it('are not made for a host that answered onObject with false (it wants no more objects)', async () => {
    const store = new BytesStore();
    await build(store, '2026-12-01', base);
    let asked = 0;
    const calls = { n: 0 };
    const day = await build(store, '2026-12-02', fed(base, base, calls), {
      since: 'input of 2026-12-01',
      onObject: () => {
        asked++;
        return asked < 3 ? undefined : false;
      },
    });
    expect(asked).toBe(3);
    // the first model's input was made for its objects (they were reported), no other's but its page's and the head's
    expect(calls.n).toBeLessThanOrEqual(neighbours(await modelsPagesOf(store, day), [0]) + MODELS_PER_PAGE);
  });

  it('refuse an input of another model', async () => {
    const store = new BytesStore();
    await build(store, '2026-12-01', base);
    const wrong = [{ id: (base[0] as BuildModelInput).id, input: () => base[1] as BuildModelInput }, ...base.slice(1)];
    await expect(build(store, '2026-12-02', wrong, { since: 'another input' })).rejects.toThrow(/is of/);
  });

  it('put again an object the store lost, made from the input, and report every object to onObject as a full build does', async () => {
    const store = new BytesStore();
    const full = new MemoryObjectStore();
    await build(store, '2026-12-01', base);
    await build(full, '2026-12-01', base, { reuse: false });
    const model = (base[9] as BuildModelInput).id;
    const puts: string[] = [];
    const watched = lostModelObject(store, model, puts);
    const reported = (into: string[]) => (kind: string, address: Address, _v: unknown, bytes: Uint8Array) =>
      void into.push(`${kind} ${address} ${new TextDecoder().decode(bytes)}`);
    const [fromFeed, fromFull]: [string[], string[]] = [[], []];
    const calls = { n: 0 };
    const a = await build(watched, '2026-12-02', fed(base, base, calls), {
      since: 'input of 2026-12-01',
      onObject: reported(fromFeed),
    });
    expect(a).toEqual(await build(full, '2026-12-02', base, { reuse: false, onObject: reported(fromFull) }));
    expect(puts.some((p) => p.includes(`"id":"${model}"`))).toBe(true);
    expect(fromFeed.sort()).toEqual(fromFull.sort());
  });
});
