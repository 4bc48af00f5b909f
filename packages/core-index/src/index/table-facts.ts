// What one model gives its day's look-up tables (the totals, the ids' holders and kinds, the browse orders) apart from
// its id: made from its models page entry, or (a model that did not change) kept from the last build by its memo, so
// the tables are filled without making the model's row again.
import { type PagedEntry, rowSortKey, trendingFor } from './page-layout.js';
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
  return {
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
