import { type Address, addressOf } from './blake3.js';
import { bucketEntry, NOT_A_BUCKET } from './bucket-scan.js';
import { ByteLru } from './byte-lru.js';
import { IndexLoadError } from './index-store.js';
import type { MadeAnswers } from './made-answers.js';
import {
  type ListDir,
  type ModelsPageAt,
  modelsPageAtPosition,
  modelsPageOf,
  modelsPagesOf,
  pageAddressIn,
  rankFromPosition,
} from './models-list.js';
import type { ObjectStore } from './object-store.js';
import {
  bucketOf,
  type HashedMap,
  type IdEntry,
  type ModelsList,
  PAGES_KIND,
  PAGES_VERSIONS_READ,
  type PagedArray,
  type PagedEntry,
  type PagesRoot,
  type Postings,
} from './page-layout.js';
import { pagedModel } from './paged-model.js';
import { pagedNames } from './paged-names.js';
import {
  keptMemo,
  PAGED_CACHE_BYTES,
  PARSED_DIR_PER_JSON_BYTE,
  PARSED_PER_JSON_BYTE,
  type PagedIndexOptions,
  RECENT_MODELS_PAGES,
} from './paged-options.js';
import { type PagedReads, pagedSearch } from './paged-search.js';
import type { FileRecord, SourceObject } from './schemas.js';
import {
  type IndexedModel,
  type IndexStore,
  type IndexTotals,
  type Later,
  type ModelQuery,
  type PreparedBody,
  type SearchPage,
  whenReady,
} from './store-types.js';

const decoder = new TextDecoder();

export type { PagedIndexOptions } from './paged-options.js';

/**
 * The paged store (design 11.1): reads the day's index pages (page-layout.ts) a request needs, never the whole
 * index, and keeps what it read in caches bounded in bytes. A start reads the root page only; a model look-up reads
 * its id bucket and its models page (and a directory page beyond 16,384 models); a search reads the posting lists
 * of its terms and the models pages of its candidates. Every page is checked against its address when read.
 */
export class PagedIndex implements IndexStore, PagedReads {
  private readonly pages: ByteLru<unknown>;
  /**
   * Directory pages apart, kept from their first read: a few of them serve every look-up (1,000,000 models: 128 of
   * 73 KB name the id buckets), and in the one LRU the stream of buckets pushed them out, so a look-up read and parsed
   * 73 KB again (the largest item of the profile at 1,000,000 models).
   */
  private readonly dirPages: ByteLru<unknown>;
  private readonly warmModels: ByteLru<IndexedModel>;
  /** The last models pages read (a browse page reads its models one after the other, four from each page). */
  private readonly recentPages = new ByteLru<unknown>(RECENT_MODELS_PAGES);
  private readonly memos: ByteLru<unknown>;
  /** Hashed buckets as their checked bytes: a look-up parses only its own entry (bucket-scan.ts). */
  private readonly buckets: ByteLru<Uint8Array>;
  private readonly reading = new Map<string, Promise<unknown>>();
  private readonly readingBytes = new Map<string, Promise<unknown>>();
  private readonly verify: boolean;
  readonly searchReadsMax: number | undefined;
  private readonly sharePending: boolean;
  private readonly headModels: IndexedModel[];
  readonly totals: IndexTotals;
  readonly catalogAddress: Address;
  readonly snapshot: string;
  /** storage reads this store made (pages not in its cache) */
  reads = 0;
  cachedBytes(): number {
    return this.pages.bytes + this.dirPages.bytes + this.warmModels.bytes + this.memos.bytes + this.buckets.bytes;
  }

  constructor(
    private readonly objects: ObjectStore,
    readonly pagesAddress: Address,
    readonly root: PagesRoot,
    options: PagedIndexOptions = {},
  ) {
    const bytes = options.cacheBytes ?? PAGED_CACHE_BYTES;
    // Five parts that sum to the bound, directory pages a quarter (docs/decisions/scale-and-speed.md "One bound on
    // every cache"); the rest kept from the second ask (the decisions' "Kept from the second ask").
    const part = (bytes * 3) / 16;
    this.pages = new ByteLru(part, bytes / 16, { secondAsk: true });
    this.dirPages = new ByteLru(bytes / 4, bytes / 16);
    this.warmModels = new ByteLru(part, bytes / 16, { secondAsk: true });
    this.memos = new ByteLru(part, undefined, { secondAsk: true });
    this.buckets = new ByteLru(part, bytes / 16, { secondAsk: true });
    this.verify = options.verify !== false;
    this.searchReadsMax = options.searchReadsMax;
    this.sharePending = options.sharePending !== false;
    this.catalogAddress = root.catalog as Address;
    this.snapshot = root.date;
    this.totals = root.totals;
    this.byPosition = root.version >= 5;
    this.headModels = root.head.map((e, i) => this.fromEntry(e, root.headPositions?.[i] ?? i, 0));
    for (const m of this.headModels) {
      this.warmModels.keep(m.id.toLowerCase(), m, 0);
      this.warmModels.keep(`#${m.rank}`, m, 0);
    }
    this.madeAnswers = options.made?.(pagesAddress, this.headModels);
  }
  private readonly madeAnswers: MadeAnswers | undefined;
  /** Whether the look-up pages name a model by its position (version 5, positions.ts: its `rank` here), not rank. */
  private readonly byPosition: boolean;
  made(key: string): PreparedBody | undefined {
    return this.madeAnswers?.get(key);
  }

