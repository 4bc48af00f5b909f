import { type Address, addressOf } from '../index/blake3.js';
import { readCatalog } from '../index/catalog-shards.js';
import { loadPackBytes, type PackDigest, type PackFacts, type PackModel, type PackSource, packFacts } from '../index/load-pack-format.js';
import type { ObjectStore } from '../index/object-store.js';
import { ModelObjectSchema, SourceObjectSchema } from '../index/schemas.js';

/**
 * The model and source objects of a catalog as a builder made them, for the load pack the first start reads (so a
 * start after a build redoes nothing: the builder hashed every object when it wrote it). Give {@link add} to
 * `buildIndex` as `onObject`; each object is schema-checked as it is added (what a first start would check), and one
 * that does not match is recorded in `fault`: the caller then writes no pack and the start verifies in full.
 *
 * A day of more models than `maxModels` is served from its index pages (`openDay`'s `auto`), which need no pack: past
 * that many the writer lets go of what it holds and keeps nothing more (`skipped`), so a build of any size holds no
 * copy of every object (at 1,000,000 models the pack's objects alone were gigabytes).
 */
export class LoadPackWriter {
  /** each model object's JSON bytes and what the pack needs of it, by address */
  readonly models = new Map<string, { json: Uint8Array; facts: PackFacts }>();
  readonly sources = new Map<string, PackSource>();
  fault: string | undefined;
  /** why no pack is made for a day this large (no fault: its pages serve it) */
  skipped: string | undefined;
  private readonly maxModels: number;

  constructor(options: { maxModels?: number } = {}) {
    this.maxModels = options.maxModels ?? Number.POSITIVE_INFINITY;
  }

  /** Returns `false` once the writer keeps nothing more (`skipped`): a builder then stops reporting objects. */
  readonly add = (kind: BuiltObjectKind, address: Address, value: unknown, bytes: Uint8Array): boolean => {
    if (this.skipped) return false;
    if (kind === 'model-hub.model' && !this.models.has(address) && this.models.size >= this.maxModels) {
      this.skipped = `more than ${this.maxModels} models: the day is served from its index pages`;
      this.models.clear();
      this.sources.clear();
      return false;
    }
    if (kind === 'model-hub.model') {
      const checked = ModelObjectSchema.safeParse(value);
      if (checked.success) this.models.set(address, { json: bytes, facts: packFacts(checked.data) });
      else this.fault ??= `${kind} ${address} does not match its schema: ${checked.error.message.slice(0, 300)}`;
      return true;
    }
    const checked = SourceObjectSchema.safeParse(value);
    if (checked.success) this.sources.set(address, { bytes, source: checked.data.source, type: checked.data.type });
    else this.fault ??= `${kind} ${address} does not match its schema: ${checked.error.message.slice(0, 300)}`;
    return true;
  };

  /**
   * The pack blob for `catalogAddress` (see {@link loadPackBytes}): the catalog's rows and entries are read back from
   * `objects` as the builder just wrote them (not re-hashed); the objects are the ones the builder reported.
   */
  async bytes(objects: ObjectStore, catalogAddress: Address, digest: PackDigest = addressOf): Promise<Uint8Array> {
    if (this.skipped) throw new Error(`load pack: ${this.skipped}`);
    const catalog = await readCatalog(objects, catalogAddress, { verified: true });
    const models: PackModel[] = [];
    for (const row of catalog.rows) {
      const entry = catalog.objects[row.id];
      const m = entry && this.models.get(entry.model);
      if (!entry || !m) throw new Error(`load pack: the builder reported no model object for ${row.id}`);
      models.push({
        id: row.id,
        address: entry.model,
        sources: entry.sources,
        row: JSON.stringify(row),
        object: m.json,
        ...m.facts,
      });
    }
    return loadPackBytes({ address: catalogAddress, date: catalog.date }, models, this.sources, digest);
  }
}

/** The kinds of object a builder reports to `onObject` (and {@link LoadPackWriter.add}). */
export type BuiltObjectKind = 'model-hub.model' | 'model-hub.source';
