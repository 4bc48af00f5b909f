import type { CoreDeps } from '@hub/core-index';
import { archiveRepository } from './archive.js';
import { bucketRepository } from './buckets/names.js';
import { bucketState } from './buckets/routes.js';
import { catalogNames } from './names.js';

/** What `/v2/_catalog` lists, by kind: the one count the registry section and the catalog both read. */
export interface RegistryRepositories {
  /** every repository, sorted: exactly the names `/v2/_catalog` pages through */
  all: readonly string[];
  /** one per indexed model (lowercase ids) */
  models: number;
  /** the archive repository of today's index (`hub/index`), when there is an archive */
  archive: string | undefined;
  /** the buckets' repositories (`hub/buckets/{name}`) */
  buckets: readonly string[];
  /** what changes the list without a new index: the buckets catalog's address and the archive's name */
  key: string;
}

export async function registryRepositories(deps: CoreDeps): Promise<RegistryRepositories> {
  const index = deps.index();
  const models = catalogNames(index);
  // the archive repository wins over a model of the same name (archiveAnswer), so that name is listed once
  const repo = await archiveRepository(deps);
  const archive = repo && !models.includes(repo.name) ? repo.name : undefined;
  const { catalog, address } = await bucketState(deps).store.catalog();
  const buckets = Object.keys(catalog.buckets).map(bucketRepository).sort();
  return {
    all: archive || buckets.length ? [...models, ...(archive ? [archive] : []), ...buckets].sort() : models,
    models: models.length,
    archive,
    buckets,
    key: `${address ?? 'none'}:${archive ?? ''}`,
  };
}
