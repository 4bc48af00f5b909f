/**
 * The work `hub index verify` hands to its worker threads (verify-pool.ts), a job at a time, each answered with a small
 * plain result (no parsed object crosses a thread): re-hash every object of one fan-out folder, or read, parse and
 * schema-check a batch of model and source objects. The same functions run on the calling thread when no worker can
 * be started (`workers: 0`), so both paths name the same faults. The same threads also make the made answers' pages
 * (`MadeJob`, made-jobs.ts: the records of one models page, their arrays moved back to the writer).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import {
  addressOf,
  type CatalogObject,
  CatalogObjectSchema,
  CatalogShardSchema,
  ModelObjectSchema,
  SourceObjectSchema,
} from '@hub/core-index';
import { objectFile } from '@hub/objects/node';
import type { MadeBytesJob, MadeJob, MadePage } from './made-jobs.js';

/** Re-hash every object of the fan-out folder `dir` (`objects/ab`), in name order. */
export interface HashJob {
  type: 'hash';
  objectsDir: string;
  dir: string;
}

export interface HashResult {
  /** objects found in the folder (every `<64 hex>` name) */
  objects: number;
  /** `ADDRESS: unreadable` or `ADDRESS: bytes hash to OTHER`, in name order */
  faults: string[];
  /** the addresses of those faults (the catalog pass trusts every other object's bytes) */
  bad: string[];
}

/** One object a catalog names, to read and check against its kind's schema. */
export interface CheckItem {
  kind: 'model' | 'source';
  address: string;
  /** named in a fault of the hash pass: not parsed here (that fault already names it) */
  bad: boolean;
}

export interface CheckJob {
  type: 'check';
  objectsDir: string;
  items: CheckItem[];
}

/**
 * What a catalog's checks need of one object: `missing` (no bytes), `skip` (a fault of the hash pass names it),
 * `schema` (the message its JSON parse or schema check threw, cut to 120 characters), or what the object says.
 */
export type CheckResult =
  | { m: 'missing' }
  | { m: 'skip' }
  | { m: 'schema'; error: string }
  | { m: 'model'; id: string; revision: string; prev: string | null; prevMissing: boolean }
  | { m: 'source'; model: string; revision: string };

const decoder = new TextDecoder();

export function hashDir(job: HashJob): HashResult {
  const folder = path.join(job.objectsDir, job.dir);
  // the object files (`<64 hex>` names) in name order, so the faults come in address order
  const names = readdirSync(folder)
    .filter((n) => /^[0-9a-f]{64}$/.test(n))
    .sort();
  const faults: string[] = [];
  const bad: string[] = [];
  for (const name of names) {
    const address = `blake3:${name}`;
    let bytes: Uint8Array;
    try {
      bytes = readFileSync(path.join(folder, name));
    } catch {
      faults.push(`${address}: unreadable`);
      bad.push(address);
      continue;
    }
    const actual = addressOf(bytes);
    if (actual !== address) {
      faults.push(`${address}: bytes hash to ${actual}`);
      bad.push(address);
    }
  }
  return { objects: names.length, faults, bad };
}

export function checkObjects(job: CheckJob): CheckResult[] {
  return job.items.map((item) => checkObject(job.objectsDir, item));
}

function checkObject(objectsDir: string, item: CheckItem): CheckResult {
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(objectFile(objectsDir, item.address));
  } catch {
    return { m: 'missing' };
  }
  if (item.bad) return { m: 'skip' };
  try {
    const value: unknown = JSON.parse(decoder.decode(bytes));
    if (item.kind === 'source') {
      const source = SourceObjectSchema.parse(value);
      return { m: 'source', model: source.model, revision: source.revision };
    }
    const model = ModelObjectSchema.parse(value);
    const prevMissing = model.prev !== null && !existsSync(objectFile(objectsDir, model.prev));
    return { m: 'model', id: model.id, revision: model.revision, prev: model.prev, prevMissing };
  } catch (e) {
    return { m: 'schema', error: (e as Error).message.slice(0, 120) };
  }
}

/** Read and parse a catalog's root or one of its shards, and give back only what its checks need (catalog-walk.ts). */
export interface RunJob {
  type: 'run';
  objectsDir: string;
  kind: 'root' | 'shard';
  address: string;
  /** named in a fault of the hash pass: not parsed (that fault already names it) */
  bad: boolean;
}

/** What the checks need of a row and of an entry. */
export type Row = { id: string; sha: string; manifest: string };
export type Entry = { model: string; sources: string[] };
/** A run of rows and their entries (the root's own or a shard's), in the catalog's order. */
export type Run = { rows: Row[]; objects: [string, Entry][] };

export type RunResult =
  | { m: 'missing' }
  | { m: 'skip' }
  | { m: 'schema'; error: string }
  | { m: 'run'; run: Run; root?: { date: string; prev: string | null; shards: { address: string; models: number }[] } };

export function readRun(job: RunJob): RunResult {
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(objectFile(job.objectsDir, job.address));
  } catch {
    return { m: 'missing' };
  }
  if (job.bad) return { m: 'skip' };
  let parsed: Pick<CatalogObject, 'rows' | 'objects'> & Partial<Pick<CatalogObject, 'date' | 'prev' | 'shards'>>;
  try {
    const value: unknown = JSON.parse(decoder.decode(bytes));
    parsed = job.kind === 'root' ? CatalogObjectSchema.parse(value) : CatalogShardSchema.parse(value);
  } catch (e) {
    return { m: 'schema', error: (e as Error).message.slice(0, 120) };
  }
  const run: Run = {
    rows: parsed.rows.map((r) => ({ id: r.id, sha: r.sha, manifest: r.svc.manifest })),
    objects: Object.entries(parsed.objects).map(([id, e]) => [id, { model: e.model, sources: e.sources }]),
  };
  if (job.kind === 'shard') return { m: 'run', run };
  return { m: 'run', run, root: { date: parsed.date as string, prev: parsed.prev ?? null, shards: parsed.shards ?? [] } };
}

/** The jobs of the pool's threads: `hub index verify`'s, and a models page of the made answers (made-jobs.ts). */
export type VerifyJob = HashJob | CheckJob | RunJob | MadeJob | MadeBytesJob;
export type VerifyJobResult = HashResult | CheckResult[] | RunResult | MadePage | MadePage[];

/** A job's result; a made-answers page is made asynchronously, its code loaded on the first one. */
export function runJob(job: VerifyJob): VerifyJobResult | Promise<VerifyJobResult> {
  if (job.type === 'made') return import('./made-jobs.js').then((m) => m.runMadeJob(job));
  if (job.type === 'made-bytes') return import('./made-jobs.js').then((m) => m.runMadeBytesJob(job));
  return job.type === 'hash' ? hashDir(job) : job.type === 'check' ? checkObjects(job) : readRun(job);
}

let fullGc: (() => void) | null | undefined;

/**
 * A full garbage collection of this thread, where V8 allows one (`--expose-gc` set now, the function taken from a new
 * context). The catalog pass calls it after each step: what a step allocates (the workers' answers, a run's rows) is
 * dead by then, but it outlived the young generation, and V8 lets the old one grow by hundreds of MB before it
 * collects on its own (measured: heap 160 MB, 25 MB of it live, at 100,000 models).
 */
export function collectGarbage(): void {
  if (fullGc === undefined) {
    try {
      v8.setFlagsFromString('--expose-gc');
      fullGc = vm.runInNewContext('gc') as () => void;
    } catch {
      fullGc = null;
    }
  }
  fullGc?.();
}
