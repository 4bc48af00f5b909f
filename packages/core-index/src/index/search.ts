import { rowTags, trendingFor } from './page-layout.js';
import { type GramKey, gramKey, intersect, MAX_GRAM, pack, post } from './search-postings.js';
import type { IndexedModel, ModelQuery, SearchPage, SortKey } from './store-types.js';

export type { ModelQuery, SearchPage, SortKey } from './store-types.js';

export const SORT_KEYS: readonly SortKey[] = ['trendingScore', 'downloads', 'likes', 'createdAt', 'lastModified', 'id'];

export function isSortKey(v: string): v is SortKey {
  return (SORT_KEYS as readonly string[]).includes(v);
}

/** Tags of a model, including its pipeline, library and signature verdict, lower-cased, for filtering. */
export function modelTags(m: IndexedModel): Set<string> {
  return rowTags(m.row);
}

/**
 * The one search over the whole-index store, every match in the requested order (tests and the reference). Requests
 * go through `IndexStore.search`, one page at a time.
 *
 * It reads a {@link SearchIndex} prepared once per loaded index (see there), and answers exactly as
 * {@link searchModelsScan}, the plain scan it replaced (a test compares both on the real fixture rows).
 */
export function searchModels(index: WholeModels, q: ModelQuery): IndexedModel[] {
  return searchIndexOf(index).search(q);
}

/** One page of {@link searchModels} (`IndexStore.search` of the whole-index store). */
export function searchModelsPage(index: WholeModels, q: ModelQuery, offset: number, limit: number): SearchPage {
  return searchIndexOf(index).page(q, offset, limit);
}

/** What the whole-index search reads: every model in browse order, and the index's memo to keep its state in. */
interface WholeModels {
  models(): readonly IndexedModel[];
  memo<T>(key: string, build: () => T): T;
}

/** The search state of a whole-index store, prepared once per loaded index. */
export function searchIndexOf(index: WholeModels): SearchIndex {
  return index.memo('search:index', () => new SearchIndex(index.models()));
}

