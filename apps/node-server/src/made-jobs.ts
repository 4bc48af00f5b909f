/**
 * One models page's made answers (made-answers-writer.ts): the records of its models in browse order, each padded to
 * 8 bytes, and where each sits. The writer makes a page on its own thread, or asks a worker thread of the pool
 * `hub index verify` uses (verify-pool.ts) with a {@link MadeJob}: a day of 1,000,000 models is about 10,000 pages,
 * and making them on every core divides the wall time of the pass.
 */
import {
  type Address,
  type IndexedModel,
  MADE_DIGEST_BYTES,
  type MadeAnswerMaker,
  madeKeyHash,
  madeRecordFields,
  madeRecordSpan,
  openPagedIndex,
  type PagedEntry,
  type PagedIndex,
  pagedModel,
} from '@hub/core-index';
import { HUB_MADE_ANSWERS } from '@hub/hub';
import { FsObjectStore } from '@hub/objects/node';
import { madeDigest } from './made-digest.js';

/**
 * A page's records: their bytes (each record's fields, digest and padding), and per record 4 numbers; each array has
 * a buffer of its own, moved from a worker to the writer without a copy.
 */
export interface MadePage {
  bytes: Uint8Array;
  /** per record: the key's two hash lanes, the record's offset from the page's start and its length (no padding) */
  slots: Uint32Array;
}

/** What a worker is asked: the records of the models page `page` of the day `pages`, with the hub's makers. */
export interface MadeJob {
  type: 'made';
  /** the data folder (the writer's store is its objects: every store of node-server's commands is) */
  dataDir: string;
  catalog: Address;
  pages: Address;
  /** re-hash each object read (as the writer's `verify`) */
  verify: boolean;
  page: string;
  /** the rank of the page's first model */
  first: number;
}

/** The writer's cache for reading the day's pages: a page of models and their objects at a time. */
export const MADE_READ_CACHE_BYTES = 16 * 1024 * 1024;

const PAD = new Uint8Array(8);

/** The records of the models page at `address` of `index` (its first model at rank `first`), made by `makers` in order. */
export async function madePage(index: PagedIndex, address: string, first: number, makers: readonly MadeAnswerMaker[]): Promise<MadePage> {
  const page = await index.page<{ models: unknown[] }>(address);
  const models: IndexedModel[] = [];
  for (let i = 0; i < page.models.length; i++) models.push(await index.modelAtRank(first + i));
  return madeRecords(models, makers);
}

const decoder = new TextDecoder();

/**
 * The records of a models page from its bytes (as a build writes it, `BuildInput.onModelsPage`, its first model at
 * rank `first`), made by `makers`.
 */
export function madePageOf(bytes: Uint8Array, first: number, makers: readonly MadeAnswerMaker[]): MadePage {
  const page = JSON.parse(decoder.decode(bytes)) as { models: PagedEntry[] };
  return madeRecords(
    page.models.map((e, i) => pagedModel(e, first + i)),
    makers,
  );
}

/** What a worker is asked as a build writes its models pages: the records of each of these pages (their bytes). */
export interface MadeBytesJob {
  type: 'made-bytes';
  pages: Uint8Array[];
  /** each page's first rank */
  firsts: number[];
}

/** Answer a {@link MadeBytesJob}: each page's records, in order. */
export function runMadeBytesJob(job: MadeBytesJob): MadePage[] {
  return job.pages.map((bytes, k) => madePageOf(bytes, job.firsts[k] as number, HUB_MADE_ANSWERS));
}

function madeRecords(models: readonly IndexedModel[], makers: readonly MadeAnswerMaker[]): MadePage {
  const parts: Uint8Array[] = [];
  const slots = new Uint32Array(models.length * makers.length * 4);
  let at = 0;
  let r = 0;
  for (const model of models) {
    for (const maker of makers) {
      const key = maker.key(model);
      const fields = madeRecordFields(key, maker.make(model));
      if (typeof fields === 'string') throw new Error(fields);
      const [h1, h2] = madeKeyHash(key);
      const length = fields.length + MADE_DIGEST_BYTES;
      slots[r++] = h1;
      slots[r++] = h2;
      slots[r++] = at;
      slots[r++] = length;
      parts.push(fields, madeDigest(fields));
      const span = madeRecordSpan(length);
      if (span > length) parts.push(PAD.subarray(0, span - length));
      at += span;
    }
  }
  // one buffer of its own (never a slice of Node's shared pool), so a worker can hand it over without a copy
  const bytes = new Uint8Array(at);
  let o = 0;
  for (const part of parts) {
    bytes.set(part, o);
    o += part.length;
  }
  return { bytes, slots };
}

/** A worker's day, opened once for all the pages it is asked (a job names it; another day replaces it). */
let open: { key: string; index: Promise<PagedIndex> } | undefined;

/** Answer a {@link MadeJob} (on a worker thread, or the calling one when the pool has none). */
export async function runMadeJob(job: MadeJob): Promise<MadePage> {
  const key = `${job.dataDir}\n${job.catalog}\n${job.pages}\n${job.verify}`;
  if (open?.key !== key) {
    const store = new FsObjectStore(job.dataDir);
    open = { key, index: openPagedIndex(store, job.pages, job.catalog, { cacheBytes: MADE_READ_CACHE_BYTES, verify: job.verify }) };
  }
  return madePage(await open.index, job.page, job.first, HUB_MADE_ANSWERS);
}
