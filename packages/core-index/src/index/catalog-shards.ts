import { type Address, addressOf } from './blake3.js';
import { canonicalBytes, canonicalJson } from './canonical-json.js';
import {
  CATALOG_SHARD_KIND,
  composeRows,
  type Entry,
  type PartReader,
  type Row,
  type RowPlace,
  type RowText,
  rowText,
  type ShardReuse,
  shardBytes,
  shardKeyOf,
} from './catalog-rows.js';
import type { ObjectStore } from './object-store.js';
import { type CatalogObject, CatalogObjectSchema, type CatalogShard, CatalogShardSchema } from './schemas.js';

/** The largest message an object server accepts (`maximum_message_bytes` of the objects protocol): 32 MiB. */
export const CATALOG_MESSAGE_LIMIT = 33_554_432;

export const CATALOG_KIND = 'model-hub.catalog';
export {
  CATALOG_SHARD_KIND,
  type RowPlace,
  type RowSource,
  type RowText,
  rowText,
  type ShardReuse,
  utf8Length,
} from './catalog-rows.js';

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
 * The content-defined boundary rate: a shard ends after a row whose id hashes to 0 modulo this power of two, chosen
 * so shards average about a quarter of the limit, from the average row of `sample` (the rows up to the first that
 * takes their bytes past the limit, or every row of a smaller catalog: a writer that streams knows no more).
 */
function boundaryEvery(limit: number, sampleBytes: number, sampleRows: number): number {
  const average = Math.max(1, sampleBytes / Math.max(1, sampleRows));
  return 2 ** Math.max(0, Math.floor(Math.log2(limit / 4 / average)));
}

/**
 * Split a catalog's rows (browse order) into contiguous shards, each under `limit` bytes once written.
 * Boundaries are content-defined: a shard ends after a row whose id hashes to 0 modulo `every` (see
 * {@link boundaryEvery}), or earlier when the next row would pass the limit. A model that changes, appears or goes
 * therefore changes its own shard (and at most the next one), not every shard after it. {@link CatalogWriter} cuts
 * the same shards from rows streamed to it.
 */
export function splitCatalog(catalog: CatalogObject, limit: number): CatalogShard[] {
  const cutter = new ShardCutter(limit);
  for (const r of catalog.rows) cutter.add(r, catalog.objects[r.id]);
  cutter.end();
  // Entries without a row (none in a built catalog) go into the last shards.
  const rowIds = new Set(catalog.rows.map((r) => r.id));
  for (const [id, entry] of Object.entries(catalog.objects)) if (!rowIds.has(id)) cutter.orphan(id, entry);
  cutter.flush();
  return cutter.shards;
}

/** Cuts rows into shards as they come: rows are held only until the boundary rate is known, then a shard at a time. */
class ShardCutter {
  readonly shards: CatalogShard[] = [];
  private readonly budget: number;
  private every = 0;
  private sample: RowText[] = [];
  private sampleBytes = 0;
  private rows: CatalogShard['rows'] = [];
  private objects: CatalogShard['objects'] = {};
  /** The shard's rows, when it is handed on as rows (`onShard`). */
  private held: RowText[] = [];
  private size = 0;

  constructor(
    private readonly limit: number,
    private readonly onShard?: (rows: RowText[]) => void,
  ) {
    this.budget = limit - 256; // the shard's own keys and brackets
  }

  add(row: Row, entry: Entry | undefined): void {
    this.addText(rowText(row, entry));
  }

  addText(r: RowText): void {
    if (this.every > 0) {
      this.cut(r);
      return;
    }
    this.sample.push(r);
    this.sampleBytes += r.bytes;
    if (this.sampleBytes > this.limit) this.start();
  }

  /** Every row is in: cut what is still held. */
  end(): void {
    if (this.every === 0) this.start();
  }

  private start(): void {
    this.every = boundaryEvery(this.limit, this.sampleBytes, this.sample.length);
    const held = this.sample;
    this.sample = [];
    for (const r of held) this.cut(r);
  }

  private cut(r: RowText): void {
    const { entry, bytes } = r;
    if (bytes > this.budget) throw new Error(`catalog row ${r.id} alone is ${bytes} bytes, over the shard limit of ${this.limit}`);
    if (this.size + bytes > this.budget) this.flush();
    if (this.onShard) this.held.push(r);
    else {
      this.rows.push(r.row);
      if (entry) this.objects[r.id] = entry;
    }
    this.size += bytes;
    if (fnv1a(r.id) % this.every === 0) this.flush();
  }

