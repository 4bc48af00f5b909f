import { type Logger, silentLogger } from '../deps.js';
import type { Address } from '../index/blake3.js';
import { type BuildModelInput, type BuildResult, buildIndex, putJson } from '../index/builder.js';
import { readCatalog } from '../index/catalog-shards.js';
import { isModelId } from '../index/model-id.js';
import type { ObjectStore } from '../index/object-store.js';
import { boundedAll } from '../index/pool.js';
import {
  type CatalogObject,
  type ModelObject,
  ModelObjectSchema,
  type Pins,
  type SourceObject,
  SourceObjectSchema,
} from '../index/schemas.js';
import type { NoteSigner } from '../log/note.js';
import { SourceBreaker, type SourceCheck } from './breaker.js';
import {
  type Clock,
  isTransient,
  systemClock,
  UpstreamClient,
  type UpstreamClientOptions,
  UpstreamError,
  type WaitInfo,
} from './client.js';
import {
  type IndexModelContext,
  indexModel,
  type ModelWork,
  notPublic,
  refusal,
  repoPath,
  resolveRevision,
  rowFacts,
  type SkipReason,
  type UpstreamRow,
} from './model.js';
import { type HttpModelScopeOptions, httpModelScope, type ModelScopeAdapter } from './modelscope.js';
import { pinFor, pinSource } from './pins.js';

export const BUILD_RESULT_KIND = 'model-hub.build-result';
export const BUILD_LISTING_KIND = 'model-hub.build-listing';
export const WORK_FORMAT = 'svc.model-hub.build-work/v1';

/** The OCI repository that holds every day's index (Archive.registry). */
import { ARCHIVE_REGISTRY } from '../index/builder.js';

export { ARCHIVE_REGISTRY };

export interface UpstreamBuildOptions {
  objects: ObjectStore;
  /** The upstream model host (or a mirror of its API), e.g. `https://huggingface.co`. */
  upstream: string;
  fetch: typeof fetch;
  clock?: Clock;
  /** Public trending models to index (default 500). */
  top?: number;
  /** The day to build (default: today by the clock, UTC). */
  date?: string;
  /** Ids asked for but not in the index (the missing log), indexed too when public. */
  missing?: string[];
  /** At most this many missing-log ids are looked up per run (default 200). */
  maxMissing?: number;
  /** The operator's Pins document: pinned revisions get an IPFS source. */
  pins?: Pins;
  /** ModelScope lookups: options for the HTTP adapter, an adapter, or false for none (default: none). */
  modelscope?: HttpModelScopeOptions | ModelScopeAdapter | false;
  /** Models indexed at once (default 4). */
  modelConcurrency?: number;
  /** Retry, backoff and request concurrency for the upstream (default 8 requests in flight). */
  http?: Omit<UpstreamClientOptions, 'fetch' | 'clock' | 'token' | 'tokenOrigin'>;
  /** A read token for the upstream (`HF_TOKEN`): sent to the upstream's origin only, never logged. */
  token?: string;
  /** How long the run may wait for rate-limit windows, in seconds from its start (default 6 hours). */
  deadlineSeconds?: number;
  /** Consecutive network failures after which a secondary source is not asked again in this run (default 3). */
  breakerThreshold?: number;
  /** Largest non-LFS file downloaded and hashed (default 10 MiB). */
  smallFileCap?: number;
  /** Small files downloaded at once per model (default 4). */
  smallFileConcurrency?: number;
  /** GGUF headers read per model, the preferred quantisation first (default 1; others get their quantisation from the name). */
  ggufHeadersPerModel?: number;
  /** Rows per listing page (default min(top, 500)). */
  pageSize?: number;
  /** Health key of the upstream as a byte source (default `huggingface.co`). */
  hfSource?: string;
  /** More http sources recorded as holding every file (an operator's mirror). */
  extraSources?: Array<{ source: string; url?: string }>;
  display?: (source: string) => string;
  codeCommit?: string;
  /** Fields of the archive document (registry, gateway, mirror). */
  archive?: { registry?: string; gateway?: string; mirror?: string };
  /** Keys that sign the transparency log's checkpoint (design 10.4). */
  signers?: readonly NoteSigner[];
  /** Ignore finished work of the same day and list again. */
  fresh?: boolean;
  log?: Logger;
  onProgress?: (p: BuildProgress) => void;
}

