import type { Address } from './blake3.js';
import { canonicalBytes } from './canonical-json.js';
import { dashAliasesOf } from './memory-index.js';
import type { ObjectStore } from './object-store.js';
import {
  BUCKET_TARGET_BYTES,
  bucketOf,
  compareKeyed,
  DIR_FANOUT,
  gramsOf,
  type HashedMap,
  KEPT_ORDERS,
  MODELS_PER_PAGE,
  ORDER_PER_PAGE,
  PAGE_KIND,
  PAGES_KIND,
  PAGES_VERSION,
  type PagedArray,
  type PagedEntry,
  type PagesRoot,
  POSTINGS_SEGMENT,
  type Postings,
  powerOfTwo,
  rowSortKey,
  rowTags,
} from './page-layout.js';
import type { CatalogObject, ModelObject, SourceObject } from './schemas.js';

const JSON_MEDIA_TYPE = 'application/json';
const decoder = new TextDecoder();

/** The model and source objects of the catalog, by address, as JSON bytes (a `LoadPackWriter` holds exactly these). */
export interface PageObjects {
  models: ReadonlyMap<string, { json: Uint8Array }>;
  sources: ReadonlyMap<string, { bytes: Uint8Array }>;
}

/** Puts at once while the pages are written. */
const WRITE_BATCH = 64;

/**
 * Write the index pages of a catalog (design 11.1; layout in page-layout.ts) and return the address of their root.
 * Every page is a content-addressed object, so a day on which few models changed writes only the pages that differ
 * (a page already stored is not written again) and a damaged page is refused like any object. Reads nothing but
 * `objects` for what `from` does not hold.
 */
export async function writeIndexPages(
  store: ObjectStore,
  catalog: Pick<CatalogObject, 'rows' | 'objects' | 'date'>,
  catalogAddress: Address,
  from: PageObjects,
): Promise<Address> {
  const w = new PageWriter(store);
  const rows = catalog.rows;
  const n = rows.length;
  const sourceCache = new Map<string, SourceObject>();
  const sourceOf = (a: string): SourceObject => {
    let s = sourceCache.get(a);
    if (!s) {
      const bytes = from.sources.get(a)?.bytes;
      if (!bytes) throw new Error(`index pages: source object ${a} was not reported by the builder`);
      s = JSON.parse(decoder.decode(bytes)) as SourceObject;
      sourceCache.set(a, s);
    }
    return s;
  };
  let files = 0;
  let bytes = 0;
  let listed = 0;
  const holders: Record<string, number> = {};
  const kinds = new Map<string, SourceObject['type']>();
  const lowerIds: string[] = new Array(n);
  const shas = new Map<string, number[]>();
  const terms = new Map<string, number[]>();
  const post = (map: Map<string, number[]>, key: string, rank: number) => {
    const list = map.get(key);
    if (!list) map.set(key, [rank]);
    else if (list[list.length - 1] !== rank) list.push(rank);
  };
  // Models pages, in browse order; the look-up keys and totals gathered on the way (one model object parsed at a time).
  const modelPages: string[] = [];
  let head: PagedEntry[] = [];
  let page: PagedEntry[] = [];
  for (let rank = 0; rank < n; rank++) {
    const row = rows[rank] as CatalogObject['rows'][number];
    const entry = catalog.objects[row.id];
    const json = entry && from.models.get(entry.model)?.json;
    if (!entry || !json) throw new Error(`index pages: the builder reported no model object for ${row.id}`);
    const object = JSON.parse(decoder.decode(json)) as ModelObject;
    const sources = entry.sources.map((a) => ({ address: a, object: sourceOf(a) }));
    page.push({ id: row.id, address: entry.model, row, object, sources });
    const lower = row.id.toLowerCase();
    lowerIds[rank] = lower;
    for (const f of object.files) {
      files++;
      bytes += f.size;
      post(shas, f.sha256, rank);
    }
    if (row.svc.listed !== false) listed++;
    for (const s of new Set(sources.map((x) => x.object.source))) holders[s] = (holders[s] ?? 0) + 1;
    for (const x of sources) if (!kinds.has(x.object.source)) kinds.set(x.object.source, x.object.type);
    post(terms, `a:${lower.slice(0, lower.indexOf('/'))}`, rank);
    if (row.pipeline_tag) post(terms, `t:${row.pipeline_tag.toLowerCase()}`, rank);
    if (row.library_name) post(terms, `l:${row.library_name.toLowerCase()}`, rank);
    for (const t of rowTags(row)) post(terms, `g:${t}`, rank);
    for (const g of gramsOf(lower)) post(terms, `w:${g}`, rank);
    if (rank < MODELS_PER_PAGE) head = page;
    if (page.length === MODELS_PER_PAGE) {
      modelPages.push(await w.page({ role: 'models', first: rank + 1 - page.length, models: page }));
      page = [];
    }
  }
  if (page.length) modelPages.push(await w.page({ role: 'models', first: n - page.length, models: page }));
  const models: PagedArray = { per: MODELS_PER_PAGE, count: n, ...(await w.dirs(modelPages)) };

  // ids (and dash aliases, `~`-prefixed) → rank
  // Each id names its models page as well as its rank, so a look-up needs no directory read.
  const at = (rank: number): [string, number] => [modelPages[Math.floor(rank / MODELS_PER_PAGE)] as string, rank];
  const idEntries: Array<[string, [string, number]]> = lowerIds.map((id, rank) => [id, at(rank)]);
  const ranked = lowerIds.map((id, rank) => ({ id, rank }));
  const idSet = new Set(lowerIds);
  for (const [alias, m] of dashAliasesOf(ranked, (a) => idSet.has(a))) idEntries.push([`~${alias}`, at(m.rank)]);
  const ids = await w.hashed('ids', idEntries, idEntries.length * 120);
  const shaMap = await w.hashed('shas', [...shas], shas.size * 80 + files * 8);
  shas.clear();
  const termEntries: Array<[string, Postings]> = [];
  let termBytes = 0;
  for (const [key, list] of terms) {
    const p = await w.postings(list);
    termBytes += key.length + 16 + (p.r ? p.r.length * 7 : (p.s?.length ?? 0) * 72);
    termEntries.push([key, p]);
  }
  terms.clear();
  const termMap = await w.hashed('terms', termEntries, termBytes);

  const orders: Record<string, PagedArray> = {};
  for (const [sort, dir] of KEPT_ORDERS) {
    const keyed = rows.map((row, rank) => ({ k: rowSortKey(sort, row, row.id, rank), rank }));
    keyed.sort((a, b) => compareKeyed(a, b, dir));
    orders[`${sort}:${dir}`] = await w.array(
      'order',
      keyed.map((x) => x.rank),
      ORDER_PER_PAGE,
    );
  }
  const sorted = [...idSet].sort();
  const names = await w.array('names', sorted, ORDER_PER_PAGE);
  const firsts = (names.dirs ?? []).map((_, d) => sorted[d * DIR_FANOUT * ORDER_PER_PAGE] as string);

  const root: PagesRoot = {
    kind: PAGES_KIND,
    version: PAGES_VERSION,
    catalog: catalogAddress,
    date: catalog.date,
    head,
    totals: { models: n, files, bytes, listed, holders },
    kinds: [...kinds],
    models,
    ids,
    shas: shaMap,
    terms: termMap,
    orders,
    names: { ...names, firsts },
  };
  await w.flush();
  return w.put(PAGES_KIND, root);
}

