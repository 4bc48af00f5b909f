/**
 * Bundles (design 10.3): one folder carrying a hub's index across an air gap. `bundle.json` lists every object (the
 * day's catalog, its shards, model and source objects, and every earlier day's, through `prev`) exactly as the hub
 * published them, with the archive; `objects/<hex>` holds their bytes; `mirror/` is a local mirror of the chosen
 * models' files. Importing checks every object against its BLAKE3 address and every file against its SHA-256 before
 * it takes any of them.
 */
import { copyFile, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { type ClientOptions, collectIndexObjects, hubCatalog, namingFetch } from '@hub/client';
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
  type Bundle,
  BundleSchema,
  CatalogObjectSchema,
  commitDays,
  mirrorFilePath,
  parseMirrorManifest,
} from '@hub/core-index';
import { FsObjectStore, writeFileAtomic } from '@hub/objects/node';
import { DATA_MIRROR, IMPORTED_FILE } from './data-folder.js';
import { writeLoadPack } from './verify.js';

/** A parsed `bundle.json` (core-index's BundleSchema); throws a readable error naming the first problem. */
function parseBundle(v: unknown): Bundle {
  const parsed = BundleSchema.safeParse(v);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`${issue?.path.join('.') || 'the document'}: ${issue?.message ?? 'not a bundle'}`);
  }
  return { ...parsed.data, archive: { format: 'svc.model-hub.archive/v1', ...parsed.data.archive } };
}

const hexOf = (address: string) => address.slice('blake3:'.length);

/** JSON written whole or not at all (temp file, fsync, rename). */
const writeJsonAtomic = (file: string, value: unknown) => writeFileAtomic(file, `${JSON.stringify(value, null, 1)}\n`);

/**
 * Write a bundle of the hub's current index and a mirror of `models` into `out`. Resumable: objects are fetched again
 * (they are small), the mirror keeps its verified files and partial ones; `bundle.json` is written last.
 */