export interface BuildProgress {
  phase: 'list' | 'models' | 'write' | 'done';
  done: number;
  total: number;
  id?: string;
  /** quota left per rate-limit bucket, as the host last said it */
  quota?: Array<{ bucket: string; remaining: number; quota?: number }>;
  /** a pause for a bucket's window, while one is under way */
  waiting?: { bucket: string; seconds: number };
}

export interface SkippedModel {
  id: string;
  reason: SkipReason;
  detail: string;
}

export interface BuildSummary {
  catalog: Address;
  date: string;
  models: number;
  files: number;
  bytes: number;
  skipped: SkippedModel[];
  skippedByReason: Record<string, number>;
  /** models whose files came from yesterday's object (same revision) */
  reused: number;
  /** models whose attempt failed for a transient reason today: yesterday's object kept */
  kept: number;
  /** kept models by why today's attempt failed (`rate limited`, `network`, `HTTP 503`, …) */
  keptByReason: Record<string, number>;
  /** models taken from finished work of an interrupted run */
  resumed: number;
  /** secondary sources: checked today, unreachable (not checked for the rest of the run), or off */
  sources: Record<string, SourceCheck>;
  requests: number;
  /** requests per rate-limit bucket (`api`, `resolvers`, `pages`) */
  requestsByBucket: Record<string, number>;
  retries: number;
  /** answers that were 429 (each waited for its window, none counted as a retry) */
  rateLimited: number;
  waitedMs: number;
  downloadedBytes: number;
  seconds: number;
  result: BuildResult;
}

interface ListedRow {
  row: UpstreamRow;
  listed: boolean;
}

interface Listing {
  kind: typeof BUILD_LISTING_KIND;
  upstream: string;
  top: number;
  date: string;
  rows: ListedRow[];
  skipped: SkippedModel[];
}

interface WorkState {
  format: typeof WORK_FORMAT;
  upstream: string;
  top: number;
  listing: string | null;
  /** `id@revision` → address of a build-result object */
  done: Record<string, string>;
  finished: string | null;
}

type StoredResult = { kind: typeof BUILD_RESULT_KIND; key: string } & (
  | { status: 'ok'; model: BuildModelInput }
  | { status: 'skipped'; id: string; reason: SkipReason; detail: string }
);

const decoder = new TextDecoder();

async function readJson<T>(objects: ObjectStore, address: string): Promise<T | undefined> {
  const s = await objects.get(address as Address);
  if (!s) return undefined;
  try {
    return JSON.parse(decoder.decode(s.bytes)) as T;
  } catch {
    return undefined;
  }
}

export function workRefName(date: string): string {
  return `build-${date}`;
}

/** Skip reasons that come from the upstream's data, not from a failure: kept as finished work. */
const FINAL_REASONS = new Set<SkipReason>([
  'empty',
  'file-over-cap',
  'size-mismatch',
  'bad-lfs-oid',
  'not-found',
  'no-revision',
  'gated',
  'disabled',
]);

/** The run's work ref (`build-<date>`): finished models by `id@revision`, so a killed run resumes. */
class WorkRef {
  state: WorkState;
  private writing: Promise<void> = Promise.resolve();

  private constructor(
    private readonly objects: ObjectStore,
    readonly name: string,
    state: WorkState,
  ) {
    this.state = state;
  }

