import type { CoreDeps, IndexStore } from '@hub/core-index';
import { registryRepositories } from '@hub/dialect-oci';
import { type LiveSection, sectionDescriptor } from './sections.js';

/**
 * The registry section counts what `/v2/_catalog` lists right now (models, the archive repository and the buckets),
 * read by the same function the catalog route pages through; a bucket push changes it without a new index.
 */
export async function liveRegistry(deps: CoreDeps): Promise<LiveSection> {
  const index: IndexStore = deps.index();
  const repos = await registryRepositories(deps);
  return {
    key: repos.key,
    describe: (self, origin) => sectionDescriptor('registry', index, self, origin, repos),
  };
}
