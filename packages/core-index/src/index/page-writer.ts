import { type Address, addressOf } from './blake3.js';
import { canonicalBytes } from './canonical-json.js';
import { fmix32 } from './fnv.js';
import type { ModelsPageReuse } from './models-pages.js';
import type { ObjectStore } from './object-store.js';
import {
  bucketOf,
  DIR_FANOUT,
  endsByPosition,
  endsNamesPage,
  type HashedMap,
  KEPT_ORDERS,
  keyHash,
  MODELS_PER_PAGE,
  type ModelsList,
  ORDER_PER_PAGE,
  PAGE_KIND,
  type PagedArray,
  POSTINGS_SEGMENT,
  type Postings,
} from './page-layout.js';
import { PageKey } from './page-tables.js';

const JSON_MEDIA_TYPE = 'application/json';

/** Puts in flight at most while the pages are written (they are waited for in groups of this many). */
const WRITE_BATCH = 256;

/** Writes pages in batches; each page's address is its BLAKE3, computed here (the put is not waited for one by one). */
export class PageWriter {
  private pending: Promise<unknown>[] = [];
  /** The look-up pages' key, when the last build's pages can be looked up by key. */
  readonly keys: PageKey | undefined;

  constructor(
    private readonly store: ObjectStore,
    private readonly reuse?: ModelsPageReuse,
  ) {
    this.keys = reuse?.look ? new PageKey() : undefined;
  }

  /**
   * A look-up page by its key: the last build's page with that key when the store still has it (its address, nothing
   * serialized or hashed), else `make`'s page, written now. Either way recorded under the key for the next build.
   */
  async keyed(key: string | undefined, make: () => Record<string, unknown> | Promise<Record<string, unknown>>): Promise<string> {
    const before = key ? this.reuse?.look?.(key) : undefined;
    if (key && before && (await this.store.has(`blake3:${before}`))) {
      this.reuse?.recordLook?.(key, before);
      return `blake3:${before}`;
    }
    const address = await this.page(await make());
    if (key) this.reuse?.recordLook?.(key, address.slice(7));
    return address;
  }

  async put(kind: string, value: unknown): Promise<Address> {
    const { meta } = await this.store.put(canonicalBytes(value), { kind, mediaType: JSON_MEDIA_TYPE });
    return meta.id as Address;
  }

  /** One page: its address at once; its put joins the batch in flight (waited for when the batch is full). */
  async page(value: Record<string, unknown>): Promise<string> {
    return this.pageBytes(canonicalBytes({ kind: PAGE_KIND, ...value }));
  }

  /** One page already in its canonical bytes (and its address, when known). */
  async pageBytes(bytes: Uint8Array, address: string = addressOf(bytes)): Promise<string> {
    this.pending.push(this.store.put(bytes, { kind: PAGE_KIND, mediaType: JSON_MEDIA_TYPE }));
    if (this.pending.length >= WRITE_BATCH) await this.flush();
    return address;
  }

  async flush(): Promise<void> {
    const all = this.pending;
    this.pending = [];
    await Promise.all(all);
  }

  /** The page addresses inline when they are few, else in directory objects of {@link DIR_FANOUT} addresses each. */
  async dirs(pages: string[]): Promise<{ pages: string[] } | { dirs: string[] }> {
    if (pages.length <= DIR_FANOUT) return { pages };
    const out: string[] = [];
    for (let i = 0; i < pages.length; i += DIR_FANOUT) out.push(await this.page({ role: 'dir', pages: pages.slice(i, i + DIR_FANOUT) }));
    return { dirs: out };
  }

