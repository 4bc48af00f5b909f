/**
 * The search terms of a day's pages (index-pages.ts): their posting lists as the build tabulates them, the terms of
 * search words of one or two characters (`s:`), which no 4-gram holds, and the term buckets.
 */
import { BUCKET_TARGET_BYTES, bucketOf, gramsOf, type HashedMap, POSTINGS_SEGMENT, type Postings, powerOfTwo } from './page-layout.js';
import type { PageWriter } from './page-writer.js';
import type { SectionFacts } from './table-facts.js';

/**
 * Each search term of a model whose lower-case id is `lower` (a term may come twice), but its short grams
 * ({@link ShortGrams}, {@link shortGramsOf}): its author (`a:`), task (`t:`), library (`l:`), tags (`g:`) and the
 * 4-grams of its id (`w:`).
 */
export function eachTermOf(s: SectionFacts, lower: string, term: (key: string) => void): void {
  term(`a:${lower.slice(0, lower.indexOf('/'))}`);
  if (s.pipeline) term(`t:${s.pipeline}`);
  if (s.library) term(`l:${s.library}`);
  for (const t of s.tags) term(`g:${t}`);
  for (const g of gramsOf(lower)) term(`w:${g}`);
}

/** The `s:` terms of a lower-case id ({@link ShortGrams} keeps them for every id): each gram of one and of two code units. */
export function shortGramsOf(lower: string): Set<string> {
  const out = new Set<string>();
  for (let k = 0; k < lower.length; k++) {
    out.add(`s:${lower.slice(k, k + 1)}`);
    if (k + 1 < lower.length) out.add(`s:${lower.slice(k, k + 2)}`);
  }
  return out;
}

/** Ascending ranks kept as varint deltas from -1 in bytes (a common key's ranks cost about a byte each). */
export interface RankBytes {
  bytes: Uint8Array;
  length: number;
  last: number;
  n: number;
}

/** Add `rank` (ascending; the same rank as the last is not added again). */
export function pushRank(l: RankBytes, rank: number): void {
  if (l.last === rank) return;
  if (l.length + 5 > l.bytes.length) {
    const grown = new Uint8Array(l.bytes.length * 2);
    grown.set(l.bytes);
    l.bytes = grown;
  }
  let d = rank - l.last;
  while (d >= 0x80) {
    l.bytes[l.length++] = (d & 0x7f) | 0x80;
    d >>>= 7;
  }
  l.bytes[l.length++] = d;
  l.last = rank;
  l.n++;
}

/** The `n` ranks the varint deltas in `bytes` hold, ascending. */
export function ranksIn(bytes: Uint8Array, n: number): number[] {
  const out: number[] = new Array(n);
  let rank = -1;
  let at = 0;
  for (let i = 0; i < n; i++) {
    let d = 0;
    let shift = 0;
    for (;;) {
      const b = bytes[at++] as number;
      d += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) break;
      shift += 7;
    }
    rank += d;
    out[i] = rank;
  }
  return out;
}

/** Key → ascending ranks, each list a {@link RankBytes}. */
export class TermPostings {
  private readonly lists = new Map<string, RankBytes>();

  add(key: string, rank: number): void {
    let l = this.lists.get(key);
    if (!l) {
      l = { bytes: new Uint8Array(8), length: 0, last: -1, n: 0 };
      this.lists.set(key, l);
    }
    pushRank(l, rank);
  }

  /** Every key with how many ranks it has. */
  counts(): IterableIterator<[string, number]> {
    const it = this.lists.entries();
    return (function* () {
      for (const [k, l] of it) yield [k, l.n] as [string, number];
    })();
  }

  /** The ranks of `key` as kept (varint deltas, `n` of them); the list is let go: each is read once. */
  take(key: string): { bytes: Uint8Array; n: number } {
    const l = this.lists.get(key);
    if (!l) return { bytes: new Uint8Array(0), n: 0 };
    this.lists.delete(key);
    return { bytes: l.bytes.subarray(0, l.length), n: l.n };
  }
}

/**
 * The most ids a word of one or two characters may be in for its term to list them (`s:` + the word, an inline list);
 * a word in more ids gets its count alone (`{ n }`, no ranks). A rare short word is then found from its list in one
 * bucket read, a word in no id is known to match nothing, and a common one is found by walking the order, where a match
 * comes at least every `models / SHORT_GRAM_LIST_MAX` models (docs/decisions/scale-and-speed.md "Search words of one
 * or two characters").
 */
export const SHORT_GRAM_LIST_MAX = POSTINGS_SEGMENT;

/** One gram's term as the build tabulates it: its ranks until more ids hold it than the cap, then its count alone. */
interface Gram extends RankBytes {
  key: string;
  /** more than {@link SHORT_GRAM_LIST_MAX} ids hold it: `n` and `last` still count, the ranks are let go */
  common: boolean;
}

