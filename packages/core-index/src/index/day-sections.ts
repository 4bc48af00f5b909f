/**
 * The search terms and the digest map of a day being built (index-pages.ts): tabulated from every model, or, when the
 * last build's can be patched (section-patch.ts), from what changed alone: the models added, removed, moved to
 * another position or given other terms or digests. Either way the same pages.
 */
import type { Address } from './blake3.js';
import { DigestPostings, writeShaPages } from './digest-postings.js';
import { type ListDir, modelsPageAtPosition } from './models-list.js';
import type { PagesBase, SectionBase } from './models-pages.js';
import type { ObjectStore } from './object-store.js';
import { type HashedMap, PAGES_VERSION, type PagedEntry, type PagesRoot, type SectionSizes, sectionSizesOf } from './page-layout.js';
import type { PageWriter } from './page-writer.js';
import { type DayModels, deltaFromPages, SectionHashes } from './pages-delta.js';
import { keepingLast, PageUnreadable } from './read-page.js';
import { patchShaPages, patchTermPages, SectionDelta } from './section-patch.js';
import { type SectionFacts, sectionBytes, sectionFactsAt, sectionFactsOf } from './table-facts.js';
import { eachTermOf, ShortGrams, TermPostings, writeTermPages } from './term-pages.js';

/** A day's terms and digest map, as written. */
export interface WrittenSections {
  terms: HashedMap;
  shas: HashedMap;
  sizes: SectionSizes;
  /** the last build's pages patched (the others are its pages) */
  patched: boolean;
}

/**
 * Give a patch up when more models than this share of the day are added, removed, moved or changed in their terms
 * or digests (at least {@link PATCH_MODELS_MIN}): its changes are held as lists of positions per term (about 140 a
 * model), where a tabulation holds a byte or two per position, and tabulating every model costs less.
 */
const PATCH_MODELS_SHARE = 1 / 64;
const PATCH_MODELS_MIN = 64;

export class DaySections {
  private terms = new TermPostings();
  private short = new ShortGrams();
  private shas = new DigestPostings();
  /**
   * With a base: the section facts of each model that are not the last build's at its last position (a model added,
   * or given other terms or digests), by rank, as bytes when they fit (table-facts.ts `sectionBytes`)
   */
  private readonly changed = new Map<number, Uint8Array | SectionFacts>();
  /** Without a base but with the base day's pages: each model's section facts as a hash (pages-delta.ts), by rank */
  private hashes: SectionHashes | undefined;

  /**
   * `base`: the last build's, when a patch of its pages may serve; else `pages`: the base day's pages, which may be
   * patched with what changed as told from them; without either, every model is tabulated as it comes.
   */
  constructor(
    private readonly w: PageWriter,
    private readonly store: ObjectStore,
    private readonly base: SectionBase | undefined,
    private readonly pages?: PagesBase,
  ) {
    if (!base && pages?.root) this.hashes = new SectionHashes();
  }

  /**
   * The next model, of rank `rank`: `sections` gives its section facts; `same`: they are the ones the last build kept
   * for its model at `was` (its position there, 0 for none).
   */
  add(rank: number, lower: string, sections: () => SectionFacts, same: boolean, was: number): void {
    const base = this.base;
    if (!base) {
      if (this.hashes) this.hashes.add(sections());
      else this.tabulate(sections(), lower, rank);
      return;
    }
    if (same && was) return;
    const s = sections();
    const k = was ? base.rankOf(was) : undefined;
    const old = k === undefined ? undefined : base.sectionsAt(k);
    if (old && sameSections(old, s)) return;
    this.changed.set(rank, sectionBytes(s) ?? s);
  }

  /** One model's terms and digests into the tables. */
  tabulate(s: SectionFacts, lower: string, rank: number): void {
    eachTermOf(s, lower, (key) => this.terms.add(key, rank));
    this.short.add(lower, rank);
    for (const d of s.shas) this.shas.add(d, rank);
  }

