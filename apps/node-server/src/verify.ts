import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import {
  type Address,
  addressOf,
  type CatalogObject,
  CatalogObjectSchema,
  CatalogShardSchema,
  checkLogStore,
  type IndexStore,
  isAddress,
  type LoadPackStorage,
  type LoadPackWriter,
  type Logger,
  loadIndex,
  ModelObjectSchema,
  openPagedIndex,
  type PagesRoot,
  readArchive,
  SourceObjectSchema,
} from '@hub/core-index';
import { indexStoreKind, PAGED_FROM_MODELS } from '@hub/hub';
import { type FsObjectStore, writeFileAtomic } from '@hub/objects/node';

/** The load pack's file in the data folder: replaced whole on each new index (never an object of the store). */
export const LOAD_PACK_FILE = 'load-pack';

/**
 * The load pack's digest here: SHA-256 by node:crypto (about 0.1 s for the 157 MB pack of 100,000 models on an idle
 * core, against about 1 s for blake3-wasm's first pass over 97 MB). The pack is local start state, never a hub
 * object, so it need not carry a hub address; the digest only has to refuse a damaged, truncated or hand-edited pack.
 * Hashed in steps of {@link DIGEST_STEP} bytes with a turn of the event loop between them, so a hub that switches to
 * a new day keeps answering while it checks the new pack.
 */
export async function packDigest(bytes: Uint8Array): Promise<string> {
  const hash = createHash('sha256');
  for (let at = 0; at < bytes.length; at += DIGEST_STEP) {
    if (at > 0) await new Promise<void>((resolve) => setImmediate(resolve));
    hash.update(bytes.subarray(at, at + DIGEST_STEP));
  }
  return `sha256:${hash.digest('hex')}`;
}

/** Bytes hashed between two turns of the event loop (about 6 ms of SHA-256 on an idle core). */
const DIGEST_STEP = 8 * 1024 * 1024;

/** The load pack as one file, written atomically (a kill mid-write leaves the old pack or none). */
export function fileLoadPack(dataDir: string): LoadPackStorage {
  const file = path.join(dataDir, LOAD_PACK_FILE);
  return {
    digest: packDigest,
    read: () =>
      readFile(file).then(
        (b) => new Uint8Array(b.buffer, b.byteOffset, b.byteLength),
        () => undefined,
      ),
    write: (bytes) => writeFileAtomic(file, bytes),
  };
}

export interface VerifyReport {
  objects: number;
  faults: string[];
  catalogs: number;
}

const decoder = new TextDecoder();

/**
 * The ref naming the catalog whose objects were re-hashed and schema-checked in full (when it was first started on
 * or switched to). A start on that catalog reads its objects without re-hashing them; any other catalog is verified
 * in full first. `hub index verify` resets it when it finds a fault.
 */
export const VERIFIED_REF = 'verified';

/**
 * Load `address`, verifying it in full unless it is the catalog already verified (then recorded as verified). With
 * `pack` (the data folder's {@link fileLoadPack}), a start on the verified catalog reads one prepared pack.
 */
export async function loadVerifiedOnce(store: FsObjectStore, address: Address, pack?: LoadPackStorage): Promise<IndexStore> {
  const trusted = (await store.readRef(VERIFIED_REF)) === address;
  const index = await loadIndex(store, address, { verified: trusted, ...(pack ? { pack } : {}) });
  if (!trusted) await store.writeRef(VERIFIED_REF, address);
  return index;
}

/**
 * Write what a start needs for `catalog` in this data folder (the load pack and the {@link VERIFIED_REF}), so the
 * first start after a build or an import is as fast as a later one. Call it after the catalog and every object it
 * names are in the store.
 * - `built`: the builder's own objects (a {@link LoadPackWriter} filled through `buildIndex`'s `onObject`), hashed and
 *   schema-checked as they were made: written as the pack with no read of the store ('built'). One that failed its
 *   schema check writes nothing ('fault'): the next start then verifies in full and refuses the index, as before.
 * - no `built` (objects that came from elsewhere, such as an imported bundle): every object is re-hashed and
 *   schema-checked once now, as a first start would, and the pack written from them ('verified'); a fault throws
 *   `IndexLoadError` and records nothing.
 * A damaged or foreign pack still means a full check at the next start (`loadIndex`).
 */
