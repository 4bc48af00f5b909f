import { ARCHIVE_REGISTRY, type BuildModelInput, type BuildResult, boundedAll, buildIndex } from '@hub/core-index';
import type { SourceCheck } from './breaker.js';
import type { ModelsOutcome, RunContext } from './context.js';
import { isTransient, UpstreamError } from './errors.js';
import type { ListedRow, Listing } from './listing.js';
import type { SourceLookups } from './lookups.js';
import { type IndexModelContext, indexModel, refusal, resolveRevision } from './model.js';
import { pinFor, pinSource } from './pins.js';
import { FINAL_REASONS } from './state.js';
import type { BuildSummary, SkippedModel } from './types.js';

/** The run's second to last phases: every model, the day's objects, the summary. */

/** Why a transient failure happened, as the summary counts kept models. */
function transientReason(e: unknown): string {
  if (e instanceof UpstreamError) {
    if (e.status === 429 || e.code === 'RateLimited') return 'rate limited';
    if (e.status === 'network') return 'network';
    return `HTTP ${e.status}`;
  }
  return 'network';
}

/** Phase 2: every listed model at its current revision, a few at a time. */
export async function modelsPhase(rc: RunContext, listing: Listing, lookups: SourceLookups | undefined): Promise<ModelsOutcome> {
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
    ...(o.verdicts ? { verdicts: o.verdicts } : {}),
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
  /** Slots whose model kept yesterday's object after a transient failure (an `ok` result, counted as kept). */
  const keptSlots = new Set<number>();

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
        keptSlots.add(i);
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
    if (r)
      rc.options.metrics?.emit({ type: 'upstream-model', outcome: r.status === 'skipped' ? 'failed' : keptSlots.has(i) ? 'kept' : 'done' });
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
export async function writePhase(
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
    ...(o.onObject ? { onObject: o.onObject } : {}),
    ...(o.pages ? { pages: o.pages } : {}),
    ...(o.onModelsPage ? { onModelsPage: o.onModelsPage } : {}),
    now: () => rc.clock.now(),
    archive: { registry: ARCHIVE_REGISTRY, ...(o.pins?.gateway ? { gateway: o.pins.gateway } : {}), ...o.archive },
  });
  rc.work.state.finished = result.catalog;
  await rc.work.save();
  rc.progress({ phase: 'done', done: 1, total: 1 });
  return { result, skipped };
}

export function summarize(
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