  static async open(objects: ObjectStore, date: string, upstream: string, top: number, fresh: boolean, log: Logger): Promise<WorkRef> {
    const name = workRefName(date);
    let state: WorkState = { format: WORK_FORMAT, upstream, top, listing: null, done: {}, finished: null };
    const raw = fresh ? undefined : await objects.readRef(name);
    if (raw) {
      try {
        const s = JSON.parse(raw) as WorkState;
        if (s.format === WORK_FORMAT && s.upstream === upstream && s.top === top && !s.finished) {
          state = { ...s, done: s.done ?? {} };
          log.info({ event: 'resume', ref: name, finished: Object.keys(state.done).length }, 'resuming an interrupted run');
        } else if (s.format === WORK_FORMAT && s.finished) {
          // A finished run of the same day: keep its per-model results, list again.
          state = { ...state, done: s.upstream === upstream ? (s.done ?? {}) : {} };
        }
      } catch {
        log.warn({ event: 'work-ref-unreadable', ref: name }, 'ignoring an unreadable work ref');
      }
    }
    return new WorkRef(objects, name, state);
  }

  save(): Promise<void> {
    const snapshot = JSON.stringify(this.state);
    this.writing = this.writing.then(() => this.objects.writeRef(this.name, snapshot));
    return this.writing;
  }

  flush(): Promise<void> {
    return this.writing;
  }

  async finished(key: string): Promise<StoredResult | undefined> {
    const address = this.state.done[key];
    const stored = address ? await readJson<StoredResult>(this.objects, address) : undefined;
    return stored && stored.kind === BUILD_RESULT_KIND && stored.key === key ? stored : undefined;
  }

  async record(work: ModelWork, key: string): Promise<void> {
    const record: StoredResult =
      work.status === 'ok'
        ? { kind: BUILD_RESULT_KIND, key, status: 'ok', model: work.model }
        : { kind: BUILD_RESULT_KIND, key, status: 'skipped', id: work.id, reason: work.reason, detail: work.detail };
    this.state.done[key] = await putJson(this.objects, BUILD_RESULT_KIND, record);
    await this.save();
  }
}

/** Yesterday's catalog: its model objects (reused for unchanged revisions) and its sources (kept on a transient failure). */
class Yesterday {
  private constructor(
    private readonly objects: ObjectStore,
    private readonly catalog: CatalogObject | undefined,
  ) {}

  static async open(objects: ObjectStore): Promise<Yesterday> {
    const current = await objects.readRef('current');
    if (!current) return new Yesterday(objects, undefined);
    // A sharded catalog is joined; an unreadable one counts as no yesterday, as before.
    const catalog = await readCatalog(objects, current as Address).catch(() => undefined);
    return new Yesterday(objects, catalog);
  }

  async model(id: string): Promise<ModelObject | undefined> {
    const entry = this.catalog?.objects[id];
    if (!entry) return undefined;
    const parsed = ModelObjectSchema.safeParse(await readJson(this.objects, entry.model));
    return parsed.success ? parsed.data : undefined;
  }

  async sources(id: string): Promise<Array<Omit<SourceObject, 'kind' | 'model' | 'revision'>>> {
    const entry = this.catalog?.objects[id];
    const out: Array<Omit<SourceObject, 'kind' | 'model' | 'revision'>> = [];
    for (const a of entry?.sources ?? []) {
      const parsed = SourceObjectSchema.safeParse(await readJson(this.objects, a));
      if (!parsed.success) continue;
      const { kind: _k, model: _m, revision: _r, ...rest } = parsed.data;
      out.push(rest);
    }
    return out;
  }

  /** Yesterday's model as today's build input (its files, facts and sources; today's listing row when there is one). */
  async input(row: UpstreamRow, listed: boolean): Promise<BuildModelInput | undefined> {
    const m = await this.model(row.id);
    if (!m) return undefined;
    return {
      id: m.id,
      revision: m.revision,
      license: m.license,
      files: m.files,
      facts: m.facts,
      row: rowFacts(row, listed),
      sources: await this.sources(row.id),
    };
  }
}

/** Why a transient failure happened, as the summary counts kept models. */
function transientReason(e: unknown): string {
  if (e instanceof UpstreamError) {
    if (e.status === 429 || e.code === 'RateLimited') return 'rate limited';
    if (e.status === 'network') return 'network';
    return `HTTP ${e.status}`;
  }
  return 'network';
}