  /**
   * One page, parsed: from the cache, or read once (concurrent asks share a read that has to wait) and checked. A
   * store that reads at once (the local filesystem) answers without a promise.
   */
  page<T>(address: string): Later<T> {
    const hit = this.pages.get(address) ?? this.dirPages.get(address) ?? this.recentPages.get(address);
    if (hit !== undefined) return hit as T;
    return this.readOnce(address, this.reading, (bytes) => this.accept(address, bytes)) as Later<T>;
  }

  /**
   * Read a page once, check it against its address and hand its bytes to `keep`; concurrent asks share the read under
   * way through `pending` (unless `sharePending` is off). A store that reads at once answers without a promise.
   */
  private readOnce<V>(address: string, pending: Map<string, Promise<unknown>>, keep: (bytes: Uint8Array) => V): Later<V> {
    const under = pending.get(address);
    if (under) return under as Promise<V>;
    this.reads++;
    const objects = this.objects;
    const got = objects.readBytes ? objects.readBytes(address as Address) : objects.get(address as Address).then((s) => s?.bytes);
    const checked = (bytes: Uint8Array | undefined) => {
      if (!bytes) throw new IndexLoadError(`index page ${address} is missing from the object store`);
      if (this.verify && addressOf(bytes) !== address) throw new IndexLoadError(`index page ${address} does not hash to its address`);
      return keep(bytes);
    };
    if (!(got instanceof Promise)) return checked(got);
    if (!this.sharePending) return got.then(checked);
    const read = got.then(checked).finally(() => pending.delete(address));
    pending.set(address, read);
    return read;
  }

  /** A page's checked bytes parsed, then kept. */
  private accept(address: string, bytes: Uint8Array): unknown {
    const value = JSON.parse(decoder.decode(bytes)) as { role?: string };
    // A models page is not kept parsed: the models asked from it are kept warm (by id and by rank), and at a size
    // where look-ups are random a kept page is rarely asked again, so keeping it only gives the collector old
    // garbage to trace (docs/decisions/scale-and-speed.md "Pages read at once").
    if (value.role === 'dir') this.dirPages.keep(address, value, bytes.byteLength * PARSED_DIR_PER_JSON_BYTE);
    else if (value.role !== 'models') this.pages.set(address, value, bytes.byteLength * PARSED_PER_JSON_BYTE);
    else this.recentPages.set(address, value, 1);
    return value;
  }

  /** The address of page `p` of a paged list (through its directory when it has one). */
  pageAddress(list: { pages?: string[]; dirs?: string[] }, p: number): Later<string> {
    return pageAddressIn(list, p, (a) => this.page<ListDir>(a));
  }

  /** The items of page `p` of a paged list of items. */
  async items<T>(list: PagedArray, p: number): Promise<T[]> {
    return (await this.page<{ items: T[] }>(await this.pageAddress(list, p))).items;
  }

  private bucket<T>(map: HashedMap, key: string): Later<T | undefined> {
    // terms kept parsed (posting lists of up to 4,096 ranks, asked again); ids and digests scanned (bucket-scan.ts)
    if (map === this.root.terms)
      return whenReady(this.pageAddress(map, bucketOf(key, map.buckets, this.root.version)), (address) =>
        whenReady(this.page<{ entries: Record<string, T> }>(address), ({ entries }) =>
          Object.hasOwn(entries, key) ? entries[key] : undefined,
        ),
      );
    return whenReady(this.pageAddress(map, bucketOf(key, map.buckets, this.root.version)), (address) =>
      whenReady(this.bucketBytes(address), (bytes) => {
        const found = bucketEntry(bytes, key);
        if (found !== NOT_A_BUCKET) return found as T | undefined;
        const { entries } = JSON.parse(decoder.decode(bytes)) as { entries: Record<string, T> };
        return Object.hasOwn(entries, key) ? entries[key] : undefined;
      }),
    );
  }

