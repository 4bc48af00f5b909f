import { closeSync, fsyncSync, openSync, readdirSync, readSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  type Address,
  type Logger,
  MADE_PAGE_BYTES,
  MADE_RECORD_HEAD,
  MADE_SLOT_BYTES,
  MADE_SLOTS_AT,
  MADE_VERSION,
  type MadeAnswerMaker,
  madeHeadBytes,
  madeKeyHash,
  madeRecordLengthAt,
  madeRecordRead,
  madeRecordSpan,
  madeSlotCount,
  openPagedIndex,
} from '@hub/core-index';
import { dayOf, HUB_MADE_ANSWERS, indexStoreKind, servedFromPages } from '@hub/hub';
import { type FsObjectStore, syncDir } from '@hub/objects/node';
import { MADE_ANSWERS_FILE, madeHeadOf } from './made-answers-file.js';
import { madeRecordSound } from './made-digest.js';
import { MADE_READ_CACHE_BYTES, type MadePage, madePage } from './made-jobs.js';
import { VerifyPool } from './verify-pool.js';

/** Pages asked of each worker ahead of the one written (about 100 models a page). */
const LOOKAHEAD_PER_THREAD = 16;
/** From this many pages on (about 6,400 models) pages are made on worker threads by default: below, starting them costs more than they save. */
const WORKERS_FROM_PAGES = 64;

/** A writer's progress: models done of the day's. */
export type MadeProgress = (done: number, total: number) => void;

const TEMP_PREFIX = `${MADE_ANSWERS_FILE}.tmp-`;

/** Remove temp files a killed writer left. */
function removeTemps(dataDir: string): void {
  let names: string[] = [];
  try {
    names = readdirSync(dataDir);
  } catch {
    return;
  }
  for (const n of names)
    if (n.startsWith(TEMP_PREFIX))
      try {
        unlinkSync(path.join(dataDir, n));
      } catch {
        // gone already
      }
}

/** The last day's file, to copy the records of its unchanged models pages from: its descriptor and its pages. */
interface LastFile {
  fd: number;
  /** models page address → where its records start and end */
  pages: Map<string, [number, number]>;
}

