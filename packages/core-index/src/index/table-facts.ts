// What one model gives its day's look-up tables (the totals, the ids' holders and kinds, the browse orders) apart from
// its id: made from its models page entry, or (a model that did not change) kept from the last build by its memo, so
// the tables are filled without making the model's row again.
import { type PagedEntry, rowSortKey, rowTags, trendingFor } from './page-layout.js';
import { digestAt, isHexDigest, putDigest } from './page-tables.js';
import type { SourceObject } from './schemas.js';

/** Each source of a model, as its name and type, in its entry's order. */
export type SourceSet = ReadonlyArray<readonly [string, SourceObject['type']]>;

/** A model's part of the look-up tables (index-pages.ts `tabulate`). */
export interface TableFacts {
  files: number;
  bytes: number;
  listed: boolean;
  sources: SourceSet;
  /** the row's `trendingScore`, NaN when it has none (its sort key is then made from its rank: {@link trendingKey}) */
  trending: number;
  /** the sort keys of downloads and likes (page-layout.ts `rowSortKey`) */
  downloads: number;
  likes: number;
  /** the sort keys of createdAt and lastModified: a canonical time as its milliseconds, `''` as -Infinity, else the text */
  created: number | string;
  modified: number | string;
  /**
   * what it gives the search terms and the digest map, made when asked (a day whose sections are kept asks none);
   * undefined when a memo did not keep them (they are then made from the model's entry)
   */
  sections(): SectionFacts | undefined;
  /** those as a build memo keeps them ({@link sectionBytes}), undefined when they do not fit */
  sectionBytes(): Uint8Array | undefined;
}

/** A model's part of the search terms (index-pages.ts `tabulateTerms`) and of the digest map, apart from its id. */
export interface SectionFacts {
  /** its pipeline tag and library in lower case ('' for none), and its tags as `rowTags` gives them */
  pipeline: string;
  library: string;
  tags: string[];
  /** its files' SHA-256 digests, in its object's order */
  shas: string[];
}

/** The section facts of a models page entry (its row and object are read). */
export function sectionFactsOf(entry: PagedEntry): SectionFacts {
  const { row, object } = entry;
  return {
    pipeline: row.pipeline_tag ? row.pipeline_tag.toLowerCase() : '',
    library: row.library_name ? row.library_name.toLowerCase() : '',
    tags: [...rowTags(row)],
    shas: object.files.map((f) => f.sha256),
  };
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Section facts as bytes: the length of a JSON text (u16), the text (`[pipeline, library, ...tags]`), the number of
 * digests (u8) and each digest's 32 bytes. Undefined when they do not fit (a digest that is not 64 lower-case hex
 * digits, more than 255 files, a text past 65,535 bytes): the next build then makes them from the model's entry.
 */
export function sectionBytes(f: SectionFacts): Uint8Array | undefined {
  if (f.shas.length > 255 || !f.shas.every(isHexDigest)) return undefined;
  const text = encoder.encode(JSON.stringify([f.pipeline, f.library, ...f.tags]));
  if (text.length > 0xffff) return undefined;
  const out = new Uint8Array(2 + text.length + 1 + 32 * f.shas.length);
  out[0] = text.length >> 8;
  out[1] = text.length & 0xff;
  out.set(text, 2);
  let at = 2 + text.length;
  out[at++] = f.shas.length;
  for (const d of f.shas) {
    putDigest(out, at, d);
    at += 32;
  }
  return out;
}

/** The length of the section facts record at `at` ({@link sectionBytes}). */
export function sectionLength(buf: Uint8Array, at: number): number {
  const text = ((buf[at] as number) << 8) | (buf[at + 1] as number);
  return 2 + text + 1 + 32 * (buf[at + 2 + text] as number);
}

/** Section facts read back from {@link sectionBytes}' form; undefined when they are not in it. */
export function sectionFactsAt(buf: Uint8Array, at: number): SectionFacts | undefined {
  try {
    const length = ((buf[at] as number) << 8) | (buf[at + 1] as number);
    const words: unknown = JSON.parse(decoder.decode(buf.subarray(at + 2, at + 2 + length)));
    if (!Array.isArray(words) || words.length < 2 || !words.every((w) => typeof w === 'string')) return undefined;
    const [pipeline, library, ...tags] = words as string[];
    const shas: string[] = [];
    let o = at + 2 + length + 1;
    for (let n = buf[o - 1] as number; n > 0; n--) {
      shas.push(digestAt(buf, o));
      o += 32;
    }
    return { pipeline: pipeline as string, library: library as string, tags, shas };
  } catch {
    return undefined;
  }
}

const CANONICAL_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** A time's sort key as {@link TableFacts} holds it: its milliseconds when canonical, -Infinity for none, else the text. */
function timeKey(t: string): number | string {
  if (t === '') return Number.NEGATIVE_INFINITY;
  const ms = CANONICAL_TIME.test(t) ? Date.parse(t) : Number.NaN;
  return Number.isFinite(ms) && new Date(ms).toISOString() === t ? ms : t;
}

/** The trending order's key of the model at `rank` (`rowSortKey`'s, from {@link TableFacts.trending}). */
export function trendingKey(f: TableFacts, rank: number): number {
  return trendingFor(Number.isNaN(f.trending) ? undefined : f.trending, rank);
}

/** The facts of a models page entry (its row, object and sources are read). */
export function factsOf(entry: PagedEntry): TableFacts {
  const { row, object, sources, id } = entry;
  let bytes = 0;
  for (const f of object.files) bytes += f.size;
  let sections: SectionFacts | undefined;
  const made = () => {
    sections ??= sectionFactsOf(entry);
    return sections;
  };
  return {
    sections: made,
    sectionBytes: () => sectionBytes(made()),
    files: object.files.length,
    bytes,
    listed: row.svc.listed !== false,
    sources: sources.map((s) => [s.object.source, s.object.type] as const),
    trending: row.trendingScore ?? Number.NaN,
    downloads: rowSortKey('downloads', row, id, 0) as number,
    likes: rowSortKey('likes', row, id, 0) as number,
    created: timeKey(rowSortKey('createdAt', row, id, 0) as string),
    modified: timeKey(rowSortKey('lastModified', row, id, 0) as string),
  };
}
