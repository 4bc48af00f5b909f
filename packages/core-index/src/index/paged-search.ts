/**
 * The search of the paged store (paged-index.ts): the same answers as the whole-index search (search.ts), found by
 * reading posting lists and the models pages of candidates instead of holding every model. A test compares both.
 */
import { compareKeyed, gramsOf, type ModelsList, type PagesRoot, type Postings, rowSortKey } from './page-layout.js';
import { modelMatcher, type ParsedQuery, parseQuery } from './search.js';
import type { IndexedModel, IndexTotals, Later, ModelQuery, SearchPage } from './store-types.js';

/**
 * What the search reads of a paged store. A model is named by a key: its position in a day of version 5
 * (positions.ts), else its rank; keys ascend in browse order, and posting lists and orders hold them.
 */
export interface PagedReads {
  readonly totals: IndexTotals;
  modelAt(key: number): Later<IndexedModel>;
  /** the models page holding browse rank `rank`: its first rank and size, and (version 5) its models' positions */
  modelsPage(rank: number): Later<{ first: number; size: number; positions?: number[] | undefined }>;
  /** the browse rank of the first model whose key is `key` or after it */
  rankFrom(key: number): Later<number>;
  postings(key: string): Promise<Postings | undefined>;
  order(key: string): ModelsList | undefined;
  /** the page of a kept order that holds its `place`-th model: its first place and the keys it lists */
  orderPage(order: ModelsList, place: number): Promise<{ first: number; items: number[] }>;
  page<T>(address: string): Later<T>;
  /** storage reads made so far (pages and models not in the caches) */
  readonly reads: number;
  /** the most storage reads one search may make (default {@link SEARCH_READS_MAX}) */
  readonly searchReadsMax?: number;
  /**
   * What the day's root records for short words: the code units of the lower-case ids (`idChars`), and whether its
   * terms hold the words of one and two characters (`shortGrams`)
   */
  readonly root: Pick<PagesRoot, 'idChars' | 'shortGrams' | 'version'>;
  /** the model whose lower-case id is `lower`, if any */
  model(lower: string): Later<IndexedModel | undefined>;
}

/**
 * The most models one search tests. A query whose terms bound it (an author, a task, a library, a tag, a word of
 * four characters or more, of three in a day that records its ids' characters, of one or two that few ids hold in a
 * day that lists them) tests only its candidates; one without any (words of one or two characters that many ids hold,
 * or any in a day written before) walks the order until it has its page, and stops here. A walk stopped so ends the
 * list with what it found (no total, and no `more` past its last match): a page past it would walk the same models
 * again and come back empty with a link to the next, for ever.
 */
export const SEARCH_WALK_MAX = 200_000;

/**
 * The most storage reads one search makes by default, then it stops as at {@link SEARCH_WALK_MAX}. A host whose reads
 * are counted sets its own (the edge: a Worker may make 1,000 storage operations an invocation, and a search for a
 * rare word of one to three characters, or a sort of every model a common tag holds, would make tens of thousands).
 */
export const SEARCH_READS_MAX = 50_000;

/**
 * The most characters a day's ids may use for a word of three characters to be looked up by its 4-grams (two term
 * reads a character): the public host's ids use about 40; a day of ids in many scripts walks the order instead.
 */
export const MAX_ID_CHARS = 128;

/** Models a search tests between two turns of the event loop, so a long walk does not hold up other requests. */
const YIELD_EVERY = 1024;

/** A turn of the event loop: `setImmediate` where the host has it (Node), else a timer. */
function nextTurn(): Promise<void> {
  const immediate = (globalThis as { setImmediate?: (f: () => void) => unknown }).setImmediate;
  return new Promise((resolve) => (immediate ? immediate(resolve) : setTimeout(resolve, 0)));
}

/** Models a search asks ahead of the one it tests, when the store answers with promises. */
export const READ_AHEAD = 8;

/**
 * The terms whose posting lists bound the candidates (each match is in every one); with `short`, a word of one or two
 * characters is its own term (`s:`: its list, or its count alone when it is in too many ids to list).
 */
