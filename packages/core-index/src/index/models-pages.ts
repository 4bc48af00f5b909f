import { addressOf, blake3Hex } from './blake3.js';
import { canonicalBytes } from './canonical-json.js';
import { modelsPageBytes, type PagesRoot, type SectionSizes } from './page-layout.js';
import { PageKey } from './page-tables.js';
import type { SectionFacts, TableFacts } from './table-facts.js';

const textEncoder = new TextEncoder();

/** A models page as written: its address, and where each entry lies in it and its BLAKE3 (64 hex digits each). */
export interface ModelsPageRecord {
  address: string;
  starts: number[];
  lengths: number[];
  hashes: string[];
}

/** What the last build (the one that wrote the base day's pages) offers a patch of its terms and digest map. */
export interface SectionBase {
  /** what its terms and digest map came to */
  sizes: SectionSizes;
  /** how many models it had */
  count: number;
  /** its rank of the model at this position (undefined: none had it) */
  rankOf(position: number): number | undefined;
  /** the position of its model of this rank */
  positionOf(rank: number): number;
  /** the section facts it kept for its model of this rank (undefined: it kept none, or they cannot be read) */
  sectionsAt(rank: number): SectionFacts | undefined;
  /** its pages root (checked against its address) */
  root(): Promise<PagesRoot | undefined>;
}

/** The base day's pages, for a patch of its terms and digest map when no {@link SectionBase} serves (day-sections.ts). */
export interface PagesBase {
  /** how this build writes pages (build/pages-format.ts): pages whose root's `sectionSizes` carry another are not patched */
  format: string;
  /**
   * the base day's pages root, checked against its address (undefined when it cannot be read); absent when there is
   * no base day with pages (the day's terms and digests are then tabulated as its models come)
   */
  root?(): Promise<PagesRoot | undefined>;
}

/** Models pages of the last build by key ({@link modelsPageKey}), and today's pages as they are written. */
export interface ModelsPageReuse {
  page(key: string): ModelsPageRecord | undefined;
  record(key: string, page: ModelsPageRecord): void;
  /**
   * The last build's pages root when its models pages were the same list (`list`: {@link modelsListKey}): every
   * look-up page is derived from the models pages alone, so that root's look-ups are this day's.
   */
  root?(list: string): Promise<PagesRoot | undefined>;
  /** This day's pages root and the key of its models pages' list. */
  recordRoot?(list: string, root: string): void;
  /**
   * The address (64 hex digits) of the look-up page (an id, digest or term bucket, an order or names page) the last
   * build wrote with this key (page-tables.ts `PageKey`: the bytes that decide the page, from the compact tables).
   */
  look?(key: string): string | undefined;
  /** A look-up page of this day, by key. */
  recordLook?(key: string, address: string): void;
  /** Carry the last build's look-up page keys of these pages (addresses with `blake3:`), reused as they are. */
  keepLooks?(addresses: ReadonlySet<string>): void;
  /**
   * The last build's terms and digest map, when it wrote the base day's pages and kept what a patch of them needs
   * (day-sections.ts): this day's are then its pages patched with what changed.
   */
  sectionBase?(): SectionBase | undefined;
  /**
   * The base day's pages, whose terms and digest map are this day's patched with what changed (told from them) when
   * {@link sectionBase} offers none; `format` is stamped in this day's root with what its map came to.
   */
  basePages?(): PagesBase | undefined;
  /** What this day's terms and digest map came to, for the next build's patch. */
  recordSectionSizes?(sizes: SectionSizes): void;
  /** This day's next model's part of the look-up tables (in rank order), for the next build. */
  recordFacts?(facts: TableFacts): void;
  /** This day's positions (positions.ts), by rank, for the next build. */
  recordPositions?(positions: Uint32Array): void;
}

/** The key of a list of models pages (their addresses in order). */
export function modelsListKey(pages: readonly string[]): string {
  return blake3Hex(textEncoder.encode(pages.join('\n'))).slice(0, 32);
}

const pageKey = new PageKey();

/**
 * The key of a models page: for each model, its model and source addresses and the key of its input (build-memo.ts `inputKeys`' `full`: the parts its objects and its row are made from). These decide the page's
 * bytes (each entry is the row's id, the model's address, the row, and the objects those addresses name; the row is
 * made from that input and the model's address), so one key is one page, and no row is serialized to learn it.
 * Appended to one reused buffer (page-tables.ts `PageKey`), nothing per model is allocated for it.
 */
export function modelsPageKey(
  entries: ReadonlyArray<{ entry: { address: string; sources: ReadonlyArray<{ address: string }> }; key: string }>,
): string {
  const k = pageKey.start('models-by-input').u32(entries.length);
  for (const { entry, key } of entries) {
    k.str(entry.address).u32(entry.sources.length);
    for (const x of entry.sources) k.str(x.address);
    k.str(key);
  }
  return k.key();
}

/** A models page from its models' canonical entry bytes: its bytes and its record. */
export function writtenModelsPage(entries: Uint8Array[]): { bytes: Uint8Array; record: ModelsPageRecord } {
  const { bytes, starts } = modelsPageBytes(undefined, entries, canonicalBytes);
  return {
    bytes,
    record: {
      address: addressOf(bytes).slice('blake3:'.length),
      starts,
      lengths: entries.map((e) => e.length),
      hashes: entries.map((e) => addressOf(e).slice('blake3:'.length)),
    },
  };
}
