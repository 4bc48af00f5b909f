import { BUCKETS_REF } from '../buckets/schema.js';
import { type Address, addressOf, blake3Hex } from '../index/blake3.js';
import { canonicalBytes, canonicalJson } from '../index/canonical-json.js';
import { CatalogWriter, readCatalog } from '../index/catalog-shards.js';
import { IndexPagesWriter, type PageObjects } from '../index/index-pages.js';
import type { ObjectStore } from '../index/object-store.js';
import {
  type Archive,
  type ArchiveDay,
  ArchiveSchema,
  type CatalogObject,
  type FileRecord,
  type ModelFacts,
  type ModelObject,
  type ModelRow,
  type ScanVerdict,
  type SignatureVerdict,
  type SourceObject,
} from '../index/schemas.js';
import { sha256Hex } from '../index/sha256.js';
import { isWeightFile } from '../index/weights.js';
import { SPACES_REF } from '../spaces/catalog.js';
import type { NoteSigner } from '../tlog/note.js';
import { commitDays } from './commit-days.js';
import type { BuiltObjectKind } from './load-pack-writer.js';

export const JSON_MEDIA_TYPE = 'application/json';

/** The OCI repository (`Archive.registry`) that holds every day's index as an artifact. */
export const ARCHIVE_REGISTRY = 'hub/index';

/** Write a value as a canonical-JSON hub object; returns its address. */
export async function putJson(objects: ObjectStore, kind: string, value: unknown): Promise<Address> {
  const bytes = canonicalBytes(value);
  const { meta } = await objects.put(bytes, { kind, mediaType: JSON_MEDIA_TYPE });
  return meta.id as Address;
}

export interface BuildModelInput {
  id: string;
  /** the upstream commit; computed from the file listing when absent (local trees) */
  revision?: string;
  license?: string | null;
  files: FileRecord[];
  facts?: ModelFacts;
  /** the verdict on the revision's own `model.sig`, and the public host's scan verdicts (index facts: chained, logged) */
  signature?: SignatureVerdict;
  scan?: ScanVerdict;
  /** browse facts from the upstream listing */
  row?: Pick<
    ModelRow,
    'downloads' | 'likes' | 'trendingScore' | 'createdAt' | 'lastModified' | 'tags' | 'pipeline_tag' | 'library_name'
  > & {
    listed?: boolean;
  };
  sources: Array<Omit<SourceObject, 'kind' | 'model' | 'revision'>>;
}

export interface BuildInput {
  date: string;
  /** in browse order; an iterable (sync or async) is read as it is built, so a million models need not be held */
  models: Iterable<BuildModelInput> | AsyncIterable<BuildModelInput>;
  /** display spelling of each source by health key, for `svc.sources` */
  display?: (source: string) => string;
  /** code commit that built it, recorded in the archive */
  codeCommit?: string;
  now?: () => number;
  /** Fields of the archive document to set (the OCI repository holding every day, the IPFS gateway, a mirror). */
  archive?: Partial<Pick<Archive, 'registry' | 'gateway' | 'mirror'>>;
  /** Shard the catalog when its bytes would pass this (default: the 32 MiB message limit). */
  catalogLimit?: number;
  /** Keys that sign the transparency log's checkpoint after the day is appended (none: the log grows unsigned). */
  signers?: readonly NoteSigner[];
  /**
   * Called with every model and source object the new catalog names (written now or kept from before), with its
   * value and canonical bytes, before `current` switches: a host collects them into the load pack (`LoadPackWriter`) so
   * the first start after the build reads what the builder already hashed instead of re-hashing every object.
   */
  onObject?: (kind: BuiltObjectKind, address: Address, value: unknown, bytes: Uint8Array) => void;
  /**
   * Derive the day's index pages (design 11.1, index-pages.ts) from the models as they are built, and list their root
   * in the archive day (`pages`), so a paged store reads only what a request needs. Without it the day has no pages
   * (hosts load it whole). `true`, or (as hosts passed before the pages were streamed) the `LoadPackWriter` filled
   * through `onObject`: its objects are no longer read for the pages.
   */
  pages?: boolean | PageObjects;
}