export async function writeLoadPack(
  store: FsObjectStore,
  dataDir: string,
  catalog: Address,
  built?: LoadPackWriter,
): Promise<{ pack: 'built' | 'verified' | 'fault' | 'skipped'; fault?: string }> {
  if (!built) {
    if ((await store.readRef(VERIFIED_REF)) === catalog) await store.writeRef(VERIFIED_REF, 'none');
    await loadVerifiedOnce(store, catalog, fileLoadPack(dataDir));
    return { pack: 'verified' };
  }
  if (built.fault) return { pack: 'fault', fault: built.fault };
  if (built.skipped) return { pack: 'skipped' };
  // The pack first, then the ref: a crash between the two leaves a pack the next start verifies before trusting.
  const pack = fileLoadPack(dataDir);
  await pack.write(await built.bytes(store, catalog, pack.digest));
  await store.writeRef(VERIFIED_REF, catalog);
  return { pack: 'built' };
}

/**
 * The most models a build keeps for the load pack, by the store the hub serves with (`indexStore`): every model for
 * `memory`, none for `paged`, and for `auto` (the default) fewer than {@link PAGED_FROM_MODELS}, from which a day is
 * served from its pages.
 */
export function loadPackLimit(indexStore: string | undefined): number {
  const kind = indexStoreKind(indexStore, 'indexStore (or HUB_INDEX_STORE)');
  return kind === 'memory' ? Number.POSITIVE_INFINITY : kind === 'paged' ? 0 : PAGED_FROM_MODELS - 1;
}

/** {@link writeLoadPack} after a build, logged and never thrown (a pack that could not be made only costs the next start a full check). */
export async function writeLoadPackAfterBuild(store: FsObjectStore, dataDir: string, catalog: Address, pack: LoadPackWriter, log?: Logger) {
  try {
    const r = await writeLoadPack(store, dataDir, catalog, pack);
    if (r.fault) log?.warn({ event: 'load-pack', catalog, fault: r.fault }, 'no load pack: the next start verifies every object');
    else if (r.pack === 'skipped')
      log?.info({ event: 'load-pack', catalog, reason: pack.skipped }, 'no load pack: the day is served from its pages');
    else log?.info({ event: 'load-pack', catalog, models: pack.models.size }, 'load pack written for the next start');
  } catch (e) {
    log?.warn({ event: 'load-pack', catalog, err: String(e).slice(0, 300) }, 'no load pack: the next start verifies every object');
  }
}

/**
 * Re-hash every object against its address, check that every catalog's model and source references
 * exist and parse, and walk the archive chain. Any fault is listed; none means the store is sound.
 */
