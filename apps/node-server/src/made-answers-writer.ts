import os from 'node:os';
import { type Address, type Logger, type MadeAnswerMaker, openPagedIndex } from '@hub/core-index';
import { dayOf, HUB_MADE_ANSWERS, indexStoreKind, servedFromPages } from '@hub/hub';
import type { FsObjectStore } from '@hub/objects/node';
import { LastMadeFile, MadeFileOut } from './made-file-out.js';
import { MADE_READ_CACHE_BYTES, type MadePage, madePage } from './made-jobs.js';
import { VerifyPool } from './verify-pool.js';

/** Pages asked of each worker ahead of the one written (four models a page). */
const LOOKAHEAD_PER_THREAD = 16;
/** From this many pages on (256 models) pages are made on worker threads by default: below, starting them costs more than they save. */
export const WORKERS_FROM_PAGES = 64;

/** A writer's progress: models done of the day's. */
export type MadeProgress = (done: number, total: number) => void;

/**
 * Write the made answers of the day `catalog` into the data folder: the records in browse order (those of a models
 * page the last day's file holds unchanged copied from it, checked against their digests; the first page copied is
 * also made again and compared, and on any difference nothing more is copied), then the models pages, the slot table
 * and the head; fsync, rename over `made-answers`. A kill leaves the last file whole (a later write removes the temp
 * file). `verify`: re-hash each page read (off after a build or an import, whose objects were just hashed); `reuse`:
 * copy from the last file (off for `hub index answers`, which makes every answer).
 */
export async function writeMadeAnswers(
  objects: FsObjectStore,
  dataDir: string,
  catalog: Address,
  options: {
    makers?: readonly MadeAnswerMaker[];
    log?: Logger;
    progress?: MadeProgress;
    verify?: boolean;
    reuse?: boolean;
    /** worker threads that make pages (default one per core from 64 pages on, else none; 0: this thread makes every page) */
    workers?: number;
  } = {},
): Promise<{ records: number; bytes: number; pages: Address; copied: number; threads: number } | { skipped: string }> {
  const makers = options.makers ?? HUB_MADE_ANSWERS;
  const day = await dayOf(objects, catalog);
  if (!day.pages) return { skipped: 'the day has no index pages' };
  const pagesRoot = day.pages;
  const verify = options.verify !== false;
  const index = await openPagedIndex(objects, pagesRoot, catalog, { cacheBytes: MADE_READ_CACHE_BYTES, verify });
  const models = index.totals.models;
  // the models pages in browse order with each one's first rank (directory pages read first, before any file is made)
  const addresses: string[] = [];
  const firsts: number[] = [];
  for await (const page of index.modelsPages()) {
    addresses.push(page.address);
    firsts.push(page.first);
  }
  const pageCount = addresses.length;
  const last = options.reuse === false ? undefined : LastMadeFile.open(dataDir, makers);
  const out = new MadeFileOut(dataDir, models * makers.length);
  let done = 0;
  let copied = 0;
  // Pages are made on worker threads when the hub's own makers make them (a worker knows no other), a few pages ahead
  // of the one written; the copies and the writes stay on this thread, in page order.
  const workers = makers === HUB_MADE_ANSWERS ? (options.workers ?? (pageCount >= WORKERS_FROM_PAGES ? os.availableParallelism() : 0)) : 0;
  let pool: VerifyPool | undefined;
  const ahead = new Map<number, Promise<MadePage>>();
  let asked = 0;
  const askAhead = (p: number) => {
    for (asked = Math.max(asked, p); asked < Math.min(pageCount, p + workers * LOOKAHEAD_PER_THREAD); asked++) {
      const address = addresses[asked] as string;
      const first = firsts[asked] as number;
      if (last?.has(address)) continue;
      // started for the first page to make: a day whose pages are all copied starts no thread
      pool ??= new VerifyPool(workers);
      // (no worker file: the sources run without a build, and this thread makes every page)
      if (pool.threads === 0) return;
      const job = pool.run({ type: 'made', dataDir, catalog, pages: pagesRoot, verify, page: address, first }) as Promise<MadePage>;
      // (awaited in its turn; a failure while an earlier page is awaited is not unhandled)
      job.catch(() => {});
      ahead.set(asked, job);
    }
  };
  const made = async (p: number) => {
    const job = ahead.get(p);
    ahead.delete(p);
    return job ?? madePage(index, addresses[p] as string, firsts[p] as number, makers);
  };
  let bytes: number;
  try {
    let turn = performance.now();
    for (let p = 0; p < pageCount; p++) {
      askAhead(p);
      // Pages read at once and answers made in a loop would hold the event loop for minutes at 1,000,000 models: a
      // hub that builds in its own process (`hub serve --refresh`) keeps answering, a turn of the loop every 10 ms.
      if (performance.now() - turn > 10) {
        await new Promise<void>((resolve) => setImmediate(resolve));
        turn = performance.now();
      }
      const address = addresses[p] as string;
      const copy = await last?.copy(address, () => madePage(index, address, firsts[p] as number, makers));
      if (copy) copied += copy.slots.length / 4;
      out.page(address, copy ?? (await made(p)));
      const before = done;
      done = p + 1 < pageCount ? (firsts[p + 1] as number) : models;
      if (Math.floor(done / 10_000) > Math.floor(before / 10_000) || done === models) options.progress?.(done, models);
    }
    bytes = (await out.finish(catalog, pagesRoot, makers)).bytes;
  } catch (e) {
    out.abort();
    throw e;
  } finally {
    last?.close();
    await pool?.close();
  }
  const records = out.records;
  const threads = pool?.threads ?? 0;
  options.log?.info(
    { event: 'made-answers', catalog, pages: pagesRoot, records, copied, bytes, threads },
    'answers made for the cold look-ups of this day',
  );
  return { records, bytes, pages: pagesRoot, copied, threads };
}

/**
 * After a build or an import: write the day's made answers when the hub serves it from its pages (`indexStore`, as
 * `openDay` decides), copying the last day's unchanged pages; logged and never thrown (without the file, cold
 * look-ups read the pages, as before).
 */
export async function writeMadeAnswersAfterBuild(
  objects: FsObjectStore,
  dataDir: string,
  catalog: Address,
  indexStore: string | undefined,
  log?: Logger,
  progress?: MadeProgress,
): Promise<void> {
  try {
    const kind = indexStoreKind(indexStore, 'indexStore (or HUB_INDEX_STORE)');
    if (!servedFromPages(kind, await dayOf(objects, catalog))) return;
    // the day's objects were hashed as they were written (or imported): not again here
    const r = await writeMadeAnswers(objects, dataDir, catalog, {
      verify: false,
      ...(log ? { log } : {}),
      ...(progress ? { progress } : {}),
    });
    if ('skipped' in r) log?.info({ event: 'made-answers', catalog, reason: r.skipped }, 'no made answers');
  } catch (e) {
    log?.warn({ event: 'made-answers', catalog, err: String(e).slice(0, 300) }, 'no made answers: cold look-ups read the index pages');
  }
}