/** Secondary-source lookups, off the models' own path: a bounded queue behind a circuit breaker. */
class SourceLookups {
  private readonly pending: Promise<void>[] = [];
  private active = 0;
  private readonly queue: Array<() => void> = [];

  constructor(
    readonly adapter: ModelScopeAdapter,
    readonly breaker: SourceBreaker,
    private readonly yesterday: Yesterday,
    private readonly concurrency = 2,
  ) {}

  /** Look the model up (later, without holding up the caller); then `done` with its sources. */
  add(model: BuildModelInput, done: (m: BuildModelInput) => Promise<void>): void {
    this.pending.push(
      (async () => {
        if (this.active >= this.concurrency) await new Promise<void>((r) => this.queue.push(r));
        else this.active++;
        try {
          const sources = [...model.sources];
          const r = await this.breaker.call(() => this.adapter.find({ id: model.id, files: model.files }));
          if (!r.skipped && r.value) sources.push(r.value);
          else if (r.skipped) {
            // Not checked today: yesterday's record of this source stays for the same revision.
            const prev = await this.yesterday.model(model.id);
            if (prev && prev.revision === model.revision)
              sources.push(...(await this.yesterday.sources(model.id)).filter((s) => s.source === this.adapter.source));
          }
          await done({ ...model, sources });
        } finally {
          const next = this.queue.shift();
          if (next) next();
          else this.active--;
        }
      })(),
    );
  }

  async settle(): Promise<void> {
    await Promise.all(this.pending);
  }
}

/** Phase state shared by the run's steps. */
interface RunContext {
  options: UpstreamBuildOptions;
  clock: Clock;
  log: Logger;
  objects: ObjectStore;
  upstream: string;
  top: number;
  date: string;
  client: UpstreamClient;
  work: WorkRef;
  yesterday: Yesterday;
  progress: (p: BuildProgress) => void;
}

interface ModelsOutcome {
  results: Array<ModelWork | undefined>;
  transient: SkippedModel[];
  kept: number;
  keptByReason: Record<string, number>;
  resumed: number;
  reused: number;
  downloaded: number;
}

/**
 * The daily index run against an upstream model host: list trending public models (and the missing
 * log), index each at its current revision, find the sources holding it, and write the day's
 * objects with {@link buildIndex}. Finished models are kept in a work ref (`build-<date>`) as result
 * objects keyed by `id@revision`, so a run killed at any point and started again reuses them and ends
 * with the same catalog.
 */
