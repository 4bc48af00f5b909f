import type { Address } from './blake3.js';
import { IndexPagesWriter } from './index-pages.js';
import type { ObjectStore } from './object-store.js';
import type { CatalogObject, ModelObject, SourceObject } from './schemas.js';

const decoder = new TextDecoder();

/** The model and source objects of the catalog, by address, as JSON bytes (a `LoadPackWriter` holds exactly these). */
export interface PageObjects {
  models: ReadonlyMap<string, { json: Uint8Array }>;
  sources: ReadonlyMap<string, { bytes: Uint8Array }>;
}

/**
 * Write the index pages of a whole catalog (the model and source objects from `from`); returns the root's address.
 * The builder streams instead ({@link IndexPagesWriter}); this is for a catalog already in hand. `format`: how the
 * builder writes pages (build/pages-format.ts `pagesFormat`), stamped in the root as a build stamps it.
 */
export async function writeIndexPages(
  store: ObjectStore,
  catalog: Pick<CatalogObject, 'rows' | 'objects' | 'date'>,
  catalogAddress: Address,
  from: PageObjects,
  format?: string,
): Promise<Address> {
  const writer = new IndexPagesWriter(
    store,
    format ? { page: () => undefined, record: () => {}, basePages: () => ({ format }) } : undefined,
  );
  const parse = <T>(bytes: Uint8Array | undefined, what: string): T => {
    if (!bytes) throw new Error(`index pages: the builder reported no ${what}`);
    return JSON.parse(decoder.decode(bytes)) as T;
  };
  for (const row of catalog.rows) {
    const entry = catalog.objects[row.id];
    const object = parse<ModelObject>(entry && from.models.get(entry.model)?.json, `model object for ${row.id}`);
    const sources = (entry?.sources ?? []).map((a) => ({
      address: a,
      object: parse<SourceObject>(from.sources.get(a)?.bytes, `source object ${a}`),
    }));
    await writer.add({ id: row.id, address: entry?.model as string, row, object, sources });
  }
  return writer.finish(catalogAddress, catalog.date);
}
