import { type Address, addressOf } from './blake3.js';
import { readCatalog } from './catalog-shards.js';
import type { ObjectStore } from './object-store.js';
import { type ModelObject, ModelObjectSchema, type SourceObject, SourceObjectSchema } from './schemas.js';
import { weightBytesOf } from './weights.js';

/** The kind named inside a load pack (see `LoadPackStorage` in index-store.ts). */
export const LOAD_PACK_KIND = 'model-hub.load-pack';

/** The pack layout this code writes and reads; a pack of any other version is not read (the start verifies in full). */
export const LOAD_PACK_VERSION = 2;

/**
 * The digest on a load pack's first line: the BLAKE3 address by default, or what the host supplies (node-server:
 * node:crypto SHA-256, `sha256:<hex>`, about 15× faster on 100 MB). The pack is local start state, never a hub object,
 * so its check need not be the hub's object address: it only has to refuse a damaged or truncated pack. It may
 * answer later (a promise), for a host that hashes in steps between turns of the event loop (a switch keeps answering).
 */
export type PackDigest = (bytes: Uint8Array) => string | Promise<string>;

/** The head line of a load pack (version {@link LOAD_PACK_VERSION}). */
export interface LoadPackHead {
  kind: typeof LOAD_PACK_KIND;
  version: typeof LOAD_PACK_VERSION;
  catalog: string;
  /** the catalog's day */
  date: string;
  /** models (lines of the models section), in browse order */
  models: number;
  /** source objects in the payload */
  sources: number;
  /** files and bytes of every model, as the index's totals */
  files: number;
  bytes: number;
  /** every source the index names, with its kind (what a host registers for health before the first answer) */
  kinds: Array<[string, SourceObject['type']]>;
  /** byte lengths of the sections after the head line, in order: models, rows, shas, payload */
  sections: [number, number, number, number];
}

/** One model as the pack writer takes it: its catalog row and object as JSON, and what a start needs up front. */
export interface PackModel {
  id: string;
  address: string;
  sources: readonly string[];
  /** the catalog row as JSON text (one line: JSON holds no raw line break) */
  row: string;
  object: Uint8Array;
  /** SHA-256 of each file, in path order (for the look-up by digest) */
  shas: readonly string[];
  files: number;
  bytes: number;
  weightBytes: number;
}

/** One source object as the pack writer takes it. */
export interface PackSource {
  bytes: Uint8Array;
  source: string;
  type: SourceObject['type'];
}

const encoder = new TextEncoder();

/**
 * The load pack blob: `<digest of the body>\n<body>`. The body is a head line (JSON, {@link LoadPackHead}) and four
 * sections, so a start reads only what it needs up front and each model's JSON when it is first asked for:
 *
 *     {"kind":"model-hub.load-pack","version":2,"catalog":"<address>",…,"sections":[m,r,h,p]}
 *     models:  one line per model in browse order, tab-separated: id, model address, its object's payload offset and
 *              length, its weight bytes, and its source objects as `<address>@<offset>+<length>`, comma-separated
 *     rows:    one line per model: its catalog row (JSON)
 *     shas:    one line per model: the SHA-256 of each of its files in path order, comma-separated
 *     payload: each source object, then each model object, as JSON bytes (never re-serialised)
 *
 * Model ids hold no whitespace (`ModelIdSchema`), addresses and numbers none either, so tabs and line breaks only
 * separate fields. Offsets and lengths count bytes from the payload's start.
 */
