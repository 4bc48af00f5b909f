import type { PagedArray } from './page-layout.js';

/**
 * The registry catalog's page of repository names after `last` (`/v2/_catalog`), from the day's names pages (lower-case
 * ids in lexical order, `per` a page): a binary search over the pages' first names (one read a step), then the names
 * in order.
 */
export async function pagedNames(
  list: PagedArray,
  items: (page: number) => Promise<string[]>,
  last: string | undefined,
  n: number,
): Promise<{ names: string[]; more: boolean }> {
  const per = list.per;
  // The first position after `last`: binary search over the pages' first names (one read per step).
  let lo = 0;
  let hi = Math.ceil(list.count / per);
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
  while (p * per < list.count) {
    for (const name of await items(p)) {
      if (last !== undefined && name <= last) continue;
      if (out.length === n) {
        more = true;
        break;
      }
      out.push(name);
    }
    if (more || out.length === n) {
      more ||= (p + 1) * per < list.count;
      break;
    }
    p++;
  }
  return { names: out, more };
}