function openLast(file: string, makers: readonly MadeAnswerMaker[]): LastFile | undefined {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return undefined;
  }
  try {
    const head = madeHeadOf(fd, makers);
    if (typeof head === 'string') throw new Error(head);
    const table = Buffer.allocUnsafe(head.pageCount * MADE_PAGE_BYTES);
    if (readSync(fd, table, 0, table.length, head.pagesAt) !== table.length) throw new Error('cut');
    const pages = new Map<string, [number, number]>();
    for (let i = 0; i < head.pageCount; i++) {
      const at = i * MADE_PAGE_BYTES;
      pages.set(`blake3:${table.toString('hex', at, at + 32)}`, [table.readUInt32LE(at + 32) * 8, table.readUInt32LE(at + 36) * 8]);
    }
    return { fd, pages };
  } catch {
    closeSync(fd);
    return undefined;
  }
}

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
  const list = index.root.models;
  const pageCount = Math.ceil(list.count / list.per);
  const records = models * makers.length;
  const slots = madeSlotCount(records);
  const dataAt = MADE_SLOTS_AT + slots * MADE_SLOT_BYTES;
  const table = Buffer.alloc(slots * MADE_SLOT_BYTES);
  const pagesOut = Buffer.alloc(pageCount * MADE_PAGE_BYTES);
  const target = path.join(dataDir, MADE_ANSWERS_FILE);
  let last = options.reuse === false ? undefined : openLast(target, makers);
  let checkedCopy = false;
  removeTemps(dataDir);
  const tmp = path.join(dataDir, `${TEMP_PREFIX}${process.pid}`);
  const fd = openSync(tmp, 'w', 0o644);
  const chunk = Buffer.allocUnsafe(4 * 1024 * 1024);
  let used = 0;
  let at = dataAt;
  let done = 0;
  let copied = 0;
  const flush = () => {
    let off = 0;
    while (off < used) off += writeSync(fd, chunk, off, used - off, at - used + off);
    used = 0;
  };
  const put = (bytes: Uint8Array) => {
    if (used + bytes.length > chunk.length) flush();
    if (bytes.length > chunk.length) {
      let off = 0;
      while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off, at + off);
      at += bytes.length;
      return;
    }
    chunk.set(bytes, used);
    used += bytes.length;
    at += bytes.length;
  };
  const slot = (h1: number, h2: number, offset: number, length: number) => {
    if (offset / 8 > 0xffffffff) throw new Error('the made answers are larger than 32 GB');
    let i = h1 & (slots - 1);
    while (table.readUInt32LE(i * MADE_SLOT_BYTES + 12) !== 0) i = (i + 1) & (slots - 1);
    table.writeUInt32LE(h1, i * MADE_SLOT_BYTES);
    table.writeUInt32LE(h2, i * MADE_SLOT_BYTES + 4);
    table.writeUInt32LE(offset / 8, i * MADE_SLOT_BYTES + 8);
    table.writeUInt32LE(length, i * MADE_SLOT_BYTES + 12);
  };
  /** A page's records, made here or on a worker, put at the end of the file. */
  const putPage = (made: MadePage) => {
    const offset = at;
    put(made.bytes);
    const s = made.slots;
    for (let r = 0; r < s.length; r += 4) slot(s[r] as number, s[r + 1] as number, offset + (s[r + 2] as number), s[r + 3] as number);
  };
  /** The last file's records of an unchanged page, when each matches its digest (and the first page copied, what is made now). */
  const copyPage = async (lastFile: LastFile, address: string, [start, end]: [number, number]): Promise<boolean> => {
    const bytes = Buffer.allocUnsafe(end - start);
    if (readSync(lastFile.fd, bytes, 0, bytes.length, start) !== bytes.length) return false;
    // the page's records as madePage gives them: each key's hash lanes, its place in the page and its length
    const found: number[] = [];
    for (let o = 0; o < bytes.length; ) {
      if (o + MADE_RECORD_HEAD > bytes.length) return false;
      const length = madeRecordLengthAt(bytes, o);
      if (o + length > bytes.length) return false;
      const record = bytes.subarray(o, o + length);
      const read = madeRecordRead(record);
      if (!read || !madeRecordSound(record)) return false;
      const [h1, h2] = madeKeyHash(read.key);
      found.push(h1, h2, o, length);
      o += madeRecordSpan(length);
    }
    if (!checkedCopy) {
      // made by the code that runs now? The first page copied is made again and compared, byte for byte.
      if (!bytes.equals((await madePage(index, address, makers)).bytes)) return false;
      checkedCopy = true;
    }
    putPage({ bytes, slots: Uint32Array.from(found) });
    copied += found.length / 4;
    return true;
  };
  // Pages are made on worker threads when the hub's own makers make them (a worker knows no other), a few pages ahead
  // of the one written; the copies and the writes stay on this thread, in page order.
  const workers = makers === HUB_MADE_ANSWERS ? (options.workers ?? (pageCount >= WORKERS_FROM_PAGES ? os.availableParallelism() : 0)) : 0;
  let pool: VerifyPool | undefined;
  const addresses: string[] = [];
  const ahead = new Map<number, Promise<MadePage>>();
  let asked = 0;
  const askAhead = (p: number) => {
    for (asked = Math.max(asked, p); asked < Math.min(pageCount, p + workers * LOOKAHEAD_PER_THREAD); asked++) {
      const address = addresses[asked] as string;
      if (last?.pages.has(address)) continue;
      // started for the first page to make: a day whose pages are all copied starts no thread
      pool ??= new VerifyPool(workers);
      // (no worker file: the sources run without a build, and this thread makes every page)
      if (pool.threads === 0) return;
      const job = pool.run({ type: 'made', dataDir, catalog, pages: pagesRoot, verify, page: address }) as Promise<MadePage>;
      // (awaited in its turn; a failure while an earlier page is awaited is not unhandled)
      job.catch(() => {});
      ahead.set(asked, job);
    }
  };
  const makePage = async (p: number) => {
    const job = ahead.get(p);
    ahead.delete(p);
    putPage(await (job ?? madePage(index, addresses[p] as string, makers)));
  };
  try {
    for (let p = 0; p < pageCount; p++) addresses.push(await index.pageAddress(list, p));
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
      const start = at;
      const was = last?.pages.get(address);
      let fromLast = false;
      if (last && was) {
        fromLast = await copyPage(last, address, was);
        // the first copy made otherwise now: nothing more is copied (a file of other code)
        if (!fromLast && !checkedCopy) {
          closeSync(last.fd);
          last = undefined;
        }
      }
      if (!fromLast) await makePage(p);
      const o = p * MADE_PAGE_BYTES;
      pagesOut.write(address.slice('blake3:'.length), o, 32, 'hex');
      pagesOut.writeUInt32LE(start / 8, o + 32);
      pagesOut.writeUInt32LE(at / 8, o + 36);
      const before = done;
      done = Math.min(models, (p + 1) * list.per);
      if (Math.floor(done / 10_000) > Math.floor(before / 10_000) || done === models) options.progress?.(done, models);
    }
    const pagesAt = at;
    put(pagesOut);
    flush();
    const head = madeHeadBytes({
      kind: 'model-hub.made-answers',
      version: MADE_VERSION,
      catalog,
      pages: day.pages,
      makers: makers.map((m) => m.id),
      slots,
      records,
      dataAt,
      pagesAt,
      pageCount,
      size: at,
    });
    if (!head) throw new Error('the made answers head does not fit');
    writeSync(fd, table, 0, table.length, MADE_SLOTS_AT);
    writeSync(fd, head, 0, head.length, 0);
    fsyncSync(fd);
  } catch (e) {
    closeSync(fd);
    try {
      unlinkSync(tmp);
    } catch {
      // nothing to remove
    }
    throw e;
  } finally {
    if (last) closeSync(last.fd);
    await pool?.close();
  }
  closeSync(fd);
  renameSync(tmp, target);
  await syncDir(dataDir);
  const threads = pool?.threads ?? 0;
  options.log?.info(
    { event: 'made-answers', catalog, pages: pagesRoot, records, copied, bytes: at, threads },
    'answers made for the cold look-ups of this day',
  );
  return { records, bytes: at, pages: pagesRoot, copied, threads };
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