export async function verifyStore(store: FsObjectStore, progress?: (n: number) => void): Promise<VerifyReport> {
  const faults: string[] = [];
  let count = 0;
  for await (const address of store.addresses()) {
    const bytes = await store.rawBytes(address);
    count++;
    progress?.(count);
    if (!bytes) {
      faults.push(`${address}: unreadable`);
      continue;
    }
    const actual = addressOf(bytes);
    if (actual !== address) faults.push(`${address}: bytes hash to ${actual}`);
  }

  const catalogs = new Set<string>();
  const current = await store.readRef('current');
  if (current) catalogs.add(current);
  else faults.push('ref current: missing (no index has been built)');
  const archive = await readArchive(store);
  // The catalog each archived day's catalog should chain to (`prev`), by catalog address.
  const expectedPrev = new Map<string, string | null>();
  for (let i = 0; i < archive.days.length; i++) {
    const day = archive.days[i]!;
    catalogs.add(day.index);
    const older = archive.days[i + 1];
    if ((day.prev ?? null) !== (older?.index ?? null))
      faults.push(`archive day ${day.date}: prev ${day.prev} should be ${older?.index ?? null}`);
    if (day.catalog && day.catalog !== day.index)
      faults.push(`archive day ${day.date}: catalog ${day.catalog} differs from index ${day.index}`);
    if (older && older.date >= day.date) faults.push(`archive day ${day.date}: listed before ${older.date}; days must be newest first`);
    expectedPrev.set(day.index, older?.index ?? null);
    if (day.pages) faults.push(...(await dayPagesFaults(store, day.date, day.pages as Address, (day.catalog ?? day.index) as Address)));
  }
  const newest = archive.days[0];
  if (current && newest && current !== newest.index)
    faults.push(`ref current: ${current} is not the newest archived day (${newest.date}, ${newest.index})`);
  for (const c of catalogs) await verifyCatalog(store, c, faults, expectedPrev);
  // The transparency log: its tiles against its entries, its checkpoint against its root, its leaves against the days.
  faults.push(...(await checkLogStore(store, archive.days)));
  // A store with a fault is no longer trusted: the next start re-hashes and schema-checks the index it serves, and
  // refuses to start on a fault there (see VERIFIED_REF).
  if (faults.length > 0) await store.writeRef(VERIFIED_REF, 'none');
  return { objects: count, faults, catalogs: catalogs.size };
}

/**
 * A day's index pages (design 11.1): the root opens as this day's (its kind, version and catalog), and every page it
 * names is in the store (each is re-hashed with every object by {@link verifyStore}, and by a bundle import, so a
 * damaged page is named there). The faults found, none when the pages are sound.
 */
export async function dayPagesFaults(store: FsObjectStore, date: string, pages: Address, catalog: Address): Promise<string[]> {
  let root: PagesRoot;
  try {
    root = (await openPagedIndex(store, pages, catalog)).root;
  } catch (e) {
    return [`archive day ${date}: index pages ${pages}: ${(e as Error).message}`];
  }
  const faults: string[] = [];
  const lists = [root.models, root.ids, root.shas, root.terms, root.names, ...Object.values(root.orders)];
  for (const list of lists)
    for (const a of [...(list.pages ?? []), ...(list.dirs ?? [])])
      if (!(await store.has(a as Address))) faults.push(`archive day ${date}: index page ${a} of ${pages} is missing`);
  return faults;
}

async function parseObject<T>(store: FsObjectStore, address: string, parse: (v: unknown) => T, what: string, faults: string[]) {
  if (!isAddress(address)) {
    faults.push(`${what}: ${address} is not an address`);
    return undefined;
  }
  const bytes = await store.rawBytes(address as Address);
  if (!bytes) {
    faults.push(`${what}: ${address} is missing`);
    return undefined;
  }
  if (addressOf(bytes) !== address) return undefined; // already reported
  try {
    return parse(JSON.parse(decoder.decode(bytes)));
  } catch (e) {
    faults.push(`${what}: ${address} does not match its schema (${(e as Error).message.slice(0, 120)})`);
    return undefined;
  }
}

type Row = CatalogObject['rows'][number];
type Entry = CatalogObject['objects'][string];

/**
 * Check one catalog a shard at a time (a shard carries a run of rows and their objects entries), so memory is bounded
 * by a shard whatever the index size: the root, its `prev`, each shard (there, hashing to its address, parsing, its
 * row count), each entry's model and source objects, and each row against its entry. A row and its entry in different
 * shards (never so in a built catalog) wait for each other across shards: only those are held.
 */