function sortKeyOf(sort: SortKey): (m: IndexedModel) => number | string {
  return (m) => {
    switch (sort) {
      case 'id':
        return m.id.toLowerCase();
      case 'trendingScore':
        return trendingFor(m.row.trendingScore, m.rank);
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

/** A query as both stores' searches read it: lower-cased, blanks dropped, the order resolved. */
export interface ParsedQuery {
  words: string[];
  author: string | undefined;
  filters: string[];
  pipeline: string | undefined;
  library: string | undefined;
  listed: boolean;
  sort: SortKey;
  dir: 1 | -1;
  /** trending descending: the catalog's own order */
  natural: boolean;
  /** no condition at all: every model, in order */
  all: boolean;
}

export function parseQuery(q: ModelQuery): ParsedQuery {
  const words = (q.search ?? '').toLowerCase().split(/\s+/).filter(Boolean);
  const author = q.author?.toLowerCase() || undefined;
  const filters = (q.filter ?? []).map((f) => f.toLowerCase()).filter(Boolean);
  const pipeline = q.pipeline_tag?.toLowerCase() || undefined;
  const library = q.library?.toLowerCase() || undefined;
  const sort = q.sort ?? 'trendingScore';
  const dir = q.direction ?? (sort === 'id' ? 1 : -1);
  const natural = sort === 'trendingScore' && dir === -1;
  const listed = q.listed === true;
  const all = !words.length && !author && !filters.length && !pipeline && !library && !listed;
  return { words, author, filters, pipeline, library, listed, sort, dir, natural, all };
}

/**
 * Search state prepared once per loaded index (on the first search), so a query costs work in proportion to the
 * models that could match, not to the index:
 * - indexes of the 1-, 2-, 3- and 4-grams of the lower-cased ids (each made when a word first needs it): a word of up
 *   to four characters can only match a model whose id holds it, and a longer word one whose id holds every 4-gram of
 *   the word, so each of those posting lists bounds the candidates (no word makes every model a candidate);
 * - exact-match postings (model positions in browse order, ascending) for author, task, library and tag;
 * - every candidate is then checked against every condition exactly as the scan does (substring of the id, equal
 *   author, task and library, all tags present), so answers are the scan's answers by construction;
 * - each sort order is computed on first use and kept, as the list of model positions in it and the position of
 *   every model in it;
 * - a page ({@link SearchIndex.page}) walks the candidates in browse order, or a kept sort order, and stops at the
 *   first match after the page, so the common page of a common word costs about the page, not every match.
 */
export class SearchIndex {
  private readonly lowerIds: string[];
  private readonly lowerOwners: string[];
  private readonly tags: string[][];
  private readonly tasks: (string | undefined)[];
  private readonly libraries: (string | undefined)[];
  private readonly unlisted: boolean[];
  /** `grams[n]`: positions of the ids holding each n-gram, n = 1…4, each made on the first word that needs it */
  private readonly grams: (Map<GramKey, Int32Array> | undefined)[] = [];
  private readonly byAuthor = new Map<string, Int32Array>();
  private readonly byTask = new Map<string, Int32Array>();
  private readonly byLibrary = new Map<string, Int32Array>();
  private readonly byTag = new Map<string, Int32Array>();
  private readonly orders = new Map<string, { list: Int32Array; position: Int32Array }>();

  constructor(private readonly models: readonly IndexedModel[]) {
    const n = models.length;
    this.lowerIds = new Array(n);
    this.lowerOwners = new Array(n);
    this.tags = new Array(n);
    this.tasks = new Array(n);
    this.libraries = new Array(n);
    this.unlisted = new Array(n);
    const byAuthor = new Map<string, number[]>();
    const byTask = new Map<string, number[]>();
    const byLibrary = new Map<string, number[]>();
    const byTag = new Map<string, number[]>();
    for (let i = 0; i < n; i++) {
      const m = models[i] as IndexedModel;
      const id = m.id.toLowerCase();
      this.lowerIds[i] = id;
      this.unlisted[i] = m.row.svc?.listed === false;
      const owner = m.owner.toLowerCase();
      this.lowerOwners[i] = owner;
      post(byAuthor, owner, i);
      const task = m.row.pipeline_tag?.toLowerCase();
      this.tasks[i] = task;
      if (task) post(byTask, task, i);
      const library = m.row.library_name?.toLowerCase();
      this.libraries[i] = library;
      if (library) post(byLibrary, library, i);
      const tags = [...modelTags(m)];
      this.tags[i] = tags;
      for (const t of tags) post(byTag, t, i);
    }
    pack(byAuthor, this.byAuthor);
    pack(byTask, this.byTask);
    pack(byLibrary, this.byLibrary);
    pack(byTag, this.byTag);
  }

  /** Every match, in the requested order. */
  /** How many models match (no model is built, no order is made). */
  count(q: ModelQuery): number {
    const p = parseQuery(q);
    return p.all ? this.models.length : this.collect(p).length;
  }

  search(q: ModelQuery): IndexedModel[] {
    const p = parseQuery(q);
    if (p.all) return p.natural ? [...this.models] : this.modelsAt(this.order(p.sort, p.dir).list);
    const matches = this.collect(p);
    if (!p.natural) {
      const { position } = this.order(p.sort, p.dir);
      matches.sort((a, b) => (position[a] as number) - (position[b] as number));
    }
    return this.modelsAt(matches);
  }

  /** `search(q).slice(offset, offset + limit)` and whether a match follows it, stopping early where it can. */
  page(q: ModelQuery, offset: number, limit: number): SearchPage {
    const p = parseQuery(q);
    const end = offset + limit;
    const n = this.models.length;
    if (p.all) {
      const list = p.natural ? undefined : this.order(p.sort, p.dir).list;
      const models: IndexedModel[] = [];
      for (let k = offset; k < Math.min(end, n); k++) models.push(this.models[list ? (list[k] as number) : k] as IndexedModel);
      return { models, more: end < n };
    }
    const lists = this.postings(p);
    if (lists === null) return { models: [], more: false };
    const test = this.tester(p);
    // Matches needed: the page and one more, which says whether a next page exists.
    const want = end + 1;
    let hits: number[] = [];
    if (p.natural) {
      const candidates = lists[0];
      if (candidates) {
        for (let k = 0; k < candidates.length && hits.length < want; k++) {
          const i = candidates[k] as number;
          if (test(i)) hits.push(i);
        }
      } else for (let i = 0; i < n && hits.length < want; i++) if (test(i)) hits.push(i);
    } else {
      // Walk the kept order while that costs less than checking every candidate and sorting the matches.
      const { list, position } = this.order(p.sort, p.dir);
      const c = lists[0]?.length ?? n;
      const budget = lists[0] ? Math.min(n, Math.ceil(c * (2 + Math.log2(c + 1)))) : n;
      let k = 0;
      for (; k < budget && hits.length < want; k++) {
        const i = list[k] as number;
        if (test(i)) hits.push(i);
      }
      if (hits.length < want && k < n) {
        hits = this.collect(p, lists, test);
        hits.sort((a, b) => (position[a] as number) - (position[b] as number));
      }
    }
    return { models: this.modelsAt(hits.slice(offset, end)), more: hits.length > end };
  }

  private modelsAt(positions: ArrayLike<number>): IndexedModel[] {
    const out: IndexedModel[] = new Array(positions.length);
    for (let k = 0; k < positions.length; k++) out[k] = this.models[positions[k] as number] as IndexedModel;
    return out;
  }

  /**
   * The posting lists every match is in, shortest first; `[]` when nothing bounds the candidates (every model is
   * one), `null` when a condition names a key no model has.
   */
  private postings(p: ParsedQuery): Int32Array[] | null {
    const lists: Int32Array[] = [];
    const add = (list: Int32Array | undefined): boolean => {
      if (list === undefined) return false;
      if (!lists.includes(list)) lists.push(list);
      return true;
    };
    if (p.author && !add(this.byAuthor.get(p.author))) return null;
    if (p.pipeline && !add(this.byTask.get(p.pipeline))) return null;
    if (p.library && !add(this.byLibrary.get(p.library))) return null;
    for (const f of p.filters) if (!add(this.byTag.get(f))) return null;
    for (const w of p.words) {
      // A word of up to four characters has its own list; a longer word the lists of its 4-grams (`model-12`: `l-12` is
      // only in model-12… ids, while the trigram `-12` is also in every id of an owner ending in -12).
      const g = Math.min(w.length, MAX_GRAM);
      const grams = this.gramsOf(g);
      for (let k = 0; k + g <= w.length; k++) if (!add(grams.get(gramKey(w, k, g)))) return null;
    }
    return lists.sort((a, b) => a.length - b.length);
  }

  /** Whether the model at position `i` meets every condition, checked as the scan does. */
  private tester(p: ParsedQuery): (i: number) => boolean {
    const { words, author, pipeline, library, filters, listed } = p;
    const { lowerIds, lowerOwners, tasks, libraries, tags, unlisted } = this;
    return (i) => {
      if (listed && unlisted[i]) return false;
      const id = lowerIds[i] as string;
      for (const w of words) if (!id.includes(w)) return false;
      if (author && lowerOwners[i] !== author) return false;
      if (pipeline && tasks[i] !== pipeline) return false;
      if (library && libraries[i] !== library) return false;
      if (filters.length) {
        const t = tags[i] as string[];
        for (const f of filters) if (!t.includes(f)) return false;
      }
      return true;
    };
  }

  /** Every match in browse order (ascending positions). */
  private collect(p: ParsedQuery, lists = this.postings(p), test = this.tester(p)): number[] {
    if (lists === null) return [];
    const matches: number[] = [];
    let candidates = lists[0];
    if (candidates === undefined) {
      for (let i = 0; i < this.models.length; i++) if (test(i)) matches.push(i);
      return matches;
    }
    // Narrow by the next lists while they are not much longer than what is left: a merge step is cheaper than a check.
    for (let k = 1; k < lists.length && candidates.length > 64; k++) {
      const next = lists[k] as Int32Array;
      if (next.length > 8 * candidates.length) break;
      candidates = intersect(candidates, next);
    }
    for (let k = 0; k < candidates.length; k++) {
      const i = candidates[k] as number;
      if (test(i)) matches.push(i);
    }
    return matches;
  }

  /** The posting lists of every gram of `g` characters of the ids. */
  private gramsOf(g: number): Map<GramKey, Int32Array> {
    let grams = this.grams[g];
    if (grams === undefined) {
      const lists = new Map<GramKey, number[]>();
      for (let i = 0; i < this.lowerIds.length; i++) {
        const id = this.lowerIds[i] as string;
        for (let k = 0; k + g <= id.length; k++) post(lists, gramKey(id, k, g), i);
      }
      grams = new Map();
      pack(lists, grams);
      this.grams[g] = grams;
    }
    return grams;
  }

  private order(sort: SortKey, dir: 1 | -1): { list: Int32Array; position: Int32Array } {
    const key = `${sort}:${dir}`;
    let o = this.orders.get(key);
    if (!o) {
      const sorted = sortedBy(this.models, sort, dir);
      const list = new Int32Array(sorted.length);
      const position = new Int32Array(this.models.length);
      sorted.forEach((m, at) => {
        list[at] = m.rank;
        position[m.rank] = at;
      });
      o = { list, position };
      this.orders.set(key, o);
    }
    return o;
  }
}

/** The plain scan over every model (the reference the prepared {@link SearchIndex} must equal). */
export function searchModelsScan(index: { models(): readonly IndexedModel[] }, q: ModelQuery): IndexedModel[] {
  return searchModelsScanOf(index.models(), q);
}

function searchModelsScanOf(models: readonly IndexedModel[], q: ModelQuery): IndexedModel[] {
  const p = parseQuery(q);
  const out = models.filter(modelMatcher(p));
  if (p.natural) return out; // catalog order already
  return sortedBy(out, p.sort, p.dir);
}

/** Whether a model meets every condition of a query: the plain scan's test, and the paged store's for candidates. */
export function modelMatcher(p: ParsedQuery): (m: IndexedModel) => boolean {
  return (m) => {
    if (p.listed && m.row.svc?.listed === false) return false;
    const id = m.id.toLowerCase();
    for (const w of p.words) if (!id.includes(w)) return false;
    if (p.author && m.owner.toLowerCase() !== p.author) return false;
    if (p.pipeline && m.row.pipeline_tag?.toLowerCase() !== p.pipeline) return false;
    if (p.library && m.row.library_name?.toLowerCase() !== p.library) return false;
    if (p.filters.length) {
      const tags = modelTags(m);
      for (const f of p.filters) if (!tags.has(f)) return false;
    }
    return true;
  };
}
