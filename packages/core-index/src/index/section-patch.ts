/**
 * The search terms and the digest map of a day written as the last build's pages patched with what changed: the
 * models added, removed, moved (a new position) or given other terms or digests (docs/decisions/scale-and-speed.md,
 * "The terms and digests patched"). A bucket no change touches is the last build's page; a touched one is read,
 * patched and written whole, and a long posting list is cut again only from the segment a change falls in until its
 * cuts meet the old ones. The pages are those a build that tabulates every model writes (the same bytes), so a patch
 * that cannot give them (the number of buckets would change, a short word falls back under its cap, a page is missing
 * or damaged) answers undefined and the build tabulates every model.
 */
import type { ObjectStore } from './object-store.js';
import {
  BUCKET_TARGET_BYTES,
  bucketOf,
  DIR_FANOUT,
  endsByPosition,
  type HashedMap,
  POSTINGS_SEGMENT,
  type Postings,
  powerOfTwo,
  type SectionSizes,
} from './page-layout.js';
import type { PageWriter } from './page-writer.js';
import { PageUnreadable, readPage } from './read-page.js';
import type { SectionFacts } from './table-facts.js';
import { eachTermOf, SHORT_GRAM_LIST_MAX, shortGramsOf } from './term-pages.js';

/** Given up: the pages a patch would write are not those of a whole tabulation. */
class NoPatch extends Error {}

/** The positions a key gains and loses. */
interface Change {
  add: number[];
  del: number[];
}

/** What a day changes in the terms and the digest map, by key. */
export class SectionDelta {
  readonly terms = new Map<string, Change>();
  readonly shas = new Map<string, Change>();
  /** files gained less files lost */
  files = 0;

  private change(map: Map<string, Change>, key: string, position: number, sign: 1 | -1): void {
    let c = map.get(key);
    if (!c) {
      c = { add: [], del: [] };
      map.set(key, c);
    }
    (sign > 0 ? c.add : c.del).push(position);
  }

  /**
   * A model's terms and digests leave its last position (`old`: its section facts and position there) and join its
   * position this day (`now`); `old` is absent for a model added, `now` for one removed. At the same position only
   * the terms and digests that differ change.
   */
  model(lower: string, old: { s: SectionFacts; at: number } | undefined, now: { s: SectionFacts; at: number } | undefined): void {
    const oldTerms = old ? termSet(old.s, lower) : EMPTY;
    const newTerms = now ? termSet(now.s, lower) : EMPTY;
    const oldShas = new Set(old?.s.shas ?? []);
    const newShas = new Set(now?.s.shas ?? []);
    const same = old !== undefined && now !== undefined && old.at === now.at;
    for (const k of oldTerms) if (!(same && newTerms.has(k))) this.change(this.terms, k, old?.at as number, -1);
    for (const k of newTerms) if (!(same && oldTerms.has(k))) this.change(this.terms, k, now?.at as number, 1);
    for (const d of oldShas) if (!(same && newShas.has(d))) this.change(this.shas, d, old?.at as number, -1);
    for (const d of newShas) if (!(same && oldShas.has(d))) this.change(this.shas, d, now?.at as number, 1);
    this.files += (now?.s.shas.length ?? 0) - (old?.s.shas.length ?? 0);
  }
}

const EMPTY: ReadonlySet<string> = new Set();

/** Every term of a model (as index-pages.ts tabulates them): its author, task, library, tags, id grams and short grams. */
function termSet(s: SectionFacts, lower: string): Set<string> {
  const out = new Set<string>();
  eachTermOf(s, lower, (k) => out.add(k));
  for (const k of shortGramsOf(lower)) out.add(k);
  return out;
}

/**
 * A hashed map's bucket pages, some replaced: a bucket's page is found through its directory (read when first
 * needed), and only the directories of replaced pages are written again (as page-writer.ts `dirs` writes them).
 */
class MapPages {
  private readonly dirs = new Map<number, string[]>();
  private readonly replaced = new Map<number, string>();

  constructor(
    private readonly store: ObjectStore,
    private readonly map: HashedMap,
  ) {}

  async address(b: number): Promise<string> {
    if (this.map.pages) return this.map.pages[b] as string;
    return (await this.dir(Math.floor(b / DIR_FANOUT)))[b % DIR_FANOUT] as string;
  }

  private async dir(d: number): Promise<string[]> {
    let got = this.dirs.get(d);
    if (!got) {
      got = (await readPage<{ pages: string[] }>(this.store, (this.map.dirs as string[])[d] as string)).pages;
      this.dirs.set(d, got);
    }
    return got;
  }

  replace(b: number, address: string): void {
    this.replaced.set(b, address);
  }