export async function runUpstreamBuild(options: UpstreamBuildOptions): Promise<BuildSummary> {
  const clock = options.clock ?? systemClock;
  const started = clock.now();
  const log = options.log ?? silentLogger;
  const upstream = options.upstream.replace(/\/+$/, '');
  const top = Math.max(1, Math.floor(options.top ?? 500));
  const date = options.date ?? new Date(clock.now()).toISOString().slice(0, 10);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) throw new Error(`date ${date} is not YYYY-MM-DD`);
  const userProgress = options.onProgress ?? (() => {});
  const deadline = started + (options.deadlineSeconds ?? 6 * 3600) * 1000;
  let last: BuildProgress = { phase: 'list', done: 0, total: top };
  let waiting: { bucket: string; until: number } | undefined;
  const progress = (p: BuildProgress) => {
    last = p;
    const quota = client.quota().map(({ bucket, remaining, quota }) => ({ bucket, remaining, ...(quota !== undefined ? { quota } : {}) }));
    const w =
      waiting && waiting.until > clock.now()
        ? { bucket: waiting.bucket, seconds: Math.ceil((waiting.until - clock.now()) / 1000) }
        : undefined;
    userProgress({ ...p, ...(quota.length ? { quota } : {}), ...(w ? { waiting: w } : {}) });
  };
  const onWait = (w: WaitInfo) => {
    if (w.bucket) {
      const until = clock.now() + w.waitMs;
      if (!waiting || waiting.until < until || waiting.until <= clock.now()) {
        waiting = { bucket: w.bucket, until };
        log.warn(
          { event: 'rate-limit-wait', bucket: w.bucket, waitMs: w.waitMs, status: w.status, retryAfter: w.retryAfter },
          `waiting ${Math.ceil(w.waitMs / 1000)} s for the ${w.bucket} window`,
        );
        progress(last);
      }
    } else log.warn({ event: 'upstream-wait', ...w }, `waiting ${w.waitMs} ms before retrying`);
    options.http?.onWait?.(w);
  };
  const client = new UpstreamClient({
    ...options.http,
    fetch: options.fetch,
    clock,
    deadline,
    onWait,
    ...(options.token ? { token: options.token, tokenOrigin: upstream } : {}),
  });
  const rc: RunContext = {
    options,
    clock,
    log,
    objects: options.objects,
    upstream,
    top,
    date,
    client,
    work: await WorkRef.open(options.objects, date, upstream, top, options.fresh ?? false, log),
    yesterday: await Yesterday.open(options.objects),
    progress,
  };

  const listing = await listPhase(rc);
  const lookups = secondarySources(rc, deadline);
  const outcome = await modelsPhase(rc, listing, lookups);
  const { result, skipped } = await writePhase(rc, listing, outcome);
  const sources: Record<string, SourceCheck> = {};
  if (lookups) sources[lookups.adapter.source] = lookups.breaker.state;
  else if (options.modelscope === false || options.modelscope === undefined) sources['modelscope.cn'] = 'off';
  return summarize(rc, started, result, skipped, outcome, sources);
}

/** Phase 1: the listing, from finished work of the same day or from the upstream. */
async function listPhase(rc: RunContext): Promise<Listing> {
  rc.progress({ phase: 'list', done: 0, total: rc.top });
  const state = rc.work.state;
  let listing: Listing | undefined = state.listing ? await readJson<Listing>(rc.objects, state.listing) : undefined;
  if (!listing) {
    listing = await listModels(rc.client, rc.upstream, rc.top, rc.date, rc.options, rc.log, (n) =>
      rc.progress({ phase: 'list', done: n, total: rc.top }),
    );
    state.listing = await putJson(rc.objects, BUILD_LISTING_KIND, listing);
    await rc.work.save();
  }
  rc.log.info({ event: 'listed', models: listing.rows.length, skipped: listing.skipped.length }, 'listed models');
  return listing;
}

/** The second public host as a source, behind its breaker; its client never carries the upstream's token. */
function secondarySources(rc: RunContext, deadline: number): SourceLookups | undefined {
  const o = rc.options;
  let adapter: ModelScopeAdapter | undefined;
  if (o.modelscope && 'find' in o.modelscope) adapter = o.modelscope;
  else if (o.modelscope) {
    const ua = o.http?.headers?.['user-agent'];
    // Few retries and a short timeout: a dark source costs seconds, and the breaker stops asking it.
    const msClient = new UpstreamClient({
      ...o.http,
      retries: Math.min(o.http?.retries ?? 1, 1),
      timeoutMs: Math.min(o.http?.timeoutMs ?? 20_000, 20_000),
      headers: ua ? { 'user-agent': ua } : {},
      fetch: o.fetch,
      clock: rc.clock,
      // Paced like the upstream, but a secondary source waits for its windows at most an hour: past that its lookups
      // fail (and the breaker counts them), so a throttled source never holds the day's index for hours.
      deadline: Math.min(deadline, rc.clock.now() + 3600_000),
    });
    adapter = httpModelScope(msClient, o.modelscope);
  }
  if (!adapter) return undefined;
  return new SourceLookups(adapter, new SourceBreaker(adapter.source, rc.log, o.breakerThreshold ?? 3), rc.yesterday);
}

