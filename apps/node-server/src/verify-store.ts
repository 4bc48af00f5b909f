/**
 * `hub index verify --data` (verifyStore): every object re-hashed once, every catalog's rows, entries and objects
 * checked, the archive chain, the days' index pages and the transparency log walked. Bounded in memory and spread over
 * the cores at any index size (docs/decisions/index-and-archive.md, "`hub index verify` at any size"):
 * - the hash pass hands each fan-out folder (`objects/ab`) to a worker thread (verify-pool.ts), which reads and
 *   hashes its objects; the addresses it finds damaged or unreadable are kept (one per fault), and the catalog pass
 *   trusts every other object's bytes instead of hashing them again;
 * - the catalog pass walks every catalog together, a shard at a time (catalog-walk.ts): each run's model and source
 *   objects are parsed and schema-checked by the workers in batches, and an object that several days name is checked
 *   once while the days' same shards are walked (a bounded table of recent results, not a set of every object).
 */
import { readdir } from 'node:fs/promises';
import { type Address, checkLogStore, type Logger, openPagedIndex, type PagesRoot, readArchive } from '@hub/core-index';
import type { FsObjectStore } from '@hub/objects/node';
import { walkCatalogs } from './catalog-walk.js';
import type { HashResult } from './verify-jobs.js';
import { VerifyPool } from './verify-pool.js';
import { hashProgress } from './verify-resume.js';

export interface VerifyReport {
  objects: number;
  faults: string[];
  catalogs: number;
}

/** Where a verify is: the hash pass (`objects` of the store's fan-out folders) or the catalog pass. */
export type VerifyProgress =
  | { phase: 'objects'; objects: number; folders: number; foldersDone: number }
  | { phase: 'catalogs'; catalogs: number; step: number; steps: number; models: number };

export interface VerifyOptions {
  progress?: (p: VerifyProgress) => void;
  /** worker threads (default one per core; 0: every job on this thread) */
  workers?: number;
  /** where the hash pass records each folder it finished (verify-resume.ts); with `resume`, an earlier run's are taken */
  progressFile?: string;
  resume?: boolean;
  log?: Logger;
}

/**
 * The ref naming the catalog whose objects were re-hashed and schema-checked in full (when it was first started on
 * or switched to). A start on that catalog reads its objects without re-hashing them; any other catalog is verified
 * in full first. `hub index verify` resets it when it finds a fault.
 */
export const VERIFIED_REF = 'verified';

/**
 * Re-hash every object against its address, check that every catalog's model and source references
 * exist and parse, and walk the archive chain. Any fault is listed; none means the store is sound.
 */
export async function verifyStore(store: FsObjectStore, options: VerifyOptions = {}): Promise<VerifyReport> {
  const pool = new VerifyPool(options.workers);
  try {
    return await verifyWith(store, pool, options);
  } finally {
    await pool.close();
  }
}

async function verifyWith(store: FsObjectStore, pool: VerifyPool, options: VerifyOptions): Promise<VerifyReport> {
  const { progress, log } = options;
  const faults: string[] = [];
  const objectsDir = store.objectsFolder();
  const started = Date.now();
  const resumed = options.progressFile ? hashProgress(options.progressFile, options.resume === true) : undefined;
  log?.info(
    { event: 'verify-start', threads: pool.threads, resumedFolders: resumed?.done.size ?? 0 },
    'hub index verify: hashing every object',
  );
  // The hash pass: every fan-out folder at once on the pool (each a job), its faults kept in folder order.
  const folders = (await readdir(objectsDir).catch(() => [] as string[])).filter((d) => /^[0-9a-f]{2}$/.test(d)).sort();
  const results: HashResult[] = new Array(folders.length);
  let objects = 0;
  let foldersDone = 0;
  await Promise.all(
    folders.map(async (dir, i) => {
      let r = resumed?.done.get(dir);
      if (!r) {
        r = (await pool.run({ type: 'hash', objectsDir, dir })) as HashResult;
        resumed?.record(dir, r);
      }
      results[i] = r;
      objects += r.objects;
      foldersDone++;
      progress?.({ phase: 'objects', objects, folders: folders.length, foldersDone });
    }),
  );
  const bad = new Set<string>();
  for (const r of results) {
    faults.push(...r.faults);
    for (const a of r.bad) bad.add(a);
  }
  log?.info({ event: 'verify-objects', objects, faults: faults.length, ms: Date.now() - started }, 'every object hashed');

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
  const catalogStarted = Date.now();
  const walked = await walkCatalogs({
    store,
    pool,
    catalogs: [...catalogs],
    expectedPrev,
    bad,
    progress: (p) => progress?.({ phase: 'catalogs', catalogs: catalogs.size, ...p }),
  });
  // Each catalog's faults as it named them, catalog after catalog (the catalogs are walked together).
  for (const f of walked.faults) faults.push(...f);
  log?.info(
    { event: 'verify-catalogs', catalogs: catalogs.size, models: walked.models, checked: walked.checked, ms: Date.now() - catalogStarted },
    'every catalog checked',
  );
  // The transparency log: its tiles against its entries, its checkpoint against its root, its leaves against the days.
  faults.push(...(await checkLogStore(store, archive.days)));
  // A store with a fault is no longer trusted: the next start re-hashes and schema-checks the index it serves, and
  // refuses to start on a fault there (see VERIFIED_REF).
  if (faults.length > 0) await store.writeRef(VERIFIED_REF, 'none');
  resumed?.finish();
  log?.info({ event: 'verify-end', objects, catalogs: catalogs.size, faults: faults.length, ms: Date.now() - started }, 'verify done');
  return { objects, faults, catalogs: catalogs.size };
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