async function verifyCatalog(store: FsObjectStore, address: string, faults: string[], expectedPrev: Map<string, string | null>) {
  const root = await parseObject(store, address, (v) => CatalogObjectSchema.parse(v), 'catalog', faults);
  if (!root) return;
  const wanted = expectedPrev.get(address);
  if (wanted !== undefined && root.prev !== wanted)
    faults.push(`catalog ${address} (${root.date}): prev ${root.prev} should be ${wanted}, the day before in the archive`);
  if (root.prev && !(await store.has(root.prev as Address))) faults.push(`catalog ${address}: prev ${root.prev} is missing`);
  const waiting = { rows: new Map<string, Row>(), entries: new Map<string, { entry: Entry; revision: string | undefined }>() };
  await verifyRun(store, address, root, waiting, faults);
  for (const [i, ref] of (root.shards ?? []).entries()) {
    const shard = await parseObject(store, ref.address, (v) => CatalogShardSchema.parse(v), `catalog ${address} shard ${i}`, faults);
    if (!shard) continue;
    if (shard.rows.length !== ref.models)
      faults.push(`catalog ${address} shard ${i} (${ref.address}): ${shard.rows.length} rows, the root says ${ref.models}`);
    await verifyRun(store, address, shard, waiting, faults);
  }
  // A row whose entry no shard holds names a manifest the catalog does not list.
  for (const row of waiting.rows.values()) faults.push(`catalog ${address}: row ${row.id} names manifest ${row.svc.manifest}`);
}

/** The rows of one run (the root's own or a shard's) and their entries' objects; `waiting` carries the unmatched on. */
async function verifyRun(
  store: FsObjectStore,
  address: string,
  run: { rows: Row[]; objects: Record<string, Entry> },
  waiting: { rows: Map<string, Row>; entries: Map<string, { entry: Entry; revision: string | undefined }> },
  faults: string[],
) {
  const rows = new Map(run.rows.map((r) => [r.id, r] as const));
  const sameRow = (row: Row, entry: Entry, revision: string | undefined) => {
    if (revision !== undefined && row.sha !== revision)
      faults.push(`catalog ${address}: row ${row.id} has sha ${row.sha}, its model object ${revision}`);
    if (entry.model !== row.svc.manifest) faults.push(`catalog ${address}: row ${row.id} names manifest ${row.svc.manifest}`);
  };
  for (const [id, entry] of Object.entries(run.objects)) {
    const model = await parseObject(store, entry.model, (v) => ModelObjectSchema.parse(v), `model ${id}`, faults);
    if (model && model.id !== id) faults.push(`model ${id}: object names ${model.id}`);
    if (model?.prev && !(await store.has(model.prev as Address))) faults.push(`model ${id}: prev ${model.prev} is missing`);
    for (const s of entry.sources) {
      const source = await parseObject(store, s, (v) => SourceObjectSchema.parse(v), `source of ${id}`, faults);
      if (source && model && (source.model !== id || source.revision !== model.revision)) {
        faults.push(`source ${s} of ${id}: names ${source.model}@${source.revision}, the model is at ${model.revision}`);
      }
    }
    const row = rows.get(id) ?? waiting.rows.get(id);
    if (!row) waiting.entries.set(id, { entry, revision: model?.revision });
    else if (!rows.has(id)) {
      waiting.rows.delete(id);
      sameRow(row, entry, model?.revision);
    } else if (model && row.sha !== model.revision)
      faults.push(`catalog ${address}: row ${id} has sha ${row.sha}, its model object ${model.revision}`);
  }
  for (const row of run.rows) {
    const here = run.objects[row.id];
    if (here) {
      if (here.model !== row.svc.manifest) faults.push(`catalog ${address}: row ${row.id} names manifest ${row.svc.manifest}`);
      continue;
    }
    const earlier = waiting.entries.get(row.id);
    if (earlier) {
      waiting.entries.delete(row.id);
      sameRow(row, earlier.entry, earlier.revision);
    } else waiting.rows.set(row.id, row);
  }
}