/** Phase 2: every listed model at its current revision, a few at a time. */
async function modelsPhase(rc: RunContext, listing: Listing, lookups: SourceLookups | undefined): Promise<ModelsOutcome> {
  const o = rc.options;
  const ctx: IndexModelContext = {
    client: rc.client,
    upstream: rc.upstream,
    smallFileCap: o.smallFileCap ?? 10 * 1024 * 1024,
    ggufHeaders: o.ggufHeadersPerModel ?? 1,
    previous: (id) => rc.yesterday.model(id),
    smallFileConcurrency: o.smallFileConcurrency ?? 4,
    hfSource: o.hfSource ?? 'huggingface.co',
    log: rc.log,
  };
  const rows = listing.rows;
  const out: ModelsOutcome = {
    results: new Array(rows.length),
    transient: [],
    kept: 0,
    keptByReason: {},
    resumed: 0,
    reused: 0,
    downloaded: 0,
  };
  let done = 0;

  const one = async (i: number) => {
    const { row, listed } = rows[i] as ListedRow;
    let revision: string | undefined;
    try {
      revision = await resolveRevision(ctx, row);
      if (!revision) {
        out.results[i] = { status: 'skipped', id: row.id, reason: 'no-revision', detail: 'the upstream names no full commit for main' };
        return;
      }
      const key = `${row.id}@${revision}`;
      const stored = await rc.work.finished(key);
      if (stored) {
        out.resumed++;
        out.results[i] =
          stored.status === 'ok'
            ? { status: 'ok', model: stored.model, reused: false, downloaded: 0 }
            : { status: 'skipped', id: stored.id, reason: stored.reason, detail: stored.detail };
        return;
      }
      const work = await indexModel(ctx, row, revision, listed);
      out.results[i] = work;
      out.downloaded += work.downloaded ?? 0;
      if (work.status === 'ok' && work.reused) out.reused++;
      if (work.status === 'ok' && lookups) {
        // The lookup runs beside the next models; its result lands in the same slot and in the work ref.
        lookups.add(work.model, async (model) => {
          out.results[i] = { ...work, model };
          if (!work.incomplete) await rc.work.record({ ...work, model }, key);
        });
      } else if ((work.status === 'ok' && !work.incomplete) || (work.status === 'skipped' && FINAL_REASONS.has(work.reason))) {
        await rc.work.record(work, key);
      }
    } catch (e) {
      const refused = e instanceof UpstreamError ? refusal(e) : undefined;
      if (refused) {
        out.results[i] = { status: 'skipped', id: row.id, ...refused };
        return;
      }
      const detail = (e instanceof UpstreamError ? e.message : `${(e as Error)?.message ?? String(e)}`).slice(0, 300);
      // A transient failure keeps yesterday's object (its revision, files and sources): the model stays listed, and
      // the next run indexes today's revision.
      const prev = isTransient(e) ? await rc.yesterday.input(row, listed) : undefined;
      if (prev) {
        const why = transientReason(e);
        out.kept++;
        out.keptByReason[why] = (out.keptByReason[why] ?? 0) + 1;
        out.results[i] = { status: 'ok', model: prev, reused: true, downloaded: 0 };
        rc.log.warn(
          { event: 'model-kept', model: row.id, reason: why, kept: prev.revision, today: revision ?? null, err: detail },
          "kept yesterday's object",
        );
        return;
      }
      // Skipped today, tried again by the next run.
      out.transient.push({ id: row.id, reason: 'error', detail });
      out.results[i] = { status: 'skipped', id: row.id, reason: 'error', detail };
      rc.log.error({ event: 'model-failed', model: row.id, err: detail }, 'model failed');
    }
  };

  // The one bounded pool of core-index: a fatal failure (not one model's) stops new models; finished work stays for
  // the next run.
  await boundedAll(rows, o.modelConcurrency ?? 4, async (_row, i) => {
    await one(i);
    done++;
    const r = out.results[i];
    if (r?.status === 'ok')
      rc.log.info(
        { event: 'model', model: r.model.id, revision: r.model.revision, files: r.model.files.length, reused: r.reused },
        'indexed model',
      );
    else if (r) rc.log.info({ event: 'skip', model: r.id, reason: r.reason, detail: r.detail }, 'skipped model');
    rc.progress({ phase: 'models', done, total: rows.length, id: (rows[i] as ListedRow).row.id });
  });
  await lookups?.settle();
  await rc.work.flush();
  return out;
}

