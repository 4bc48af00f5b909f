// SYNTHETIC days for the tests of a day's terms and digest map patched (build/sections-patch-build.test.ts,
// build/pages-patch-build.test.ts): a first day of 2,001 models, one of them of 300 files; a second that adds two,
// removes one, moves two far down, retags one and changes one file; a third that reverses the first half. And the
// builds those tests make: counting the models tabulated, or with every model tabulated as the reference.

import { MEMO_REF } from '../build/build-memo.js';
import type { BuildModelInput } from '../build/builder.js';
import type { Address } from '../index/blake3.js';
import { DaySections } from '../index/day-sections.js';
import type { ObjectStore } from '../index/object-store.js';
import { buildWithPages, syntheticModels } from './scale.js';

const decoder = new TextDecoder();
export const json = async <T>(store: ObjectStore, a: string) => JSON.parse(decoder.decode((await store.get(a as Address))?.bytes)) as T;

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
export const day1 = [...base.slice(0, 40), big, ...base.slice(40)];
const added = (k: number): BuildModelInput => ({
  ...(base[k] as BuildModelInput),
  id: `synthetic-added/model-${k}`,
  files: (base[k] as BuildModelInput).files.map((f) => ({ ...f, sha256: `e${f.sha256.slice(1)}` })),
});
export const retagged = (m: BuildModelInput): BuildModelInput => ({
  ...m,
  row: { ...m.row, tags: ['retagged', ...(m.row?.tags ?? []).slice(1)] },
});
const refiled = (m: BuildModelInput): BuildModelInput => ({
  ...m,
  files: m.files.map((f, k) => (k === 0 ? { ...f, sha256: `f${f.sha256.slice(1)}` } : f)),
});
// day 2: two models added, one removed, two moved far down (the big one too), one retagged, one file changed
export const day2 = [
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
export const day3 = [...day2.slice(0, 1000).reverse(), ...day2.slice(1000)];

/** `build` run with the patch of the base day's pages as told from them given up: every model is tabulated. */
export async function tabulatingWhole<T>(build: () => Promise<T>): Promise<T> {
  const sections = DaySections.prototype as unknown as { patchFromPages(): Promise<undefined> };
  const own = sections.patchFromPages;
  sections.patchFromPages = async () => undefined;
  try {
    return await build();
  } finally {
    sections.patchFromPages = own;
  }
}

/**
 * The day built on `store`, counting the models whose terms and digests were tabulated; `whole`: every model is
 * ({@link tabulatingWhole}), the reference the patches are held to.
 */
export async function countedBuild(store: ObjectStore, models: BuildModelInput[], date: string, reuse = true, whole = false) {
  const sections = DaySections.prototype;
  const own = sections.tabulate;
  let tabulated = 0;
  sections.tabulate = function (this: DaySections, s, lower, rank) {
    // (the pages format's probe, build/pages-format.ts, builds a few models of its own once)
    if (!lower.startsWith('probe')) tabulated++;
    own.call(this, s, lower, rank);
  };
  try {
    const build = () => buildWithPages(store, models, date, { reuse });
    const built = await (whole ? tabulatingWhole(build) : build());
    // a build on a memory store runs on promises alone: let the event loop turn (vitest's worker reports through it)
    await new Promise((resolve) => setImmediate(resolve));
    return { ...built, tabulated };
  } finally {
    sections.tabulate = own;
  }
}

/** The `sectionSizes` the memo of the last build on `store` kept. */
export const memoSizes = async (store: ObjectStore) =>
  (await json<{ sectionSizes?: unknown }>(store, (await store.readRef(MEMO_REF)) as string)).sectionSizes;
