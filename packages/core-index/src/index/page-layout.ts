/**
 * The layout of the index pages (design 11.1): what the builder derives from a day's catalog so a request reads only
 * what it needs. Shared by the writer (index-pages.ts) and the reader (paged-index.ts). Every page is a hub object:
 * canonical JSON, addressed by its BLAKE3, immutable, so it caches forever (the isolate's memory, the Cache API).
 */
import { fmix32 } from './fnv.js';
import type { ModelObject, ModelRow, SourceObject } from './schemas.js';

export const PAGES_KIND = 'model-hub.index-pages';
export const PAGE_KIND = 'model-hub.index-page';
/**
 * 5: the look-up pages name a model by its position (positions.ts: it ascends in browse order and does not move with
 * the models before it), not its rank: id entries, digests, orders and posting lists; orders and long posting lists
 * are cut where their positions say ({@link endsByPosition}), and the models list names every model's position, so a
 * model added or removed changes the look-up pages that name it and not every page after it.
 * 4: models pages are cut where their models' ids say ({@link endsModelsPage}), not every 4 ranks, and hold no rank,
 * so a model added or removed changes its own page and not every page after it; the models list names each page's
 * size ({@link ModelsList}), and an id entry adds the model's place in its page. 3: an id names its models page, its
 * rank, and where its model lies in that page (`[page, rank, start, length, entry]`, `entry` the BLAKE3 address of
 * those bytes), so a look-up reads and parses its id bucket and its own model (about 4 KB), not the page of four, and
 * checks the model by its own address. 2: `[page, rank]`; models pages of 4 and id buckets of about 2 KB. 1: the rank
 * alone. Versions 1 to 4 are still read.
 */
export const PAGES_VERSION = 5;
/** The versions a reader opens. */
export const PAGES_VERSIONS_READ: readonly number[] = [1, 2, 3, 4, 5];

/**
 * Where an id's model lies: its models page, its rank (version 5: its position), its bytes in that page, their BLAKE3
 * address, and (version 4) its place in the page.
 */
export type IdEntry = [page: string, rank: number, start: number, length: number, entry: string, place?: number];

/** Page addresses one directory object lists. */
export const DIR_FANOUT = 1024;
/**
 * Models in one models page on average (4 models of 4 files are about 9 KB; version 3 and before: exactly). Fewer
 * models a page make a browse page read more pages, more make a page read whole (a store without ranged reads, a
 * bundle's answers) parse more: at 16 a cold look-up parsed 36 KB and ran at a third of the rate
 * (docs/decisions/scale-and-speed.md "Pages read at once").
 */
export const MODELS_PER_PAGE = 4;
/** The most models one models page holds (version 4), however long a run of ids that do not end a page. */
export const MODELS_PAGE_MAX = 16;
/** Models pages one directory of the models list holds on average (version 4; {@link endsModelsDir}), and at most. */
export const MODELS_DIR_PAGES = 1024;
export const MODELS_DIR_MAX = 2048;

/**
 * Whether a models page ends after the model whose lower-case id has {@link keyHash} `hash`, the page holding `size`
 * models with it (version 4): one id in {@link MODELS_PER_PAGE} ends a page (the hash's top two bits; its low bits
 * pick the id's bucket), and a page holds at most {@link MODELS_PAGE_MAX}. The cut depends on the ids alone, so a
 * model added, removed or changed moves no page boundary but its own (and, in a run cut by the bound, the run's).
 */
export function endsModelsPage(hash: number, size: number): boolean {
  return hash >>> 30 === 0 || size >= MODELS_PAGE_MAX;
}

/**
 * Whether a directory of the models list ends after a page whose last model's id has {@link keyHash} `hash` (one
 * that ended its page by {@link endsModelsPage}), the directory holding `size` pages with it: one such page in
 * {@link MODELS_DIR_PAGES} (ten bits of the hash no other cut uses), at most {@link MODELS_DIR_MAX}.
 */
export function endsModelsDir(hash: number, size: number): boolean {
  return (hash >>> 30 === 0 && ((hash >>> 10) & (MODELS_DIR_PAGES - 1)) === 0) || size >= MODELS_DIR_MAX;
}

