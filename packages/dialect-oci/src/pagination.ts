import type { HubResponse, RouteContext } from '@hub/core-index';
import { paginationInvalid } from './errors.js';

/** A list of names read a page at a time (the registry's repositories, `RegistryRepositories.page`). */
interface NamePages {
  page(last: string | undefined, n: number): Promise<{ names: string[]; more: boolean }>;
}

/**
 * `n`/`last` pagination over a list in lexical order, as the OCI distribution spec's tag list (end-8b) and catalog
 * page: up to `n` entries after `last` (not inclusive), an absolute `Link: <…>; rel="next"` while more remain, and for
 * `n=0` an empty list without a `Link`. Every list under `/v2/` pages through here: a model's tags, the archive's
 * one tag per day, `_catalog`.
 */
export function paginate(
  ctx: RouteContext<unknown>,
  all: readonly string[],
  path: string,
): { page: string[]; headers: Record<string, string> } | HubResponse {
  const nRaw = ctx.query.get('n');
  const last = ctx.query.get('last');
  let from = 0;
  if (last !== null && last !== '') {
    from = all.findIndex((x) => x > last);
    if (from === -1) from = all.length;
  }
  if (nRaw === null || nRaw === '') return { page: all.slice(from), headers: {} };
  if (!/^\d{1,9}$/.test(nRaw)) return paginationInvalid(nRaw);
  const n = Number(nRaw);
  const page = all.slice(from, from + n);
  const headers: Record<string, string> = {};
  const lastShown = page[page.length - 1];
  if (n > 0 && from + n < all.length && lastShown !== undefined) {
    headers.link = `<${ctx.origin}${path}?n=${n}&last=${encodeURIComponent(lastShown)}>; rel="next"`;
  }
  return { page, headers };
}

/** `/v2/_catalog` answers at most this many names without `n` (then `Link: rel="next"` says where the rest is). */
export const CATALOG_PAGE_MAX = 10_000;

/** `n`/`last` pagination over the sorted repository names, with an absolute `Link: <…>; rel="next"` when more remain. */
export async function paginateCatalog(
  ctx: RouteContext<unknown>,
  repos: NamePages,
  path: string,
): Promise<{ page: string[]; headers: Record<string, string> } | HubResponse> {
  const nRaw = ctx.query.get('n');
  const lastRaw = ctx.query.get('last');
  const last = lastRaw !== null && lastRaw !== '' ? lastRaw : undefined;
  if (nRaw !== null && nRaw !== '' && !/^\d{1,9}$/.test(nRaw)) return paginationInvalid(nRaw);
  const asked = nRaw === null || nRaw === '' ? undefined : Number(nRaw);
  const n = Math.min(asked ?? CATALOG_PAGE_MAX, CATALOG_PAGE_MAX);
  const { names: page, more } = n > 0 ? await repos.page(last, n) : { names: [], more: false };
  const headers: Record<string, string> = {};
  const lastShown = page[page.length - 1];
  if (more && lastShown !== undefined) {
    headers.link = `<${ctx.origin}${path}?n=${n}&last=${encodeURIComponent(lastShown)}>; rel="next"`;
  }
  return { page, headers };
}
