/**
 * The catalog pass of `hub index verify` (verify-store.ts): every catalog checked a shard at a time, so memory is
 * bounded by a few shards whatever the index size: the root, its `prev`, each shard (there, parsing, its row count),
 * each entry's model and source objects, and each row against its entry. A row and its entry in different shards
 * (never so in a built catalog) wait for each other across shards: only those are held.
 *
 * The catalogs are walked together, step by step (step 0 their roots' own runs, step s their shard s−1), because the
 * days of an archive share most model and source objects and a catalog's rows are in id order: a day's shard s names
 * nearly the objects the day before's shard s names. An object is parsed and schema-checked once (on the worker
 * threads, in batches) while its result is in a bounded table of recent results ({@link RECENT}); each day still names
 * its own faults, in the order a check of that day alone names them.
 */
import { type Address, isAddress } from '@hub/core-index';
import type { FsObjectStore } from '@hub/objects/node';
import {
  type CheckItem,
  type CheckResult,
  collectGarbage,
  type Entry,
  type Row,
  type Run,
  type RunJob,
  type RunResult,
} from './verify-jobs.js';
import type { VerifyPool } from './verify-pool.js';

/** Objects a worker checks in one job. */
const BATCH = 256;
/** Results kept for objects named again (by another day's same shard): the objects of about seven shards of one day. */
const RECENT = 1 << 17;
/** Runs whose objects are being checked while this thread reads and parses the next one. */
const AHEAD = 2;

export interface WalkInput {
  store: FsObjectStore;
  pool: VerifyPool;
  catalogs: string[];
  expectedPrev: Map<string, string | null>;
  /** the addresses the hash pass named damaged or unreadable (not parsed again) */
  bad: ReadonlySet<string>;
  progress?: (p: { step: number; steps: number; models: number }) => void;
}

interface Batch {
  items: CheckItem[];
  promise?: Promise<unknown>;
  results?: CheckResult[];
}
interface Ref {
  batch: Batch;
  i: number;
}

interface Catalog {
  address: string;
  faults: string[];
  /** the root's shards, once the root is read */
  shards?: { address: string; models: number }[];
  waiting: { rows: Map<string, Row>; entries: Map<string, { entry: Entry; revision: string | undefined }> };
}

/** One step of one catalog: the faults found reading it, and its run with the objects being checked for it. */
interface Step {
  catalog: Catalog;
  found: string[];
  run?: Run;
  refs?: (Ref | undefined)[];
}

/** Walk `catalogs` together; each one's faults (in the input's order), the rows walked and the objects checked. */
export async function walkCatalogs(input: WalkInput): Promise<{ faults: string[][]; models: number; checked: number }> {
  const { store, pool, expectedPrev } = input;
  const objectsDir = store.objectsFolder();
  // Two generations of recent results (a Map whose oldest key is deleted one at a time gets slower the more it loses):
  // when the newer holds half of RECENT, it becomes the older and the older is dropped.
  let newer = new Map<string, Ref>();
  let older = new Map<string, Ref>();
  // One catalog names an object once: the table is kept only when several catalogs are walked.
  const shared = input.catalogs.length > 1;
  let batch: Batch = { items: [] };
  let checked = 0;
  const flush = () => {
    if (batch.items.length === 0) return;
    const b = batch;
    b.promise = pool.run({ type: 'check', objectsDir, items: b.items }).then((r) => {
      b.results = r as CheckResult[];
      b.items = [];
    });
    batch = { items: [] };
  };
  const lookup = (kind: CheckItem['kind'], address: string): Ref | undefined => {
    if (!isAddress(address)) return undefined;
    const key = `${kind}:${address}`;
    const hit = shared ? (newer.get(key) ?? older.get(key)) : undefined;
    if (hit) return hit;
    const ref = { batch, i: batch.items.length };
    batch.items.push({ kind, address, bad: input.bad.has(address) });
    checked++;
    if (shared) newer.set(key, ref);
    if (newer.size >= RECENT / 2) {
      older = newer;
      newer = new Map();
    }
    if (batch.items.length >= BATCH) flush();
    return ref;
  };
  const dispatch = (step: Step): Step => {
    if (!step.run) return step;
    const refs: (Ref | undefined)[] = [];
    for (const [, entry] of step.run.objects) {
      refs.push(lookup('model', entry.model));
      for (const s of entry.sources) refs.push(lookup('source', s));
    }
    flush();
    return { ...step, refs };
  };

  const catalogs: Catalog[] = input.catalogs.map((address) => ({
    address,
    faults: [],
    waiting: { rows: new Map(), entries: new Map() },
  }));
  // A catalog object read and parsed on a worker (a whole shard never reaches this thread, only its rows' ids, shas and
  // manifests and its entries' objects); a fault is pushed when it is not an address, is missing or does not parse,
  // and none for one the hash pass named.
  const parse = async (kind: RunJob['kind'], address: string, what: string, found: string[]) => {
    if (!isAddress(address)) {
      found.push(`${what}: ${address} is not an address`);
      return undefined;
    }
    const r = (await pool.run({ type: 'run', objectsDir, kind, address, bad: input.bad.has(address) })) as RunResult;
    if (r.m === 'missing') found.push(`${what}: ${address} is missing`);
    else if (r.m === 'schema') found.push(`${what}: ${address} does not match its schema (${r.error})`);
    return r.m === 'run' ? r : undefined;
  };
  const load = async (c: Catalog, s: number): Promise<Step | undefined> => {
    const found: string[] = [];
    if (s === 0) {
      const r = await parse('root', c.address, 'catalog', found);
      const root = r?.root;
      if (root) {
        c.shards = root.shards;
        const wanted = expectedPrev.get(c.address);
        if (wanted !== undefined && root.prev !== wanted)
          found.push(`catalog ${c.address} (${root.date}): prev ${root.prev} should be ${wanted}, the day before in the archive`);
        if (root.prev && !(await store.has(root.prev as Address))) found.push(`catalog ${c.address}: prev ${root.prev} is missing`);
      }
      return { catalog: c, found, ...(r ? { run: r.run } : {}) };
    }
    const ref = c.shards?.[s - 1];
    if (!ref) return undefined;
    const r = await parse('shard', ref.address, `catalog ${c.address} shard ${s - 1}`, found);
    if (r && r.run.rows.length !== ref.models)
      found.push(`catalog ${c.address} shard ${s - 1} (${ref.address}): ${r.run.rows.length} rows, the root says ${ref.models}`);
    return { catalog: c, found, ...(r ? { run: r.run } : {}) };
  };

  const ahead: Promise<Step>[] = [];
  let models = 0;
  let steps = 1;
  for (let s = 0; s < steps; s++) {
    for (const c of catalogs) {
      const step = await load(c, s);
      if (!step) continue;
      if (s === 0) steps = Math.max(steps, 1 + (c.shards?.length ?? 0));
      const refs = dispatch(step).refs;
      const ready = waitFor(refs).then(() => ({ ...step, ...(refs ? { refs } : {}) }));
      // (a failed job fails the walk where this step is awaited, not as an unhandled rejection before that)
      ready.catch(() => {});
      ahead.push(ready);
      while (ahead.length > AHEAD) {
        models += replay((await ahead.shift()) as Step);
        collectGarbage();
      }
      input.progress?.({ step: s + 1, steps, models });
    }
  }
  while (ahead.length > 0) models += replay((await ahead.shift()) as Step);
  input.progress?.({ step: steps, steps, models });
  for (const c of catalogs) {
    // A row whose entry no shard holds names a manifest the catalog does not list.
    for (const row of c.waiting.rows.values()) c.faults.push(`catalog ${c.address}: row ${row.id} names manifest ${row.manifest}`);
  }
  return { faults: catalogs.map((c) => c.faults), models, checked };
}