  /** An entry without a row (none in a built catalog; only {@link splitCatalog} has them). */
  orphan(id: string, entry: Entry): void {
    const bytes = canonicalBytes(entry).length + canonicalBytes(id).length + 4;
    if (this.size + bytes > this.budget) this.flush();
    this.objects[id] = entry;
    this.size += bytes;
  }

  flush(): void {
    if (this.onShard) {
      if (this.held.length > 0) this.onShard(this.held);
      this.held = [];
    } else if (this.rows.length > 0 || Object.keys(this.objects).length > 0) {
      this.shards.push({ kind: 'model-hub.catalog-shard', rows: this.rows, objects: this.objects });
    }
    this.rows = [];
    this.objects = {};
    this.size = 0;
  }
}

/**
 * Writes a catalog from rows streamed in browse order, holding at most about one shard of rows: exactly what
 * {@link writeCatalog} writes for the same rows (one object when it fits the limit, else a root plus shards), so
 * a builder of a million models never holds its whole catalog (docs/decisions/scale-and-speed.md).
 */
export class CatalogWriter {
  private readonly held: RowText[] = [];
  private heldBytes = 0;
  private cutter: ShardCutter | undefined;
  private readonly refs: Array<{ address: Address; models: number }> = [];
  private readonly puts: Array<Promise<unknown>> = [];

  /** the last build's catalog parts read (at most a few: rows come in the order they were in), checked, by address */
  private readonly parts = new Map<string, Uint8Array | undefined>();

  /**
   * `reuse`: the last build's shards by key. `onPlaced`: each row in order, with the index of its part (the catalog
   * object, or its shard) and where it lies in it (undefined when not known), for the next build's row sources.
   */
  constructor(
    private readonly objects: ObjectStore,
    private readonly head: Pick<CatalogObject, 'date' | 'prev'>,
    private readonly limit = CATALOG_MESSAGE_LIMIT,
    private readonly reuse?: ShardReuse,
    private readonly onPlaced?: (part: number, place: RowPlace | undefined) => void,
  ) {}

  /** A part of the last build's catalog, read at once when the store can (else undefined: its rows are serialized). */
  private readonly read: PartReader = (part) => {
    if (this.parts.has(part)) return this.parts.get(part);
    const got = this.objects.readBytes?.(part);
    const bytes = got instanceof Uint8Array && addressOf(got) === part ? got : undefined;
    if (this.parts.size >= 3) this.parts.delete(this.parts.keys().next().value as string);
    this.parts.set(part, bytes);
    return bytes;
  };

  /** The next row and its entry; `json`: the row's canonical JSON, when the caller has it. */
  async add(row: Row, entry: Entry, json?: string): Promise<void> {
    await this.addText(rowText(row, entry, json));
  }

  /**
   * The next row as {@link rowText} gives it, or with its size alone (`json` undefined) when the last build wrote a
   * row of the same input (`key`): such a row is serialized only when its shard is not the last build's.
   */
  async addText(text: RowText): Promise<void> {
    if (this.cutter) {
      this.cutter.addText(text);
      return;
    }
    this.held.push(text);
    // Each row costs the whole catalog at least its shard bytes less one separator: past the limit, it is sharded.
    this.heldBytes += text.bytes - 1;
    if (this.heldBytes <= this.limit) return;
    this.cutter = new ShardCutter(this.limit, (rows) => this.putShard(rows));
    for (const r of this.held.splice(0)) this.cutter.addText(r);
    await Promise.all(this.puts.splice(0));
  }

