/** The options of the paged store (paged-index.ts) and the sizes its caches count. */
import type { Address } from './blake3.js';
import type { ByteLru } from './byte-lru.js';
import type { MadeAnswers } from './made-answers.js';
import type { IndexedModel } from './store-types.js';

/** Default bound of the pages and models a paged store keeps in memory, in bytes of their JSON. */
export const PAGED_CACHE_BYTES = 64 * 1024 * 1024;

/**
 * The heap a parsed page takes per byte of its JSON, so the cache's bound is one of memory: 2.0 (100,000 models) to
 * 2.6 (1,000,000) measured for id buckets (`node --expose-gc`, heap used before and after parsing 1,000 of them).
 */
export const PARSED_PER_JSON_BYTE = 2.5;
/** The same for a directory page (1,024 addresses: strings, no objects): 1.4, measured as above. */
export const PARSED_DIR_PER_JSON_BYTE = 1.4;

/** Models pages kept parsed, by count: the last few read, for the models of one browse page or search page. */
export const RECENT_MODELS_PAGES = 32;

export interface PagedIndexOptions {
  /** the most bytes of pages, models and memos kept in all (default {@link PAGED_CACHE_BYTES}; cache-budget.ts) */
  cacheBytes?: number;
  /** Re-hash every page read against its address (default true); a host that verified the day may skip it. */
  verify?: boolean;
  /** the most storage reads one search makes (paged-search.ts `SEARCH_READS_MAX` by default) */
  searchReadsMax?: number;
  /**
   * Whether concurrent asks share a read under way, and a memo's promise (default true). The edge says false: in
   * workerd what a request chains on another request's read runs on that request's behalf, and its own reads fail
   * or hang ("Cannot perform I/O on behalf of a different request"). Values already read are shared either way.
   */
  sharePending?: boolean;
  /** The host's answers made for this day (made-answers.ts), given its pages root and head; undefined: none. */
  made?: (pages: Address, head: readonly IndexedModel[]) => MadeAnswers | undefined;
}

/** The size a memo value is counted at: its bytes when it has them (prepared bodies), else a few KB. */
function memoSize(v: unknown): number {
  const bytes = (v as { bytes?: unknown } | null)?.bytes;
  return bytes instanceof Uint8Array ? bytes.byteLength + 256 : 4096;
}

/**
 * A value of `memos` by key, made by `build` when absent: a promise is kept while it runs (shared unless
 * `sharePending` is off, see {@link PagedIndexOptions.sharePending}), then at its value's size.
 */
export function keptMemo<T>(memos: ByteLru<unknown>, key: string, build: () => T, sharePending: boolean): T {
  const hit = memos.get(key);
  if (hit !== undefined || memos.has(key)) return hit as T;
  const v = build();
  if (v instanceof Promise && !sharePending) {
    // Not shared while it runs (see `sharePending`): kept once settled, as the settled promise of its value.
    v.then(
      (r) => memos.set(key, Promise.resolve(r), memoSize(r)),
      () => undefined,
    );
  } else if (v instanceof Promise) {
    // A promise is kept while it runs (so concurrent asks share it); settled, it is kept at its value's size, and
    // dropped when it failed.
    memos.keep(key, v, 4096);
    v.then(
      (r) => memos.get(key) === v && memos.keep(key, v, memoSize(r)),
      () => memos.get(key) === v && memos.keep(key, v, Number.POSITIVE_INFINITY),
    );
  } else memos.set(key, v, memoSize(v));
  return v;
}
