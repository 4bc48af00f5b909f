import { type Address, addressOf } from './blake3.js';
import { CatalogReadError, readCatalog } from './catalog-shards.js';
import type { ObjectStore } from './object-store.js';
import { boundedAll } from './pool.js';
import {
  type CatalogObject,
  type FileRecord,
  type ModelObject,
  ModelObjectSchema,
  type ModelRow,
  type SourceObject,
  SourceObjectSchema,
} from './schemas.js';
import { LOAD_PACK_KIND, StartPack } from './start-pack.js';

/** One model of today's index, with lookup maps ready. */
export interface IndexedModel {
  id: string;
  owner: string;
  name: string;
  revision: string;
  /** address of the `model-hub.model` object */
  address: Address;
  object: ModelObject;
  row: ModelRow;
  /** files sorted by path */
  files: FileRecord[];
  file(path: string): FileRecord | undefined;
  sources: SourceObject[];
  sourceAddresses: Address[];
  weightBytes: number;
  /** position in browse (trending) order */
  rank: number;
}

/** Today's index: immutable once loaded. */
export interface IndexStore {
  readonly catalogAddress: Address;
  readonly catalog: CatalogObject;
  /** the day the catalog was built */
  readonly snapshot: string;
  /** every model in browse order */
  models(): readonly IndexedModel[];
  /** case-insensitive lookup by `owner/name` */
  model(id: string): IndexedModel | undefined;
  /** every (model, file) with this SHA-256, for OCI blob look-ups by digest */
  filesBySha256(sha256: string): ReadonlyArray<{ model: IndexedModel; file: FileRecord }>;
  /** total files and bytes in the index */
  readonly totals: { models: number; files: number; bytes: number };
  /** The bytes of one hub object. */
  object(address: Address): Promise<Uint8Array | undefined>;
  /** A value computed once per index (prepared response bodies, manifests, pages). */
  memo<T>(key: string, build: () => T): T;
}

export class IndexLoadError extends Error {}

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
 * replaces the last instead of piling up. The blob is `<BLAKE3 address of the body>\n<body>`, the body plain JSON
 * (kind {@link LOAD_PACK_KIND}) holding the catalog's address and every model and source object it names, by
 * address. A blob that does not hash to its first line, parse, or name every object is damaged.
 */
export interface LoadPackStorage {
  read(): Promise<Uint8Array | undefined>;
  write(bytes: Uint8Array): Promise<void>;
}

interface LoadPack {
  kind: typeof LOAD_PACK_KIND;
  catalog: string;
  models: Record<string, ModelObject>;
  sources: Record<string, SourceObject>;
}

/**
 * The models of `catalog` from its load pack; undefined when there is none or it is for another catalog; 'damaged' when it does not hash to its recorded address, parse, or name every object the
 * catalog names (changed behind the hub's back: the caller verifies everything in full).
 */
async function fromPack(
  storage: LoadPackStorage,
  catalogAddress: Address,
  catalog: CatalogObject,
): Promise<IndexedModel[] | 'damaged' | undefined> {
  const bytes = await storage.read().catch(() => undefined);
  if (!bytes) return undefined;
  const newline = bytes.indexOf(10);
  if (newline === -1) return 'damaged';
  const body = bytes.subarray(newline + 1);
  if (addressOf(body) !== decoder.decode(bytes.subarray(0, newline))) return 'damaged';
  await yieldTurn();
  const pack = await parsePack(decoder.decode(body));
  if (!pack || pack.kind !== LOAD_PACK_KIND) return 'damaged';
  if (pack.catalog !== catalogAddress) return undefined;
  const models: IndexedModel[] = [];
  for (const row of catalog.rows) {
    const entry = catalog.objects[row.id];
    const object = entry && pack.models[entry.model];
    if (!entry || !object) return 'damaged';
    const sources: SourceObject[] = [];
    for (const a of entry.sources) {
      const s = pack.sources[a];
      if (!s) return 'damaged';
      sources.push(s);
    }
    models.push(makeModel(row.id, entry.model as Address, object, row, sources, entry.sources as Address[]));
    if (models.length % YIELD_EVERY === 0) await yieldTurn();
  }
  if (models.length !== Object.keys(catalog.objects).length) return 'damaged';
  return models;
}

/** Entries handled between two turns of the event loop while a pack is read (a running hub keeps answering). */
const YIELD_EVERY = 2000;
const yieldTurn = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/**
 * The pack's body, parsed a line at a time with a turn of the event loop every {@link YIELD_EVERY} entries, so a hub
 * that switches to a new index (`--refresh`) keeps answering while it reads the pack: the body is one JSON document
 * with one object entry per line (see {@link StartPack.bytes}); a body of one line (packs written before) is parsed
 * whole. Undefined when it does not parse.
 */