async function waitFor(refs: (Ref | undefined)[] | undefined): Promise<void> {
  if (!refs) return;
  const pending = new Set<Promise<unknown>>();
  for (const r of refs) if (r?.batch.promise && !r.batch.results) pending.add(r.batch.promise);
  await Promise.all(pending);
}

/**
 * The faults of one step, pushed to its catalog's list in the order a check of that catalog alone names them: what
 * reading the run found, then each entry's model and source objects and its row, then each row of the run.
 */
function replay(step: Step): number {
  const { catalog, run, refs } = step;
  const faults = catalog.faults;
  const address = catalog.address;
  faults.push(...step.found);
  if (!run || !refs) return 0;
  let k = 0;
  const take = (objectAddress: string, what: string): CheckResult | undefined => {
    const ref = refs[k++];
    if (!ref) {
      faults.push(`${what}: ${objectAddress} is not an address`);
      return undefined;
    }
    const r = (ref.batch.results as CheckResult[])[ref.i] as CheckResult;
    if (r.m === 'missing') faults.push(`${what}: ${objectAddress} is missing`);
    else if (r.m === 'schema') faults.push(`${what}: ${objectAddress} does not match its schema (${r.error})`);
    else if (r.m !== 'skip') return r;
    return undefined;
  };
  const waiting = catalog.waiting;
  const rows = new Map(run.rows.map((r) => [r.id, r] as const));
  const sameRow = (row: Row, entry: Entry, revision: string | undefined) => {
    if (revision !== undefined && row.sha !== revision)
      faults.push(`catalog ${address}: row ${row.id} has sha ${row.sha}, its model object ${revision}`);
    if (entry.model !== row.manifest) faults.push(`catalog ${address}: row ${row.id} names manifest ${row.manifest}`);
  };
  const here = new Map(run.objects);
  for (const [id, entry] of run.objects) {
    const r = take(entry.model, `model ${id}`);
    const model = r?.m === 'model' ? r : undefined;
    if (model && model.id !== id) faults.push(`model ${id}: object names ${model.id}`);
    if (model?.prev && model.prevMissing) faults.push(`model ${id}: prev ${model.prev} is missing`);
    for (const s of entry.sources) {
      const sr = take(s, `source of ${id}`);
      const source = sr?.m === 'source' ? sr : undefined;
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
    const entry = here.get(row.id);
    if (entry) {
      if (entry.model !== row.manifest) faults.push(`catalog ${address}: row ${row.id} names manifest ${row.manifest}`);
      continue;
    }
    const earlier = waiting.entries.get(row.id);
    if (earlier) {
      waiting.entries.delete(row.id);
      sameRow(row, earlier.entry, earlier.revision);
    } else waiting.rows.set(row.id, row);
  }
  return run.rows.length;
}