  /**
   * A shard whose rows are those of a shard the last build wrote (the same keys and addresses, so the same bytes) is
   * that shard: named by its address, neither composed nor hashed; checked to be stored, and put again from its rows
   * when it is not. Any other shard is composed from its rows' texts and put.
   */
  private putShard(rows: RowText[]): void {
    const key = this.reuse ? shardKeyOf(rows) : undefined;
    const before = key ? this.reuse?.shard(key) : undefined;
    const part = this.refs.length;
    const compose = () => {
      const composed = shardBytes(rows, this.read);
      const { length } = composed.bytes;
      if (length > this.limit) throw new Error(`a catalog shard came out at ${length} bytes, over the limit of ${this.limit}`);
      return composed;
    };
    let address: Address;
    if (before) {
      address = before;
      // the same bytes as the last build's shard: each row where it was, when that was this shard
      for (const r of rows) this.onPlaced?.(part, r.src?.part === before ? r.src : undefined);
      this.puts.push(
        this.objects.has(before).then(async (stored) => {
          if (stored) return;
          const { meta } = await this.objects.put(compose().bytes, { kind: CATALOG_SHARD_KIND, mediaType: JSON_MEDIA_TYPE });
          if (meta.id !== before) throw new Error(`catalog shard: its rows hash to ${meta.id}, the last build's to ${before}`);
        }),
      );
    } else {
      const { bytes, placed } = compose();
      address = addressOf(bytes);
      for (const p of placed) this.onPlaced?.(part, p);
      this.puts.push(this.objects.put(bytes, { kind: CATALOG_SHARD_KIND, mediaType: JSON_MEDIA_TYPE }));
    }
    if (key) this.reuse?.record(key, address);
    this.refs.push({ address, models: rows.length });
  }

  /** Write what is left and the root; returns the catalog's address and its shards' (none when it is one object). */
  async finish(): Promise<{ address: Address; shards: Address[] }> {
    const { written, ...done } = await this.finishing();
    await written;
    return done;
  }

  /**
   * {@link finish}, answering as soon as the catalog's address is known: `written` resolves when every object of it is
   * stored (a builder derives its pages meanwhile, and waits for it before any ref names the catalog).
   */
  async finishing(): Promise<{ address: Address; shards: Address[]; written: Promise<unknown> }> {
    if (!this.cutter) {
      // One object, composed from the rows' texts (the bytes `canonicalBytes` gives the catalog object; its members
      // in key order: date, kind, objects, prev, rows), unless it would pass the limit after all.
      const held = this.held.splice(0);
      const { bytes: whole, placed } = composeRows(
        `{"date":${canonicalJson(this.head.date)},"kind":"${CATALOG_KIND}","objects":{`,
        held,
        `},${this.head.prev === undefined ? '' : `"prev":${canonicalJson(this.head.prev)},`}"rows":[`,
        ']}',
        this.read,
      );
      this.parts.clear();
      if (whole.length <= this.limit) {
        for (const p of placed) this.onPlaced?.(0, p);
        const written = this.objects.put(whole, { kind: CATALOG_KIND, mediaType: JSON_MEDIA_TYPE });
        written.catch(() => {}); // waited for by the caller; this only keeps a failure from counting as unhandled meanwhile
        return { address: addressOf(whole), shards: [], written };
      }
      const catalog: CatalogObject = { kind: 'model-hub.catalog', date: this.head.date, rows: [], objects: {}, prev: this.head.prev };
      for (const { row, entry } of held as Array<{ row: Row; entry: Entry }>) {
        catalog.rows.push(row);
        catalog.objects[row.id] = entry;
        this.onPlaced?.(0, undefined);
      }
      return { ...(await writeCatalog(this.objects, catalog, this.limit)), written: Promise.resolve() };
    }
    this.cutter.end();
    this.cutter.flush();
    await Promise.all(this.puts.splice(0));
    return { ...(await putRoot(this.objects, this.head, this.refs, this.limit)), written: Promise.resolve() };
  }
}

async function putRoot(
  objects: ObjectStore,
  head: Pick<CatalogObject, 'date' | 'prev'>,
  refs: Array<{ address: Address; models: number }>,
  limit: number,
): Promise<{ address: Address; shards: Address[] }> {
  const root: CatalogObject = { kind: 'model-hub.catalog', date: head.date, rows: [], objects: {}, prev: head.prev, shards: refs };
  const rootBytes = canonicalBytes(root);
  if (rootBytes.length > limit) throw new Error(`the catalog root came out at ${rootBytes.length} bytes, over the limit of ${limit}`);
  const { meta } = await objects.put(rootBytes, { kind: CATALOG_KIND, mediaType: JSON_MEDIA_TYPE });
  return { address: meta.id as Address, shards: refs.map((r) => r.address) };
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
  return putRoot(objects, catalog, refs, limit);
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
