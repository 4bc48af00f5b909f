import { type Address, addressOf } from './blake3.js';
import { canonicalBytes } from './canonical-json.js';
import type { ObjectStore } from './object-store.js';
import { type CatalogObject, CatalogObjectSchema, type CatalogShard, CatalogShardSchema } from './schemas.js';

/** The largest message an object server accepts (`maximum_message_bytes` of the objects protocol): 32 MiB. */
export const CATALOG_MESSAGE_LIMIT = 33_554_432;

export const CATALOG_KIND = 'model-hub.catalog';
export const CATALOG_SHARD_KIND = 'model-hub.catalog-shard';

const JSON_MEDIA_TYPE = 'application/json';

/** A catalog (or one of its shards) that cannot be read: missing, not hashing to its address, or not its schema. */
export class CatalogReadError extends Error {}

/** FNV-1a over the UTF-16 code units of a string: a cheap, stable hash for shard boundaries (not for integrity). */
function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/**
 * Split a catalog's rows (browse order) into contiguous shards, each under `limit` bytes once written.
 * Boundaries are content-defined: a shard ends after a row whose id hashes to 0 modulo `every` (a power of two chosen
 * so shards average about a quarter of the limit), or earlier when the next row would pass the limit. A model that
 * changes, appears or goes therefore changes its own shard (and at most the next one), not every shard after it.
 */
export function splitCatalog(catalog: CatalogObject, limit: number): CatalogShard[] {
  const budget = limit - 256; // the shard's own keys and brackets
  const rowsBytes = catalog.rows.map((r) => {
    const entry = catalog.objects[r.id];
    // row, the entry keyed by the id, and the separators
    return canonicalBytes(r).length + (entry ? canonicalBytes(entry).length + canonicalBytes(r.id).length + 2 : 0) + 2;
  });
  const total = rowsBytes.reduce((a, b) => a + b, 0);
  const average = Math.max(1, total / Math.max(1, rowsBytes.length));
  const every = 2 ** Math.max(0, Math.floor(Math.log2(limit / 4 / average)));
  const shards: CatalogShard[] = [];
  let rows: CatalogShard['rows'] = [];
  let objects: CatalogShard['objects'] = {};
  let size = 0;
  const flush = () => {
    if (rows.length === 0 && Object.keys(objects).length === 0) return;
    shards.push({ kind: 'model-hub.catalog-shard', rows, objects });
    rows = [];
    objects = {};
    size = 0;
  };
  const rowIds = new Set<string>();
  catalog.rows.forEach((r, i) => {
    const bytes = rowsBytes[i] as number;
    if (bytes > budget) throw new Error(`catalog row ${r.id} alone is ${bytes} bytes, over the shard limit of ${limit}`);
    if (size + bytes > budget) flush();
    rows.push(r);
    rowIds.add(r.id);
    const entry = catalog.objects[r.id];
    if (entry) objects[r.id] = entry;
    size += bytes;
    if (fnv1a(r.id) % every === 0) flush();
  });
  // Entries without a row (none in a built catalog) go into the last shards.
  for (const [id, entry] of Object.entries(catalog.objects)) {
    if (rowIds.has(id)) continue;
    const bytes = canonicalBytes(entry).length + canonicalBytes(id).length + 4;
    if (size + bytes > budget) flush();
    objects[id] = entry;
    size += bytes;
  }
  flush();
  return shards;
}

/**
 * Write a catalog as one `model-hub.catalog` object, or, when its bytes would pass `limit` (default 32 MiB, the
 * message limit), as `model-hub.catalog-shard` objects plus a root `model-hub.catalog` whose `rows` and `objects` are
 * empty and whose `shards` name each shard's BLAKE3 address (and row count) in order. Either way the returned
 * address is the catalog's one address; a client verifies the root by its address and every shard by the address the
 * root names. Returns the address and the shard addresses (empty when not sharded).
 */