export interface BuildResult {
  catalog: Address;
  models: number;
  files: number;
  bytes: number;
  day: ArchiveDay;
}

/**
 * A deterministic 40-hex revision for a local tree: the first 40 hex of the SHA-256 of the canonical
 * listing `[{path,size,sha256}]` sorted by path. The same tree always gets the same revision.
 */
export function treeRevision(files: FileRecord[]): string {
  const sorted = [...files]
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
    .map((f) => ({ path: f.path, size: f.size, sha256: f.sha256 }));
  return sha256Hex(canonicalBytes(sorted)).slice(0, 40);
}

/** A stable 24-hex `_id` for a model id (the model host uses 24-hex object ids). */
export function modelObjectId(id: string): string {
  return blake3Hex(new TextEncoder().encode(`model:${id}`)).slice(0, 24);
}

/**
 * Write one day's index: model, source and catalog objects; chain the catalog to the previous one
 * (the `current` ref), append an archive day, then switch `current` in one atomic step.
 */
/** Models whose objects are written at once by {@link buildIndex}. */
export const BUILD_CONCURRENCY = 1024;

export async function buildIndex(objects: ObjectStore, input: BuildInput): Promise<BuildResult> {
  const archive = await readArchive(objects);
  // Days before this one (a rebuild of the same day replaces that day).
  const older = archive.days.filter((d) => d.date !== input.date);
  const prevCatalogAddress = older[0]?.index as Address | undefined;
  const prevCatalog = await readCatalogOrNone(objects, prevCatalogAddress);
  // The catalog of this same day when it is built again: its objects need not be put again either.
  const sameDay = await readCatalogOrNone(objects, archive.days.find((d) => d.date === input.date)?.index as Address | undefined);
  const display = input.display ?? ((s: string) => s);
  const catalogWriter = new CatalogWriter(objects, { date: input.date, prev: prevCatalogAddress ?? null }, input.catalogLimit);
  const pagesWriter = input.pages ? new IndexPagesWriter(objects) : undefined;
  let modelCount = 0;
  let fileCount = 0;
  let byteCount = 0;
  const seen = new Set<string>();
  const one = async (m: BuildModelInput) => {
    const files = [...m.files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    const revision = m.revision ?? treeRevision(files);
    const prevModel = prevCatalog?.objects[m.id]?.model ?? null;
    const modelObject: ModelObject = {
      kind: 'model-hub.model',
      id: m.id,
      revision,
      license: m.license ?? null,
      files: files.map((f) => ({ path: f.path, size: f.size, sha256: f.sha256 })),
      facts: m.facts ?? {},
      ...(m.signature ? { signature: m.signature } : {}),
      ...(m.scan ? { scan: m.scan } : {}),
      prev: null,
    };
    // Each object is encoded and hashed once: the unchanged check below and the put share its bytes and address.
    const encode = (value: unknown) => {
      const bytes = canonicalBytes(value);
      return { value, bytes, address: addressOf(bytes) };
    };
    let encodedModel = encode(modelObject);
    // Chain to yesterday's object for this model only when it changed. A model unchanged since it was first indexed
    // (its object's `prev` is null) hashes to yesterday's address as it is: no read. Otherwise yesterday's object is
    // read to tell an unchanged model (it keeps its object and address) from a changed one (which points back at
    // yesterday's).
    if (prevModel && encodedModel.address !== prevModel) {
      const old = await readPrev(objects, prevModel);
      modelObject.prev = old && sameContent(old, modelObject) ? old.prev : (prevModel as Address);
      encodedModel = encode(modelObject);
    }
    // The model and its source objects in one go (a store that commits puts in groups writes them together). An
    // object that yesterday's catalog or this day's previous build already names for this model, and that the store
    // has, is not put again (a rebuild where few models changed puts only theirs).
    const known = new Set<string>();
    for (const e of [prevCatalog?.objects[m.id], sameDay?.objects[m.id]]) if (e) for (const a of [e.model, ...e.sources]) known.add(a);
    // Each object's address is known from its bytes: the row and the pages use it at once, and the puts are waited
    // for a chunk later (so the next models are encoded while these are written).
    const puts: Array<Promise<unknown>> = [];
    const store = (kind: BuiltObjectKind, { value, bytes, address }: ReturnType<typeof encode>): Address => {
      input.onObject?.(kind, address, value, bytes);
      const put = () => objects.put(bytes, { kind, mediaType: JSON_MEDIA_TYPE });
      puts.push(known.has(address) ? objects.has(address).then((has) => (has ? undefined : put())) : put());
      return address;
    };
    const sourceObjects = m.sources.map((s) => encode({ kind: 'model-hub.source', model: m.id, revision, ...s } satisfies SourceObject));
    const modelAddress = store('model-hub.model', encodedModel);
    const sourceAddresses = sourceObjects.map((o) => store('model-hub.source', o));
    const weight = files.reduce((n, f) => n + (isWeightFile(f.path) ? f.size : 0), 0);
    const listed = m.row?.listed ?? true;
    const [owner] = m.id.split('/');
    const row: ModelRow = {
      _id: modelObjectId(m.id),
      id: m.id,
      modelId: m.id,
      sha: revision,
      author: owner,
      private: false,
      gated: false,
      disabled: false,
      svc: {
        manifest: modelAddress,
        files: files.length,
        weight_bytes: weight,
        ...(listed && m.facts?.parameters !== undefined ? { parameters: m.facts.parameters } : {}),
        ...(listed && m.facts?.context !== undefined ? { context: m.facts.context } : {}),
        ...(listed ? {} : { listed: false }),
        sources: [...new Set(m.sources.map((s) => display(s.source)))],
        ...(m.signature ? { signature: m.signature } : {}),
      },
    };
    if (listed) {
      const r = m.row ?? {};
      if (r.pipeline_tag ?? m.facts?.pipeline_tag) row.pipeline_tag = r.pipeline_tag ?? m.facts?.pipeline_tag;
      if (r.library_name ?? m.facts?.library_name) row.library_name = r.library_name ?? m.facts?.library_name;
      if (r.likes !== undefined) row.likes = r.likes;
      if (r.downloads !== undefined) row.downloads = r.downloads;
      if (r.trendingScore !== undefined) row.trendingScore = r.trendingScore;
    }
    if (m.row?.createdAt ?? m.facts?.createdAt) row.createdAt = m.row?.createdAt ?? m.facts?.createdAt;
    if (m.row?.lastModified ?? m.facts?.lastModified) row.lastModified = m.row?.lastModified ?? m.facts?.lastModified;
    const tags = m.row?.tags ?? m.facts?.tags;
    if (tags) row.tags = tags;
    return {
      row,
      entry: { model: modelAddress as Address, sources: sourceAddresses },
      object: modelObject,
      sources: sourceObjects.map((o, k) => ({ address: sourceAddresses[k] as string, object: o.value as SourceObject })),
      files: files.length,
      bytes: files.reduce((n, f) => n + f.size, 0),
      written: Promise.all(puts),
    };
  };
  // Models are read from the input as they come and written BUILD_CONCURRENCY at a time (the store commits their
  // objects together); rows, catalog shards and models pages follow the input order. Nothing is held per model but
  // what the catalog's current shard and the pages' look-up tables need. Objects already stored are not written again.
  const write = async (chunk: Array<{ m: BuildModelInput; lower: string }>): Promise<{ written: Promise<unknown> }> => {
    const done = await Promise.all(chunk.map((c) => one(c.m)));
    for (const [k, d] of done.entries()) {
      await catalogWriter.add(d.row, d.entry);
      const entry = { id: d.row.id, address: d.entry.model, row: d.row, object: d.object, sources: d.sources };
      await pagesWriter?.add(entry, (chunk[k] as { lower: string }).lower);
      modelCount++;
      fileCount += d.files;
      byteCount += d.bytes;
    }
    const written = Promise.all(done.map((d) => d.written));
    written.catch(() => {}); // waited for below; this only keeps a failure from counting as unhandled meanwhile
    return { written };
  };
  // One chunk's objects are being written while the next chunk is encoded; every put is done before the catalog.
  let writing: Promise<unknown> = Promise.resolve();
  let chunk: Array<{ m: BuildModelInput; lower: string }> = [];
  for await (const m of input.models) {
    const lower = m.id.toLowerCase();
    if (seen.has(lower)) continue;
    seen.add(lower);
    chunk.push({ m, lower });
    if (chunk.length === BUILD_CONCURRENCY) {
      const next = await write(chunk);
      await writing;
      writing = next.written;
      chunk = [];
    }
  }
  const last = await write(chunk);
  await writing;
  await last.written;
  seen.clear();
  // One object, or a root plus content-addressed shards when it would pass the message limit.
  const { address: catalogAddress } = await catalogWriter.finish();
  const pages = pagesWriter ? await pagesWriter.finish(catalogAddress, input.date) : undefined;
  const spacesCatalog = (await objects.readRef(SPACES_REF))?.trim();
  const bucketsCatalog = (await objects.readRef(BUCKETS_REF))?.trim();
  const day: ArchiveDay = {
    date: input.date,
    index: catalogAddress,
    catalog: catalogAddress,
    archived: new Date((input.now ?? Date.now)()).toISOString(),
    models: modelCount,
    addressed: modelCount,
    files: fileCount,
    bytes: byteCount,
    prev: older[0]?.index ?? null,
    ...(input.codeCommit ? { source: input.codeCommit } : {}),
    // The spaces and buckets catalogs current when the day was built: the archive keeps each day's sections.
    ...(spacesCatalog ? { spaces: spacesCatalog as Address } : {}),
    ...(bucketsCatalog ? { buckets: bucketsCatalog as Address } : {}),
    ...(pages ? { pages } : {}),
  };
  // Newest first; a rebuild of the same day replaces that day. The day becomes a leaf of the transparency log (a log
  // started on a store that already has days takes those first, oldest first), then the archive and `current` switch.
  archive.days = [day, ...older];
  if (input.archive) Object.assign(archive, input.archive);
  const written = await commitDays(objects, archive, catalogAddress, input.signers ?? []);
  Object.assign(day, written.days[0]);
  return { catalog: catalogAddress, models: modelCount, files: fileCount, bytes: byteCount, day };
}

function sameContent(a: ModelObject, b: ModelObject): boolean {
  return canonicalJson({ ...a, prev: null }) === canonicalJson({ ...b, prev: null });
}

/** A catalog (joined from its shards), or nothing when there is none or it cannot be read (then nothing is skipped). */
async function readCatalogOrNone(objects: ObjectStore, address: Address | undefined): Promise<CatalogObject | undefined> {
  if (!address) return undefined;
  try {
    return await readCatalog(objects, address, { verified: true });
  } catch {
    return undefined;
  }
}

async function readPrev(objects: ObjectStore, address: string): Promise<ModelObject | undefined> {
  const s = await objects.get(address as Address);
  return s ? (JSON.parse(new TextDecoder().decode(s.bytes)) as ModelObject) : undefined;
}

/** The archive document kept in the `archive` ref (newest day first). */
export async function readArchive(objects: ObjectStore): Promise<Archive> {
  const raw = await objects.readRef('archive');
  if (!raw) return { format: 'svc.model-hub.archive/v1', days: [] };
  const parsed = ArchiveSchema.safeParse(JSON.parse(raw));
  return parsed.success ? { format: 'svc.model-hub.archive/v1', ...parsed.data } : { format: 'svc.model-hub.archive/v1', days: [] };
}
