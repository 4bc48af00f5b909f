// SHA-256 digest → the ranks of the models holding a file with it, for the digest buckets (index-pages.ts).
import { BUCKET_TARGET_BYTES, type HashedMap, keyHash, powerOfTwo } from './page-layout.js';
import { DigestList, END, HEX, type PageKey, U32List } from './page-tables.js';
import type { PageWriter } from './page-writer.js';

/** The 32 bits of `h` in reverse order. */
function reverse32(v: number): number {
  let h = v >>> 0;
  h = ((h >>> 1) & 0x55555555) | ((h & 0x55555555) << 1);
  h = ((h >>> 2) & 0x33333333) | ((h & 0x33333333) << 2);
  h = ((h >>> 4) & 0x0f0f0f0f) | ((h & 0x0f0f0f0f) << 4);
  h = ((h >>> 8) & 0x00ff00ff) | ((h & 0x00ff00ff) << 8);
  return ((h >>> 16) | (h << 16)) >>> 0;
}

/**
 * SHA-256 digest → ranks of the models holding a file with it: 40 bytes per file (the digest as 32 bytes, its key
 * hash and the rank) instead of a Map of strings to arrays. A digest that is not 64 lower-case hex is kept as a
 * string. {@link group} sorts the files in place by their key hash's bits reversed (then digest, then rank): the files
 * of a bucket (a hash's low bits) are then one run whatever the number of buckets, so no index of the files by bucket
 * is made (at 1,000,000 models of four files, the sorted copies and indexes of the earlier form held 48 MB more).
 */
export class DigestPostings {
  private readonly digests = new DigestList();
  /** each file's digest's key hash, its bits reversed */
  private readonly reversed = new U32List();
  private readonly ranks = new U32List();
  private readonly odd = new Map<string, number[]>();
  private grouped = false;
  /** files added (each file of each model, a digest twice in one model counted twice) */
  files = 0;

  add(sha256: string, rank: number): void {
    this.files++;
    if (!HEX.test(sha256)) {
      const list = this.odd.get(sha256);
      if (!list) this.odd.set(sha256, [rank]);
      else if (list[list.length - 1] !== rank) list.push(rank);
      return;
    }
    this.digests.push(sha256);
    this.reversed.push(reverse32(keyHash(sha256)));
    this.ranks.push(rank);
  }

  /** Sort the files (see the class) and return how many distinct digests there are, for {@link forEachBucket}. */
  group(): number {
    const { digests, reversed, ranks } = this;
    const n = ranks.length;
    const order = new Uint32Array(n);
    for (let i = 0; i < n; i++) order[i] = i;
    order.sort((a, b) => reversed.get(a) - reversed.get(b) || digests.compare(a, b) || ranks.get(a) - ranks.get(b));
    // the files moved into that order in place, one cycle of the permutation at a time (`order[k]`: the file that
    // goes at k; a place filled is marked with its own number)
    const saved = new Uint8Array(32);
    for (let i = 0; i < n; i++) {
      if (order[i] === i) continue;
      saved.set(digests.bytesOf(i));
      const [r, rank] = [reversed.get(i), ranks.get(i)];
      for (let j = i; ; ) {
        const k = order[j] as number;
        order[j] = j;
        if (k === i) {
          digests.set(j, saved);
          reversed.set(j, r);
          ranks.set(j, rank);
          break;
        }
        digests.set(j, digests.bytesOf(k));
        reversed.set(j, reversed.get(k));
        ranks.set(j, ranks.get(k));
        j = k;
      }
    }
    this.grouped = true;
    let distinct = 0;
    for (let k = 0; k < n; k++) if (!this.sameAsLast(k)) distinct++;
    return distinct + this.odd.size;
  }

  /** Whether file `k` (sorted) has the digest of the file before it. */
  private sameAsLast(k: number): boolean {
    return k > 0 && this.reversed.get(k) === this.reversed.get(k - 1) && this.digests.compare(k, k - 1) === 0;
  }

