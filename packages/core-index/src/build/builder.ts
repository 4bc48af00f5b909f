import { BUCKETS_REF } from '../buckets/schema.js';
import { type Address, addressOf } from '../index/blake3.js';
import { canonicalBytes } from '../index/canonical-json.js';
import { CatalogWriter, type RowText, rowText } from '../index/catalog-shards.js';
import { IndexPagesWriter, type ModelsPageHook } from '../index/index-pages.js';
import type { ObjectStore } from '../index/object-store.js';
import type { PagedEntry, PagesRoot } from '../index/page-layout.js';
import { readPageOrNone } from '../index/read-page.js';
import type { Archive, ArchiveDay } from '../index/schemas.js';
import type { PageObjects } from '../index/write-index-pages.js';
import { SPACES_REF } from '../spaces/catalog.js';
import type { NoteSigner } from '../tlog/note.js';
import { BasePositions } from './base-positions.js';
import { BuildMemo, BuildMemoWriter, inputKeys, MEMO_REF, type MemoModel, UNREADABLE } from './build-memo.js';
import { BaseCatalogs, SOURCE_PREFIX } from './catalog-entries.js';
import { commitDays, readArchive } from './commit-days.js';
import type { BuiltObjectKind } from './load-pack-writer.js';
import { type BuildModelInput, filesByPath, lazyRow, modelObjectOf, sourceObjectsOf, treeRevision, withRow } from './model-row.js';
import { pagesFormat } from './pages-format.js';
import { type Kept, keepStored, readPrev, sameContent, withHas } from './reuse-store.js';
import { inputOf, isUnchanged, type MadeModel, takesUnchanged, type UnchangedModelInput, unchangedModel } from './unchanged-model.js';

export const JSON_MEDIA_TYPE = 'application/json';

/** The OCI repository (`Archive.registry`) that holds every day's index as an artifact. */
export const ARCHIVE_REGISTRY = 'hub/index';

/** Write a value as a canonical-JSON hub object; returns its address. */
export async function putJson(objects: ObjectStore, kind: string, value: unknown): Promise<Address> {
  const bytes = canonicalBytes(value);
  const { meta } = await objects.put(bytes, { kind, mediaType: JSON_MEDIA_TYPE });
  return meta.id as Address;
}

export interface BuildInput {
  date: string;
  /**
   * in browse order; an iterable (sync or async) is read as it is built, so a million models need not be held. A model
   * that did not change since the build `since` stamps may be given without its input ({@link UnchangedModelInput}).
   */
  models: Iterable<BuildModelInput | UnchangedModelInput> | AsyncIterable<BuildModelInput | UnchangedModelInput>;
  /**
   * The stamp of the input the unchanged models are unchanged since: the `stamp` of the last build's input. Its memo
   * serves them only when it was written with that stamp; otherwise each is built from its input.
   */
  since?: string;
  /** This build's input stamp, asked once every model is read, kept in the memo for the next build's `since`. */
  stamp?: () => string;
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
   * the first start after the build reads what the builder already hashed instead of re-hashing every object. It
   * answers `false` when it wants no more (a pack past its size): it is not called again in this build.
   */
  onObject?: (kind: BuiltObjectKind, address: Address, value: unknown, bytes: Uint8Array) => undefined | boolean;
  /**
   * Reuse what the last build remembered (its memo, build-memo.ts) for the models whose input did not change and the
   * models pages whose models did not (default). `false`: read no memo, so every model's objects are made and hashed
   * again (the base day's pages still give each model its position, and its terms and digests patched with what
   * changed when it was written the same way); the memo is written either way.
   */
  reuse?: boolean;
  /**
   * Derive the day's index pages (design 11.1, index-pages.ts) from the models as they are built, and list their root
   * in the archive day (`pages`), so a paged store reads only what a request needs. Without it the day has no pages
   * (hosts load it whole). `true`, or (as hosts passed before the pages were streamed) the `LoadPackWriter` filled
   * through `onObject`: its objects are no longer read for the pages.
   */
  pages?: boolean | PageObjects;
  /**
   * With `pages`: each models page of the day in browse order, once its address is known, with its bytes when this
   * build composed it (none for a page reused from the last build, which is stored). Awaited: a host that makes
   * answers from the pages as they come (node-server's made answers) holds the build back while it is behind.
   */
  onModelsPage?: ModelsPageHook;
}

export interface BuildResult {
  catalog: Address;
  models: number;
  files: number;
  bytes: number;
  day: ArchiveDay;
}

