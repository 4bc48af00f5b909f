/**
 * The search terms of a day's pages (index-pages.ts): the term buckets, and the terms of search words of one or two
 * characters (`s:`), which no 4-gram holds.
 */
import { BUCKET_TARGET_BYTES, bucketOf, type HashedMap, POSTINGS_SEGMENT, type Postings, powerOfTwo } from './page-layout.js';
import type { TermPostings } from './page-tables.js';
import type { PageWriter } from './page-writer.js';

/**
 * The most ids a word of one or two characters may be in for its term to list them (`s:` + the word, an inline list);
 * a word in more ids gets its count alone (`{ n }`, no ranks). A rare short word is then found from its list in one
 * bucket read, a word in no id is known to match nothing, and a common one is found by walking the order, where a match
 * comes at least every `models / SHORT_GRAM_LIST_MAX` models (docs/decisions/scale-and-speed.md "Search words of one
 * or two characters").
 */
export const SHORT_GRAM_LIST_MAX = POSTINGS_SEGMENT;

/** Term keys by the code units they are made of (`s:` + one or two units), so a gram costs no string per id. */
const keys = new Map<number, string>();
function keyOf(id: string, k: number, two: boolean): string {
  const code = two ? id.charCodeAt(k) * 65_536 + id.charCodeAt(k + 1) + 65_536 : id.charCodeAt(k);
  let key = keys.get(code);
  if (key === undefined) {
    key = `s:${two ? id.slice(k, k + 2) : id[k]}`;
    if (keys.size < 1 << 20) keys.set(code, key);
  }
  return key;
}

/**
 * The `s:` terms of the lower-case ids as they are tabulated (in ascending rank): each gram of one and of two code
 * units gets its ranks in the build's {@link TermPostings} until it has more than {@link SHORT_GRAM_LIST_MAX}; then
 * its list is let go and only its count is kept. Memory is bounded by the number of distinct grams times the cap.
 */
export class ShortGrams {
  /** grams past the cap: how many ids hold each, and the last rank counted (an id with a gram twice counts once) */
  readonly common = new Map<string, { n: number; last: number }>();

  add(terms: TermPostings, lower: string, rank: number): void {
    for (let k = 0; k < lower.length; k++) {
      this.one(terms, keyOf(lower, k, false), rank);
      if (k + 1 < lower.length) this.one(terms, keyOf(lower, k, true), rank);
    }
  }

  private one(terms: TermPostings, key: string, rank: number): void {
    const c = this.common.get(key);
    if (c) {
      if (c.last !== rank) {
        c.n++;
        c.last = rank;
      }
      return;
    }
    const n = terms.add(key, rank);
    if (n > SHORT_GRAM_LIST_MAX) {
      this.common.set(key, { n, last: rank });
      terms.drop(key);
    }
  }
}

/**
 * The term buckets: sized from the counts alone, then filled one bucket at a time (long lists as segments; a common
 * short gram as its count alone). Each bucket's page key is each term with its ranks as kept (varint deltas), or with
 * 2^32 - 1 (no list's length) and its count.
 */
export async function writeTermPages(w: PageWriter, terms: TermPostings, short: ShortGrams): Promise<HashedMap> {
  let total = 0;
  const all: string[] = [];
  for (const [key, count] of terms.counts()) {
    all.push(key);
    total += key.length + 16 + (count <= POSTINGS_SEGMENT ? count * 7 : Math.ceil(count / POSTINGS_SEGMENT) * 72);
  }
  for (const key of short.common.keys()) {
    all.push(key);
    total += key.length + 16;
  }
  const buckets = powerOfTwo(Math.ceil(total / BUCKET_TARGET_BYTES));
  const byBucket: string[][] = Array.from({ length: buckets }, () => []);
  for (const key of all) (byBucket[bucketOf(key, buckets)] as string[]).push(key);
  const pages: string[] = [];
  const k = w.keys;
  for (const bucketKeys of byBucket) {
    if (k) {
      k.start('terms');
      for (const key of bucketKeys) {
        const common = short.common.get(key);
        if (common) k.str(key).u32(0xffff_ffff).u32(common.n);
        else {
          const b = terms.bytesOf(key);
          k.str(key).u32(b.length).bytes(b);
        }
      }
    }
    let made = false;
    pages.push(
      await w.keyed(k?.key(), async () => {
        made = true;
        const entries: Record<string, Postings> = {};
        for (const key of bucketKeys) {
          const common = short.common.get(key);
          entries[key] = common ? { n: common.n } : await w.postings(terms.take(key));
        }
        return { role: 'terms', entries };
      }),
    );
    if (!made) for (const key of bucketKeys) terms.drop(key);
  }
  return { buckets, ...(await w.dirs(pages)) };
}
