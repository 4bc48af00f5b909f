import type { Address } from './blake3.js';
import type { FileRecord, ModelObject, ModelRow, SourceObject } from './schemas.js';

export type SortKey = 'trendingScore' | 'downloads' | 'likes' | 'createdAt' | 'lastModified' | 'id';

export interface ModelQuery {
  /** substring of the id, case-insensitive; several words must all match */
  search?: string;
  author?: string;
  /** tags that must all be present (a pipeline tag or library also counts as a tag) */
  filter?: string[];
  pipeline_tag?: string;
  library?: string;
  /** only models listed for browsing (`svc.listed` not false) */
  listed?: boolean;
  sort?: SortKey;
  /** -1 descending (default for numbers and dates), 1 ascending */
  direction?: 1 | -1;
}

/** One model of today's index, with lookup maps ready. */
export interface IndexedModel {
  id: string;
  owner: string;
  name: string;
  revision: string;
  /** address of the `model-hub.model` object */
  address: Address;
  object: ModelObject;
  row: ModelRow;
  /** files sorted by path */
  files: FileRecord[];
  file(path: string): FileRecord | undefined;
  sources: SourceObject[];
  sourceAddresses: Address[];
  weightBytes: number;
  /**
   * place in browse (trending) order: a number that ascends with it (0, 1, … in the whole store; in the paged store of
   * a layout 5 day, the model's position, positions.ts)
   */
  rank: number;
}

/** The index's totals, known without reading any model. */
export interface IndexTotals {
  models: number;
  files: number;
  bytes: number;
  /** models listed for browsing (`svc.listed` not false) */
  listed: number;
  /** how many models each source holds (by source name) */
  holders: Readonly<Record<string, number>>;
}

/** One page of a search or of the browse list: the models of `[offset, offset + limit)` and whether any follows. */
export interface SearchPage {
  models: IndexedModel[];
  more: boolean;
  /** every match, when the store knew it without more work (the whole-index store always does) */
  total?: number;
  /**
   * Where this page's walk of an order ended, when the search walked one (the paged store, for a query no posting list
   * bounds): the next page, asked with `offset + models.length` and this as `from`, goes on from there instead of
   * walking past the first `offset` matches again, so every page costs what the first does, and a walk stopped by its
   * budget of reads goes on in the next page instead of ending the list. A page that ends so may hold fewer than
   * `limit` models (none, even) and still have `more`.
   */
  after?: number;
}

/**
 * Today's index as look-ups by key (design 11.1): immutable once loaded. What a look-up costs depends on the store:
 * the whole-index store ({@link loadIndex}) answers from memory; the paged store (`openPagedIndex`) reads the
 * derived pages a request needs, so a request, a start and a process cost the same at 100 and at 1,000,000 models.
 * Callers never walk every model: a page of the browse list, a search, the totals and the source kinds are the ways
 * to see many models at once.
 */
export interface IndexStore {
  readonly catalogAddress: Address;
  /** the day the catalog was built */
  readonly snapshot: string;
  /** the first models of the browse list (at least one page), warm: examples for discovery documents and pages */
  head(): readonly IndexedModel[];
  /** the model answered without any read (whole-index store: every model; paged store: the models kept warm) */
  warm(id: string): IndexedModel | undefined;
  /** case-insensitive look-up by `owner/name`: at once when nothing has to be read, or read at once (a local disk) */
  model(id: string): Later<IndexedModel | undefined>;
  /** the model a dash alias stands for (`my-org/x` for `my.org/x`: a dotted owner, first in browse order wins) */
  dashAlias(id: string): Promise<IndexedModel | undefined>;
  /** every (model, file) with this SHA-256, in browse order and path order, for OCI blob look-ups by digest */
  filesBySha256(sha256: string): Promise<ReadonlyArray<{ model: IndexedModel; file: FileRecord }>>;
  /** one page of the models a query matches, in its order (no condition: the browse list in that order) */
  /**
   * The matches of `[offset, offset + limit)`. `from` is a page's `after` (see {@link SearchPage}); a store that does
   * not walk ignores it, and so does a search that does not walk, which counts from `offset`.
   */
  search(q: ModelQuery, offset: number, limit: number, from?: number): Promise<SearchPage>;
  /** repository names (lower-case ids) after `last` in lexical order, at most `n` */
  names(last: string | undefined, n: number): Promise<{ names: string[]; more: boolean }>;
  /** every source the index's models name, with its kind (first seen first) */
  sourceKinds(): ReadonlyArray<readonly [string, SourceObject['type']]>;
  readonly totals: IndexTotals;
  /** The bytes of one hub object. */
  object(address: Address): Promise<Uint8Array | undefined>;
  /**
   * A value computed once per index (prepared response bodies, manifests, pages). The paged store keeps memos in a
   * cache bounded in bytes, so a value may be built again: `build` must not have effects.
   */
  memo<T>(key: string, build: () => T): T;
  /**
   * An answer made before it was asked (made-answers.ts: a host's file of the answers every model has, written after
   * the build), by the key its maker gives it; undefined when the store has none under that key. Never reads more
   * than the file's slot and record.
   */
  made?(key: string): PreparedBody | undefined;
  /** bytes its caches hold now, as they count them (a paged store); the whole store holds its index and has none */
  cachedBytes?(): number;
}

/**
 * A response body built once per index and served many times: its bytes, content type and a strong ETag.
 */
export interface PreparedBody {
  bytes: Uint8Array;
  contentType: string;
  etag: string;
}

/** A value now or later: look-ups answer at once when nothing has to be read (a warm model). */
export type Later<T> = T | Promise<T>;

/** `fn(v)` now when `v` is a value, after it when it is a promise (a hot path stays synchronous when nothing is read). */
export function whenReady<T, R>(v: Later<T>, fn: (v: T) => Later<R>): Later<R> {
  return v instanceof Promise ? v.then(fn) : fn(v);
}

/** The model `id` without a read when it is warm, else after its look-up. */
export function lookUp(index: Pick<IndexStore, 'model' | 'warm'>, id: string): Later<IndexedModel | undefined> {
  return index.warm(id) ?? index.model(id);
}