  /** A bucket's bytes, checked against its address: from the cache, or read once (concurrent asks share a read). */
  private bucketBytes(address: string): Later<Uint8Array> {
    const hit = this.buckets.get(address);
    if (hit !== undefined) return hit;
    return this.readOnce(address, this.readingBytes, (bytes) => {
      this.buckets.set(address, bytes, bytes.byteLength + 64);
      return bytes;
    });
  }

  private fromEntry(e: PagedEntry, rank: number, size: number): IndexedModel {
    const m = pagedModel(e, rank);
    if (size > 0) {
      this.warmModels.set(e.id.toLowerCase(), m, size);
      this.warmModels.set(`#${rank}`, m, 64);
    }
    return m;
  }

  /** The model the look-up pages name by `key`: its position (version 5, positions.ts), or its rank. */
  modelAt(key: number): Later<IndexedModel> {
    const warm = this.warmModels.get(`#${key}`);
    if (warm) return warm;
    if (!this.byPosition) return whenReady(this.modelsPage(key), (at) => this.modelIn(at.address, key, key - at.first));
    return whenReady(
      modelsPageAtPosition(this.root.models, key, (a) => this.page<ListDir>(a)),
      (at) => {
        if (!at) throw new IndexLoadError(`index pages ${this.pagesAddress} have no model at position ${key}`);
        return this.modelIn(at.address, key, at.place);
      },
    );
  }

  /** The model at a browse rank (0 is the first of the browse list). */
  modelAtRank(rank: number): Later<IndexedModel> {
    if (!this.byPosition) return this.modelAt(rank);
    return whenReady(this.modelsPage(rank), (at) => {
      const key = (at.positions as number[])[rank - at.first] as number;
      return this.warmModels.get(`#${key}`) ?? this.modelIn(at.address, key, rank - at.first);
    });
  }

  /** The models page that holds a browse rank (through a directory of the models list when it has one). */
  modelsPage(rank: number): Later<ModelsPageAt> {
    return modelsPageOf(this.root.models, this.root.version, rank, (a) => this.page<ListDir>(a));
  }

  /**
   * The browse rank of the first model whose key (see {@link modelAt}) is `key` or after it: where a walk of the browse
   * order that stopped before `key` goes on.
   */
  rankFrom(key: number): Later<number> {
    return this.byPosition ? rankFromPosition(this.root.models, key, (a) => this.page<ListDir>(a)) : key;
  }

  /**
   * The page of a kept order that holds its `place`-th model: its first place and the keys it lists (see
   * {@link modelAt}); version 5 orders are cut where their positions say, version 4 and before hold `per` a page.
   */
  async orderPage(order: ModelsList, place: number): Promise<{ first: number; items: number[] }> {
    const p = Math.floor(place / order.per);
    if (!this.byPosition) return { first: p * order.per, items: await this.items<number>(order, p) };
    const at = await modelsPageOf(order, 4, place, (a) => this.page<ListDir>(a));
    return { first: at.first, items: (await this.page<{ items: number[] }>(at.address)).items };
  }

  /** Every models page of the day in browse order, with its first rank and size (version 5: its models' positions). */
  modelsPages(): AsyncGenerator<ModelsPageAt> {
    return modelsPagesOf(this.root.models, this.root.version, (a) => this.page<ListDir>(a));
  }

  /** The model `key` (see {@link modelAt}) at `place` in its models page (a page of version 3 says its own first rank). */
  private modelIn(address: string, key: number, place?: number): Later<IndexedModel> {
    return whenReady(this.page<{ first?: number; models: PagedEntry[] }>(address), (page) => {
      const e = page.models[place ?? key - (page.first as number)] as PagedEntry;
      return this.warmModels.get(e.id.toLowerCase()) ?? this.fromEntry(e, key, 2048 + e.object.files.length * 200 + e.sources.length * 400);
    });
  }

  /** The model an id bucket names: an {@link IdEntry}, `[page, rank]` in a version 2 day, a rank in version 1. */
  private named(key: string): Later<IndexedModel | undefined> {
    return whenReady(this.bucket<number | [string, number] | IdEntry>(this.root.ids, key), (at) => {
      if (at === undefined) return undefined;
      if (typeof at === 'number') return this.modelAt(at);
      return at.length >= 5 ? this.modelFrom(at as IdEntry) : this.modelIn(at[0], at[1]);
    });
  }