export async function bundleCreate(
  opts: ClientOptions & { hasher: NonNullable<ClientOptions['hasher']> },
  out: string,
  models: MirrorModel[],
  options: { parallel?: number; onFile?: (e: MirrorFileEvent) => void; fromMirror?: string } = {},
): Promise<{ catalog: string; date: string; objects: number; files: number; failed: number; copied: number }> {
  const f = namingFetch(opts.fetch ?? fetch);
  const { address, catalog } = await hubCatalog(opts.hub, f);
  const r = await f(`${opts.hub.replace(/\/+$/, '')}/api/hub/archive`);
  if (!r.ok) throw new Error(`the hub's archive answered HTTP ${r.status}`);
  const served = ArchiveSchema.parse(await r.json());
  // Only the days up to the catalog served now (a day built after the catalog was read waits for the next bundle).
  const at = served.days.findIndex((d) => d.index === address);
  const days = at === -1 ? [] : served.days.slice(at);
  const archive: Archive = { format: 'svc.model-hub.archive/v1', days, ...(served.registry ? { registry: served.registry } : {}) };
  await rm(path.join(out, BUNDLE_FILE), { force: true });
  await mkdir(path.join(out, 'objects'), { recursive: true });
  const listed: Bundle['objects'] = [];
  // Every day's catalog and its index pages (what a paged store reads), each with all it names.
  const roots = [address, ...days.flatMap((d) => [d.index, ...(d.pages ? [d.pages] : [])])];
  await collectIndexObjects(opts.hub, roots, {
    fetch: f,
    onObject: async (o) => {
      await writeFile(path.join(out, 'objects', hexOf(o.address)), o.bytes);
      listed.push({ address: o.address, kind: o.kind, media_type: o.mediaType });
    },
  });
  const copied = options.fromMirror ? await seedFromMirror(options.fromMirror, path.join(out, DATA_MIRROR), models) : 0;
  const report = await pullIntoMirror(opts, path.join(out, DATA_MIRROR), models, options);
  const bundle: Bundle = {
    format: BUNDLE_FORMAT,
    created: new Date().toISOString(),
    hub: opts.hub,
    catalog: address,
    date: catalog.date,
    archive,
    objects: listed.sort((a, b) => (a.address < b.address ? -1 : 1)),
    models: models.map((m) => m.id),
  };
  await writeJsonAtomic(path.join(out, BUNDLE_FILE), bundle);
  return {
    catalog: address,
    date: catalog.date,
    objects: listed.length,
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

export class BundleError extends Error {}

/** Objects put at once by an import. */
const IMPORT_GROUP = 1024;

/**
 * Import a bundle into a data folder: every object must hash to its address and the catalog must parse; every mirror
 * file must hash to its name and match the manifest's size; a data folder already serving an index must find it in
 * the bundle's archive (the bundle is a later day of the same chain). Only then are objects put, files copied into
 * the data folder's mirror, and the refs (`archive`, then `current`) written.
 */
export async function bundleImport(
  input: string,
  dataDir: string,
  options: { progress?: (what: string) => void } = {},
): Promise<{ catalog: string; date: string; objects: number; objectsNew: number; files: number; filesNew: number }> {
  let bundle: Bundle;
  try {
    bundle = parseBundle(JSON.parse(await readFile(path.join(input, BUNDLE_FILE), 'utf8')));
  } catch (e) {
    throw new BundleError(`${input} is not a complete bundle (${BUNDLE_FILE}: ${(e as Error).message.split('\n')[0]})`);
  }
  // 1. Check everything.
  const bytesOf = new Map<string, Uint8Array>();
  for (const [i, o] of bundle.objects.entries()) {
    const file = path.join(input, 'objects', hexOf(o.address));
    const bytes = await readFile(file).catch(() => undefined);
    if (!bytes) throw new BundleError(`object ${o.address} is listed but ${file} is missing`);
    const actual = addressOf(bytes);
    if (actual !== o.address) throw new BundleError(`object ${o.address}: its bytes hash to ${actual}; the bundle is damaged`);
    bytesOf.set(o.address, new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    if (i % 100 === 0) options.progress?.(`checked ${i + 1}/${bundle.objects.length} objects`);
  }
  const catalogBytes = bytesOf.get(bundle.catalog);
  if (!catalogBytes) throw new BundleError(`the bundle's catalog ${bundle.catalog} is not among its objects`);
  CatalogObjectSchema.parse(JSON.parse(new TextDecoder().decode(catalogBytes)));
  for (const d of bundle.archive.days) {
    if (!bytesOf.has(d.index)) throw new BundleError(`archive day ${d.date}: its catalog ${d.index} is not among the bundle's objects`);
  }
  if (bundle.archive.days[0]?.index !== bundle.catalog) throw new BundleError('the bundle archive does not start with its catalog');
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
  // Put in groups: the store writes each group together (one filesystem flush for a large group, FsObjectStore).
  let objectsNew = 0;
  for (let i = 0; i < bundle.objects.length; i += IMPORT_GROUP) {
    const group = bundle.objects.slice(i, i + IMPORT_GROUP);
    const puts = await Promise.all(
      group.map((o) => store.put(bytesOf.get(o.address) as Uint8Array, { kind: o.kind, mediaType: o.media_type })),
    );
    for (const [k, put] of puts.entries()) {
      const o = group[k] as Bundle['objects'][number];
      if (put.meta.id !== o.address) throw new BundleError(`object ${o.address} was stored as ${put.meta.id}`);
      if (put.created) objectsNew++;
    }
    options.progress?.(`stored ${Math.min(i + IMPORT_GROUP, bundle.objects.length)}/${bundle.objects.length} objects`);
  }
  // The whole index is loaded, re-hashed and schema-checked once, and the load pack written, before the folder
  // switches to it (the first start is then as fast as a later one); a fault throws and nothing is switched.
  await writeLoadPack(store, dataDir, bundle.catalog as Address);
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
  const importedFile = path.join(dataDir, IMPORTED_FILE);
  const imported = JSON.parse(await readFile(importedFile, 'utf8').catch(() => '[]')) as unknown[];
  imported.push({ catalog: bundle.catalog, date: bundle.date, hub: bundle.hub, imported: new Date().toISOString() });
  await writeJsonAtomic(importedFile, imported);
  return {
    catalog: bundle.catalog,
    date: bundle.date,
    objects: bundle.objects.length,
    objectsNew,
    files: manifest?.files.length ?? 0,
    filesNew,
  };
}
