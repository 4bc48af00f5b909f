/**
 * One bound for every cache of a process (issue 39: "caches are bounded in bytes"; an edge isolate may use 128 MB in
 * all). A hub keeps four caches, each an LRU bounded in bytes: the paged store's pages, models and prepared bodies
 * (`index`), the whole answers of reusable routes (`answers`, http/answer-cache.ts), the object stores' immutable
 * objects (`objects`, object-cache.ts) and the model-host dialect's row bytes (`rows`). Each used to take its own
 * default (64 + 32 + 64 + 16 MB on node-server, 24 + 32 + 32 + 16 MB at the edge), so the sum was nobody's decision
 * and could pass an isolate's limit. Now a host names one total and every cache takes its share of it.
 */
export interface CacheBudget {
  /** the whole bound, in bytes */
  total: number;
  /** the paged store's caches (`PagedIndexOptions.cacheBytes`); the whole store holds its index and takes none */
  index: number;
  /** kept whole answers (`AnswerCacheLimits.maxBytes`) */
  answers: number;
  /** the object store's immutable objects (`ObjectCache`) */
  objects: number;
  /** the model-host dialect's row bytes of browse and search pages */
  rows: number;
}

/** node-server's default total (`cacheMegabytes` in the config, or `HUB_CACHE_MB`). */
export const SERVER_CACHE_BYTES = 128 * 1024 * 1024;

/**
 * The shares of the total: half for the index (at 1,000,000 models its directory pages alone are 13.6 MB, and a
 * look-up that misses them reads 73 KB), a fifth each for answers and objects, a tenth for rows.
 */
export function cacheBudget(total: number): CacheBudget {
  if (!Number.isFinite(total) || total <= 0) throw new RangeError(`a cache budget must be a positive number of bytes, not ${total}`);
  const part = (share: number) => Math.floor(total * share);
  return { total, index: part(1 / 2), answers: part(1 / 5), objects: part(1 / 5), rows: part(1 / 10) };
}
