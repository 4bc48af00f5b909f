import type { IndexedModel, IndexStore } from './index-store.js';

export type SortKey = 'trendingScore' | 'downloads' | 'likes' | 'createdAt' | 'lastModified' | 'id';

export interface ModelQuery {
  /** substring of the id, case-insensitive; several words must all match */
  search?: string;
  author?: string;
  /** tags that must all be present (a pipeline tag or library also counts as a tag) */
  filter?: string[];
  pipeline_tag?: string;
  library?: string;
  sort?: SortKey;
  /** -1 descending (default for numbers and dates), 1 ascending */
  direction?: 1 | -1;
}

export const SORT_KEYS: readonly SortKey[] = ['trendingScore', 'downloads', 'likes', 'createdAt', 'lastModified', 'id'];

export function isSortKey(v: string): v is SortKey {
  return (SORT_KEYS as readonly string[]).includes(v);
}

/** Tags of a model, including its pipeline and library, lower-cased, for filtering. */
export function modelTags(m: IndexedModel): Set<string> {
  const tags = new Set<string>();
  for (const t of m.row.tags ?? []) tags.add(t.toLowerCase());
  if (m.row.pipeline_tag) tags.add(m.row.pipeline_tag.toLowerCase());
  if (m.row.library_name) tags.add(m.row.library_name.toLowerCase());
  return tags;
}

/**
 * The one search over the index, used by the model-host dialect, MCP and the site. Returns models
 * in the requested order (trending by default, which is the catalog's own order).
 *
 * It reads a {@link SearchIndex} prepared once per loaded index (see there), and answers exactly as
 * {@link searchModelsScan}, the plain scan it replaced (a test compares both on the real fixture rows).
 */
export function searchModels(index: IndexStore, q: ModelQuery): IndexedModel[] {
  const prepared = index.memo('search:index', () => new SearchIndex(index.models()));
  return prepared.search(q);
}

function sortKeyOf(sort: SortKey): (m: IndexedModel) => number | string {
  return (m) => {
    switch (sort) {
      case 'id':
        return m.id.toLowerCase();
      case 'trendingScore':
        return m.row.trendingScore ?? -m.rank / 1e6;
      case 'downloads':
        return m.row.downloads ?? -1;
      case 'likes':
        return m.row.likes ?? -1;
      case 'createdAt':
        return m.row.createdAt ?? '';
      default:
        return m.row.lastModified ?? m.row.createdAt ?? '';
    }
  };
}

function sortedBy(models: readonly IndexedModel[], sort: SortKey, dir: 1 | -1): IndexedModel[] {
  const key = sortKeyOf(sort);
  return models
    .map((m) => ({ m, k: key(m) }))
    .sort((a, b) => (a.k < b.k ? -dir : a.k > b.k ? dir : a.m.rank - b.m.rank))
    .map((x) => x.m);
}

/**
 * Search state prepared once per loaded index, so a query costs a few native string searches and a
 * pass over a byte mask instead of lower-casing and testing every model:
 * - every lower-cased id joined by `\n` into one string, so a word's substring matches are found by
 *   `indexOf` (a word never holds `\n`, so a match never spans two ids), mapped to models by offset;
 * - exact-match postings (model positions in browse order) for author, task, library and tag;
 * - each sort order computed on first use and kept.
 */
export class SearchIndex {
  private readonly ids: string;
  /** start offset of each model's id in {@link ids}, ascending */
  private readonly starts: Int32Array;
  private readonly byAuthor = new Map<string, number[]>();
  private readonly byTask = new Map<string, number[]>();
  private readonly byLibrary = new Map<string, number[]>();
  private readonly byTag = new Map<string, number[]>();
  private readonly orders = new Map<string, IndexedModel[]>();

  constructor(private readonly models: readonly IndexedModel[]) {
    this.starts = new Int32Array(models.length);
    const parts: string[] = [];
    let at = 0;
    const post = (map: Map<string, number[]>, key: string, i: number) => {
      const list = map.get(key);
      if (list) list.push(i);
      else map.set(key, [i]);
    };
    models.forEach((m, i) => {
      const id = m.id.toLowerCase();
      this.starts[i] = at;
      parts.push(id);
      at += id.length + 1;
      post(this.byAuthor, m.owner.toLowerCase(), i);
      if (m.row.pipeline_tag) post(this.byTask, m.row.pipeline_tag.toLowerCase(), i);
      if (m.row.library_name) post(this.byLibrary, m.row.library_name.toLowerCase(), i);
      for (const t of modelTags(m)) post(this.byTag, t, i);
    });
    this.ids = parts.join('\n');
  }

