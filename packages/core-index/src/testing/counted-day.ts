import { MemoryObjectStore } from '../index/memory-object-store.js';
import { openPagedIndex, type PagedIndex } from '../index/paged-index.js';
import { buildWithPages, CountingObjectStore, syntheticModels } from './scale.js';

/**
 * A day of `n` SYNTHETIC models with its index pages, in memory, read through a store that counts every read: the
 * models, the day, the uncounted store (`inner`) and the counting one, and `fresh()`, a paged store opened on the day with the count reset.
 */
export async function countedPagedDay(n: number) {
  const inner = new MemoryObjectStore();
  const models = syntheticModels(n);
  const { catalog, pages } = await buildWithPages(inner, models);
  const store = new CountingObjectStore(inner);
  async function fresh(): Promise<PagedIndex> {
    store.reset();
    return openPagedIndex(store, pages, catalog);
  }
  return { models, catalog, pages, inner, store, fresh };
}
