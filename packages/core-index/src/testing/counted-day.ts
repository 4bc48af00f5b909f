import type { Address } from '../index/blake3.js';
import { canonicalBytes } from '../index/canonical-json.js';
import { MemoryObjectStore } from '../index/memory-object-store.js';
import type { ObjectStore } from '../index/object-store.js';
import { PAGES_KIND } from '../index/page-layout.js';
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

/**
 * The day's pages root without some of its members, as a day written before them (`shortGrams`: words of one or two
 * characters then walk the order), stored beside it; its address.
 */
export async function olderRoot(objects: ObjectStore, pages: Address, ...drop: string[]): Promise<Address> {
  const stored = await objects.get(pages);
  const root = JSON.parse(new TextDecoder().decode(stored?.bytes)) as Record<string, unknown>;
  for (const k of drop) delete root[k];
  return (await objects.put(canonicalBytes(root), { kind: PAGES_KIND, mediaType: 'application/json' })).meta.id as Address;
}