  /** The model whose id holds string offset `pos`. */
  private modelAt(pos: number): number {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((this.starts[mid] as number) <= pos) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** Mark with `mark` every model whose lower-cased id contains `word` and which already holds `need`. */
  private markWord(mask: Uint8Array, word: string, need: number, mark: number): void {
    let from = 0;
    for (;;) {
      const pos = this.ids.indexOf(word, from);
      if (pos < 0) return;
      const i = this.modelAt(pos);
      if (mask[i] === need) mask[i] = mark;
      // Skip to the next id: one hit per model is enough.
      from = i + 1 < this.starts.length ? (this.starts[i + 1] as number) : this.ids.length;
    }
  }

  private markPosting(mask: Uint8Array, list: number[] | undefined, need: number, mark: number): void {
    if (!list) return;
    for (const i of list) if (mask[i] === need) mask[i] = mark;
  }

  search(q: ModelQuery): IndexedModel[] {
    const words = (q.search ?? '').toLowerCase().split(/\s+/).filter(Boolean);
    const author = q.author?.toLowerCase();
    const filters = (q.filter ?? []).map((f) => f.toLowerCase()).filter(Boolean);
    const pipeline = q.pipeline_tag?.toLowerCase();
    const library = q.library?.toLowerCase();
    const sort = q.sort ?? 'trendingScore';
    const dir = q.direction ?? (sort === 'id' ? 1 : -1);
    const ordered = this.order(sort, dir);
    // Each condition raises the mark of the models that passed every condition before it.
    const conditions: ((mask: Uint8Array, need: number, mark: number) => void)[] = [];
    if (author) conditions.push((mask, need, mark) => this.markPosting(mask, this.byAuthor.get(author), need, mark));
    if (pipeline) conditions.push((mask, need, mark) => this.markPosting(mask, this.byTask.get(pipeline), need, mark));
    if (library) conditions.push((mask, need, mark) => this.markPosting(mask, this.byLibrary.get(library), need, mark));
    for (const f of filters) conditions.push((mask, need, mark) => this.markPosting(mask, this.byTag.get(f), need, mark));
    for (const w of words) conditions.push((mask, need, mark) => this.markWord(mask, w, need, mark));
    if (conditions.length === 0) return [...ordered];
    if (conditions.length > 254) return searchModelsScanOf(this.models, q);
    const mask = new Uint8Array(this.models.length);
    for (let k = 0; k < conditions.length; k++) conditions[k]?.(mask, k, k + 1);
    const want = conditions.length;
    const out: IndexedModel[] = [];
    for (const m of ordered) if (mask[m.rank] === want) out.push(m);
    return out;
  }

  private order(sort: SortKey, dir: 1 | -1): readonly IndexedModel[] {
    if (sort === 'trendingScore' && dir === -1) return this.models; // catalog order already
    const key = `${sort}:${dir}`;
    let o = this.orders.get(key);
    if (!o) {
      o = sortedBy(this.models, sort, dir);
      this.orders.set(key, o);
    }
    return o;
  }
}

/** The plain scan over every model (the reference the prepared {@link SearchIndex} must equal). */
export function searchModelsScan(index: IndexStore, q: ModelQuery): IndexedModel[] {
  return searchModelsScanOf(index.models(), q);
}

function searchModelsScanOf(models: readonly IndexedModel[], q: ModelQuery): IndexedModel[] {
  const words = (q.search ?? '').toLowerCase().split(/\s+/).filter(Boolean);
  const author = q.author?.toLowerCase();
  const filters = (q.filter ?? []).map((f) => f.toLowerCase()).filter(Boolean);
  const pipeline = q.pipeline_tag?.toLowerCase();
  const library = q.library?.toLowerCase();
  const out = models.filter((m) => {
    const id = m.id.toLowerCase();
    for (const w of words) if (!id.includes(w)) return false;
    if (author && m.owner.toLowerCase() !== author) return false;
    if (pipeline && m.row.pipeline_tag?.toLowerCase() !== pipeline) return false;
    if (library && m.row.library_name?.toLowerCase() !== library) return false;
    if (filters.length) {
      const tags = modelTags(m);
      for (const f of filters) if (!tags.has(f)) return false;
    }
    return true;
  });
  const sort = q.sort ?? 'trendingScore';
  const dir = q.direction ?? (sort === 'id' ? 1 : -1);
  if (sort === 'trendingScore' && dir === -1) return out; // catalog order already
  return sortedBy(out, sort, dir);
}
