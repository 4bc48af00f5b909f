// The look-up sections whose tables a build fills only when they changed (index-pages.ts): what a models page's models
// give the search terms and the digest map, as a key per page, compared with the last build's page at the same place.
import type { PagedEntry } from './page-layout.js';
import { PageKey } from './page-tables.js';

const key = new PageKey();

/** An optional string: its presence, then its text (so no text stands for an absent one). */
function opt(k: PageKey, s: string | undefined): PageKey {
  return s === undefined ? k.u32(0) : k.u32(1).str(s);
}

/**
 * The key of what a models page's models give the search terms (index-pages.ts `tabulateTerms`): the first rank, and
 * per model its lower-case id, task, library, signature verdict and tags (the terms are made from these alone).
 */
export function termsKey(first: number, held: ReadonlyArray<{ entry: PagedEntry }>): string {
  key.start('terms-input').u32(first).u32(held.length);
  for (const { entry } of held) {
    const { row } = entry;
    opt(opt(opt(key.str(row.id.toLowerCase()), row.pipeline_tag), row.library_name), row.svc?.signature?.status);
    const tags = row.tags ?? [];
    key.u32(tags.length);
    for (const t of tags) key.str(t);
  }
  return key.key();
}

/** The key of what a models page's models give the digest map: the first rank, and per model its files' digests. */
export function shasKey(first: number, held: ReadonlyArray<{ entry: PagedEntry }>): string {
  key.start('shas-input').u32(first).u32(held.length);
  for (const { entry } of held) {
    key.u32(entry.object.files.length);
    for (const f of entry.object.files) key.str(f.sha256);
  }
  return key.key();
}