  /**
   * Write the terms and the digest map, once every model was added: the last build's patched when it can be, else
   * tabulated. `was`: each model's last position (0: none), by rank; `replay`: tabulates every model from the day's
   * models pages (through {@link tabulate}), for when a model's section facts cannot be had otherwise; `sectionsAt`:
   * the section facts of some models read back from those pages.
   */
  async write(
    positions: Uint32Array,
    was: ArrayLike<number>,
    lowerIds: readonly string[],
    replay: () => Promise<void>,
    sectionsAt: DayModels['sectionsAt'],
  ): Promise<WrittenSections> {
    if (this.hashes) {
      const patched = await this.patchFromPages({ positions, was, lowerIds, hashes: this.hashes, sectionsAt });
      if (patched) return patched;
      this.hashes = undefined;
      await replay();
    } else if (this.base) {
      const root = await this.base.root();
      // the base day's models by their positions, for the sections the memo did not keep and the models removed
      const last = root?.version === PAGES_VERSION ? new LastModels(this.store, root) : undefined;
      const patched = root && last ? await this.patch(root, last, positions, was, lowerIds) : undefined;
      if (patched) return patched;
      if (!(await this.tabulateAll(last, was, lowerIds))) {
        this.terms = new TermPostings();
        this.short = new ShortGrams();
        this.shas = new DigestPostings();
        await replay();
      }
    }
    const shas = await writeShaPages(this.w, this.shas, positions);
    const terms = await writeTermPages(this.w, this.terms, this.short, positions);
    return { terms: terms.map, shas: shas.map, sizes: { terms: terms.total, digests: shas.digests, files: shas.files }, patched: false };
  }

  /** The last build's terms and digest map are this day's as they are: what they came to. */
  kept(): SectionSizes | undefined {
    return this.base?.sizes;
  }

  private changedAt(rank: number): SectionFacts | undefined {
    const c = this.changed.get(rank);
    return c instanceof Uint8Array ? sectionFactsAt(c, 0) : c;
  }

  /** The last build's pages patched with what changed; undefined when they cannot be (or should not). */
  private async patch(
    root: PagesRoot,
    last: LastModels,
    positions: Uint32Array,
    was: ArrayLike<number>,
    lowerIds: readonly string[],
  ): Promise<WrittenSections | undefined> {
    const base = this.base as SectionBase;
    const n = positions.length;
    const limit = Math.max(PATCH_MODELS_MIN, n * PATCH_MODELS_SHARE);
    const delta = new SectionDelta();
    const claimed = new Uint8Array(base.count);
    // the models whose last sections are needed: [last rank, rank]
    const again: Array<[number, number]> = [];
    let models = 0;
    for (let r = 0; r < n; r++) {
      const p = was[r] as number;
      const now = positions[r] as number;
      if (!p) {
        const s = this.changedAt(r);
        if (!s) return undefined;
        delta.model(lowerIds[r] as string, undefined, { s, at: now });
        models++;
        continue;
      }
      const k = base.rankOf(p);
      if (k === undefined || claimed[k]) return undefined;
      claimed[k] = 1;
      if (now !== p || this.changed.has(r)) again.push([k, r]);
      if (models + again.length > limit) return undefined;
    }
    // in the last build's order, as its memo's section facts are read best
    again.sort((x, y) => x[0] - y[0]);
    for (const [k, r] of again) {
      const at = was[r] as number;
      const lower = lowerIds[r] as string;
      const old = base.sectionsAt(k) ?? (await last.sectionsOf(at, lower));
      if (!old) return undefined;
      delta.model(lower, { s: old, at }, { s: this.changedAt(r) ?? old, at: positions[r] as number });
    }
    models += again.length;
    for (let k = 0; k < base.count; k++) {
      if (claimed[k]) continue;
      if (++models > limit) return undefined;
      const at = base.positionOf(k);
      const e = await last.entryAt(at);
      if (!e) return undefined;
      delta.model(e.id.toLowerCase(), { s: sectionFactsOf(e), at }, undefined);
    }
    return this.applied(root, base.sizes, delta);
  }