function termsOf(p: ParsedQuery, short: boolean): string[] {
  const keys = new Set<string>();
  if (p.author) keys.add(`a:${p.author}`);
  if (p.pipeline) keys.add(`t:${p.pipeline}`);
  if (p.library) keys.add(`l:${p.library}`);
  for (const f of p.filters) keys.add(`g:${f}`);
  for (const w of p.words) if (w.length >= 4) for (const g of gramsOf(w)) keys.add(`w:${g}`);
  if (short) for (const w of p.words) if (w.length <= 2) keys.add(`s:${w}`);
  return [...keys];
}

/** The ranks of a posting list in ascending order, segment by segment as they are needed. */
async function* ranksOf(r: PagedReads, p: Postings): AsyncGenerator<number> {
  if (p.r) {
    yield* p.r;
    return;
  }
  for (const s of p.s ?? []) yield* (await r.page<{ items: number[] }>(s)).items;
}

/** The ranks in both ascending lists, ascending. */
function intersect(a: number[], b: number[]): number[] {
  const out: number[] = [];
  for (let i = 0, j = 0; i < a.length && j < b.length; ) {
    const x = a[i] as number;
    const y = b[j] as number;
    if (x === y) {
      out.push(x);
      i++;
      j++;
    } else if (x < y) i++;
    else j++;
  }
  return out;
}

/**
 * The candidates of a word of three characters, when the day records its ids' characters: a word of three is in an id
 * of four or more exactly when one of the 4-grams `word + c` and `c + word` is (the gram that starts at the word, or
 * the one that ends with it at the id's end), so its candidates are the union of those grams' posting lists, and an id
 * of three characters holds it only by being it. Undefined when the day does not record its characters.
 */
async function shortWordLists(r: PagedReads, w: string): Promise<{ lists: Postings[]; exact: number[]; n: number } | undefined> {
  const chars = r.root.idChars;
  if (chars === undefined || chars.length > MAX_ID_CHARS) return undefined;
  const grams = new Set<string>();
  for (let i = 0; i < chars.length; i++) {
    grams.add(`w:${w}${chars[i]}`);
    grams.add(`w:${chars[i]}${w}`);
  }
  const found = await Promise.all([...grams].map((k) => r.postings(k)));
  const lists = found.filter((l): l is Postings => l !== undefined);
  const exact: number[] = [];
  if (w[1] === '/') {
    const m = await r.model(w);
    if (m) exact.push(m.rank);
  }
  return { lists, exact, n: lists.reduce((sum, l) => sum + l.n, exact.length) };
}

/** The ranks of any of the ascending lists, ascending and each once; segments read as the walk reaches them. */
async function* unionOf(r: PagedReads, lists: Postings[], exact: number[]): AsyncGenerator<number> {
  let live: Array<{ ranks: AsyncGenerator<number>; at: number }> = [];
  const start = async (ranks: AsyncGenerator<number>) => {
    const first = await ranks.next();
    if (!first.done) live.push({ ranks, at: first.value });
  };
  for (const l of lists) await start(ranksOf(r, l));
  await start(
    (async function* () {
      yield* exact;
    })(),
  );
  while (live.length > 0) {
    let min = Number.POSITIVE_INFINITY;
    for (const c of live) min = Math.min(min, c.at);
    yield min;
    const next: typeof live = [];
    for (const c of live) {
      if (c.at === min) {
        const step = await c.ranks.next();
        if (step.done) continue;
        c.at = step.value;
      }
      next.push(c);
    }
    live = next;
  }
}

/**
 * The keys of an order from its `from`-th model on: the browse order itself (its models pages' positions in a day of
 * version 5, else the ranks), or a kept order's keys page by page.
 */
async function* orderRanks(r: PagedReads, order: ModelsList | undefined, from = 0): AsyncGenerator<number> {
  const n = order ? order.count : r.totals.models;
  for (let at = from; at < n; ) {
    if (order) {
      const page = await r.orderPage(order, at);
      // (a page that lists nothing where its list says it holds `at` ends the walk: no page is asked for ever)
      if (page.first + page.items.length <= at) return;
      for (let i = at - page.first; i < page.items.length; i++) yield page.items[i] as number;
      at = page.first + page.items.length;
      continue;
    }
    const page = await r.modelsPage(at);
    if (!page.positions) {
      for (const end = Math.min(n, at + ORDER_RUN); at < end; at++) yield at;
      continue;
    }
    if (page.first + page.positions.length <= at) return;
    for (let i = at - page.first; i < page.positions.length; i++) yield page.positions[i] as number;
    at = page.first + page.positions.length;
  }
}

