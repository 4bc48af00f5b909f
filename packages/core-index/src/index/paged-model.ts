import type { Address } from './blake3.js';
import { makeModel } from './index-store.js';
import type { PagedEntry } from './page-layout.js';
import { ModelObjectSchema, ModelRowSchema, SourceObjectSchema } from './schemas.js';
import type { IndexedModel } from './store-types.js';

/**
 * The model of a models page's entry at browse position `rank`. Through the schemas, as the whole store's first load
 * reads them: the same fields in the same order (a page is canonical JSON, keys sorted), so every answer made from it
 * is byte for byte the whole store's. The paged store reads its models so, and so does a host that makes answers from
 * the models pages a build writes (`BuildInput.onModelsPage`).
 */
export function pagedModel(e: PagedEntry, rank: number): IndexedModel {
  const m = makeModel(
    e.id,
    e.address as Address,
    ModelObjectSchema.parse(e.object),
    ModelRowSchema.parse(e.row),
    e.sources.map((s) => SourceObjectSchema.parse(s.object)),
    e.sources.map((s) => s.address as Address),
  );
  m.rank = rank;
  return m;
}