/** Writes pages in batches; each page's address is its BLAKE3, computed by the store. */
class PageWriter {
  private pending: Promise<unknown>[] = [];

  constructor(private readonly store: ObjectStore) {}

  async put(kind: string, value: unknown): Promise<Address> {
    const { meta } = await this.store.put(canonicalBytes(value), { kind, mediaType: JSON_MEDIA_TYPE });
    return meta.id as Address;
  }

  /** One page (not waited for beyond the batch): its address. */
  async page(value: Record<string, unknown>): Promise<string> {
    const bytes = canonicalBytes({ kind: PAGE_KIND, ...value });
    const put = this.store.put(bytes, { kind: PAGE_KIND, mediaType: JSON_MEDIA_TYPE });
    this.pending.push(put);
    if (this.pending.length >= WRITE_BATCH) await this.flush();
    return (await put).meta.id;
  }

  async flush(): Promise<void> {
    const all = this.pending;
    this.pending = [];
    await Promise.all(all);
  }

  /** The page addresses inline when they are few, else in directory objects of {@link DIR_FANOUT} addresses each. */
  async dirs(pages: string[]): Promise<{ pages: string[] } | { dirs: string[] }> {
    await this.flush();
    if (pages.length <= DIR_FANOUT) return { pages };
    const out: string[] = [];
    for (let i = 0; i < pages.length; i += DIR_FANOUT) out.push(await this.page({ role: 'dir', pages: pages.slice(i, i + DIR_FANOUT) }));
    await this.flush();
    return { dirs: out };
  }

  /** A list as pages of `per` items. */
  async array(role: string, items: readonly unknown[], per: number): Promise<PagedArray> {
    const pages: string[] = [];
    for (let i = 0; i < items.length; i += per) pages.push(await this.page({ role, first: i, items: items.slice(i, i + per) }));
    return { per, count: items.length, ...(await this.dirs(pages)) };
  }

  /** Key → value in hashed buckets of about {@link BUCKET_TARGET_BYTES} (`total`: the bytes of every entry, about). */
  async hashed(role: string, entries: ReadonlyArray<readonly [string, unknown]>, total: number): Promise<HashedMap> {
    const buckets = powerOfTwo(Math.ceil(total / BUCKET_TARGET_BYTES));
    const split: Array<Record<string, unknown>> = Array.from({ length: buckets }, () => ({}));
    for (const [k, v] of entries) (split[bucketOf(k, buckets)] as Record<string, unknown>)[k] = v;
    const pages: string[] = [];
    for (const entries of split) pages.push(await this.page({ role, entries }));
    return { buckets, ...(await this.dirs(pages)) };
  }

  /** A posting list, inline when short, else in segments of {@link POSTINGS_SEGMENT}. */
  async postings(ranks: number[]): Promise<Postings> {
    if (ranks.length <= POSTINGS_SEGMENT) return { n: ranks.length, r: ranks };
    const s: string[] = [];
    for (let i = 0; i < ranks.length; i += POSTINGS_SEGMENT)
      s.push(await this.page({ role: 'postings', first: i, items: ranks.slice(i, i + POSTINGS_SEGMENT) }));
    return { n: ranks.length, s };
  }
}
