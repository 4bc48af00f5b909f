import type { Address } from './blake3.js';
import { canonicalBytes } from './canonical-json.js';
import { DaySections } from './day-sections.js';
import { dashAliasesOf } from './memory-index.js';
import { type ModelsPageReuse, modelsListKey, modelsPageKey, writtenModelsPage } from './models-pages.js';
import type { ObjectStore } from './object-store.js';
import {
  BUCKET_TARGET_BYTES,
  endsModelsDir,
  endsModelsPage,
  type IdEntry,
  idCharsOf,
  keyHash,
  MODELS_PER_PAGE,
  PAGES_KIND,
  PAGES_VERSION,
  type PagedEntry,
  type PagesRoot,
  powerOfTwo,
} from './page-layout.js';
import { DigestList, holds, TimeColumn, U32List, uniqueSorted } from './page-tables.js';
import { PageWriter } from './page-writer.js';
import { assignPositions } from './positions.js';
import { readAhead, readPage } from './read-page.js';
import type { SourceObject } from './schemas.js';
import { factsOf, type SectionFacts, type SourceSet, sectionFactsOf, type TableFacts, trendingKey } from './table-facts.js';
import { SHORT_GRAM_LIST_MAX } from './term-pages.js';

/**
 * A models page of the day being built, in browse order: its address, its bytes when the build composed it, and the
 * rank of its first model.
 */
export type ModelsPageHook = (address: Address, bytes: Uint8Array | undefined, first: number) => void | Promise<void>;

/**
 * Writes the index pages of a day (design 11.1; layout in page-layout.ts) while the builder streams its models in
 * browse order ({@link add}), then the look-up pages and the root ({@link finish}). Every page is a content-addressed
 * object, so a day on which few models changed writes only the pages that differ (a page already stored is not
 * written again) and a damaged page is refused like any object. Nothing is held per model but its lower-case id, the
 * sort keys and the look-up keys in compact tables (page-tables.ts): no row, no model object, no JavaScript array per
 * key (docs/decisions/scale-and-speed.md, "A build of any size").
 */
export class IndexPagesWriter {
  private readonly w: PageWriter;
  private n = 0;
  private files = 0;
  private bytes = 0;
  private listed = 0;
  private readonly holders: Record<string, number> = {};
  private readonly kinds = new Map<string, SourceObject['type']>();
  private readonly lowerIds: string[] = [];
  /** the search terms and the digest map (tabulated, or the last build's patched) */
  private readonly sections: DaySections;
  /** how the build writes pages (build/pages-format.ts), stamped in the root with what the terms and digests came to */
  private readonly format: string | undefined;
  private readonly trending: number[] = [];
  private readonly downloads: number[] = [];
  private readonly likes: number[] = [];
  private readonly created = new TimeColumn();
  private readonly modified = new TimeColumn();
  private readonly modelPages: string[] = [];
  /** each models page's first rank */
  private readonly pageFirst = new U32List();
  /**
   * the key hash of the id that ended each models page (where directories end, page-layout.ts `endsModelsDir`); the
   * last page, ended by the end of the list, has none (no directory is cut after it)
   */
  private readonly pageEnd = new U32List();
  /** each rank's models page (its index in {@link modelPages}) */
  private readonly pageOf = new U32List();
  /** the first models of the browse list (the root's `head`) */
  private readonly head: PagedEntry[] = [];
  /** each model added since the last models page, with the key of its input when the builder gave it, and its facts */
  private pageEntries: Array<{ entry: PagedEntry; key: string | undefined; facts: TableFacts }> = [];
  /** where each rank's model lies in its models page, and its BLAKE3 (32 bytes a rank), for the id entries */
  private readonly entryStart = new U32List();
  private readonly entryLength = new U32List();
  private readonly entryHash = new DigestList();
  /** the position each model had in the last build's pages (0: none), by this day's rank */
  private readonly was = new U32List();

  /**
   * `onModelsPage`: each models page in browse order once its address is known, with its bytes when this build composed
   * it (a page reused from the last build has none: it is stored); awaited, so a slow consumer holds the build back.
   */
  constructor(
    private readonly store: ObjectStore,
    private readonly reuse?: ModelsPageReuse,
    private readonly onModelsPage?: ModelsPageHook,
  ) {
    this.w = new PageWriter(store, reuse);
    this.deferred = Boolean(reuse?.root);
    const pages = reuse?.basePages?.();
    this.format = pages?.format;
    this.sections = new DaySections(this.w, store, reuse?.sectionBase?.(), pages);
  }