const NO_RANKS = new Uint8Array(0);

/**
 * The `s:` terms of the lower-case ids as they are tabulated (in ascending rank): each gram of one and of two code
 * units keeps its ranks until more than {@link SHORT_GRAM_LIST_MAX} ids hold it, then its count alone. Kept apart
 * from the other terms, by the grams' code units (no string made per id), and bounded by the number of distinct grams
 * times the cap.
 */
export class ShortGrams {
  private readonly grams = new Map<number, Gram>();

  add(lower: string, rank: number): void {
    const last = lower.length - 1;
    for (let k = 0; k <= last; k++) {
      const c = lower.charCodeAt(k);
      this.one(c, lower, k, 1, rank);
      if (k < last) this.one(65_536 + c * 65_536 + lower.charCodeAt(k + 1), lower, k, 2, rank);
    }
  }

  private one(code: number, id: string, k: number, width: number, rank: number): void {
    let g = this.grams.get(code);
    if (g === undefined) {
      g = { key: `s:${id.slice(k, k + width)}`, common: false, bytes: new Uint8Array(8), length: 0, last: -1, n: 0 };
      this.grams.set(code, g);
    }
    if (g.last === rank) return;
    if (!g.common && g.n < SHORT_GRAM_LIST_MAX) {
      pushRank(g, rank);
      return;
    }
    if (!g.common) {
      g.common = true;
      g.bytes = NO_RANKS;
      g.length = 0;
    }
    g.last = rank;
    g.n++;
  }

  /** Every gram's term: its key, how many ids hold it, and its ranks' bytes (varint deltas; null past the cap). */
  *terms(): IterableIterator<{ key: string; n: number; bytes: Uint8Array | null }> {
    for (const g of this.grams.values()) yield { key: g.key, n: g.n, bytes: g.common ? null : g.bytes.subarray(0, g.length) };
  }
}

/**
 * The term buckets: sized from the counts alone, then filled one bucket at a time (long lists as segments; a common
 * short gram as its count alone). The lists are tabulated by rank and written as positions (`positions`, by rank:
 * positions.ts), so a bucket whose terms name the same models is the same page whatever models came before them.
 * Each bucket's page key is each term with its positions, or with 2^32 - 1 (no list's length) and its count.
 */
export async function writeTermPages(
  w: PageWriter,
  terms: TermPostings,
  short: ShortGrams,
  positions: Uint32Array,
): Promise<{ map: HashedMap; total: number }> {
  let total = 0;
  const all: string[] = [];
  for (const [key, count] of terms.counts()) {
    all.push(key);
    total += key.length + 16 + (count <= POSTINGS_SEGMENT ? count * 7 : Math.ceil(count / POSTINGS_SEGMENT) * 72);
  }
  const grams = new Map<string, { n: number; bytes: Uint8Array | null }>();
  for (const g of short.terms()) {
    grams.set(g.key, g);
    all.push(g.key);
    total += g.key.length + 16 + (g.bytes ? g.n * 7 : 0);
  }
  const buckets = powerOfTwo(Math.ceil(total / BUCKET_TARGET_BYTES));
  const byBucket: string[][] = Array.from({ length: buckets }, () => []);
  for (const key of all) (byBucket[bucketOf(key, buckets)] as string[]).push(key);
  const pages: string[] = [];
  const k = w.keys;
  // a list's positions from its ranks' varint deltas
  const at = (bytes: Uint8Array, n: number) => {
    const ranks = ranksIn(bytes, n);
    for (let i = 0; i < n; i++) ranks[i] = positions[ranks[i] as number] as number;
    return ranks;
  };
  for (const bucketKeys of byBucket) {
    // each term's positions, decoded once for the key and the page (a short word past its cap: its count alone)
    const lists = bucketKeys.map((key) => {
      const g = grams.get(key);
      if (g) return g.bytes ? at(g.bytes, g.n) : undefined;
      const l = terms.take(key);
      return at(l.bytes, l.n);
    });
    if (k) {
      k.start('terms');
      for (const [i, key] of bucketKeys.entries()) {
        const list = lists[i];
        if (list) {
          k.str(key).u32(list.length);
          for (const p of list) k.u32(p);
        } else
          k.str(key)
            .u32(0xffff_ffff)
            .u32((grams.get(key) as { n: number }).n);
      }
    }
    pages.push(
      await w.keyed(k?.key(), async () => {
        const entries: Record<string, Postings> = {};
        for (const [i, key] of bucketKeys.entries()) {
          const list = lists[i];
          const g = grams.get(key);
          if (!g) entries[key] = await w.postings(list as number[]);
          else entries[key] = list ? { n: g.n, r: list } : { n: g.n };
        }
        return { role: 'terms', entries };
      }),
    );
  }
  return { map: { buckets, ...(await w.dirs(pages)) }, total };
}
