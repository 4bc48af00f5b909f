import { describe, expect, it } from 'vitest';
import { DigestPostings } from './digest-postings.js';
import { keyHash } from './page-layout.js';
import { PageKey } from './page-tables.js';

/** A SYNTHETIC digest of 64 hex digits from a number. */
const digest = (n: number) => (n * 2654435761).toString(16).padStart(8, '0').repeat(8).slice(0, 64);

/** Files of `models` models (SYNTHETIC): four each, some digests shared between models, one twice in a model. */
function filesOf(models: number): Array<[string, number]> {
  const files: Array<[string, number]> = [];
  for (let rank = 0; rank < models; rank++) {
    for (let f = 0; f < 4; f++) files.push([digest(f === 3 ? rank % 50 : rank * 4 + f + 1000), rank]);
    if (rank % 97 === 0) files.push([digest(rank * 4 + 1000), rank]);
    if (rank % 301 === 0) files.push([`sha-odd-${rank % 3}`, rank]);
  }
  return files;
}

/** The buckets as a map of digest to ranks gives them. */
function expected(files: Array<[string, number]>, buckets: number): Array<Record<string, number[]>> {
  const out = Array.from({ length: buckets }, () => ({}) as Record<string, number[]>);
  for (const [d, r] of files) {
    const entries = out[keyHash(d) & (buckets - 1)] as Record<string, number[]>;
    entries[d] ??= [];
    if (!entries[d].includes(r)) entries[d].push(r);
  }
  for (const entries of out) for (const list of Object.values(entries)) list.sort((a, b) => a - b);
  return out;
}

describe('the digest postings (the digest buckets of the index pages)', () => {
  it('gives each bucket the digests whose key hash ends in its number, with their ranks once and ascending, for any number of buckets', async () => {
    // added in rank order, as a build adds them (sorting by key hash moves nearly every file)
    const files = filesOf(3000);
    for (const buckets of [1, 2, 8, 64, 1024]) {
      const postings = new DigestPostings();
      for (const [d, r] of files) postings.add(d, r);
      const want = expected(files, buckets);
      expect(postings.group()).toBe(want.reduce((n, e) => n + Object.keys(e).length, 0));
      const got: Array<Record<string, number[]>> = [];
      await postings.forEachBucket(buckets, async (b, _key, entries) => {
        expect(b).toBe(got.length);
        got.push(entries());
      });
      expect(got).toEqual(want);
    }
  });

  it('keys a bucket by its content: the same files in another order give the same keys, another rank another key', async () => {
    const files = filesOf(500);
    const keysOf = async (list: Array<[string, number]>) => {
      const postings = new DigestPostings();
      for (const [d, r] of list) postings.add(d, r);
      postings.group();
      const keys: string[] = [];
      await postings.forEachBucket(16, async (_b, key) => void keys.push(key as string), new PageKey());
      return keys;
    };
    const keys = await keysOf(files);
    // each model's files in another order
    expect(await keysOf([...files].sort((a, b) => a[1] - b[1] || b[0].localeCompare(a[0])))).toEqual(keys);
    const moved = files.map(([d, r], i) => (i === 10 ? ([d, r + 1] as [string, number]) : ([d, r] as [string, number])));
    const other = await keysOf(moved);
    expect(other.filter((k, b) => k !== keys[b])).toHaveLength(1);
  });
});