  /**
   * The models list: the pages and their sizes inline when they are few, else in directories that end after page `p`
   * when `ends(p, pages in the directory with it)` says so (and after the last), with each one's first rank; and
   * (version 5) every model's position, beside the inline pages or in each directory, with each directory's first.
   */
  async modelsList(
    pages: readonly string[],
    sizes: readonly number[],
    ends: (p: number, size: number) => boolean,
    positions: Uint32Array | undefined,
    per = MODELS_PER_PAGE,
  ): Promise<ModelsList> {
    const list = { per, count: sizes.reduce((n, s) => n + s, 0) };
    const at = (from: number, to: number) => (positions ? { positions: Array.from(positions.subarray(from, to)) } : {});
    if (pages.length <= DIR_FANOUT) return { ...list, pages: [...pages], sizes: [...sizes], ...at(0, list.count) };
    const dirs: string[] = [];
    const firsts: number[] = [];
    const dirPositions: number[] = [];
    let from = 0;
    let first = 0;
    let rank = 0;
    for (let p = 0; p < pages.length; p++) {
      rank += sizes[p] as number;
      if (p < pages.length - 1 && !ends(p, p + 1 - from)) continue;
      const dir = { role: 'dir', pages: pages.slice(from, p + 1), sizes: sizes.slice(from, p + 1) };
      dirs.push(await this.page({ ...dir, ...at(first, rank) }));
      firsts.push(first);
      if (positions) dirPositions.push(positions[first] as number);
      first = rank;
      from = p + 1;
    }
    return { ...list, dirs, firsts, ...(positions ? { dirPositions } : {}) };
  }

  /**
   * Every kept order ({@link KEPT_ORDERS}) as a list of positions (`positions`, by rank) cut by
   * {@link endsByPosition}, about {@link ORDER_PER_PAGE} a page, from the sort columns (one key per rank, what
   * `rowSortKey` gives); ties by rank.
   */
  async orders(columns: Record<string, number[] | string[]>, positions: Uint32Array): Promise<Record<string, ModelsList>> {
    const orders: Record<string, ModelsList> = {};
    for (const [sort, dir] of KEPT_ORDERS) {
      const k = columns[sort] as number[] | string[];
      const ranks = new Uint32Array(k.length);
      for (let i = 0; i < ranks.length; i++) ranks[i] = i;
      ranks.sort((a, b) => {
        const ka = k[a] as number | string;
        const kb = k[b] as number | string;
        return ka < kb ? -dir : ka > kb ? dir : a - b;
      });
      for (let i = 0; i < ranks.length; i++) ranks[i] = positions[ranks[i] as number] as number;
      orders[`${sort}:${dir}`] = await this.positionsList('order', ranks);
    }
    return orders;
  }

  /**
   * A list of positions in pages cut by {@link endsByPosition} (about {@link ORDER_PER_PAGE} a page), each keyed by
   * its positions, listed as the models list lists its pages (directories past {@link DIR_FANOUT} pages, cut where
   * their last positions say).
   */
  private async positionsList(role: string, items: Uint32Array): Promise<ModelsList> {
    const { pages, starts } = await this.cut(
      role,
      items.length,
      (i, size) => endsByPosition(items[i] as number, size, ORDER_PER_PAGE),
      (k, from, to) => k.bytes(new Uint8Array(items.buffer, items.byteOffset + from * 4, (to - from) * 4)),
      (from, to) => Array.from(items.subarray(from, to)),
    );
    const sizes = pages.map((_, p) => (starts[p + 1] ?? items.length) - (starts[p] as number));
    const last = (p: number) => items[(starts[p + 1] ?? items.length) - 1] as number;
    const ends = (p: number, size: number) => ((fmix32(last(p)) >>> 12) & (DIR_FANOUT - 1)) === 0 || size >= DIR_FANOUT * 2;
    return this.modelsList(pages, sizes, ends, undefined, ORDER_PER_PAGE);
  }

  /**
   * The names list (version 5): the lower-case ids in lexical order in pages cut by {@link endsNamesPage}, each keyed by
   * its names, in directories of {@link DIR_FANOUT} pages past that many, with each directory's first name.
   */
  async names(sorted: readonly string[]): Promise<PagedArray & { firsts: string[]; pageCount: number }> {
    const { pages, starts } = await this.cut(
      'names',
      sorted.length,
      (i, size) => endsNamesPage(keyHash(sorted[i] as string), size),
      (k, from, to) => {
        for (let i = from; i < to; i++) k.str(sorted[i] as string);
      },
      (from, to) => sorted.slice(from, to),
    );
    const listed = await this.dirs(pages);
    const firsts = 'dirs' in listed ? listed.dirs.map((_, d) => sorted[starts[d * DIR_FANOUT] as number] as string) : [];
    return { per: ORDER_PER_PAGE, count: sorted.length, pageCount: pages.length, ...listed, firsts };
  }