  /**
   * The next model of the browse list (its rank is how many came before); `lower`: its id in lower case; `key`: the
   * key of the input its objects and row are made from (build-memo.ts `inputKeys`' `full`), which lets a models page
   * be reused (see {@link ModelsPageReuse}); `facts`: its part of the look-up tables when the builder knows it (kept
   * from the last build for a model whose row did not change), else made from the entry; `was`: its position in the
   * last build's pages (positions.ts), when the builder knows it.
   */
  async add(entry: PagedEntry, lower = entry.row.id.toLowerCase(), key?: string, facts?: TableFacts, was?: number): Promise<void> {
    const rank = this.n++;
    this.was.push(was ?? 0);
    const f = facts ?? factsOf(entry);
    this.reuse?.recordFacts?.(f);
    this.pageEntries.push({ entry, key, facts: f });
    if (!this.deferred) this.tabulate(f, lower);
    this.sections.add(rank, lower, () => f.sections() ?? sectionFactsOf(entry), facts !== undefined, was ?? 0);
    if (rank < MODELS_PER_PAGE) this.head.push(entry);
    const hash = keyHash(lower);
    if (endsModelsPage(hash, this.pageEntries.length)) {
      this.pageEnd.push(hash);
      await this.modelsPage();
    }
  }

  /**
   * The look-up tables are not filled while every models page so far is the last build's (its look-up pages may be
   * reused whole, see {@link ModelsPageReuse.root}); the first page that is not catches them up from the pages before
   * it ({@link catchUp}).
   */
  private deferred: boolean;

  /**
   * Fill look-up tables from the models pages written so far (each read back and checked against its address): the
   * totals, ids and orders (`base`), or the terms and digests (`sections`).
   */
  private async catchUp(part: { base?: boolean; sections?: boolean }): Promise<void> {
    if (part.base) this.deferred = false;
    // a page written again this build (one the store had lost) may still be in the writer's batch: read what is stored
    await this.w.flush();
    let rank = 0;
    for await (const [, page] of readAhead(this.modelPages, (a) => this.readModelsPage(a))) {
      for (const e of page.models) {
        const lower = e.row.id.toLowerCase();
        if (part.base) this.tabulate(factsOf(e), lower);
        if (part.sections) this.sections.tabulate(sectionFactsOf(e), lower, rank);
        rank++;
      }
    }
  }

  /** One of this day's models pages, read back and checked against its address. */
  private readModelsPage(address: string): Promise<{ models: PagedEntry[] }> {
    return readPage<{ models: PagedEntry[] }>(this.store, address, 'index pages: models page');
  }

  /** The section facts of the models of these ranks (ascending), read back from the models pages that hold them. */
  private async sectionsAt(ranks: readonly number[], each: (rank: number, s: SectionFacts) => void): Promise<void> {
    await this.w.flush();
    // the models pages holding one of the ranks: [page, its first rank, its end]
    const pages: Array<[number, number, number]> = [];
    for (let p = 0, k = 0; p < this.modelPages.length && k < ranks.length; p++) {
      const end = p + 1 < this.modelPages.length ? this.pageFirst.get(p + 1) : this.n;
      if ((ranks[k] as number) >= end) continue;
      pages.push([p, this.pageFirst.get(p), end]);
      while (k < ranks.length && (ranks[k] as number) < end) k++;
    }
    let k = 0;
    for await (const [[, first, end], { models }] of readAhead(pages, ([p]) => this.readModelsPage(this.modelPages[p] as string)))
      for (; k < ranks.length && (ranks[k] as number) < end; k++) {
        const r = ranks[k] as number;
        const e = models[r - first];
        if (e) each(r, sectionFactsOf(e));
      }
  }