/** Phase 3 and 4: the day's objects, chain and archive, then the switch of `current` (inside buildIndex). */
async function writePhase(
  rc: RunContext,
  listing: Listing,
  outcome: ModelsOutcome,
): Promise<{ result: BuildResult; skipped: SkippedModel[] }> {
  const o = rc.options;
  rc.progress({ phase: 'write', done: 0, total: 1 });
  const models: BuildModelInput[] = [];
  const skipped: SkippedModel[] = [...listing.skipped];
  for (const r of outcome.results) {
    if (!r) continue;
    if (r.status === 'skipped') {
      if (r.reason !== 'error') skipped.push({ id: r.id, reason: r.reason, detail: r.detail });
      continue;
    }
    const m = r.model;
    const sources = m.sources.filter((s) => s.type !== 'ipfs' && !(o.extraSources ?? []).some((x) => x.source === s.source));
    const pin = pinFor(o.pins, m.id, m.revision as string);
    if (pin) sources.push(pinSource(pin.root));
    for (const s of o.extraSources ?? []) sources.push({ source: s.source, type: 'http', ...(s.url ? { url: s.url } : {}) });
    models.push({ ...m, sources });
  }
  skipped.push(...outcome.transient);
  const result = await buildIndex(rc.objects, {
    date: rc.date,
    models,
    ...(o.display ? { display: o.display } : {}),
    ...(o.codeCommit ? { codeCommit: o.codeCommit } : {}),
    ...(o.signers ? { signers: o.signers } : {}),
    now: () => rc.clock.now(),
    archive: { registry: ARCHIVE_REGISTRY, ...(o.pins?.gateway ? { gateway: o.pins.gateway } : {}), ...o.archive },
  });
  rc.work.state.finished = result.catalog;
  await rc.work.save();
  rc.progress({ phase: 'done', done: 1, total: 1 });
  return { result, skipped };
}

function summarize(
  rc: RunContext,
  started: number,
  result: BuildResult,
  skipped: SkippedModel[],
  outcome: ModelsOutcome,
  sources: Record<string, SourceCheck>,
): BuildSummary {
  const skippedByReason: Record<string, number> = {};
  for (const s of skipped) skippedByReason[s.reason] = (skippedByReason[s.reason] ?? 0) + 1;
  const requestsByBucket: Record<string, number> = {};
  for (const [b, s] of rc.client.buckets) requestsByBucket[b] = s.sent;
  const summary: BuildSummary = {
    catalog: result.catalog,
    date: rc.date,
    models: result.models,
    files: result.files,
    bytes: result.bytes,
    skipped,
    skippedByReason,
    reused: outcome.reused,
    kept: outcome.kept,
    keptByReason: outcome.keptByReason,
    resumed: outcome.resumed,
    sources,
    requests: rc.client.stats.requests,
    requestsByBucket,
    retries: rc.client.stats.retries,
    rateLimited: rc.client.stats.rateLimited,
    waitedMs: rc.client.stats.waitedMs,
    downloadedBytes: outcome.downloaded,
    seconds: (rc.clock.now() - started) / 1000,
    result,
  };
  rc.log.info(
    {
      event: 'summary',
      catalog: summary.catalog,
      date: rc.date,
      models: summary.models,
      files: summary.files,
      bytes: summary.bytes,
      skipped: skippedByReason,
      reused: summary.reused,
      kept: summary.kept,
      keptByReason: summary.keptByReason,
      resumed: summary.resumed,
      sources,
      requests: summary.requests,
      requestsByBucket,
      retries: summary.retries,
      rateLimited: summary.rateLimited,
    },
    'index run finished',
  );
  return summary;
}

