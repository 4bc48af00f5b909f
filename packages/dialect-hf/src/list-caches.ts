import { ByteLru, type CoreDeps, type IndexStore, type PreparedBody } from '@hub/core-index';

/** Where a page of the list starts: matches before it, and where the search's walk goes on (`SearchPage.after`). */
export interface Cursor {
  offset: number;
  from?: number;
}

/** One page of the browse list or of a search, prepared. */
export interface ListPage {
  body: PreparedBody;
  more: boolean;
  /** the next page's cursor: its offset, and where the walk of this page's search ended (`SearchPage.after`) */
  next: Cursor;
  /** `Link: rel="next"` values already built, by origin, path and query */
  links: Map<string, string>;
}

/**
 * The most bytes of row JSON and of search pages kept per loaded index, without a cache budget
 * (`HubSettings.cache.rows`, index/cache-budget.ts): two thirds for rows, one third for pages.
 */
const ROWS_SHARE_DEFAULT = 24 * 1024 * 1024;

/**
 * Row bytes of the loaded index, made on first use and kept by browse position (`-1 - rank` with siblings), least
 * recently used out first past two thirds of the budget's `rows` share, so a page is a copy of kept bytes, not 50
 * serialisations, and a crawl of a large index holds no more than the bound.
 */
export class RowBytes {
  private readonly kept: ByteLru<Uint8Array, number>;

  constructor(maxBytes: number) {
    this.kept = new ByteLru<Uint8Array, number>(maxBytes, maxBytes);
  }

  get bytes(): number {
    return this.kept.bytes;
  }

  get(key: number): Uint8Array | undefined {
    return this.kept.get(key);
  }

  set(key: number, value: Uint8Array): void {
    this.kept.set(key, value, value.byteLength);
  }
}

/**
 * Recent search pages of one loaded index, by query string (a client paging back, a busy query): a page is kept from
 * the second time its query is asked within the last {@link MAX_SEEN_QUERIES} (a stream of different queries keeps
 * only their strings, not their pages), at most {@link MAX_CACHED_PAGES} pages and a third of the budget's `rows`
 * share, the least recently used dropped first. The index owns it, so a switched index drops it.
 */
class PageCache {
  private readonly pages = new Map<string, ListPage>();
  private readonly seen = new Set<string>();
  bytes = 0;

  constructor(private readonly maxBytes: number) {}

  get(key: string): ListPage | undefined {
    const page = this.pages.get(key);
    if (page !== undefined) {
      this.pages.delete(key);
      this.pages.set(key, page);
    }
    return page;
  }

  set(key: string, page: ListPage): void {
    if (!this.seen.has(key)) {
      if (this.seen.size >= MAX_SEEN_QUERIES) this.seen.delete(this.seen.values().next().value as string);
      this.seen.add(key);
      return;
    }
    const size = page.body.bytes.byteLength + key.length;
    if (size > this.maxBytes / 8) return;
    for (const [k, old] of this.pages) {
      if (this.pages.size < MAX_CACHED_PAGES && this.bytes + size <= this.maxBytes) break;
      this.pages.delete(k);
      this.bytes -= old.body.bytes.byteLength + k.length;
    }
    this.pages.set(key, page);
    this.bytes += size;
  }
}

const MAX_SEEN_QUERIES = 256;
const MAX_CACHED_PAGES = 64;

/** The `rows` share of the cache budget: two thirds for row bytes, one third for search pages. */
function rowsShare(deps: CoreDeps): number {
  return deps.settings.cache?.rows ?? ROWS_SHARE_DEFAULT;
}

/**
 * The row bytes and search pages of each loaded index. Not index memos: a paged store's memos are an LRU of prepared
 * bodies, which pushed these out (and their bytes with them) under a stream of look-ups; these have their own bound.
 * A switched index, once collected, takes its entry with it.
 */
const perIndex = new WeakMap<IndexStore, { rows: RowBytes; pages: PageCache }>();

function cachesOf(index: IndexStore, deps: CoreDeps): { rows: RowBytes; pages: PageCache } {
  let caches = perIndex.get(index);
  if (!caches) {
    const share = rowsShare(deps);
    caches = { rows: new RowBytes(Math.floor((share * 2) / 3)), pages: new PageCache(Math.floor(share / 3)) };
    perIndex.set(index, caches);
  }
  return caches;
}

export const rowsOf = (index: IndexStore, deps: CoreDeps) => cachesOf(index, deps).rows;
export const pagesOf = (index: IndexStore, deps: CoreDeps) => cachesOf(index, deps).pages;

/** Bytes the model-host dialect keeps for `index` now: its row bytes and search pages (the budget's `rows` share). */
export function hfCachedBytes(index: IndexStore): number {
  // read only: a scrape of an index no browse has asked makes no caches for it
  const caches = perIndex.get(index);
  return caches ? caches.rows.bytes + caches.pages.bytes : 0;
}