  /**
   * The base day's pages patched with what changed as told from them (pages-delta.ts); undefined when they cannot be
   * (or should not): not written as this build writes pages, a page unreadable, too many models in the delta.
   */
  private async patchFromPages(day: DayModels): Promise<WrittenSections | undefined> {
    const pages = this.pages as PagesBase;
    const root = await pages.root?.();
    const sizes =
      root?.version === PAGES_VERSION && root.sectionSizes?.format === pages.format ? sectionSizesOf(root.sectionSizes) : undefined;
    if (!root || !sizes) return undefined;
    const limit = Math.max(PATCH_MODELS_MIN, day.positions.length * PATCH_MODELS_SHARE);
    try {
      const delta = await deltaFromPages(this.store, root, day, limit);
      return delta && (await this.applied(root, sizes, delta));
    } catch (e) {
      if (e instanceof PageUnreadable) return undefined;
      throw e;
    }
  }

  /** The pages of `root`'s terms and digest map (which came to `sizes`) patched with `delta`; undefined when they cannot be. */
  private async applied(root: PagesRoot, sizes: SectionSizes, delta: SectionDelta): Promise<WrittenSections | undefined> {
    const shas = await patchShaPages(this.w, this.store, root.shas, sizes, delta);
    const terms = shas && (await patchTermPages(this.w, this.store, root.terms, sizes, delta));
    if (!shas || !terms) return undefined;
    // the last build's pages they still name directly must be stored (one lost is made again by a tabulation)
    const named = (m: HashedMap) => [...(m.pages ?? []), ...(m.dirs ?? [])];
    const kept = new Set([...named(root.shas), ...named(root.terms)]);
    for (const a of [...named(shas.map), ...named(terms.map)]) if (kept.has(a) && !(await this.store.has(a as Address))) return undefined;
    return { terms: terms.map, shas: shas.map, sizes: { terms: terms.total, digests: shas.digests, files: shas.files }, patched: true };
  }

  /**
   * Every model into the tables, its section facts from {@link changed} or the last build's at its last position;
   * false when one's cannot be had so (the tables are then partly filled).
   */
  private async tabulateAll(last: LastModels | undefined, was: ArrayLike<number>, lowerIds: readonly string[]): Promise<boolean> {
    const base = this.base as SectionBase;
    for (let r = 0; r < lowerIds.length; r++) {
      const lower = lowerIds[r] as string;
      let s = this.changedAt(r);
      const p = was[r] as number;
      if (!s && p) {
        const k = base.rankOf(p);
        s = (k === undefined ? undefined : base.sectionsAt(k)) ?? (await last?.sectionsOf(p, lower));
      }
      if (!s) return false;
      this.tabulate(s, lower, r);
    }
    return true;
  }
}

/** Whether two models' section facts are the same. */
function sameSections(a: SectionFacts, b: SectionFacts): boolean {
  const same = (x: readonly string[], y: readonly string[]) => x.length === y.length && x.every((v, i) => v === y[i]);
  return a.pipeline === b.pipeline && a.library === b.library && same(a.tags, b.tags) && same(a.shas, b.shas);
}

/** The models of a day's version 5 pages by their positions (the last models page and directory read are kept). */
class LastModels {
  private readonly dir: (address: string) => Promise<ListDir>;
  private readonly page: (address: string) => Promise<{ models: PagedEntry[] }>;

  constructor(
    store: ObjectStore,
    private readonly root: PagesRoot,
  ) {
    this.dir = keepingLast<ListDir>(store);
    this.page = keepingLast<{ models: PagedEntry[] }>(store);
  }

  /** The model at `position`; undefined when none is, or its page cannot be read. */
  async entryAt(position: number): Promise<PagedEntry | undefined> {
    try {
      const at = await modelsPageAtPosition(this.root.models, position, this.dir);
      return at && (await this.page(at.address)).models[at.place];
    } catch (e) {
      // a page missing or damaged, or a directory that does not hold the position it says
      if (e instanceof PageUnreadable || e instanceof RangeError) return undefined;
      throw e;
    }
  }

  /** The section facts of the model at `position`, when it is the model whose lower-case id is `lower`. */
  async sectionsOf(position: number, lower: string): Promise<SectionFacts | undefined> {
    const e = await this.entryAt(position);
    return e && e.id.toLowerCase() === lower ? sectionFactsOf(e) : undefined;
  }
}