/** The trending listing (public rows only, `top` of them) plus the missing log's public models. */
async function listModels(
  client: UpstreamClient,
  upstream: string,
  top: number,
  date: string,
  options: UpstreamBuildOptions,
  log: Logger,
  onRow: (n: number) => void,
): Promise<Listing> {
  const rows: ListedRow[] = [];
  const skipped: SkippedModel[] = [];
  const seen = new Set<string>();
  const limit = Math.max(1, Math.min(options.pageSize ?? Math.min(top, 500), 1000));
  // Projection mode (`expand[]`): only the fields the run reads, with the host's GGUF block, lighter than `full=true`
  // (no siblings). The host answers `_id`, `id` and exactly these.
  const first = `${upstream}/api/models?sort=trendingScore&limit=${limit}&${LISTING_EXPAND.map((f) => `expand[]=${f}`).join('&')}`;
  outer: for await (const page of client.pages<UpstreamRow>(first)) {
    for (const row of page) {
      if (rows.length >= top) break outer;
      const id = typeof row?.id === 'string' ? row.id : String(row?.id);
      if (seen.has(id.toLowerCase())) continue;
      seen.add(id.toLowerCase());
      const why = notPublic(row);
      if (why) {
        skipped.push({ id, ...why });
        continue;
      }
      rows.push({ row: slimRow(row), listed: true });
      onRow(rows.length);
    }
    if (page.length === 0) break;
  }
  const missing = (options.missing ?? []).filter((id) => isModelId(id) && !seen.has(id.toLowerCase())).slice(0, options.maxMissing ?? 200);
  for (const id of missing) {
    seen.add(id.toLowerCase());
    try {
      const { value } = await client.json<UpstreamRow>(`${upstream}/api/models/${repoPath(id)}`);
      const row = { ...value, id: typeof value.id === 'string' ? value.id : id };
      const why = notPublic(row);
      if (why) skipped.push({ id, ...why });
      else rows.push({ row: slimRow(row), listed: false });
    } catch (e) {
      if (e instanceof UpstreamError && (e.status === 404 || e.status === 401 || e.status === 403)) {
        // The model host answers 401 for private and for absent repositories alike.
        skipped.push({ id, reason: 'not-found', detail: `asked for (missing log), but the upstream answers ${e.status}` });
        continue;
      }
      log.warn({ event: 'missing-lookup-failed', model: id, err: (e as Error).message }, 'missing-log lookup failed');
    }
  }
  return { kind: BUILD_LISTING_KIND, upstream, top, date, rows, skipped };
}

/** The fields the listing asks for (huggingface_hub's ExpandModelProperty_T names). */
export const LISTING_EXPAND = [
  'sha',
  'private',
  'gated',
  'disabled',
  'downloads',
  'likes',
  'trendingScore',
  'pipeline_tag',
  'library_name',
  'tags',
  'createdAt',
  'lastModified',
  'cardData',
  'gguf',
] as const;

/** The fields the run uses, so the stored listing stays small (no siblings, no card text). */
function slimRow(row: UpstreamRow): UpstreamRow {
  const out: UpstreamRow = { id: row.id };
  for (const k of [
    'sha',
    'downloads',
    'likes',
    'trendingScore',
    'pipeline_tag',
    'library_name',
    'tags',
    'createdAt',
    'lastModified',
  ] as const) {
    if (row[k] !== undefined && row[k] !== null) (out as unknown as Record<string, unknown>)[k] = row[k];
  }
  const lic = row.cardData?.license;
  if (lic !== undefined) out.cardData = { license: lic };
  const g = row.gguf;
  if (g && typeof g === 'object') {
    const gguf: NonNullable<UpstreamRow['gguf']> = {};
    if (typeof g.architecture === 'string') gguf.architecture = g.architecture;
    if (typeof g.context_length === 'number') gguf.context_length = g.context_length;
    if (typeof g.total === 'number') gguf.total = g.total;
    if (typeof g.chat_template === 'string') gguf.chat_template = g.chat_template;
    out.gguf = gguf;
  }
  return out;
}
