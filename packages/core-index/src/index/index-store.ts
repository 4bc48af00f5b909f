import { type Address, addressOf } from './blake3.js';
import { CatalogReadError, readCatalog } from './catalog-shards.js';
import { type PackedIndex, readLoadPack } from './load-pack.js';
import { loadPackBytes, type PackDigest, type PackModel, type PackSource, packFacts } from './load-pack-format.js';
import { MemoryIndex, type WholeIndexStore } from './memory-index.js';
import type { ObjectStore } from './object-store.js';
import { boundedAll } from './pool.js';
import {
  type CatalogObject,
  type ModelObject,
  ModelObjectSchema,
  type ModelRow,
  type SourceObject,
  SourceObjectSchema,
} from './schemas.js';

import { weightBytesOf } from './weights.js';

export { isWeightFile } from './weights.js';

import type { IndexedModel } from './store-types.js';

export type { WholeIndexStore } from './memory-index.js';
export type { IndexedModel, IndexStore, IndexTotals, SearchPage } from './store-types.js';

export class IndexLoadError extends Error {}

/** The catalog's pack when it is sound and this catalog's; undefined when it is missing, damaged or foreign. */
async function fromPack(storage: LoadPackStorage, catalogAddress: Address): Promise<PackedIndex | undefined> {
  const bytes = await storage.read().catch(() => undefined);
  if (!bytes) return undefined;
  const packed = await readLoadPack(bytes, catalogAddress, storage.digest ?? addressOf);
  return typeof packed === 'string' ? undefined : packed;
}

const decoder = new TextDecoder();

export interface LoadIndexOptions {
  /**
   * The host already verified this catalog and every object under it (re-hashed and schema-checked) when it was
   * written or switched to, and recorded that: skip the re-hash and the schema check (JSON is still parsed, and a
   * missing object or a catalog without a row still fails). `hub index verify` re-hashes everything on demand.
   */
  verified?: boolean;
  /**
   * Keep a load pack in this storage (see {@link LoadPackStorage}): a start on a verified catalog reads every model
   * and source object from one prepared blob instead of one read per object; any other load writes the pack for the
   * next start. With a pack storage, `verified` holds only together with the pack: a verified load that finds no pack
   * for this catalog (missing, damaged, or another catalog's) verifies in full. For hosts with local disk
   * (node-server); the edge leaves it off.
   */
  pack?: LoadPackStorage;
}

/**
 * Where a host keeps the load pack: one replaceable blob, local start state beside the store (node-server: a file in
 * the data folder), never an object of the store, so it is never listed, served or published, and each new pack
 * replaces the last instead of piling up. The blob is `<digest of the body>\n<body>` (see `loadPackBytes` in
 * load-pack-format.ts for the body): the catalog's rows and every model and source object it names, by address. A blob
 * that does not match its digest, is of another layout version, or does not add up is damaged.
 */
export interface LoadPackStorage {
  read(): Promise<Uint8Array | undefined>;
  write(bytes: Uint8Array): Promise<void>;
  /** The digest on the pack's first line (default: its BLAKE3 address; node-server: node:crypto SHA-256). */
  digest?: PackDigest;
}

/** The pack for the models of a full load (after every object was verified), for the next start. */
async function writePack(
  storage: LoadPackStorage,
  catalog: { address: Address; date: string },
  models: readonly IndexedModel[],
): Promise<void> {
  const encoder = new TextEncoder();
  const sources = new Map<string, PackSource>();
  const packed: PackModel[] = models.map((m) => {
    m.sourceAddresses.forEach((a, i) => {
      const s = m.sources[i] as SourceObject;
      if (!sources.has(a)) sources.set(a, { bytes: encoder.encode(JSON.stringify(s)), source: s.source, type: s.type });
    });
    return {
      id: m.id,
      address: m.address,
      sources: m.sourceAddresses,
      row: JSON.stringify(m.row),
      object: encoder.encode(JSON.stringify(m.object)),
      ...packFacts(m.object),
    };
  });
  await storage.write(await loadPackBytes(catalog, packed, sources, storage.digest));
}