  /** The map with its replaced pages. */
  async written(w: PageWriter): Promise<HashedMap> {
    if (this.replaced.size === 0) return this.map;
    if (this.map.pages) {
      const pages = [...this.map.pages];
      for (const [b, a] of this.replaced) pages[b] = a;
      return { buckets: this.map.buckets, pages };
    }
    const dirs = [...(this.map.dirs as string[])];
    const touched = new Set([...this.replaced.keys()].map((b) => Math.floor(b / DIR_FANOUT)));
    for (const d of touched) {
      const pages = [...(await this.dir(d))];
      for (const [b, a] of this.replaced) if (Math.floor(b / DIR_FANOUT) === d) pages[b % DIR_FANOUT] = a;
      dirs[d] = await w.page({ role: 'dir', pages });
    }
    return { buckets: this.map.buckets, dirs };
  }
}

/** `list` (ascending) without `del` and with `add`, ascending. */
function merged(list: readonly number[], change: Change): number[] {
  const del = new Set(change.del);
  const out = list.filter((p) => !del.has(p));
  if (change.add.length === 0) return out;
  const all = out.concat(change.add);
  all.sort((a, b) => a - b);
  return all.filter((p, i) => i === 0 || p !== all[i - 1]);
}

/** A term's part of the estimate the term buckets are sized from (term-pages.ts `writeTermPages`). */
function termBytes(key: string, n: number): number {
  if (n === 0) return 0;
  if (key.startsWith('s:')) return key.length + 16 + (n <= SHORT_GRAM_LIST_MAX ? n * 7 : 0);
  return key.length + 16 + (n <= POSTINGS_SEGMENT ? n * 7 : Math.ceil(n / POSTINGS_SEGMENT) * 72);
}

/**
 * The buckets of `last` that `changes` touch, each read, its entries patched one key at a time (`entry`: a key's
 * value with its change, undefined for none), then, when `fits` says the totals the patch adjusted keep the number of
 * buckets, written as `role` pages. Undefined when the patch cannot give the pages a whole tabulation writes.
 */
async function patchedBuckets<V>(
  w: PageWriter,
  store: ObjectStore,
  last: HashedMap,
  changes: ReadonlyMap<string, Change>,
  role: 'terms' | 'shas',
  entry: (key: string, old: V | undefined, change: Change) => Promise<V | undefined> | V | undefined,
  fits: () => boolean,
): Promise<HashedMap | undefined> {
  try {
    const byBucket = new Map<number, string[]>();
    for (const key of changes.keys()) {
      const b = bucketOf(key, last.buckets);
      const keys = byBucket.get(b);
      if (keys) keys.push(key);
      else byBucket.set(b, [key]);
    }
    const pages = new MapPages(store, last);
    const patched = new Map<number, Record<string, V>>();
    for (const [b, keys] of byBucket) {
      const { entries } = await readPage<{ entries: Record<string, V> }>(store, await pages.address(b));
      for (const key of keys) {
        const next = await entry(key, entries[key], changes.get(key) as Change);
        if (next === undefined) delete entries[key];
        else entries[key] = next;
      }
      patched.set(b, entries);
    }
    if (!fits()) return undefined;
    for (const [b, entries] of patched) pages.replace(b, await w.page({ role, entries }));
    return await pages.written(w);
  } catch (e) {
    if (e instanceof NoPatch || e instanceof PageUnreadable) return undefined;
    throw e;
  }
}

/**
 * The last build's term buckets (`last`, sized from `sizes.terms`) patched with `delta`; undefined when the patch
 * cannot give the pages a whole tabulation writes.
 */
export async function patchTermPages(
  w: PageWriter,
  store: ObjectStore,
  last: HashedMap,
  sizes: SectionSizes,
  delta: SectionDelta,
): Promise<{ map: HashedMap; total: number } | undefined> {
  let total = sizes.terms;
  const map = await patchedBuckets<Postings>(
    w,
    store,
    last,
    delta.terms,
    'terms',
    async (key, old, change) => {
      const next = await patchedPostings(w, store, key, old, change);
      total += termBytes(key, next?.n ?? 0) - termBytes(key, old?.n ?? 0);
      return next;
    },
    () => powerOfTwo(Math.ceil(total / BUCKET_TARGET_BYTES)) === last.buckets,
  );
  return map && { map, total };
}

/** A term's posting list with its change: as `w.postings` writes a list, or a short word's as the build keeps it. */
async function patchedPostings(
  w: PageWriter,
  store: ObjectStore,
  key: string,
  old: Postings | undefined,
  change: Change,
): Promise<Postings | undefined> {
  const n = (old?.n ?? 0) + change.add.length - change.del.length;
  if (n < 0) throw new NoPatch(`term ${key}: more positions removed than it held`);
  if (key.startsWith('s:')) {
    // a short word's list is kept up to its cap, then its count alone: a count cannot become a list again
    if (old && !old.r) {
      if (n <= SHORT_GRAM_LIST_MAX) throw new NoPatch(`short word ${key} falls back under its cap`);
      return { n };
    }
    const list = merged(old?.r ?? [], change);
    if (list.length !== n) throw new NoPatch(`term ${key}: its change does not fit its list`);
    if (n === 0) return undefined;
    return n <= SHORT_GRAM_LIST_MAX ? { n, r: list } : { n };
  }
  if (old?.s && n > POSTINGS_SEGMENT) return { n, s: await patchedSegments(w, store, old.s, change) };
  const before = old?.s
    ? (await Promise.all(old.s.map((a) => readPage<{ items: number[] }>(store, a)))).flatMap((p) => p.items)
    : (old?.r ?? []);
  const list = merged(before, change);
  if (list.length !== n) throw new NoPatch(`term ${key}: its change does not fit its list`);
  return n === 0 ? undefined : w.postings(list);
}