/**
 * The models list (version 4): its pages with each one's model count (`sizes`), inline when they are at most
 * {@link DIR_FANOUT}, else in directories (`dirs`, each `{role: 'dir', pages, sizes}`) cut by
 * {@link endsModelsDir}, with each directory's first rank (`firsts`). A reader finds a rank's page by a binary search.
 * Version 5 adds every model's position: `positions` beside inline pages, else in each directory (its `positions`)
 * with each directory's first position in the list (`dirPositions`). Version 3 and before: a {@link PagedArray} of
 * `per` models a page. A version 5 order is a list of this shape too (of positions, without `positions`).
 */
export interface ModelsList extends PagedArray {
  sizes?: number[];
  firsts?: number[];
  positions?: number[];
  dirPositions?: number[];
}

/**
 * Whether a names page (version 5) ends after the lower-case id whose {@link keyHash} is `hash`, the page holding `size`
 * names with it: one id in {@link ORDER_PER_PAGE} (the hash's low 12 bits), at most four times that, so a model added
 * or removed changes the names page it is in, not every page after it.
 */
export function endsNamesPage(hash: number, size: number): boolean {
  return (hash & (ORDER_PER_PAGE - 1)) === 0 || size >= ORDER_PER_PAGE * 4;
}

/**
 * Whether a page of positions (a version 5 order page, or a posting list's segment) ends after `position`, the page
 * holding `size` with it: one position in `every` (a power of two) by its hash, at most `every` × 4. The cut depends
 * on the positions alone, so a model added, removed or moved changes the pages it leaves and joins.
 */
export function endsByPosition(position: number, size: number, every: number): boolean {
  return (fmix32(position) & (every - 1)) === 0 || size >= every * 4;
}
/** Browse positions (ranks) in one order page, and names in one names page. */
export const ORDER_PER_PAGE = 4096;
/** Ranks in one postings segment; a shorter posting list is kept in its bucket. */
export const POSTINGS_SEGMENT = 4096;
/** The bytes a hashed bucket aims at (ids and digests: one read of about 2 KB per look-up). */
export const BUCKET_TARGET_BYTES = 2 * 1024;

/**
 * A list of items split into pages of `per`: the page addresses inline (`pages`, up to {@link DIR_FANOUT}), else
 * listed by directory objects of {@link DIR_FANOUT} each (`dirs`), so the root stays small at any size.
 */
export interface PagedArray {
  per: number;
  count: number;
  pages?: string[];
  dirs?: string[];
}

/** Keys hashed into `buckets` (a power of two) buckets, each bucket one page (listed as a {@link PagedArray} does). */
export interface HashedMap {
  buckets: number;
  pages?: string[];
  dirs?: string[];
}

/** What a build's terms and digest map came to, which the next build's patch adjusts (the buckets are sized from it). */
export interface SectionSizes {
  /** the terms' estimated bytes (term-pages.ts `writeTermPages`) */
  terms: number;
  /** distinct digests, and files (each file of each model) */
  digests: number;
  files: number;
}

/** {@link SectionSizes} read from a stored root or memo: three finite numbers, none negative, else undefined. */
export function sectionSizesOf(v: unknown): SectionSizes | undefined {
  if (typeof v !== 'object' || v === null) return undefined;
  const { terms, digests, files } = v as Record<string, unknown>;
  const ok = [terms, digests, files].every((x) => typeof x === 'number' && Number.isFinite(x) && x >= 0);
  return ok ? { terms: terms as number, digests: digests as number, files: files as number } : undefined;
}

