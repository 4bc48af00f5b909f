// SYNTHETIC days for the tests of a day's terms and digest map patched (build/sections-patch-build.test.ts,
// build/pages-patch-build.test.ts): a first day of 2,001 models, one of them of 300 files; a second that adds two,
// removes one, moves two far down, retags one and changes one file; a third that reverses the first half.

import type { BuildModelInput } from '../build/builder.js';
import type { Address } from '../index/blake3.js';
import type { ObjectStore } from '../index/object-store.js';
import { syntheticModels } from './scale.js';

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
