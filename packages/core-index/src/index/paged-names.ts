import type { PagedArray } from './page-layout.js';

/**
 * The registry catalog's page of repository names after `last` (`/v2/_catalog`), from the day's names pages (lower-case
 * ids in lexical order; version 5: pages cut by the names, before `per` a page): a binary search over the pages' first
 * names (one read a step), then the names in order.
 */
export async function pagedNames(
  list: PagedArray,
  items: (page: number) => Promise<string[]>,
  last: string | undefined,
  n: number,
): Promise<{ names: string[]; more: boolean }> {
  // (version 5 cuts its pages by the names and says how many there are; before, `per` a page)
  const pages = (list as { pageCount?: number }).pageCount ?? Math.ceil(list.count / list.per);
  // The first page after `last`: binary search over the pages' first names (one read per step).
  let lo = 0;
  let hi = pages;
  if (last !== undefined) {
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      const first = (await items(mid))[0] as string;
      if (first <= last) lo = mid;
      else hi = mid;
    }
  }
  const out: string[] = [];
  let p = lo;
  let more = false;
  while (p < pages) {
    for (const name of await items(p)) {
      if (last !== undefined && name <= last) continue;
      if (out.length === n) {
        more = true;
        break;
      }
      out.push(name);
    }
    if (more || out.length === n) {
      more ||= p + 1 < pages;
      break;
    }
    p++;
  }
  return { names: out, more };
}
