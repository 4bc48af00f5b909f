import type { CoreDeps, IndexStore } from '@hub/core-index';
import { archiveRepository } from './archive.js';
import { bucketRepository } from './buckets/names.js';
import { bucketState } from './buckets/routes.js';

/** What `/v2/_catalog` lists, by kind: the one count the registry section and the catalog both read. */
export interface RegistryRepositories {
  /** how many repositories `/v2/_catalog` pages through */
  count: number;
  /** one per indexed model (lowercase ids) */
  models: number;
  /** the archive repository of today's index (`hub/index`), when there is an archive */
  archive: string | undefined;
  /** the buckets' repositories (`hub/buckets/{name}`) */
  buckets: readonly string[];
  /** what changes the list without a new index: the buckets catalog's address and the archive's name */
  key: string;
  /** the names after `last` in lexical order, at most `n`, and whether any follows (models read a page at a time) */
  page(last: string | undefined, n: number): Promise<{ names: string[]; more: boolean }>;
}

export async function registryRepositories(deps: CoreDeps): Promise<RegistryRepositories> {
  const index = deps.index();
  // the archive repository wins over a model of the same name (archiveAnswer), so that name is listed once
  const repo = await archiveRepository(deps);
  const archive = repo && !(await index.model(repo.name)) ? repo.name : undefined;
  const { catalog, address } = await bucketState(deps).store.catalog();
  const buckets = Object.keys(catalog.buckets).map(bucketRepository).sort();
  const extra = [...(archive ? [archive] : []), ...buckets].sort();
  return {
    count: index.totals.models + extra.length,
    models: index.totals.models,
    archive,
    buckets,
    key: `${address ?? 'none'}:${archive ?? ''}`,
    page: (last, n) => mergedPage(index, extra, last, n),
  };
}

/** The model names of `index` and the few `extra` names (sorted) as one sorted list: `n` names after `last`. */
async function mergedPage(
  index: IndexStore,
  extra: readonly string[],
  last: string | undefined,
  n: number,
): Promise<{ names: string[]; more: boolean }> {
  const models = await index.names(last, n);
  const extras = extra.filter((x) => last === undefined || x > last);
  const merged = [...models.names, ...extras].sort();
  return { names: merged.slice(0, n), more: models.more || merged.length > n };
}
