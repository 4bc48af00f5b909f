/**
 * Bundles (design 10.3): one folder carrying a hub's index across an air gap. `bundle.json` names the day and the
 * archive, and `objects.jsonl` lists every object (the day's catalog, its shards, model and source objects, its index
 * pages, and every earlier day's) exactly as the hub published them, one a line; `objects/<2 hex>/<hex>` holds their
 * bytes; `mirror/` is a local mirror of the chosen models' files (format v2, bundle-schema.ts; v1 still imports).
 * Importing checks every object against its BLAKE3 address and every file against its SHA-256 before it takes any.
 */
import { existsSync } from 'node:fs';
import { copyFile, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type ClientOptions, collectIndexObjects, hubCatalogRoot, namingFetch } from '@hub/client';
import {
  heldFiles,
  type MirrorFileEvent,
  type MirrorModel,
  pullIntoMirror,
  readMirrorManifest,
  sha256File,
  writeMirrorManifest,
} from '@hub/client/node';
import {
  type Address,
  type Archive,
  ArchiveSchema,
  addressOf,
  BUNDLE_FILE,
  BUNDLE_FORMAT,
  BUNDLE_FORMAT_V1,
  type Bundle,
  BundleSchema,
  type BundleV1,
  BundleV1Schema,
  CatalogObjectSchema,
  commitDays,
  mirrorFilePath,
  parseMirrorManifest,
} from '@hub/core-index';
import { indexStoreKind, servedFromPages } from '@hub/hub';
import { FsObjectStore, syncFs, writeFileAtomic } from '@hub/objects/node';
import { BundleError, bundleObjects, folderMaker, ObjectListWriter, objectFile } from './bundle-objects.js';
import { DATA_MIRROR, IMPORTED_FILE } from './data-folder.js';
import { writeMadeAnswersAfterBuild } from './made-answers-writer.js';
import { dayPagesFaults, writeLoadPack } from './verify.js';

export { BundleError };

/** A parsed `bundle.json` of either format; throws a readable error naming the first problem. */
function parseBundle(v: unknown): Bundle | BundleV1 {
  const format = (v as { format?: unknown } | null)?.format;
  const schema = format === BUNDLE_FORMAT_V1 ? BundleV1Schema : BundleSchema;
  if (format !== BUNDLE_FORMAT && format !== BUNDLE_FORMAT_V1)
    throw new Error(
      `format: ${JSON.stringify(String(format).slice(0, 60))} is not a bundle format this hub reads (${BUNDLE_FORMAT}, ${BUNDLE_FORMAT_V1})`,
    );
  const parsed = schema.safeParse(v);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`${issue?.path.join('.') || 'the document'}: ${issue?.message ?? 'not a bundle'}`);
  }
  return { ...parsed.data, archive: { format: 'svc.model-hub.archive/v1', ...parsed.data.archive } } as Bundle | BundleV1;
}

/** JSON written whole or not at all (temp file, fsync, rename). */
const writeJsonAtomic = (file: string, value: unknown) => writeFileAtomic(file, `${JSON.stringify(value, null, 1)}\n`);

/**
 * Write a bundle of the hub's current index and a mirror of `models` into `out` (format v2: the object list a line
 * at a time, so any size of index takes bounded memory). Resumable: objects are fetched again (an earlier run's are
 * removed first, so the folder holds exactly this run's), the mirror keeps its verified files and partial ones;
 * `bundle.json` is written last, after the objects and the list are flushed to disk.
 */