/** The root of a day's pages: everything a store needs up front, and where every other page is. */
export interface PagesRoot {
  kind: typeof PAGES_KIND;
  version: number;
  /** the catalog these pages are derived from */
  catalog: string;
  date: string;
  /** the first models of the browse list, so a start reads nothing more for its examples */
  head: PagedEntry[];
  /** version 5: their positions */
  headPositions?: number[];
  totals: { models: number; files: number; bytes: number; listed: number; holders: Record<string, number> };
  kinds: Array<[string, SourceObject['type']]>;
  /** models in browse order: pages cut by their ids (version 4: {@link ModelsList}), else {@link MODELS_PER_PAGE} a page */
  models: ModelsList;
  /** lower-case id (and `~` + dash alias) → an {@link IdEntry} (version 2: `[page, rank]`; version 1: the rank) */
  ids: HashedMap;
  /** SHA-256 → ranks (version 5: positions) of the models holding a file with it */
  shas: HashedMap;
  /** `a:` author, `t:` task, `l:` library, `g:` tag, `w:` 4-gram of the id, `s:` 1- or 2-gram → {@link Postings} */
  terms: HashedMap;
  /**
   * `sort:direction` → ranks in that order (every order but the browse order itself); version 5: positions, in pages
   * cut by {@link endsByPosition} and listed as a {@link ModelsList} lists its pages
   */
  orders: Record<string, ModelsList>;
  /**
   * lower-case ids in lexical order; `firsts[d]` is the first name under directory `d`; version 5: pages cut by the
   * names themselves ({@link endsNamesPage}), `pageCount` of them, directories of {@link DIR_FANOUT} pages
   */
  names: PagedArray & { firsts: string[]; pageCount?: number };
  /**
   * Every UTF-16 code unit of the lower-case ids, each once, in code-unit order (absent in days written before it).
   * A search word of three characters is in an id of four or more exactly when one of the 4-grams `word + c` or
   * `c + word` is, for a `c` of this set, so the word's candidates are the union of those grams' posting lists
   * (paged-search.ts) instead of a walk of the whole order.
   */
  idChars?: string;
  /**
   * Set in days whose terms hold the words of one and two characters (`s:` + the word, term-pages.ts): a word in at
   * most this many ids lists them, one in more has its count alone, one in none has no term. Absent in days written
   * before: such a word alone walks the order.
   */
  shortGrams?: number;
  /**
   * What the day's terms and digest map came to, and the fingerprint of how its build wrote pages (build/pages-format.ts
   * `pagesFormat`): a later build without its memo patches these pages with what changed when it writes pages the
   * same way (index/day-sections.ts). Absent in days written before, and in pages written without a fingerprint.
   */
  sectionSizes?: SectionSizes & { format: string };
}

/** The {@link PagesRoot.idChars} of the lower-case ids. */
export function idCharsOf(ids: readonly string[]): string {
  const seen = new Uint8Array(65_536);
  for (const id of ids) for (let i = 0; i < id.length; i++) seen[id.charCodeAt(i)] = 1;
  let out = '';
  for (let u = 0; u < seen.length; u++) if (seen[u]) out += String.fromCharCode(u);
  return out;
}

/** One model as its page holds it: what a look-up needs, with no further read. */
export interface PagedEntry {
  id: string;
  address: string;
  row: ModelRow;
  object: ModelObject;
  sources: Array<{ address: string; object: SourceObject }>;
}

const textEncoder = new TextEncoder();

/**
 * A models page's canonical bytes from its models' own canonical bytes, and where each lies in it: the page is
 * `{"kind":…,"models":[e0,e1,…],"role":"models"}` (keys sorted, no space; version 3 and before: with its `first`
 * rank), so it is the page with no models with the entries joined by commas spliced into its empty array, byte for
 * byte `canonicalBytes` of the page.
 */
export function modelsPageBytes(
  first: number | undefined,
  entries: readonly Uint8Array[],
  canonical: (value: unknown) => Uint8Array,
): { bytes: Uint8Array; starts: number[] } {
  const empty = canonical({ kind: PAGE_KIND, role: 'models', ...(first === undefined ? {} : { first }), models: [] });
  const marker = textEncoder.encode('"models":[]');
  let at = -1;
  for (let i = 0; at < 0 && i + marker.length <= empty.length; i++)
    if (marker.every((b, k) => empty[i + k] === b)) at = i + marker.length - 1;
  let size = empty.length + Math.max(0, entries.length - 1);
  for (const e of entries) size += e.length;
  const bytes = new Uint8Array(size);
  bytes.set(empty.subarray(0, at), 0);
  let pos = at;
  const starts: number[] = [];
  entries.forEach((e, k) => {
    if (k > 0) bytes[pos++] = 0x2c; // ,
    starts.push(pos);
    bytes.set(e, pos);
    pos += e.length;
  });
  bytes.set(empty.subarray(at), pos);
  return { bytes, starts };
}