async function readObject<T>(
  objects: ObjectStore,
  address: Address,
  parse: (v: unknown) => T,
  what: string,
  verified = false,
): Promise<{ value: T; bytes: Uint8Array }> {
  const stored = await objects.get(address);
  if (!stored) throw new IndexLoadError(`${what} ${address} is missing from the object store`);
  if (!verified && addressOf(stored.bytes) !== address) throw new IndexLoadError(`${what} ${address} does not hash to its address`);
  let raw: unknown;
  try {
    raw = JSON.parse(decoder.decode(stored.bytes));
  } catch {
    throw new IndexLoadError(`${what} ${address} is not JSON`);
  }
  if (verified) return { value: raw as T, bytes: stored.bytes };
  try {
    return { value: parse(raw), bytes: stored.bytes };
  } catch (e) {
    throw new IndexLoadError(`${what} ${address} does not match its schema: ${(e as Error).message.slice(0, 300)}`);
  }
}

/**
 * Build an {@link IndexStore} from an object store and a catalog address. Every object read is
 * re-hashed against its address and checked against its schema (unless `options.verified`); a fault
 * throws {@link IndexLoadError}.
 */
export async function loadIndex(objects: ObjectStore, catalogAddress: Address, options: LoadIndexOptions = {}): Promise<WholeIndexStore> {
  let verified = options.verified === true;
  if (options.pack && verified) {
    // The catalog's rows and every object it names are in the pack: the store is only asked whether it still holds
    // the catalog (the objects routes serve it from there).
    if (!(await objects.has(catalogAddress))) throw new IndexLoadError(`catalog ${catalogAddress} is missing from the object store`);
    const packed = await fromPack(options.pack, catalogAddress);
    if (packed) return new MemoryIndex(catalogAddress, packed.head.date, packed.models, objects, packed);
    // Something was changed behind the hub's back (a damaged pack), or the pack is missing or another catalog's (a
    // foreign pack: not what the host recorded with its trust): verify this catalog and every object in full.
    verified = false;
  }
  // A sharded catalog is joined here: the root and every shard are re-hashed and checked unless `verified`.
  let catalog: CatalogObject;
  try {
    catalog = await readCatalog(objects, catalogAddress, { verified });
  } catch (e) {
    if (e instanceof CatalogReadError) throw new IndexLoadError(e.message);
    throw e;
  }
  const rowsById = new Map(catalog.rows.map((r) => [r.id, r] as const));
  const entries = Object.entries(catalog.objects);
  const models: IndexedModel[] = [];
  const sourceCache = new Map<string, SourceObject>();
  // Bounded parallel reads (the one pool).
  const loaded = await boundedAll(entries, 16, async ([id, rawEntry]) => {
    const entry = rawEntry as { model: string; sources: string[] };
    const { value: object } = await readObject(objects, entry.model as Address, (v) => ModelObjectSchema.parse(v), `model ${id}`, verified);
    const sources: SourceObject[] = [];
    for (const sa of entry.sources) {
      let s = sourceCache.get(sa);
      if (!s) {
        s = (await readObject(objects, sa as Address, (v) => SourceObjectSchema.parse(v), `source of ${id}`, verified)).value;
        sourceCache.set(sa, s);
      }
      sources.push(s);
    }
    const row = rowsById.get(id);
    if (!row) throw new IndexLoadError(`catalog has no row for ${id}`);
    return makeModel(id, entry.model as Address, object, row, sources, entry.sources as Address[]);
  });
  for (const m of loaded) if (m) models.push(m);
  // Browse order is the catalog's row order.
  const order = new Map(catalog.rows.map((r, i) => [r.id, i] as const));
  models.sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
  models.forEach((m, i) => {
    m.rank = i;
  });
  // The next start on this catalog reads one pack instead of every object (a failed write only costs that).
  if (options.pack) await writePack(options.pack, { address: catalogAddress, date: catalog.date }, models).catch(() => undefined);
  return new MemoryIndex(catalogAddress, catalog.date, models, objects);
}

export function makeModel(
  id: string,
  address: Address,
  object: ModelObject,
  row: ModelRow,
  sources: SourceObject[],
  sourceAddresses: Address[],
): IndexedModel {
  const files = [...object.files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const byPath = new Map(files.map((f) => [f.path, f] as const));
  const [owner = '', name = ''] = id.split('/');
  return {
    id,
    owner,
    name,
    revision: object.revision,
    address,
    object,
    row,
    files,
    file: (p) => byPath.get(p),
    sources,
    sourceAddresses,
    weightBytes: weightBytesOf(files),
    rank: 0,
  };
}