export async function writeCatalog(
  objects: ObjectStore,
  catalog: CatalogObject,
  limit = CATALOG_MESSAGE_LIMIT,
): Promise<{ address: Address; shards: Address[] }> {
  const whole = canonicalBytes(catalog);
  if (whole.length <= limit) {
    const { meta } = await objects.put(whole, { kind: CATALOG_KIND, mediaType: JSON_MEDIA_TYPE });
    return { address: meta.id as Address, shards: [] };
  }
  const refs: { address: Address; models: number }[] = [];
  for (const shard of splitCatalog(catalog, limit)) {
    const bytes = canonicalBytes(shard);
    if (bytes.length > limit) throw new Error(`a catalog shard came out at ${bytes.length} bytes, over the limit of ${limit}`);
    const { meta } = await objects.put(bytes, { kind: CATALOG_SHARD_KIND, mediaType: JSON_MEDIA_TYPE });
    refs.push({ address: meta.id as Address, models: shard.rows.length });
  }
  const root: CatalogObject = { kind: 'model-hub.catalog', date: catalog.date, rows: [], objects: {}, prev: catalog.prev, shards: refs };
  const rootBytes = canonicalBytes(root);
  if (rootBytes.length > limit) throw new Error(`the catalog root came out at ${rootBytes.length} bytes, over the limit of ${limit}`);
  const { meta } = await objects.put(rootBytes, { kind: CATALOG_KIND, mediaType: JSON_MEDIA_TYPE });
  return { address: meta.id as Address, shards: refs.map((r) => r.address) };
}

const decoder = new TextDecoder();

async function readJsonObject<T>(
  objects: ObjectStore,
  address: Address,
  parse: (v: unknown) => T,
  what: string,
  verified: boolean,
): Promise<T> {
  const stored = await objects.get(address);
  if (!stored) throw new CatalogReadError(`${what} ${address} is missing from the object store`);
  if (!verified && addressOf(stored.bytes) !== address) throw new CatalogReadError(`${what} ${address} does not hash to its address`);
  let raw: unknown;
  try {
    raw = JSON.parse(decoder.decode(stored.bytes));
  } catch {
    throw new CatalogReadError(`${what} ${address} is not JSON`);
  }
  if (verified) return raw as T;
  try {
    return parse(raw);
  } catch (e) {
    throw new CatalogReadError(`${what} ${address} does not match its schema: ${(e as Error).message.slice(0, 300)}`);
  }
}

/**
 * Read a catalog by its address, joining its shards when it has them: the result has every row (browse order) and
 * the whole objects map, with `shards` kept as the root names them. Unless `verified`, the root and every shard are
 * re-hashed against their addresses and schema-checked, and each shard's row count must match the root's.
 * Throws {@link CatalogReadError}.
 */
export async function readCatalog(objects: ObjectStore, address: Address, options: { verified?: boolean } = {}): Promise<CatalogObject> {
  const verified = options.verified === true;
  const root = await readJsonObject(objects, address, (v) => CatalogObjectSchema.parse(v), 'catalog', verified);
  if (!root.shards || root.shards.length === 0) return root;
  if (root.rows.length > 0 || Object.keys(root.objects).length > 0)
    throw new CatalogReadError(`catalog ${address} has shards and rows of its own; a sharded root holds no rows`);
  const rows: CatalogObject['rows'] = [];
  const entries: CatalogObject['objects'] = {};
  for (const [i, ref] of root.shards.entries()) {
    const shard = await readJsonObject(
      objects,
      ref.address as Address,
      (v) => CatalogShardSchema.parse(v),
      `catalog ${address} shard ${i}`,
      verified,
    );
    if (!verified && shard.rows.length !== ref.models)
      throw new CatalogReadError(
        `catalog ${address} shard ${i} (${ref.address}) has ${shard.rows.length} rows, the root says ${ref.models}`,
      );
    for (const r of shard.rows) rows.push(r);
    for (const [id, entry] of Object.entries(shard.objects)) {
      if (!verified && entries[id]) throw new CatalogReadError(`catalog ${address}: ${id} is in more than one shard`);
      entries[id] = entry;
    }
  }
  return { ...root, rows, objects: entries };
}