export { readArchive } from './commit-days.js';
export { type BuildModelInput, modelObjectId, treeRevision } from './model-row.js';

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
  // What the last build remembered (build-memo.ts): with it, yesterday's catalog is not read.
  const memo = input.reuse === false ? undefined : await BuildMemo.read(objects, prevCatalogAddress);
  const basePages = older[0]?.pages;
  const positions = new BasePositions(objects, basePages, memo);
  const memoWriter = new BuildMemoWriter(objects);
  // What the store holds as the build starts, listed once (a local store): the objects the memo reuses are checked
  // against it, not one call to the disk each. Only with a memo: a build without one reuses nothing.
  const listed = memo && objects.listing ? await objects.listing() : undefined;
  // The store as the checks of what the memo names see it: `has` from that listing (the catalog shards, index pages
  // and objects of earlier builds), everything else the store's own.
  const checking: ObjectStore = listed ? withHas(objects, async (a) => listed.missing([a]).length === 0) : objects;
  // Without a memo that knows an id: the catalog entries of yesterday and of this same day built before.
  const sameDay = archive.days.find((d) => d.date === input.date)?.index as Address | undefined;
  const catalogs = new BaseCatalogs(objects, prevCatalogAddress, sameDay);
  const memoBase = (b: MemoModel) => (b.base === 1 ? `blake3:${b.model}` : b.base === 2 && b.prev ? `blake3:${b.prev}` : null);
  const display = input.display ?? ((s: string) => s);
  const format = await pagesFormat();
  // A catalog shard whose rows are the last build's (by their input keys and addresses) is that shard.
  const catalogWriter = new CatalogWriter(
    checking,
    { date: input.date, prev: prevCatalogAddress ?? null },
    input.catalogLimit,
    {
      shard: (k) => {
        const a = memo?.look(k, format);
        return a ? (`blake3:${a}` as Address) : undefined;
      },
      record: (k, a) => memoWriter.look(k, a.slice('blake3:'.length)),
    },
    (part, place) => memoWriter.place(part, place),
  );
  const pagesWriter = input.pages
    ? new IndexPagesWriter(
        checking,
        {
          page: (k) => memo?.page(k, format),
          record: (k, p) => memoWriter.page(k, p),
          root: async (list) => memo?.root(list, format),
          recordRoot: (list, root) => memoWriter.root(list, root),
          look: (k) => memo?.look(k, format),
          recordLook: (k, a) => memoWriter.look(k, a),
          keepLooks: (addresses) => {
            for (const [k, a] of memo?.looksFor(addresses) ?? []) memoWriter.look(k, a);
          },
          sectionBase: () => memo?.sectionBase(() => memo.lastRoot(format)),
          basePages: () => ({ format, ...(basePages ? { root: () => readPageOrNone<PagesRoot>(objects, basePages) } : {}) }),
          recordSectionSizes: (s) => memoWriter.sectionSizes(s),
          recordFacts: (f) => memoWriter.facts(f),
          recordPositions: (p) => memoWriter.positions(p),
        },
        input.onModelsPage,
      )
    : undefined;
  let modelCount = 0;
  let fileCount = 0;
  let byteCount = 0;
  const seen = new Set<string>();
  // The host's `onObject` until it answers `false` (it wants no more: a load pack past its size): then no object's
  // bytes are made for it (a reused or unchanged model's are not at hand).
  let onObject = input.onObject;
  const report = (kind: BuiltObjectKind, address: Address, value: unknown, bytes?: Uint8Array) => {
    if (onObject?.(kind, address, value, bytes ?? canonicalBytes(value)) === false) onObject = undefined;
  };
  const one = async (m: BuildModelInput, rank: number) => {
    const files = filesByPath(m.files);
    const keys = inputKeys(
      m,
      m.sources.map((s) => display(s.source)),
    );
    const looked = memo?.model(m.id);
    const before = looked === UNREADABLE ? undefined : looked;
    // A memo of yesterday knows every id yesterday's catalog named, unless a record that may be this one's cannot be
    // read now: then that catalog is read for it, as without a memo.
    const knows = memo?.mode === 'yesterday' && looked !== UNREADABLE;
    // The whole input as the memo's build had it (its row too): the same objects, row and catalog member, whose size
    // the memo knows, so the row is not serialized unless its catalog shard must be composed.
    const same = before?.full === keys.full && before.rowBytes !== undefined ? before : undefined;
    const key = same ? same.key : keys.objects();
    // The same input as the memo's build: the same objects at the same addresses (see build-memo.ts), when the
    // memo's build chained to the same base or is that base itself. Nothing is encoded or hashed for them.
    const reused = before && before.key === key ? before : undefined;
    const revision = reused ? reused.revision : (m.revision ?? treeRevision(files));
    const modelObject = modelObjectOf(m, files, revision, reused?.prev ? (`blake3:${reused.prev}` as Address) : null);
    const sourceValues = sourceObjectsOf(m, revision);
    // Each object is encoded and hashed once: the unchanged check below and the put share its bytes and address.
    const encode = (value: unknown) => {
      const bytes = canonicalBytes(value);
      return { value, bytes, address: addressOf(bytes) };
    };
    // The address this id had in the base catalog (yesterday's), which a changed model's object points back at.
    const baseModel = before ? (knows ? `blake3:${before.model}` : memoBase(before)) : knows ? null : await catalogs.model(m.id);
    // Each object's address is known from its bytes (or the memo): the row and the pages use it at once, and the puts
    // are waited for a chunk later (so the next models are encoded while these are written).
    const puts: Array<Promise<unknown>> = [];
    const kept: Kept[] = [];
    let modelAddress: Address;
    let sourceAddresses: Address[];
    if (reused) {
      // Reused objects are put again only if the store lost them (checked for a whole chunk at once, see `keepStored`).
      const keep = (kind: BuiltObjectKind, value: unknown, address: Address): Address => {
        if (onObject) report(kind, address, value);
        kept.push({ id: m.id, kind, value: () => value, address });
        return address;
      };
      modelAddress = keep('model-hub.model', modelObject, `blake3:${reused.model}`);
      sourceAddresses = sourceValues.map((v, k) => keep('model-hub.source', v, `blake3:${reused.sources[k]}`));
    } else {
      let encodedModel = encode(modelObject);
      // Chain to yesterday's object for this model only when it changed. A model unchanged since it was first indexed
      // (its object's `prev` is null) hashes to yesterday's address as it is: no read. Otherwise yesterday's object is
      // read to tell an unchanged model (it keeps its object and address) from a changed one (which points back at
      // yesterday's).
      if (baseModel && encodedModel.address !== baseModel) {
        if (before && baseModel === `blake3:${before.model}`) {
          // Yesterday's object is the memo's, whose `prev` the memo knows: this model has the same content exactly when
          // it hashes to yesterday's address with that `prev` (no read).
          if (before.prev) {
            modelObject.prev = `blake3:${before.prev}`;
            encodedModel = encode(modelObject);
          }
          if (encodedModel.address !== baseModel) {
            modelObject.prev = baseModel as Address;
            encodedModel = encode(modelObject);
          }
        } else {
          const old = await readPrev(objects, baseModel);
          modelObject.prev = old && sameContent(old, modelObject) ? old.prev : (baseModel as Address);
          encodedModel = encode(modelObject);
        }
      }
      // The model and its source objects in one go (a store that commits puts in groups writes them together). One the
      // base catalog or this day's previous build names for this model (by its first 8 bytes: a false match costs a
      // `has`) and the store has is not put again (a rebuild where few models changed puts only theirs).
      const names = before ? [before.model, ...before.sources].map((a) => `blake3:${a}`) : knows ? [] : await catalogs.addresses(m.id);
      const known = new Set(names.map((a) => a.slice(0, SOURCE_PREFIX)));
      const store = (kind: BuiltObjectKind, { value, bytes, address }: ReturnType<typeof encode>): Address => {
        if (onObject) report(kind, address, value, bytes);
        const put = () => objects.put(bytes, { kind, mediaType: JSON_MEDIA_TYPE });
        const named = known.has(address.slice(0, SOURCE_PREFIX));
        puts.push(named ? checking.has(address).then((has) => (has ? undefined : put())) : put());
        return address;
      };
      modelAddress = store('model-hub.model', encodedModel);
      sourceAddresses = sourceValues.map((v) => store('model-hub.source', encode(v)));
    }
    // The row is made when something reads it: an unchanged row whose models page and catalog text are the last
    // build's is never made.
    const rowOf = lazyRow(m, files, revision, modelAddress, display);
    const entry = { model: modelAddress, sources: sourceAddresses };
    const text: RowText =
      same && reused
        ? withRow(
            {
              id: m.id,
              entry,
              json: undefined,
              member: undefined,
              bytes: same.rowBytes as number,
              key: keys.full,
              src: same.rank === undefined ? undefined : memo?.source(same.rank),
            },
            rowOf,
          )
        : { ...rowText(rowOf(), entry), key: keys.full };
    memoWriter.model(m.id, {
      key,
      model: modelAddress,
      prev: modelObject.prev,
      base: baseModel === null ? 0 : baseModel === modelAddress ? 1 : 2,
      revision,
      sources: sourceAddresses,
      full: keys.full,
      rowBytes: text.bytes,
      rank,
      files: files.length,
      bytes: files.reduce((n, f) => n + f.size, 0),
    });
    const sources = sourceValues.map((v, k) => ({ address: sourceAddresses[k] as string, object: v }));
    return {
      text,
      page: withRow({ id: m.id, address: modelAddress as string, object: modelObject, sources }, rowOf) as PagedEntry,
      files: files.length,
      bytes: files.reduce((n, f) => n + f.size, 0),
      written: Promise.all(puts),
      kept,
      // the same row as the memo's: its part of the look-up tables is the memo's too
      facts: same && reused && same.rank !== undefined ? memo?.facts(same.rank) : undefined,
      was: await positions.of(m.id.toLowerCase(), looked),
    };
  };
  // A model given as unchanged since the memo's input is taken from the memo (unchanged-model.ts), else built from
  // its input as any model is.
  const sameInput = memo !== undefined && input.since !== undefined && memo.stamp === input.since;
  const make = async (m: BuildModelInput | UnchangedModelInput, rank: number): Promise<MadeModel> => {
    if (!isUnchanged(m)) return one(m, rank);
    const looked = sameInput ? memo?.model(m.id) : undefined;
    const before = looked === UNREADABLE ? undefined : looked;
    if (!memo || !takesUnchanged(before)) return one(inputOf(m), rank);
    const { made, record } = unchangedModel(m, before, {
      rank,
      base: memo.mode === 'yesterday' ? 1 : before.base,
      place: memo.source(before.rank),
      display,
      ...(onObject ? { onObject: report } : {}),
    });
    memoWriter.model(m.id, record);
    made.facts = memo.facts(before.rank);
    made.was = await positions.of(m.id.toLowerCase(), looked);
    return made;
  };
  // Models are read from the input as they come and written BUILD_CONCURRENCY at a time (the store commits their
  // objects together); rows, catalog shards and models pages follow the input order. Nothing is held per model but
  // what the catalog's current shard and the pages' look-up tables need. Objects already stored are not written again.
  type Item = { m: BuildModelInput | UnchangedModelInput; lower: string; rank: number };
  const write = async (chunk: Item[]): Promise<{ written: Promise<unknown> }> => {
    const done = await Promise.all(chunk.map((c) => make(c.m, c.rank)));
    for (const [k, d] of done.entries()) {
      await catalogWriter.addText(d.text);
      await pagesWriter?.add(d.page, (chunk[k] as Item).lower, d.text.key, d.facts, d.was);
      modelCount++;
      fileCount += d.files;
      byteCount += d.bytes;
    }
    const kept = done.flatMap((d) => d.kept);
    const written = Promise.all([...done.map((d) => d.written), keepStored(objects, kept, listed)]);
    written.catch(() => {}); // waited for below; this only keeps a failure from counting as unhandled meanwhile
    return { written };
  };
  // One chunk's objects are being written while the next chunk is encoded; every put is done before the catalog.
  let writing: Promise<unknown> = Promise.resolve();
  let chunk: Item[] = [];
  for await (const m of input.models) {
    const lower = m.id.toLowerCase();
    if (seen.has(lower)) continue;
    seen.add(lower);
    chunk.push({ m, lower, rank: seen.size - 1 });
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
  memo?.modelsRead();
  // what only the stream reads
  catalogs.release();
  positions.release();
  // One object, or a root plus content-addressed shards when it would pass the message limit.
  // Its address is known before it is stored: the pages and the memo are written while it is, and no ref names it
  // before it is stored.
  const { address: catalogAddress, shards, written: catalogWritten } = await catalogWriter.finishing();
  const pages = pagesWriter ? await pagesWriter.finish(catalogAddress, input.date) : undefined;
  const parts = shards.length > 0 ? shards : [catalogAddress];
  const memoAddress = await memoWriter.finish(catalogAddress, prevCatalogAddress ?? null, format, parts, input.stamp?.());
  await catalogWritten;
  // The memo is stored before the day is committed; one whose catalog never became a day is still of a build that
  // chained to the same base, so the next build can use it (BuildMemo.read).
  await objects.writeRef(MEMO_REF, memoAddress);
  const [spacesCatalog, bucketsCatalog] = (await Promise.all([SPACES_REF, BUCKETS_REF].map((r) => objects.readRef(r)))).map((v) =>
    v?.trim(),
  );
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
