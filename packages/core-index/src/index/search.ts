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
 * Search state prepared once per loaded index (on the first search), so a query costs work in proportion to the
 * models that could match, not to the index:
 * - a trigram index over the lower-cased ids: a word of three or more characters can only match a model whose id
 *   holds every trigram of the word, so the rarest of its trigrams' posting lists bounds the candidates;
 * - exact-match postings (model positions in browse order) for author, task, library and tag;
 * - every candidate is then checked against every condition exactly as the scan does (substring of the id, equal
 *   author, task and library, all tags present), so answers are the scan's answers by construction;
 * - each sort order is computed on first use and kept, as the position of every model in it.
 */
export class SearchIndex {
  private readonly lowerIds: string[];
  private readonly lowerOwners: string[];
  private readonly tags: string[][];
  private readonly tasks: (string | undefined)[];
  private readonly libraries: (string | undefined)[];
  private readonly trigrams = new Map<string, number[]>();
  private readonly byAuthor = new Map<string, number[]>();
  private readonly byTask = new Map<string, number[]>();
  private readonly byLibrary = new Map<string, number[]>();
  private readonly byTag = new Map<string, number[]>();
  private readonly orders = new Map<string, { list: IndexedModel[]; position: Int32Array }>();

  constructor(private readonly models: readonly IndexedModel[]) {
    const n = models.length;
    this.lowerIds = new Array(n);
    this.lowerOwners = new Array(n);
    this.tags = new Array(n);
    this.tasks = new Array(n);
    this.libraries = new Array(n);
    const post = (map: Map<string, number[]>, key: string, i: number) => {
      const list = map.get(key);
      if (list === undefined) map.set(key, [i]);
      else if (list[list.length - 1] !== i) list.push(i);
    };
    for (let i = 0; i < n; i++) {
      const m = models[i] as IndexedModel;
      const id = m.id.toLowerCase();
      this.lowerIds[i] = id;
      for (let k = 0; k + 3 <= id.length; k++) post(this.trigrams, id.slice(k, k + 3), i);
      const owner = m.owner.toLowerCase();
      this.lowerOwners[i] = owner;
      post(this.byAuthor, owner, i);
      const task = m.row.pipeline_tag?.toLowerCase();
      this.tasks[i] = task;
      if (task) post(this.byTask, task, i);
      const library = m.row.library_name?.toLowerCase();
      this.libraries[i] = library;
      if (library) post(this.byLibrary, library, i);
      const tags = [...modelTags(m)];
      this.tags[i] = tags;
      for (const t of tags) post(this.byTag, t, i);
    }
  }

  search(q: ModelQuery): IndexedModel[] {
    const words = (q.search ?? '').toLowerCase().split(/\s+/).filter(Boolean);
    const author = q.author?.toLowerCase();
    const filters = (q.filter ?? []).map((f) => f.toLowerCase()).filter(Boolean);
    const pipeline = q.pipeline_tag?.toLowerCase();
    const library = q.library?.toLowerCase();
    const sort = q.sort ?? 'trendingScore';
    const dir = q.direction ?? (sort === 'id' ? 1 : -1);
    const natural = sort === 'trendingScore' && dir === -1; // catalog order already
    if (!words.length && !author && !filters.length && !pipeline && !library) {
      return natural ? [...this.models] : [...this.order(sort, dir).list];
    }
    // The smallest posting list any condition allows (undefined: no bound, every model is a candidate).
    const EMPTY: number[] = [];
    let candidates: number[] | undefined;
    const bound = (list: number[] | undefined) => {
      const l = list ?? EMPTY;
      if (candidates === undefined || l.length < candidates.length) candidates = l;
    };
    if (author) bound(this.byAuthor.get(author));
    if (pipeline) bound(this.byTask.get(pipeline));
    if (library) bound(this.byLibrary.get(library));
    for (const f of filters) bound(this.byTag.get(f));
    for (const w of words) for (let k = 0; k + 3 <= w.length; k++) bound(this.trigrams.get(w.slice(k, k + 3)));
    const matches: number[] = [];
    const test = (i: number): void => {
      const id = this.lowerIds[i] as string;
      for (const w of words) if (!id.includes(w)) return;
      if (author && this.lowerOwners[i] !== author) return;
      if (pipeline && this.tasks[i] !== pipeline) return;
      if (library && this.libraries[i] !== library) return;
      if (filters.length) {
        const tags = this.tags[i] as string[];
        for (const f of filters) if (!tags.includes(f)) return;
      }
      matches.push(i);
    };
    if (candidates === undefined) for (let i = 0; i < this.models.length; i++) test(i);
    else for (const i of candidates) test(i);
    // Postings and the scan both run in browse order, so `matches` is ascending.
    if (!natural) {
      const { position } = this.order(sort, dir);
      matches.sort((a, b) => (position[a] as number) - (position[b] as number));
    }
    return matches.map((i) => this.models[i] as IndexedModel);
  }

  private order(sort: SortKey, dir: 1 | -1): { list: IndexedModel[]; position: Int32Array } {
    const key = `${sort}:${dir}`;
    let o = this.orders.get(key);
    if (!o) {
      const list = sortedBy(this.models, sort, dir);
      const position = new Int32Array(this.models.length);
      list.forEach((m, p) => {
        position[m.rank] = p;
      });
      o = { list, position };
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