  /**
   * Each bucket of `buckets` (a power of two) in order, {@link group} first: `fn` gets the bucket's page key (when `key`
   * is given: its digests and what `nameOf` gives for their ranks appended to it, see {@link PageKey}) and its entries,
   * made only when asked for (a bucket the last build wrote is not made again). `nameOf` maps a rank to what the pages
   * name a model by (ascending with the ranks: the day's positions, positions.ts).
   */
  async forEachBucket(
    buckets: number,
    fn: (bucket: number, key: string | undefined, entries: () => Record<string, number[]>) => Promise<void>,
    key?: PageKey,
    nameOf: (rank: number) => number = (r) => r,
  ): Promise<void> {
    if (!this.grouped) throw new Error('DigestPostings: group() first');
    const { digests, reversed, ranks } = this;
    const n = ranks.length;
    const bits = Math.log2(buckets);
    // the files of bucket b are the run of the b whose `bits` low bits, reversed, are the run's number
    const counts = new Uint32Array(buckets);
    for (let k = 0; k < n; k++) (counts[reverse32(reversed.get(k)) & (buckets - 1)] as number)++;
    const starts = new Uint32Array(buckets);
    for (let run = 0, at = 0; run < buckets; run++) {
      const b = bits === 0 ? 0 : reverse32(run) >>> (32 - bits);
      starts[b] = at;
      at += counts[b] as number;
    }
    const oddByBucket = new Map<number, string[]>();
    for (const key of this.odd.keys()) {
      const b = keyHash(key) & (buckets - 1);
      oddByBucket.set(b, [...(oddByBucket.get(b) ?? []), key]);
    }
    /** The digests of files `from` to `to`: each digest's first file and the ranks of its files once, ascending. */
    const eachDigest = (from: number, to: number, each: (first: number, rank: (to: (r: number) => void) => void) => void) => {
      for (let k = from; k < to; ) {
        let end = k + 1;
        while (end < to && this.sameAsLast(end)) end++;
        const [first, last] = [k, end];
        each(first, (to) => {
          let before = -1;
          for (let j = first; j < last; j++) {
            const r = ranks.get(j);
            if (r !== before) to(r);
            before = r;
          }
        });
        k = end;
      }
    };
    for (let b = 0; b < buckets; b++) {
      const from = starts[b] as number;
      const to = from + (counts[b] as number);
      const odd = oddByBucket.get(b) ?? [];
      let pageKey: string | undefined;
      if (key) {
        let count = 0;
        eachDigest(from, to, () => count++);
        key.start('shas').u32(count);
        eachDigest(from, to, (first, rank) => {
          digests.into(key, first);
          rank((r) => key.u32(nameOf(r)));
          key.u32(END); // (no rank is this: the digest's ranks end here)
        });
        for (const o of odd) {
          key.str(o).u32((this.odd.get(o) as number[]).length);
          for (const r of this.odd.get(o) as number[]) key.u32(nameOf(r));
        }
        pageKey = key.key();
      }
      await fn(b, pageKey, () => {
        const entries: Record<string, number[]> = {};
        eachDigest(from, to, (first, rank) => {
          const list: number[] = [];
          rank((r) => list.push(nameOf(r)));
          entries[digests.hexOf(first)] = list;
        });
        for (const o of odd) entries[o] = (this.odd.get(o) as number[]).map(nameOf);
        return entries;
      });
    }
  }
}

/**
 * The digest buckets of a day's pages: sized from the counts alone, each page keyed by its digests and their models'
 * positions (`positions`, by rank: positions.ts).
 */
export async function writeShaPages(
  w: PageWriter,
  shas: DigestPostings,
  positions: Uint32Array,
): Promise<{ map: HashedMap; digests: number; files: number }> {
  const count = shas.group();
  const buckets = powerOfTwo(Math.ceil((count * 80 + shas.files * 8) / BUCKET_TARGET_BYTES));
  const pages: string[] = [];
  await shas.forEachBucket(
    buckets,
    async (_, key, entries) => {
      pages.push(await w.keyed(key, () => ({ role: 'shas', entries: entries() })));
    },
    w.keys,
    (rank) => positions[rank] as number,
  );
  return { map: { buckets, ...(await w.dirs(pages)) }, digests: count, files: shas.files };
}
