/**
 * A day's made answers (made-answers-file.ts) made as its build writes the models pages (`BuildInput.onModelsPage`),
 * instead of by a pass over the built day (made-answers-writer.ts). That pass read every models page back: a day of
 * 1,000,000 models writes about 3.7 GB of them over a quarter of an hour, and by its end the page cache no longer held
 * the first ones (docs/benchmarks.md). Here each page's records are made from the bytes the build just composed, on
 * worker threads (the build keeps one core busy and leaves the others idle), a page the last day's file holds is
 * copied from it, and a page the build reused from the last build is read from the store. The records are written in
 * browse order as they come; the slot table, the pages and the head when the build is done.
 *
 * Never fails a build: anything that goes wrong here is logged, and {@link MadeAnswersAlongBuild.finish} then writes
 * the file by the pass over the built day, as before.
 */
import os from 'node:os';
import type { Address, Logger } from '@hub/core-index';
import { dayOf, HUB_MADE_ANSWERS, indexStoreKind, servedFromPages } from '@hub/hub';
import type { FsObjectStore } from '@hub/objects/node';
import { type MadeProgress, WORKERS_FROM_PAGES, writeMadeAnswersAfterBuild } from './made-answers-writer.js';
import { LastMadeFile, MadeFileOut } from './made-file-out.js';
import { type MadePage, madePageOf } from './made-jobs.js';
import { VerifyPool } from './verify-pool.js';

/** Pages handed to a worker in one message (a page is four models). */
const PAGES_PER_JOB = 16;
/** Pages the build may run ahead of the records written (each held as its bytes until then). */
const AHEAD = 512;

interface Pending {
  address: string;
  /** the page's bytes when the build composed it */
  bytes: Uint8Array | undefined;
  /** the rank of its first model */
  first: number;
  /** its records, being made on a worker */
  job?: Promise<MadePage>;
  /** waiting in the next job to send */
  batched?: boolean;
}

export class MadeAnswersAlongBuild {
  private out: MadeFileOut | undefined;
  private last: LastMadeFile | undefined;
  private pool: VerifyPool | undefined;
  private readonly pending: Pending[] = [];
  private batch: Pending[] = [];
  private failed: string | undefined;
  private pages = 0;
  private copied = 0;

  constructor(
    private readonly objects: FsObjectStore,
    private readonly dataDir: string,
    private readonly options: {
      /** `indexStore` of the settings: whether the day will be served from its pages */
      indexStore?: string | undefined;
      log?: Logger;
      /** worker threads once the day has {@link WORKERS_FROM_PAGES} pages (default one per core beyond two; 0: this thread) */
      workers?: number;
    } = {},
  ) {
    // a hub that loads every day whole (`indexStore: memory`) reads no made answers: none are made
    let some = true;
    try {
      some = servedFromPages(indexStoreKind(options.indexStore, 'indexStore (or HUB_INDEX_STORE)'), { pages: 'any', models: Infinity });
    } catch {
      // a setting this code does not know: `finish` says so
    }
    if (!some) this.failed = 'the hub loads its days whole';
  }

  /** The build's hook (`BuildInput.onModelsPage`): each models page in browse order. */
  readonly onModelsPage = async (address: Address, bytes: Uint8Array | undefined, first: number): Promise<void> => {
    if (this.failed !== undefined) return;
    try {
      if (!this.out) {
        this.last = LastMadeFile.open(this.dataDir, HUB_MADE_ANSWERS);
        this.out = new MadeFileOut(this.dataDir, this.last?.records ?? 0);
      }
      const p: Pending = { address, bytes, first };
      this.pending.push(p);
      if (++this.pages === WORKERS_FROM_PAGES) this.startPool();
      if (bytes && this.pool && !this.last?.has(address)) {
        p.batched = true;
        this.batch.push(p);
        if (this.batch.length === PAGES_PER_JOB) this.send();
      }
      // (without workers, each page is made and written as it comes)
      while (this.pending.length > (this.pool ? AHEAD : 0)) await this.writeNext();
    } catch (e) {
      this.fail(e);
    }
  };