  /**
   * The model an id entry names: its own bytes of its models page, read by range and checked against the entry's
   * address (a store without ranged reads, or a page read just now, answers from the whole page).
   */
  private modelFrom(at: IdEntry): Later<IndexedModel> {
    const [page, rank, start, length, entry, place] = at;
    const warm = this.warmModels.get(`#${rank}`);
    if (warm) return warm;
    const objects = this.objects;
    if (!objects.readRange || this.recentPages.has(page)) return this.modelIn(page, rank, place);
    this.reads++;
    return whenReady(objects.readRange(page as Address, start, length), (bytes) => {
      if (!bytes) throw new IndexLoadError(`index page ${page} is missing from the object store, or shorter than its id entries say`);
      if (this.verify && addressOf(bytes) !== entry)
        throw new IndexLoadError(
          `index page ${page}: the model at ${this.byPosition ? 'position' : 'rank'} ${rank} does not hash to its id entry's address`,
        );
      return this.fromEntry(JSON.parse(decoder.decode(bytes)) as PagedEntry, rank, 2048 + length);
    });
  }

  /** The posting list of a term (undefined when no model has it). */
  async postings(key: string): Promise<Postings | undefined> {
    return this.bucket<Postings>(this.root.terms, key);
  }

  /** The kept order `sort:dir` (undefined for the browse order itself). */
  order(key: string): ModelsList | undefined {
    return this.root.orders[key];
  }

  head(): readonly IndexedModel[] {
    return this.headModels;
  }

  warm(id: string): IndexedModel | undefined {
    return this.warmModels.get(id.toLowerCase());
  }

  /** At once when the model is warm or the store reads at once (the local filesystem), else a promise. */
  model(id: string): Later<IndexedModel | undefined> {
    const warm = this.warm(id);
    if (warm) return warm;
    try {
      return this.named(id.toLowerCase());
    } catch (e) {
      // a damaged page refuses the look-up as a rejected promise, whether the store read at once or not
      return Promise.reject(e);
    }
  }

  async dashAlias(id: string): Promise<IndexedModel | undefined> {
    return this.named(`~${id.toLowerCase()}`);
  }

  async filesBySha256(sha256: string): Promise<ReadonlyArray<{ model: IndexedModel; file: FileRecord }>> {
    const ranks = (await this.bucket<number[]>(this.root.shas, sha256)) ?? [];
    const found: { model: IndexedModel; file: FileRecord }[] = [];
    for (const rank of ranks) {
      const model = await this.modelAt(rank);
      for (const file of model.files) if (file.sha256 === sha256) found.push({ model, file });
    }
    return found;
  }

  search(q: ModelQuery, offset: number, limit: number, from?: number): Promise<SearchPage> {
    return pagedSearch(this, q, offset, limit, from);
  }

  names(last: string | undefined, n: number): Promise<{ names: string[]; more: boolean }> {
    return pagedNames(this.root.names, (p) => this.items<string>(this.root.names, p), last, n);
  }

  sourceKinds(): ReadonlyArray<readonly [string, SourceObject['type']]> {
    return this.root.kinds;
  }

  async object(address: Address): Promise<Uint8Array | undefined> {
    return (await this.objects.get(address))?.bytes;
  }

  memo<T>(key: string, build: () => T): T {
    return keptMemo(this.memos, key, build, this.sharePending);
  }
}

/**
 * Open the paged store of a day: read and check its root page. Throws {@link IndexLoadError} when the root is
 * missing, does not hash to its address, is not a pages root of this version, or names another catalog.
 */
export async function openPagedIndex(
  objects: ObjectStore,
  pagesAddress: Address,
  catalogAddress: Address,
  options: PagedIndexOptions = {},
): Promise<PagedIndex> {
  const stored = await objects.get(pagesAddress);
  if (!stored) throw new IndexLoadError(`index pages ${pagesAddress} are missing from the object store`);
  if (options.verify !== false && addressOf(stored.bytes) !== pagesAddress)
    throw new IndexLoadError(`index pages ${pagesAddress} do not hash to their address`);
  let root: PagesRoot;
  try {
    root = JSON.parse(decoder.decode(stored.bytes)) as PagesRoot;
  } catch {
    throw new IndexLoadError(`index pages ${pagesAddress} are not JSON`);
  }
  if (root?.kind !== PAGES_KIND || !PAGES_VERSIONS_READ.includes(root.version))
    throw new IndexLoadError(`${pagesAddress} is not an index pages root of version ${PAGES_VERSIONS_READ.join(' or ')}`);
  if (root.catalog !== catalogAddress)
    throw new IndexLoadError(`index pages ${pagesAddress} are derived from ${root.catalog}, not from ${catalogAddress}`);
  const index = new PagedIndex(objects, pagesAddress, root, options);
  index.reads = 1;
  return index;
}