/**
 * A long posting list's segments with its change (page-writer.ts `postings` cut them): the segments before a change
 * are kept; from the segment a change falls in, the list is cut again by the same rule until a cut falls where an old
 * segment ended (both lists then go on alike), and the segments after it are kept until the next change. A segment
 * is read only to find where a change falls (a binary search of their first positions) and where the list is cut again.
 */
async function patchedSegments(w: PageWriter, store: ObjectStore, segments: readonly string[], change: Change): Promise<string[]> {
  const read = new Map<number, number[]>();
  const items = async (i: number) => {
    let got = read.get(i);
    if (!got) {
      got = (await readPage<{ items: number[] }>(store, segments[i] as string)).items;
      read.set(i, got);
    }
    return got;
  };
  // the last segment whose first position is at most `p` (0 when none is)
  const segmentOf = async (p: number) => {
    let [lo, hi] = [0, segments.length - 1];
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (((await items(mid))[0] as number) <= p) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  const del = new Set(change.del);
  const adds = [...new Set(change.add)].sort((a, b) => a - b);
  const todo = [...new Set([...change.add, ...change.del])].sort((a, b) => a - b);
  const last = segments.length - 1;
  const out: string[] = [];
  let buf: number[] = [];
  // position `p` of the list cut again; whether a segment ends after it
  const put = async (p: number): Promise<boolean> => {
    buf.push(p);
    if (!endsByPosition(p, buf.length, POSTINGS_SEGMENT)) return false;
    out.push(await w.page({ role: 'postings', items: buf }));
    buf = [];
    return true;
  };
  let next = 0; // the first old segment neither kept nor cut again yet
  let t = 0; // the first change not applied yet
  let a = 0; // the first position added not placed yet
  let removed = 0;
  while (t < todo.length) {
    const from = Math.max(next, await segmentOf(todo[t] as number));
    for (; next < from; next++) out.push(segments[next] as string);
    let met = false;
    let upTo = -1; // the last old position gone through
    for (let k = from; k <= last && !met; k++) {
      const old = await items(k);
      for (let q = 0; q < old.length; q++) {
        const p = old[q] as number;
        while (a < adds.length && (adds[a] as number) < p) await put(adds[a++] as number);
        upTo = p;
        if (del.has(p)) {
          removed++;
          // a position removed with one model and given to another (added) stays
          if (adds[a] === p) a++;
          else continue;
        } else if (adds[a] === p) throw new NoPatch(`position ${p} added to a list that holds it`);
        // a cut after an old segment's last position, where the old list was cut too: from here both go on alike
        if ((await put(p)) && q === old.length - 1 && k < last) met = true;
      }
      next = k + 1;
    }
    if (next > last) {
      while (a < adds.length) await put(adds[a++] as number);
      t = todo.length;
    } else while (t < todo.length && (todo[t] as number) <= upTo) t++;
  }
  // the list's last position ends its last segment
  if (buf.length > 0) out.push(await w.page({ role: 'postings', items: buf }));
  if (removed !== del.size) throw new NoPatch('a position removed from a list that does not hold it');
  for (; next <= last; next++) out.push(segments[next] as string);
  return out;
}

/**
 * The last build's digest buckets (`last`, sized from `sizes`) patched with `delta`; undefined when the patch cannot
 * give the pages a whole tabulation writes.
 */
export async function patchShaPages(
  w: PageWriter,
  store: ObjectStore,
  last: HashedMap,
  sizes: SectionSizes,
  delta: SectionDelta,
): Promise<{ map: HashedMap; digests: number; files: number } | undefined> {
  const files = sizes.files + delta.files;
  let digests = sizes.digests;
  const map = await patchedBuckets<number[]>(
    w,
    store,
    last,
    delta.shas,
    'shas',
    (key, old = [], change) => {
      const list = merged(old, change);
      if (list.length !== old.length + change.add.length - change.del.length)
        throw new NoPatch(`digest ${key}: its change does not fit its list`);
      digests += (list.length > 0 ? 1 : 0) - (old.length > 0 ? 1 : 0);
      return list.length > 0 ? list : undefined;
    },
    () => powerOfTwo(Math.ceil((digests * 80 + files * 8) / BUCKET_TARGET_BYTES)) === last.buckets,
  );
  return map && { map, digests, files };
}