export async function bundleCreate(
  opts: ClientOptions & { hasher: NonNullable<ClientOptions['hasher']> },
  out: string,
  models: MirrorModel[],
  options: {
    parallel?: number;
    onFile?: (e: MirrorFileEvent) => void;
    fromMirror?: string;
    /** every so many objects taken (a progress line) */
    onObjects?: (n: number) => void;
  } = {},
): Promise<{ catalog: string; date: string; objects: number; files: number; failed: number; copied: number }> {
  const f = namingFetch(opts.fetch ?? fetch);
  const { address, root } = await hubCatalogRoot(opts.hub, f);
  const r = await f(`${opts.hub.replace(/\/+$/, '')}/api/hub/archive`);
  if (!r.ok) throw new Error(`the hub's archive answered HTTP ${r.status}`);
  const served = ArchiveSchema.parse(await r.json());
  // Only the days up to the catalog served now (a day built after the catalog was read waits for the next bundle).
  const at = served.days.findIndex((d) => d.index === address);
  const days = at === -1 ? [] : served.days.slice(at);
  const archive: Archive = { format: 'svc.model-hub.archive/v1', days, ...(served.registry ? { registry: served.registry } : {}) };
  await rm(path.join(out, BUNDLE_FILE), { force: true });
  // The folder holds this run's objects only: an object is taken once, when its file is not there yet (the walk
  // keeps no set of every address), so an earlier run's are removed first.
  await rm(path.join(out, 'objects'), { recursive: true, force: true });
  await mkdir(path.join(out, 'objects'), { recursive: true });
  const list = await ObjectListWriter.create(out);
  const folder = folderMaker();
  let taken = 0;
  try {
    // Every day's catalog and its index pages (what a paged store reads), each with all it names.
    const roots = [address, ...days.flatMap((d) => [d.index, ...(d.pages ? [d.pages] : [])])];
    await collectIndexObjects(opts.hub, roots, {
      fetch: f,
      held: (a) => existsSync(objectFile(out, a)),
      onObject: async (o) => {
        const file = objectFile(out, o.address);
        await folder(file);
        await writeFile(file, o.bytes);
        await list.add({ address: o.address, kind: o.kind, media_type: o.mediaType });
        if (++taken % 1000 === 0) options.onObjects?.(taken);
      },
    });
  } catch (e) {
    await list.abandon();
    throw e;
  }
  // The objects' contents on disk before the list that names them (one flush of the filesystem; where `sync -f` is
  // missing an import still re-hashes every object, so a torn one is refused, never taken).
  await syncFs(path.join(out, 'objects')).catch(() => {});
  const objects = await list.finish();
  const copied = options.fromMirror ? await seedFromMirror(options.fromMirror, path.join(out, DATA_MIRROR), models) : 0;
  const report = await pullIntoMirror(opts, path.join(out, DATA_MIRROR), models, options);
  const bundle: Bundle = {
    format: BUNDLE_FORMAT,
    created: new Date().toISOString(),
    hub: opts.hub,
    catalog: address,
    date: root.date,
    archive,
    objects,
    models: models.map((m) => m.id),
  };
  await writeJsonAtomic(path.join(out, BUNDLE_FILE), bundle);
  return {
    catalog: address,
    date: root.date,
    objects: objects.count,
    files: report.manifest.files.length,
    failed: report.files.filter((e) => e.status === 'failed').length,
    copied,
  };
}

/**
 * Copy the files `models` need from an existing mirror (`hub mirror pull`'s folder) into the bundle's, each re-hashed
 * on the way (a damaged one is left for the download); returns how many were copied.
 */
async function seedFromMirror(from: string, to: string, models: MirrorModel[]): Promise<number> {
  await mkdir(path.join(to, 'sha256'), { recursive: true });
  await mkdir(path.join(to, '.partial'), { recursive: true });
  const have = await heldFiles(from);
  const already = await heldFiles(to);
  let copied = 0;
  for (const f of new Map(models.flatMap((m) => m.files.map((x) => [x.sha256, x] as const))).values()) {
    if (already.get(f.sha256) === f.size || have.get(f.sha256) !== f.size) continue;
    const temp = path.join(to, '.partial', `${f.sha256}.seed`);
    await copyFile(path.join(from, mirrorFilePath(f.sha256)), temp);
    if ((await sha256File(temp)) !== f.sha256) {
      await rm(temp, { force: true });
      continue;
    }
    await rename(temp, path.join(to, mirrorFilePath(f.sha256)));
    copied++;
  }
  return copied;
}

/** Objects put at once by an import (fewer when they pass {@link IMPORT_GROUP_BYTES}). */
const IMPORT_GROUP = 1024;
/** The most bytes of objects an import holds at once (a group is cut there: catalog shards are megabytes each). */
const IMPORT_GROUP_BYTES = 64 * 1024 * 1024;
/** Objects read and hashed at once while an import checks them. */
const CHECK_GROUP = 64;

/** The entries of `list` in groups of `size`, in list order. */
async function* groups<T>(list: AsyncIterable<T>, size: number): AsyncGenerator<T[]> {
  let group: T[] = [];
  for await (const x of list) {
    group.push(x);
    if (group.length >= size) {
      yield group;
      group = [];
    }
  }
  if (group.length > 0) yield group;
}