/**
 * A posting list: `n` ranks (version 5: positions) ascending, inline (`r`) or in segments of {@link POSTINGS_SEGMENT}
 * (`s`, addresses; version 5: cut by {@link endsByPosition}, about that many a segment); or neither, for an `s:` term of a word of one or two characters in too many ids to list (its count alone).
 */
export interface Postings {
  n: number;
  r?: number[];
  s?: string[];
}

/**
 * The 32-bit hash of a key (unsigned): FNV-1a over the UTF-16 code units, then murmur3's finaliser, because FNV's low
 * bits hardly mix (40 SYNTHETIC ids put 1 in one bucket of 4 and 17 in another). Its low bits pick a key's bucket
 * (from version 2); the caches' doorkeeper (byte-lru.ts) keeps it whole. Not for integrity: every page is checked by
 * its address.
 */
export function keyHash(key: string): number {
  return fmix32(fnv1a32(key));
}

/** FNV-1a over the UTF-16 code units, unsigned. */
function fnv1a32(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** The bucket of a key among `buckets` (a power of two): {@link keyHash}'s low bits; FNV-1a's alone in version 1. */
export function bucketOf(key: string, buckets: number, version = PAGES_VERSION): number {
  return (version >= 2 ? keyHash(key) : fnv1a32(key)) & (buckets - 1);
}

/** The smallest power of two at least `n` (1 at least). */
export function powerOfTwo(n: number): number {
  let p = 1;
  while (p < n) p *= 2;
  return p;
}

/** The 4-grams of a lower-case id (each once): the search's keys for words of four characters or more. */
export function gramsOf(id: string): Set<string> {
  const out = new Set<string>();
  for (let k = 0; k + 4 <= id.length; k++) out.add(id.slice(k, k + 4));
  return out;
}

/**
 * The tags a filter matches, for both stores: the row's tags, its task and its library, lower-cased, and the
 * revision's own signature verdict (design 11.2: `filter=signature:verified` lists signed models).
 */
export function rowTags(row: ModelRow): Set<string> {
  const tags = new Set<string>();
  for (const t of row.tags ?? []) tags.add(t.toLowerCase());
  if (row.pipeline_tag) tags.add(row.pipeline_tag.toLowerCase());
  if (row.library_name) tags.add(row.library_name.toLowerCase());
  const signature = row.svc?.signature;
  if (signature) tags.add(`signature:${signature.status}`);
  return tags;
}

/** The orders kept as pages: every sort and direction but trending descending (the browse order itself). */
export const KEPT_ORDERS: ReadonlyArray<readonly [string, 1 | -1]> = [
  ['trendingScore', 1],
  ['downloads', -1],
  ['downloads', 1],
  ['likes', -1],
  ['likes', 1],
  ['createdAt', -1],
  ['createdAt', 1],
  ['lastModified', -1],
  ['lastModified', 1],
  ['id', 1],
  ['id', -1],
];

/** The sort key of a row at a rank, exactly as the whole-index search sorts (search.ts `sortKeyOf`). */
/** The trending order's key: the row's score, else (a model without one) after every scored model, in rank order. */
export function trendingFor(score: number | undefined, rank: number): number {
  return score ?? -rank / 1e6;
}

export function rowSortKey(sort: string, row: ModelRow, id: string, rank: number): number | string {
  switch (sort) {
    case 'id':
      return id.toLowerCase();
    case 'trendingScore':
      return trendingFor(row.trendingScore, rank);
    case 'downloads':
      return row.downloads ?? -1;
    case 'likes':
      return row.likes ?? -1;
    case 'createdAt':
      return row.createdAt ?? '';
    default:
      return row.lastModified ?? row.createdAt ?? '';
  }
}

/** Compare two (key, rank) pairs in an order: by key in `dir`, ties by rank ascending (search.ts `sortedBy`). */
export function compareKeyed(a: { k: number | string; rank: number }, b: { k: number | string; rank: number }, dir: 1 | -1): number {
  return a.k < b.k ? -dir : a.k > b.k ? dir : a.rank - b.rank;
}