async function parsePack(text: string): Promise<LoadPack | undefined> {
  try {
    const lines = text.split('\n');
    if (lines.length === 1) return JSON.parse(text) as LoadPack;
    const head = JSON.parse(`${lines[0]}}}`) as LoadPack;
    const pack: LoadPack = { kind: head.kind, catalog: head.catalog, models: {}, sources: {} };
    let into: Record<string, unknown> = pack.models;
    for (let i = 1; i < lines.length; i++) {
      const line = lines[i] as string;
      if (line === '},"sources":{') into = pack.sources;
      else if (line === '}}') break;
      else {
        // `"<address>":<object>` with a comma after every entry but the last of its map
        const colon = line.indexOf('":');
        const value = line.endsWith(',') ? line.slice(colon + 2, -1) : line.slice(colon + 2);
        into[JSON.parse(line.slice(0, colon + 1)) as string] = JSON.parse(value);
      }
      if (i % YIELD_EVERY === 0) await yieldTurn();
    }
    return pack;
  } catch {
    return undefined;
  }
}

async function writePack(storage: LoadPackStorage, catalogAddress: Address, models: readonly IndexedModel[]): Promise<void> {
  const encoder = new TextEncoder();
  const pack = new StartPack();
  for (const m of models) {
    pack.models.set(m.address, encoder.encode(JSON.stringify(m.object)));
    m.sourceAddresses.forEach((a, i) => {
      pack.sources.set(a, encoder.encode(JSON.stringify(m.sources[i])));
    });
  }
  await storage.write(pack.bytes(catalogAddress));
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
export async function loadIndex(objects: ObjectStore, catalogAddress: Address, options: LoadIndexOptions = {}): Promise<IndexStore> {
  let verified = options.verified === true;
  // A sharded catalog is joined here: the root and every shard are re-hashed and checked unless `verified`.
  let catalog: CatalogObject;
  try {
    catalog = await readCatalog(objects, catalogAddress, { verified });
  } catch (e) {
    if (e instanceof CatalogReadError) throw new IndexLoadError(e.message);
    throw e;
  }
  if (options.pack && verified) {
    const packed = await fromPack(options.pack, catalogAddress, catalog);
    if (packed === 'damaged' || packed === undefined) {
      // Something was changed behind the hub's back (a damaged pack), or the pack is missing or another catalog's (a
      // foreign pack: not what the host recorded with its trust): verify this catalog and every object in full.
      verified = false;
      try {
        catalog = await readCatalog(objects, catalogAddress);
      } catch (e) {
        if (e instanceof CatalogReadError) throw new IndexLoadError(e.message);
        throw e;
      }
    } else if (packed) {
      packed.forEach((m, i) => {
        m.rank = i;
      });
      return new LoadedIndex(catalogAddress, catalog, packed, objects);
    }
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
  if (options.pack) await writePack(options.pack, catalogAddress, models).catch(() => undefined);
  return new LoadedIndex(catalogAddress, catalog, models, objects);
}

function makeModel(
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
    weightBytes: files.reduce((n, f) => n + (isWeightFile(f.path) ? f.size : 0), 0),
    rank: 0,
  };
}

const WEIGHT = /\.(gguf|safetensors|bin|pt|pth|ckpt|onnx|h5|msgpack|ot|tflite|mlmodel|npz|gguf\.part\d+)$/i;
export function isWeightFile(path: string): boolean {
  return WEIGHT.test(path);
}

class LoadedIndex implements IndexStore {
  private readonly byId = new Map<string, IndexedModel>();
  private readonly bySha = new Map<string, { model: IndexedModel; file: FileRecord }[]>();
  private readonly memos = new Map<string, unknown>();
  readonly snapshot: string;
  readonly totals: { models: number; files: number; bytes: number };

  constructor(
    readonly catalogAddress: Address,
    readonly catalog: CatalogObject,
    private readonly list: IndexedModel[],
    private readonly objects: ObjectStore,
  ) {
    let files = 0;
    let bytes = 0;
    for (const m of list) {
      this.byId.set(m.id.toLowerCase(), m);
      for (const f of m.files) {
        files++;
        bytes += f.size;
        let arr = this.bySha.get(f.sha256);
        if (!arr) {
          arr = [];
          this.bySha.set(f.sha256, arr);
        }
        arr.push({ model: m, file: f });
      }
    }
    this.snapshot = catalog.date;
    this.totals = { models: list.length, files, bytes };
  }

  models(): readonly IndexedModel[] {
    return this.list;
  }

  model(id: string): IndexedModel | undefined {
    return this.byId.get(id.toLowerCase());
  }

  filesBySha256(sha256: string) {
    return this.bySha.get(sha256) ?? [];
  }

  async object(address: Address): Promise<Uint8Array | undefined> {
    return (await this.objects.get(address))?.bytes;
  }

  memo<T>(key: string, build: () => T): T {
    if (this.memos.has(key)) return this.memos.get(key) as T;
    const v = build();
    this.memos.set(key, v);
    return v;
  }
}