  private startPool(): void {
    // The build keeps one core busy and its file system work most of another: the records are made on the cores
    // beyond two, else on the build's own thread (on this project's 2-vCPU VM a worker's CPU slowed the build's
    // thread by as much as it took off it, and its isolate added about 50 MB to the peak: docs/benchmarks.md, 2026-11-30).
    const workers = this.options.workers ?? Math.max(0, os.availableParallelism() - 2);
    if (workers === 0) return;
    const pool = new VerifyPool(workers);
    // (no worker file: the sources run without a build, and this thread makes every page)
    if (pool.threads > 0) this.pool = pool;
  }

  /** Hand the batched pages to a worker. */
  private send(): void {
    const batch = this.batch;
    this.batch = [];
    const pool = this.pool as VerifyPool;
    const job = pool.run({
      type: 'made-bytes',
      pages: batch.map((p) => p.bytes as Uint8Array),
      firsts: batch.map((p) => p.first),
    }) as Promise<MadePage[]>;
    // (awaited in its turn; a failure while an earlier page is awaited is not unhandled)
    job.catch(() => {});
    batch.forEach((p, k) => {
      p.job = job.then((pages) => pages[k] as MadePage);
      p.job.catch(() => {});
      p.batched = false;
    });
  }

  /** A page's records when the build reused it: from the store (it was there when the build checked). */
  private async fromStore(address: string, first: number): Promise<MadePage> {
    const stored = await this.objects.get(address as Address);
    if (!stored) throw new Error(`models page ${address} is not in the store`);
    return madePageOf(stored.bytes, first, HUB_MADE_ANSWERS);
  }

  /** Write the records of the oldest page not written yet. */
  private async writeNext(): Promise<void> {
    const p = this.pending[0] as Pending;
    if (p.batched) this.send();
    const make = () =>
      p.job ?? (p.bytes ? Promise.resolve(madePageOf(p.bytes, p.first, HUB_MADE_ANSWERS)) : this.fromStore(p.address, p.first));
    const copy = this.last?.has(p.address) ? await this.last.copy(p.address, make) : undefined;
    if (copy) this.copied += copy.slots.length / 4;
    (this.out as MadeFileOut).page(p.address, copy ?? (await make()));
    this.pending.shift();
  }

  /** The build failed: nothing is written (the temp file is removed, the last file stays). */
  async abort(): Promise<void> {
    this.fail(new Error('the build failed'));
  }

  private fail(e: unknown): void {
    this.failed = String((e as Error)?.message ?? e).slice(0, 300);
    this.pending.length = 0;
    this.batch = [];
    this.out?.abort();
    this.last?.close();
    void this.pool?.close();
    this.pool = undefined;
  }

  /**
   * After the build: when the hub serves the day from its pages, write the rest of the records and the file; when
   * something failed here, write it by the pass over the built day. Logged and never thrown, as that pass is.
   * Returns how the file was made: `along` the build, by the pass `after` it, or `none` (a day loaded whole).
   */
  async finish(catalog: Address, progress?: MadeProgress): Promise<'along' | 'after' | 'none'> {
    const { log } = this.options;
    try {
      const day = await dayOf(this.objects, catalog);
      const served = servedFromPages(indexStoreKind(this.options.indexStore, 'indexStore (or HUB_INDEX_STORE)'), day);
      if (!served || !day.pages || !this.out) {
        this.fail(new Error('not served from pages'));
        if (!served) return 'none';
      }
      if (this.failed === undefined) {
        while (this.pending.length > 0) await this.writeNext();
        const out = this.out as MadeFileOut;
        const { records, bytes } = await out.finish(catalog, day.pages as Address, HUB_MADE_ANSWERS);
        log?.info(
          { event: 'made-answers', catalog, pages: day.pages, records, copied: this.copied, bytes, threads: this.pool?.threads ?? 0 },
          'answers made for the cold look-ups of this day, as it was built',
        );
        return 'along';
      }
    } catch (e) {
      this.fail(e);
    } finally {
      this.last?.close();
      await this.pool?.close();
    }
    log?.warn({ event: 'made-answers', catalog, err: this.failed }, 'answers not made as the day was built: made from its pages');
    await writeMadeAnswersAfterBuild(this.objects, this.dataDir, catalog, this.options.indexStore, log, progress);
    return 'after';
  }
}
