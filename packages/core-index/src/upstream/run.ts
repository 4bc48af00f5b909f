import { type Logger, silentLogger } from '../deps.js';
import type { Address } from '../index/blake3.js';
import { type BuildModelInput, type BuildResult, buildIndex, putJson } from '../index/builder.js';
import type { ObjectStore } from '../index/object-store.js';
import { type CatalogObject, CatalogObjectSchema, type ModelObject, ModelObjectSchema, type Pins } from '../index/schemas.js';
import { type Clock, systemClock, UpstreamClient, type UpstreamClientOptions, UpstreamError } from './client.js';
import {
  type IndexModelContext,
  indexModel,
  isModelId,
  type ModelWork,
  notPublic,
  repoPath,
  resolveRevision,
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
  http?: Omit<UpstreamClientOptions, 'fetch' | 'clock'>;
  /** Largest non-LFS file downloaded and hashed (default 10 MiB). */
  smallFileCap?: number;
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
  /** models taken from finished work of an interrupted run */
  resumed: number;
  requests: number;
  retries: number;
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
const FINAL_REASONS = new Set<SkipReason>(['empty', 'file-over-cap', 'size-mismatch', 'bad-lfs-oid', 'not-found', 'no-revision']);

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
  const objects = options.objects;
  const upstream = options.upstream.replace(/\/+$/, '');
  const top = Math.max(1, Math.floor(options.top ?? 500));
  const date = options.date ?? new Date(clock.now()).toISOString().slice(0, 10);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) throw new Error(`date ${date} is not YYYY-MM-DD`);
  const progress = options.onProgress ?? (() => {});
  const client = new UpstreamClient({
    ...options.http,
    fetch: options.fetch,
    clock,
    onWait: (w) => {
      log.warn({ event: 'upstream-wait', ...w }, `waiting ${w.waitMs} ms before retrying`);
      options.http?.onWait?.(w);
    },
  });

  // ---- work state (resumable) ----
  const refName = workRefName(date);
  let state: WorkState = { format: WORK_FORMAT, upstream, top, listing: null, done: {}, finished: null };
  const rawState = options.fresh ? undefined : await objects.readRef(refName);
  if (rawState) {
    try {
      const s = JSON.parse(rawState) as WorkState;
      if (s.format === WORK_FORMAT && s.upstream === upstream && s.top === top && !s.finished) {
        state = { ...s, done: s.done ?? {} };
        log.info({ event: 'resume', ref: refName, finished: Object.keys(state.done).length }, 'resuming an interrupted run');
      } else if (s.format === WORK_FORMAT && s.finished) {
        // A finished run of the same day: keep its per-model results, list again.
        state = { ...state, done: s.upstream === upstream ? (s.done ?? {}) : {} };
      }
    } catch {
      log.warn({ event: 'work-ref-unreadable', ref: refName }, 'ignoring an unreadable work ref');
    }
  }
  let writing: Promise<void> = Promise.resolve();
  const saveState = () => {
    const snapshot = JSON.stringify(state);
    writing = writing.then(() => objects.writeRef(refName, snapshot));
    return writing;
  };

  // ---- listing ----
  progress({ phase: 'list', done: 0, total: top });
  let listing: Listing | undefined = state.listing ? await readJson<Listing>(objects, state.listing) : undefined;
  if (!listing) {
    listing = await listModels(client, upstream, top, date, options, log, (n) => progress({ phase: 'list', done: n, total: top }));
    state.listing = await putJson(objects, BUILD_LISTING_KIND, listing);
    await saveState();
  }
  log.info({ event: 'listed', models: listing.rows.length, skipped: listing.skipped.length }, 'listed models');

  // ---- yesterday's objects, for unchanged revisions ----
  const current = await objects.readRef('current');
  let prevCatalog: CatalogObject | undefined;
  if (current) {
    const c = await readJson<unknown>(objects, current);
    const parsed = CatalogObjectSchema.safeParse(c);
    if (parsed.success) prevCatalog = parsed.data;
  }
  const previous = async (id: string): Promise<ModelObject | undefined> => {
    const entry = prevCatalog?.objects[id];
    if (!entry) return undefined;
    const parsed = ModelObjectSchema.safeParse(await readJson(objects, entry.model));
    return parsed.success ? parsed.data : undefined;
  };

  let modelscope: ModelScopeAdapter | undefined;
  if (options.modelscope && 'find' in options.modelscope) modelscope = options.modelscope;
  else if (options.modelscope) {
    // Only the User-Agent goes to the second host: a token for the upstream must not leak there.
    const ua = options.http?.headers?.['user-agent'];
    const msClient = new UpstreamClient({ ...options.http, headers: ua ? { 'user-agent': ua } : {}, fetch: options.fetch, clock });
    modelscope = httpModelScope(msClient, options.modelscope);
  }
  const ctx: IndexModelContext = {
    client,
    upstream,
    smallFileCap: options.smallFileCap ?? 10 * 1024 * 1024,
    ggufHeaders: options.ggufHeadersPerModel ?? 1,
    previous,
    ...(modelscope ? { modelscope } : {}),
    hfSource: options.hfSource ?? 'huggingface.co',
    log,
  };

  // ---- models, bounded ----
  const rows = listing.rows;
  const results: Array<ModelWork | undefined> = new Array(rows.length);
  let resumed = 0;
  let reused = 0;
  let downloaded = 0;
  let done = 0;
  let next = 0;
  const transient: SkippedModel[] = [];
  let stopped = false;
  async function worker() {
    for (;;) {
      if (stopped) return;
      const i = next++;
      if (i >= rows.length) return;
      const { row, listed } = rows[i] as ListedRow;
      try {
        const revision = await resolveRevision(ctx, row);
        if (!revision) {
          results[i] = { status: 'skipped', id: row.id, reason: 'no-revision', detail: 'the upstream names no full commit for main' };
        } else {
          const key = `${row.id}@${revision}`;
          const stored = state.done[key] ? await readJson<StoredResult>(objects, state.done[key] as string) : undefined;
          if (stored && stored.kind === BUILD_RESULT_KIND && stored.key === key) {
            resumed++;
            results[i] =
              stored.status === 'ok'
                ? { status: 'ok', model: stored.model, reused: false, downloaded: 0 }
                : { status: 'skipped', id: stored.id, reason: stored.reason, detail: stored.detail };
          } else {
            const work = await indexModel(ctx, row, revision, listed);
            results[i] = work;
            downloaded += work.downloaded ?? 0;
            if (work.status === 'ok' && work.reused) reused++;
            if (work.status === 'ok' || FINAL_REASONS.has(work.reason)) {
              const record: StoredResult =
                work.status === 'ok'
                  ? { kind: BUILD_RESULT_KIND, key, status: 'ok', model: work.model }
                  : { kind: BUILD_RESULT_KIND, key, status: 'skipped', id: work.id, reason: work.reason, detail: work.detail };
              state.done[key] = await putJson(objects, BUILD_RESULT_KIND, record);
              await saveState();
            }
          }
        }
      } catch (e) {
        // Retries ran out, or something unexpected: skipped today, tried again by the next run.
        const detail = e instanceof UpstreamError ? e.message : `${(e as Error)?.message ?? String(e)}`;
        transient.push({ id: row.id, reason: 'error', detail: detail.slice(0, 300) });
        results[i] = { status: 'skipped', id: row.id, reason: 'error', detail: detail.slice(0, 300) };
        log.error({ event: 'model-failed', model: row.id, err: detail.slice(0, 300) }, 'model failed');
      }
      done++;
      const r = results[i];
      if (r?.status === 'ok')
        log.info(
          { event: 'model', model: r.model.id, revision: r.model.revision, files: r.model.files.length, reused: r.reused },
          'indexed model',
        );
      else if (r) log.info({ event: 'skip', model: r.id, reason: r.reason, detail: r.detail }, 'skipped model');
      progress({ phase: 'models', done, total: rows.length, id: row.id });
    }
  }
  try {
    await Promise.all(Array.from({ length: Math.max(1, Math.min(options.modelConcurrency ?? 4, rows.length)) }, worker));
  } catch (e) {
    // A fatal failure (not one model's): the other workers take no new models; finished work stays for the next run.
    stopped = true;
    throw e;
  }
  await writing;

  // ---- objects, chain, archive, switch ----
  progress({ phase: 'write', done: 0, total: 1 });
  const models: BuildModelInput[] = [];
  const skipped: SkippedModel[] = [...listing.skipped];
  for (const r of results) {
    if (!r) continue;
    if (r.status === 'skipped') {
      if (r.reason !== 'error') skipped.push({ id: r.id, reason: r.reason, detail: r.detail });
      continue;
    }
    const m = r.model;
    const sources = [...m.sources];
    const pin = pinFor(options.pins, m.id, m.revision as string);
    if (pin) sources.push(pinSource(pin.root));
    for (const s of options.extraSources ?? []) sources.push({ source: s.source, type: 'http', ...(s.url ? { url: s.url } : {}) });
    models.push({ ...m, sources });
  }
  skipped.push(...transient);
  const result = await buildIndex(objects, {
    date,
    models,
    ...(options.display ? { display: options.display } : {}),
    ...(options.codeCommit ? { codeCommit: options.codeCommit } : {}),
    now: () => clock.now(),
    archive: { registry: ARCHIVE_REGISTRY, ...(options.pins?.gateway ? { gateway: options.pins.gateway } : {}), ...options.archive },
  });
  state.finished = result.catalog;
  await saveState();
  progress({ phase: 'done', done: 1, total: 1 });
  const skippedByReason: Record<string, number> = {};
  for (const s of skipped) skippedByReason[s.reason] = (skippedByReason[s.reason] ?? 0) + 1;
  const summary: BuildSummary = {
    catalog: result.catalog,
    date,
    models: result.models,
    files: result.files,
    bytes: result.bytes,
    skipped,
    skippedByReason,
    reused,
    resumed,
    requests: client.stats.requests,
    retries: client.stats.retries,
    waitedMs: client.stats.waitedMs,
    downloadedBytes: downloaded,
    seconds: (clock.now() - started) / 1000,
    result,
  };
  log.info(
    {
      event: 'summary',
      catalog: summary.catalog,
      date,
      models: summary.models,
      files: summary.files,
      bytes: summary.bytes,
      skipped: skippedByReason,
      reused,
      resumed,
      requests: summary.requests,
      retries: summary.retries,
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
  const first = `${upstream}/api/models?sort=trendingScore&full=true&limit=${limit}`;
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
  return out;
}