  /**
   * `count` items as pages of `role` that end after item `i` when `ends(i, items in the page with it)` says so (and
   * after the last), each keyed by its count and what `keyPart` appends for its items and made of `items(from, to)`:
   * the pages' addresses and each page's first item.
   */
  private async cut(
    role: string,
    count: number,
    ends: (i: number, size: number) => boolean,
    keyPart: (key: PageKey, from: number, to: number) => void,
    items: (from: number, to: number) => unknown[],
  ): Promise<{ pages: string[]; starts: number[] }> {
    const pages: string[] = [];
    const starts: number[] = [];
    const k = this.keys;
    for (let from = 0, i = 0; i < count; i++) {
      if (i < count - 1 && !ends(i, i + 1 - from)) continue;
      const to = i + 1;
      if (k) keyPart(k.start(role).u32(to - from), from, to);
      starts.push(from);
      pages.push(await this.keyed(k?.key(), () => ({ role, items: items(from, to) })));
      from = to;
    }
    return { pages, starts };
  }

  /**
   * `count` keys (`keyOf(i)`) hashed into `buckets` buckets, each one page; `put(entries, i)` sets key `i`'s entry, and
   * `keyPart(pageKey, i)` appends key `i` and its entry to the bucket's page key. The keys are grouped by bucket with a
   * counting sort, so each key is hashed once.
   */
  async hashed(
    role: string,
    buckets: number,
    count: number,
    keyOf: (i: number) => string,
    put: (entries: Record<string, unknown>, i: number) => void,
    keyPart: (pageKey: PageKey, i: number) => void,
  ): Promise<HashedMap> {
    const of = new Uint32Array(count);
    const starts = new Uint32Array(buckets + 1);
    for (let i = 0; i < count; i++) {
      of[i] = bucketOf(keyOf(i), buckets);
      (starts[(of[i] as number) + 1] as number)++;
    }
    for (let b = 0; b < buckets; b++) starts[b + 1] = (starts[b + 1] as number) + (starts[b] as number);
    const order = new Uint32Array(count);
    const fill = starts.slice(0, buckets);
    for (let i = 0; i < count; i++) order[(fill[of[i] as number] as number)++] = i;
    const pages: string[] = [];
    const k = this.keys;
    for (let b = 0; b < buckets; b++) {
      const from = starts[b] as number;
      const to = starts[b + 1] as number;
      if (k) {
        k.start(role).u32(to - from);
        for (let j = from; j < to; j++) keyPart(k, order[j] as number);
      }
      pages.push(
        await this.keyed(k?.key(), () => {
          const entries: Record<string, unknown> = {};
          for (let j = from; j < to; j++) put(entries, order[j] as number);
          return { role, entries };
        }),
      );
    }
    return { buckets, ...(await this.dirs(pages)) };
  }

  /**
   * A posting list of positions, inline when short, else in segments cut by {@link endsByPosition} (about
   * {@link POSTINGS_SEGMENT} a segment), so a position added or removed changes its own segment.
   */
  async postings(positions: number[]): Promise<Postings> {
    const n = positions.length;
    if (n <= POSTINGS_SEGMENT) return { n, r: positions };
    const s: string[] = [];
    for (let from = 0, i = 0; i < n; i++) {
      if (i < n - 1 && !endsByPosition(positions[i] as number, i + 1 - from, POSTINGS_SEGMENT)) continue;
      s.push(await this.page({ role: 'postings', items: positions.slice(from, i + 1) }));
      from = i + 1;
    }
    return { n, s };
  }
}