/**
 * Import a bundle (v2, or v1 as earlier hubs wrote them) into a data folder: every object must hash to its address
 * and the catalog must parse; every mirror file must hash to its name and match the manifest's size; a data folder
 * already serving an index must find it in the bundle's archive (the bundle is a later day of the same chain). Only
 * then are objects put, files copied into the data folder's mirror, and the refs (`archive`, then `current`) written.
 * Memory stays bounded whatever the index size: the objects are checked a group at a time without keeping their bytes,
 * then read again to be put a group at a time; the whole index is loaded once (the load pack) only for a day the
 * configured store (`indexStore`) loads whole, and a day served from its pages is opened from them instead.
 */
export async function bundleImport(
  input: string,
  dataDir: string,
  options: { progress?: (what: string) => void; indexStore?: string } = {},
): Promise<{ catalog: string; date: string; objects: number; objectsNew: number; files: number; filesNew: number }> {
  let bundle: Bundle | BundleV1;
  try {
    bundle = parseBundle(JSON.parse(await readFile(path.join(input, BUNDLE_FILE), 'utf8')));
  } catch (e) {
    throw new BundleError(`${input} is not a complete bundle (${BUNDLE_FILE}: ${(e as Error).message.split('\n')[0]})`);
  }
  const kind = indexStoreKind(options.indexStore, 'indexStore (or HUB_INDEX_STORE)');
  const objects = bundleObjects(input, bundle);
  // 1. Check everything: the object list first (its lines, their count and its SHA-256: a damaged list is named as
  // such, not by the first object it misnames), then every object it lists.
  await objects.check();
  const needed = new Set([bundle.catalog, ...bundle.archive.days.map((d) => d.index)]);
  let checked = 0;
  for await (const group of groups(objects.entries(), CHECK_GROUP)) {
    const read = await Promise.all(
      group.map(async (o) => {
        const bytes = await readFile(o.file).catch(() => undefined);
        if (!bytes) return { o, fault: `object ${o.address} is listed but ${o.file} is missing` };
        const actual = addressOf(bytes);
        if (actual !== o.address) return { o, fault: `object ${o.address}: its bytes hash to ${actual}; the bundle is damaged` };
        if (o.address !== bundle.catalog) return { o };
        try {
          CatalogObjectSchema.parse(JSON.parse(new TextDecoder().decode(bytes)));
          return { o };
        } catch (e) {
          return { o, fault: `the bundle's catalog ${o.address} is not a catalog (${(e as Error).message.split('\n')[0]})` };
        }
      }),
    );
    for (const { o, fault } of read) {
      if (fault) throw new BundleError(fault);
      needed.delete(o.address);
      if (++checked % 100 === 0 || checked === objects.count) options.progress?.(`checked ${checked}/${objects.count} objects`);
    }
  }
  if (needed.has(bundle.catalog)) throw new BundleError(`the bundle's catalog ${bundle.catalog} is not among its objects`);
  for (const d of bundle.archive.days) {
    if (needed.has(d.index)) throw new BundleError(`archive day ${d.date}: its catalog ${d.index} is not among the bundle's objects`);
  }
  const today = bundle.archive.days[0];
  if (today?.index !== bundle.catalog) throw new BundleError('the bundle archive does not start with its catalog');
  const mirrorIn = path.join(input, DATA_MIRROR);
  const manifestText = await readFile(path.join(mirrorIn, 'manifest.json'), 'utf8').catch(() => undefined);
  const manifest = manifestText ? parseMirrorManifest(manifestText) : undefined;
  const held = await heldFiles(mirrorIn);
  let n = 0;
  for (const f of manifest?.files ?? []) {
    if (held.get(f.sha256) !== f.size)
      throw new BundleError(`mirror file ${f.sha256}: listed with ${f.size} bytes, not in the bundle as such`);
    const actual = await sha256File(path.join(mirrorIn, mirrorFilePath(f.sha256)));
    if (actual !== f.sha256) throw new BundleError(`mirror file ${f.sha256}: its bytes hash to ${actual}; the bundle is damaged`);
    options.progress?.(`checked ${++n}/${manifest?.files.length} files`);
  }
  const store = new FsObjectStore(dataDir);
  const current = await store.readRef('current');
  if (current && current !== bundle.catalog && !bundle.archive.days.some((d) => d.index === current)) {
    throw new BundleError(
      `this data folder serves ${current}, which is not in the bundle's archive: the bundle is not a later day of the same index`,
    );
  }
  // 2. Take it.
  // Put in groups, each read again from the bundle: the store writes each group together (one filesystem flush for a
  // large group, FsObjectStore).
  let objectsNew = 0;
  let stored = 0;
  let group: Array<{ o: { address: string; kind: string; media_type: string }; bytes: Uint8Array }> = [];
  let groupBytes = 0;
  const putGroup = async () => {
    const puts = await Promise.all(group.map(({ o, bytes }) => store.put(bytes, { kind: o.kind, mediaType: o.media_type })));
    for (const [k, put] of puts.entries()) {
      const o = group[k]?.o;
      if (put.meta.id !== o?.address) throw new BundleError(`object ${o?.address} was stored as ${put.meta.id}`);
      if (put.created) objectsNew++;
    }
    stored += group.length;
    group = [];
    groupBytes = 0;
    options.progress?.(`stored ${stored}/${objects.count} objects`);
  };
  for await (const read of groups(objects.entries(), CHECK_GROUP)) {
    const got = await Promise.all(read.map((o) => readFile(o.file).catch(() => undefined)));
    for (const [k, b] of got.entries()) {
      const o = read[k] as (typeof read)[number];
      if (!b) throw new BundleError(`object ${o.address} is listed but ${o.file} is missing`);
      group.push({ o, bytes: new Uint8Array(b.buffer, b.byteOffset, b.byteLength) });
      groupBytes += b.byteLength;
      if (group.length >= IMPORT_GROUP || groupBytes >= IMPORT_GROUP_BYTES) await putGroup();
    }
  }
  if (group.length > 0) await putGroup();
  if (servedFromPages(kind, today)) {
    // Served from its pages (design 11.1): no whole-index load. Every object was hashed above; the day's root must
    // open as its catalog's and every page it names be here, as `hub index verify` checks.
    const fault = (await dayPagesFaults(store, today.date, today.pages as Address, bundle.catalog as Address))[0];
    if (fault) throw new BundleError(fault);
  } else {
    // Loaded whole: the index is loaded, re-hashed and schema-checked once, and the load pack written, before the
    // folder switches to it (the first start is then as fast as a later one); a fault throws and nothing is switched.
    await writeLoadPack(store, dataDir, bundle.catalog as Address);
  }
  const mirrorOut = path.join(dataDir, DATA_MIRROR);
  await mkdir(path.join(mirrorOut, 'sha256'), { recursive: true });
  await mkdir(path.join(mirrorOut, '.partial'), { recursive: true });
  const have = await heldFiles(mirrorOut);
  let filesNew = 0;
  for (const f of manifest?.files ?? []) {
    if (have.get(f.sha256) === f.size) continue;
    const temp = path.join(mirrorOut, '.partial', `${f.sha256}.import`);
    await copyFile(path.join(mirrorIn, mirrorFilePath(f.sha256)), temp);
    if ((await stat(temp)).size !== f.size) throw new BundleError(`mirror file ${f.sha256}: copied with a wrong size`);
    await rename(temp, path.join(mirrorOut, mirrorFilePath(f.sha256)));
    filesNew++;
  }
  const before = await readMirrorManifest(mirrorOut).catch(() => undefined);
  await writeMirrorManifest(mirrorOut, {
    models: (manifest?.models ?? []).map((m) => ({ id: m.id, revision: m.revision, files: m.files })),
    // the files were re-hashed just now; a mirror that held others keeps their last check
    verified: before && before.files.length > 0 ? before.verified : new Date().toISOString(),
  });
  // The imported days become leaves of this folder's own transparency log (before the archive names them, as a build
  // does): unsigned here, since the signing key stays with the hub that built them; each day's `leaf` is its place in
  // this log, and the exporting hub's checkpoints (objects this folder does not hold) are not named.
  const days = bundle.archive.days.map(({ checkpoint: _checkpoint, leaf: _leaf, ...d }) => d);
  await commitDays(store, { ...bundle.archive, days }, bundle.catalog as Address);
  // A day served from its pages gets its made answers (cold look-ups read one record each), as after a build.
  if (servedFromPages(kind, today)) {
    options.progress?.('making the answers of the cold look-ups');
    await writeMadeAnswersAfterBuild(store, dataDir, bundle.catalog as Address, options.indexStore);
  }
  const importedFile = path.join(dataDir, IMPORTED_FILE);
  const imported = JSON.parse(await readFile(importedFile, 'utf8').catch(() => '[]')) as unknown[];
  imported.push({ catalog: bundle.catalog, date: bundle.date, hub: bundle.hub, imported: new Date().toISOString() });
  await writeJsonAtomic(importedFile, imported);
  return {
    catalog: bundle.catalog,
    date: bundle.date,
    objects: objects.count,
    objectsNew,
    files: manifest?.files.length ?? 0,
    filesNew,
  };
}
