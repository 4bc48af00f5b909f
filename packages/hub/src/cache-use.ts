import type { CoreDeps, Hub } from '@hub/core-index';
import { hfCachedBytes } from '@hub/dialect-hf';

/**
 * Bytes each cache of one assembled hub holds now, as the caches count them, and their sum: the served index's (a
 * paged store; the whole store holds its index and counts none), the kept answers, the object store's and the
 * model-host dialect's rows and search pages. Each is bounded by its share of `deps.settings.cache`
 * (index/cache-budget.ts), so `total` stays within the budget's total.
 */
export function cacheUse(hub: Hub, deps: CoreDeps): { index: number; answers: number; objects: number; rows: number; total: number } {
  const index = deps.index();
  const use = {
    index: index.cachedBytes?.() ?? 0,
    answers: hub.keptBytes(),
    objects: deps.objects.cachedBytes?.() ?? 0,
    rows: hfCachedBytes(index),
  };
  return { ...use, total: use.index + use.answers + use.objects + use.rows };
}