export async function loadPackBytes(
  catalog: { address: string; date: string },
  models: readonly PackModel[],
  sources: ReadonlyMap<string, PackSource>,
  digest: PackDigest = addressOf,
): Promise<Uint8Array> {
  const payload: Uint8Array[] = [];
  let at = 0;
  const sourceRef = new Map<string, string>();
  const kinds = new Map<string, SourceObject['type']>();
  for (const [address, s] of sources) {
    sourceRef.set(address, `${address}@${at}+${s.bytes.length}`);
    payload.push(s.bytes);
    at += s.bytes.length;
    if (!kinds.has(s.source)) kinds.set(s.source, s.type);
  }
  const modelLines: string[] = [];
  const rowLines: string[] = [];
  const shaLines: string[] = [];
  let files = 0;
  let bytes = 0;
  for (const m of models) {
    const refs = m.sources.map((a) => {
      const ref = sourceRef.get(a);
      if (ref === undefined) throw new Error(`load pack: source ${a} of ${m.id} is not in the pack`);
      return ref;
    });
    modelLines.push(`${m.id}\t${m.address}\t${at}\t${m.object.length}\t${m.weightBytes}\t${refs.join(',')}\n`);
    rowLines.push(`${m.row}\n`);
    payload.push(m.object);
    at += m.object.length;
    shaLines.push(`${m.shas.join(',')}\n`);
    files += m.files;
    bytes += m.bytes;
  }
  const sections = [modelLines.join(''), rowLines.join(''), shaLines.join('')].map((s) => encoder.encode(s));
  const head: LoadPackHead = {
    kind: LOAD_PACK_KIND,
    version: LOAD_PACK_VERSION,
    catalog: catalog.address,
    date: catalog.date,
    models: models.length,
    sources: sources.size,
    files,
    bytes,
    kinds: [...kinds],
    sections: [sections[0]?.length ?? 0, sections[1]?.length ?? 0, sections[2]?.length ?? 0, at],
  };
  const parts = [encoder.encode(`${JSON.stringify(head)}\n`), ...sections, ...payload];
  let length = 0;
  for (const p of parts) length += p.length;
  const body = new Uint8Array(length);
  let o = 0;
  for (const p of parts) {
    body.set(p, o);
    o += p.length;
  }
  const first = encoder.encode(`${await digest(body)}\n`);
  const out = new Uint8Array(first.length + body.length);
  out.set(first);
  out.set(body, first.length);
  return out;
}

/** What a pack needs of a model object beyond its bytes: its files' digests in path order and its totals. */
export function packFacts(object: Pick<ModelObject, 'files'>): PackFacts {
  const sorted = [...object.files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return {
    shas: sorted.map((f) => f.sha256),
    files: sorted.length,
    bytes: sorted.reduce((n, f) => n + f.size, 0),
    weightBytes: weightBytesOf(sorted),
  };
}

type PackFacts = Pick<PackModel, 'shas' | 'files' | 'bytes' | 'weightBytes'>;

/**
 * The model and source objects of a catalog as a builder made them, for the load pack the first start reads (so a
 * start after a build redoes nothing: the builder hashed every object when it wrote it). Give {@link add} to
 * `buildIndex` as `onObject`; each object is schema-checked as it is added (what a first start would check), and one
 * that does not match is recorded in `fault`: the caller then writes no pack and the start verifies in full.
 */
export class StartPack {
  /** each model object's JSON bytes and what the pack needs of it, by address */
  readonly models = new Map<string, { json: Uint8Array; facts: PackFacts }>();
  readonly sources = new Map<string, PackSource>();
  fault: string | undefined;

  readonly add = (kind: BuiltObjectKind, address: Address, value: unknown, bytes: Uint8Array): void => {
    if (kind === 'model-hub.model') {
      const checked = ModelObjectSchema.safeParse(value);
      if (checked.success) this.models.set(address, { json: bytes, facts: packFacts(checked.data) });
      else this.fault ??= `${kind} ${address} does not match its schema: ${checked.error.message.slice(0, 300)}`;
      return;
    }
    const checked = SourceObjectSchema.safeParse(value);
    if (checked.success) this.sources.set(address, { bytes, source: checked.data.source, type: checked.data.type });
    else this.fault ??= `${kind} ${address} does not match its schema: ${checked.error.message.slice(0, 300)}`;
  };

  /**
   * The pack blob for `catalogAddress` (see {@link loadPackBytes}): the catalog's rows and entries are read back from
   * `objects` as the builder just wrote them (not re-hashed); the objects are the ones the builder reported.
   */
  async bytes(objects: ObjectStore, catalogAddress: Address, digest: PackDigest = addressOf): Promise<Uint8Array> {
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

/** The kinds of object a builder reports to `onObject` (and {@link StartPack.add}). */
export type BuiltObjectKind = 'model-hub.model' | 'model-hub.source';