  /** One model's part of the totals, the ids and the orders (its row is not read: see table-facts.ts). */
  private tabulate(f: TableFacts, lower: string): void {
    const rank = this.lowerIds.length;
    this.lowerIds.push(lower);
    this.files += f.files;
    this.bytes += f.bytes;
    if (f.listed) this.listed++;
    const sources = f.sources;
    for (let i = 0; i < sources.length; i++) {
      const [name, type] = sources[i] as SourceSet[number];
      if (!this.kinds.has(name)) this.kinds.set(name, type);
      // each source a model names counts once
      let again = false;
      for (let j = 0; j < i && !again; j++) again = (sources[j] as SourceSet[number])[0] === name;
      if (!again) this.holders[name] = (this.holders[name] ?? 0) + 1;
    }
    this.trending.push(trendingKey(f, rank));
    this.downloads.push(f.downloads);
    this.likes.push(f.likes);
    this.created.push(f.created);
    this.modified.push(f.modified);
  }

  /**
   * Write the models page of the models added since the last one, and note where each model lies in it. A page whose key (its models' addresses and input keys) names a page the last build
   * wrote, still stored, is that page, wherever it is in the list: its address and entries are reused without
   * serializing or hashing it.
   */
  private async modelsPage(): Promise<void> {
    const held = this.pageEntries;
    this.pageEntries = [];
    const first = this.n - held.length;
    const index = this.modelPages.length;
    this.pageFirst.push(first);
    for (let k = 0; k < held.length; k++) this.pageOf.push(index);
    const { reuse } = this;
    const key =
      reuse && held.every((h) => h.key !== undefined) ? modelsPageKey(held as Array<{ entry: PagedEntry; key: string }>) : undefined;
    let page = key ? reuse?.page(key) : undefined;
    if (page && !(await this.store.has(`blake3:${page.address}` as Address))) page = undefined;
    if (page) {
      this.modelPages.push(`blake3:${page.address}`);
      await this.onModelsPage?.(`blake3:${page.address}`, undefined, first);
    } else {
      if (this.deferred) {
        await this.catchUp({ base: true });
        for (const h of held) this.tabulate(h.facts, h.entry.id.toLowerCase());
      }
      const written = writtenModelsPage(held.map((h) => canonicalBytes(h.entry)));
      page = written.record;
      this.modelPages.push(await this.w.pageBytes(written.bytes, `blake3:${page.address}`));
      await this.onModelsPage?.(this.modelPages.at(-1) as Address, written.bytes, first);
    }
    for (let k = 0; k < page.starts.length; k++) {
      this.entryStart.push(page.starts[k] as number);
      this.entryLength.push(page.lengths[k] as number);
      this.entryHash.push(page.hashes[k] as string);
    }
    if (key) reuse?.record(key, page);
  }