/** Ranks a walk of the browse order of a day before version 5 gives between two asks of its models pages. */
const ORDER_RUN = 4096;

/** One page of the models `q` matches, as the whole-index store's `search` answers it. */
export async function pagedSearch(r: PagedReads, q: ModelQuery, offset: number, limit: number, from?: number): Promise<SearchPage> {
  const p = parseQuery(q);
  const n = r.totals.models;
  const end = offset + limit;
  const order = p.natural ? undefined : r.order(`${p.sort}:${p.dir}`);
  if (p.all) {
    const ranks: number[] = [];
    if (offset < n) for await (const key of orderRanks(r, order, offset)) if (ranks.push(key) >= Math.min(end, n) - offset) break;
    return { models: await Promise.all(ranks.map((k) => r.modelAt(k))), more: end < n, total: n };
  }
  const keys = termsOf(p, r.root.shortGrams !== undefined);
  const lists = await Promise.all(keys.map((k) => r.postings(k)));
  if (lists.some((l) => l === undefined)) return { models: [], more: false, total: 0 };
  // a query of one short word alone matches exactly the ids its term counts, listed or not
  const known = keys.length === 1 && keys[0]?.startsWith('s:') && !p.listed ? lists[0]?.n : undefined;
  // a word of one or two characters in too many ids to list bounds nothing: the walk meets its matches often
  const sorted = (lists as Postings[]).filter((l) => l.r !== undefined || l.s !== undefined).sort((a, b) => a.n - b.n);
  const test = modelMatcher(p);
  const want = end + 1;
  let walked = 0;
  const budget = r.searchReadsMax ?? SEARCH_READS_MAX;
  const readsMax = r.reads + budget;
  let exhausted = true;
  // The candidates in browse order, or every model in the query's order when no term bounds them. Lists held inline
  // in their buckets (up to 4,096 ranks) cost no read: their intersection is the candidates (a whole id's 4-grams
  // leave one or two), and only when no list is inline are the shortest list's segments read.
  const shortest = sorted[0];
  const inline = sorted.filter((l) => l.r !== undefined).map((l) => l.r as number[]);
  // A word of three characters is bounded by the grams that hold it, when the day records its ids' characters: the
  // rarest such word gives the candidates when no term does, or when every term's list is long (in segments: walking
  // it would test each of its models).
  let short: { lists: Postings[]; exact: number[]; n: number } | undefined;
  if (!inline.length)
    for (const w of new Set(p.words.filter((x) => x.length === 3))) {
      const u = await shortWordLists(r, w);
      if (u && (!short || u.n < short.n)) short = u;
    }
  if (short?.n === 0) return { models: [], more: false, total: 0 };
  // In another order every candidate is tested before the page is known, and the walk of that order meets a match
  // about every n / c models for c candidates: many candidates are found sooner by walking the order, few by testing
  // them. More candidates than the budget of reads walk too: a walk the budget stops has the order's first matches,
  // candidates it stops have some matches in no order.
  const few = (c: number) => p.natural || (c * c <= want * n && c <= budget);
  const joined = inline.length ? inline.reduce(intersect) : undefined;
  const useShort = short !== undefined && (!shortest || short.n < shortest.n) && few(short.n);
  const useList = joined ? few(joined.length) : !useShort && shortest !== undefined && few(shortest.n);
  const inOrder = p.natural || (!useList && !useShort);
  // A page that goes on from where the last one's walk ended (`from`, the last page's `after`): the matches before it
  // are the `offset` the pages so far held, so none is skipped. Its place in the walk: a rank in the browse order (the
  // candidates ascend), or a position in another order's walk.
  const resume = inOrder && from !== undefined && Number.isSafeInteger(from) && from >= 0 ? from : undefined;
  const walksOrder = !useList && !useShort;
  // where a walk starts: a place in a kept order, or the rank of the browse order's first model at `resume` or after
  const start = resume === undefined ? 0 : order ? resume : walksOrder ? await r.rankFrom(resume) : 0;
  const candidates =
    joined && useList
      ? joined
      : useShort && short
        ? unionOf(r, short.lists, short.exact)
        : useList && shortest
          ? ranksOf(r, shortest)
          : orderRanks(r, order, start);
  // In order, the hits before this page's first (all `offset` of them unless it goes on from `from`) and each hit's
  // place in the walk: the next page's `from` is the first hit past this page, or where the budget stopped the walk.
  const skip = resume === undefined ? offset : 0;
  const wanted = skip + limit + 1;
  const hits: IndexedModel[] = [];
  const places: number[] = [];
  // (a kept order's walk starts at `resume`, above)
  let place = resume ?? 0;
  let stoppedAt: number | undefined;
  // Models asked ahead of the one tested when the store answers with promises (R2: a round trip a page), so up to
  // READ_AHEAD reads wait at once instead of one after the other; a store that reads at once asks one at a time.
  const ahead: Array<{ m: Later<IndexedModel>; at: number }> = [];
  const hit = (model: IndexedModel, at: number) => {
    if (!test(model)) return;
    hits.push(model);
    if (inOrder) places.push(at);
  };
  const test1 = async (a: { m: Later<IndexedModel>; at: number }) => hit(await a.m, a.at);
  for await (const rank of candidates) {
    // its place: a position in a kept order's walk, else its rank
    const at = order && walksOrder ? place++ : rank;
    if (resume !== undefined && at < resume) continue;
    if (inOrder && hits.length >= wanted) {
      exhausted = false;
      break;
    }
    // (one model at least: a page that goes on from `from` always gets past it)
    if (walked > 0 && (walked >= SEARCH_WALK_MAX || r.reads >= readsMax)) {
      exhausted = false;
      stoppedAt = at;
      break;
    }
    walked++;
    // a long walk over pages read at once lets the requests that arrived meanwhile through every so many models
    if (walked % YIELD_EVERY === 0) await nextTurn();
    const m = r.modelAt(rank);
    if (!(m instanceof Promise) && ahead.length === 0) {
      hit(m, at);
      continue;
    }
    if (m instanceof Promise) m.catch(() => undefined); // awaited below, or dropped when the walk stops early
    ahead.push({ m, at });
    if (ahead.length >= READ_AHEAD) await test1(ahead.shift() as (typeof ahead)[number]);
  }
  while (ahead.length > 0 && !(inOrder && hits.length >= wanted)) await test1(ahead.shift() as (typeof ahead)[number]);
  if (ahead.length > 0) exhausted = false;
  if (inOrder) {
    const total = exhausted ? offset - skip + hits.length : known;
    const models = hits.slice(skip, skip + limit);
    // The first match past this page, or (the budget stopped the walk with the page not full) where the walk stopped:
    // the next page goes on there. A walk stopped before it reached the page's first match (an offset with no
    // `from`, from a link of an older hub) cannot say how many matches lie between, and ends the list as before.
    const after =
      hits.length > skip + limit ? places[skip + limit] : stoppedAt !== undefined && hits.length >= skip ? stoppedAt : undefined;
    return { models, more: after !== undefined, ...(total !== undefined ? { total } : {}), ...(after !== undefined ? { after } : {}) };
  }
  // Every match is known: sort them as the order does. A position (a day of version 5) is put in the whole store's
  // range of ranks (at most 1,000,000 below 2^32), so a model without a trending score sorts among the scored ones as
  // there (above every negative score, below every other).
  const scale = r.root.version >= 5 ? 1e6 / 2 ** 32 : 1;
  const keyed = hits.map((m) => ({ m, k: rowSortKey(p.sort, m.row, m.id, m.rank * scale), rank: m.rank }));
  keyed.sort((a, b) => compareKeyed(a, b, p.dir));
  return {
    models: keyed.slice(offset, end).map((x) => x.m),
    more: keyed.length > end,
    ...(exhausted ? { total: keyed.length } : {}),
  };
}
