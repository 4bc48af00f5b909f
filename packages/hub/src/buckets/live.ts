import type { CoreDeps } from '@hub/core-index';
import { bucketState } from '@hub/dialect-oci';
import type { LiveSection } from '../discovery/sections.js';
import { sectionCommon } from '../discovery/sections.js';
import { bucketExample, bucketsDescriptor, bucketsSectionHtml } from './section.js';

/** The buckets section from the current buckets catalog (the empty descriptor while no bucket has a tag). */
export async function liveBuckets(deps: CoreDeps): Promise<LiveSection> {
  const { catalog, address } = await bucketState(deps).store.catalog();
  if (!address) return { key: 'none' };
  const state = { address, catalog };
  // the section describes buckets only once one has a tag and a blob to show
  if (!bucketExample(catalog)) return { key: 'none' };
  return {
    key: address,
    describe: (self, origin) => {
      const d = bucketsDescriptor(state, sectionCommon('buckets', self), origin);
      if (!d) throw new Error('the buckets catalog changed under its own key');
      return d;
    },
    html: bucketsSectionHtml(state),
  };
}