  /** Write the look-up pages and the root; returns the root's address. Call once, after every {@link add}. */
  async finish(catalogAddress: Address, date: string): Promise<Address> {
    const { w, n, lowerIds } = this;
    if (this.pageEntries.length) await this.modelsPage();
    // each model's position: the last build's where it can be, so the look-up pages name the models as before
    const was = this.was.flat();
    const positions = assignPositions(was);
    this.reuse?.recordPositions?.(positions);
    // the last build's look-up pages name its models by their positions: reused only when no model's moved
    const moved = positions.some((p, i) => p !== was[i]);
    const list = this.reuse?.recordRoot ? modelsListKey(this.modelPages) : undefined;
    const before = list && !moved ? await this.reuse?.root?.(list) : undefined;
    if (list && before) {
      // The same models pages as the last build's: its look-ups, under this day's catalog and date.
      await w.flush();
      const sizes = this.sections.kept();
      const stamp = sizes && this.format ? { sectionSizes: { ...sizes, format: this.format } } : {};
      const address = await w.put(PAGES_KIND, { ...before, catalog: catalogAddress, date, ...stamp } satisfies PagesRoot);
      this.reuse?.recordRoot?.(list, address);
      if (sizes) this.reuse?.recordSectionSizes?.(sizes);
      // its look-up pages' keys, for the next build
      const looks = [before.ids, before.shas, before.terms, before.names, ...Object.values(before.orders)];
      this.reuse?.keepLooks?.(new Set(looks.flatMap((v) => v.pages ?? [])));
      return address;
    }
    if (this.deferred) await this.catchUp({ base: true });
    const pages = this.modelPages.length;
    const sizes = Array.from({ length: pages }, (_, p) => (p + 1 < pages ? this.pageFirst.get(p + 1) : n) - this.pageFirst.get(p));
    const models = await w.modelsList(this.modelPages, sizes, (p, size) => endsModelsDir(this.pageEnd.get(p), size), positions);

    // ids (and dash aliases, `~`-prefixed) → rank; the ids in lexical order, each once (a sorted array and a binary
    // search instead of a Set of a million strings)
    const sorted = uniqueSorted(lowerIds);
    const aliases = dashAliasesOf(
      (function* () {
        for (let rank = 0; rank < n; rank++) yield { id: lowerIds[rank] as string, rank };
      })(),
      (a) => holds(sorted, a),
    );
    const idKeys: Array<[string, number]> = [];
    for (const [alias, m] of aliases) idKeys.push([`~${alias}`, m.rank]);
    // Each id names its models page, its position, its model's bytes in that page and its place there, so a look-up
    // reads no directory and parses its own model only.
    const pageOf = this.pageOf;
    const at = (rank: number): IdEntry => [
      this.modelPages[pageOf.get(rank)] as string,
      positions[rank] as number,
      this.entryStart.get(rank),
      this.entryLength.get(rank),
      `blake3:${this.entryHash.hexOf(rank)}`,
      rank - this.pageFirst.get(pageOf.get(rank)),
    ];
    const idCount = n + idKeys.length;
    const idBuckets = powerOfTwo(Math.ceil((idCount * 200) / BUCKET_TARGET_BYTES));
    const keyOf = (i: number) => (i < n ? (lowerIds[i] as string) : (idKeys[i - n] as [string, number])[0]);
    const rankOf = (i: number) => (i < n ? i : (idKeys[i - n] as [string, number])[1]);
    const ids = await w.hashed(
      'ids',
      idBuckets,
      idCount,
      keyOf,
      (entries, i) => {
        entries[keyOf(i)] = at(rankOf(i));
      },
      // what decides an entry, for the bucket's page key: the id, its models page, its place there and its position
      // (where its model lies in that page and its hash are the page's bytes', which its address fixes)
      (k, i) => {
        const rank = rankOf(i);
        k.str(keyOf(i))
          .str(this.modelPages[pageOf.get(rank)] as string)
          .u32(rank - this.pageFirst.get(pageOf.get(rank)))
          .u32(positions[rank] as number);
      },
    );

    // what only the id entries name (44 MB at 1,000,000 models), let go before the digests and terms are written
    for (const list of [this.entryStart, this.entryLength, this.entryHash, pageOf]) list.clear();

    const written = await this.sections.write(
      positions,
      was,
      lowerIds,
      () => this.catchUp({ sections: true }),
      (ranks, each) => this.sectionsAt(ranks, each),
    );
    const { shas, terms, patched } = written;
    this.reuse?.recordSectionSizes?.(written.sizes);
    // a patch keeps the last build's other pages: their keys, for the next build (when listed inline: a few)
    const kept = patched ? [...(terms.pages ?? []), ...(shas.pages ?? [])] : [];
    if (kept.length > 0) this.reuse?.keepLooks?.(new Set(kept));
    const orders = await w.orders(
      {
        trendingScore: this.trending,
        downloads: this.downloads,
        likes: this.likes,
        createdAt: this.created.keys(),
        lastModified: this.modified.keys(),
        id: lowerIds,
      },
      positions,
    );
    const names = await w.names(sorted);

    const root: PagesRoot = {
      kind: PAGES_KIND,
      version: PAGES_VERSION,
      catalog: catalogAddress,
      date,
      head: this.head,
      headPositions: Array.from(positions.subarray(0, this.head.length)),
      totals: { models: n, files: this.files, bytes: this.bytes, listed: this.listed, holders: this.holders },
      kinds: [...this.kinds],
      models,
      ids,
      shas,
      terms,
      orders,
      names,
      idChars: idCharsOf(lowerIds),
      shortGrams: SHORT_GRAM_LIST_MAX,
      ...(this.format ? { sectionSizes: { ...written.sizes, format: this.format } } : {}),
    };
    await w.flush();
    const address = await w.put(PAGES_KIND, root);
    if (list) this.reuse?.recordRoot?.(list, address);
    return address;
  }
}
