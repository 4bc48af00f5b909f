import { type Metrics, noMetrics, silentLogger } from '@hub/core-index';
import type { SourceCheck } from './breaker.js';
import { systemClock, UpstreamClient, type WaitInfo } from './client.js';
import type { RunContext } from './context.js';
import { listPhase } from './listing.js';
import { secondarySources } from './lookups.js';
import { modelsPhase, summarize, writePhase } from './phases.js';
import { bucketOf } from './rate-limit.js';
import { WorkRef } from './state.js';
import type { BuildProgress, BuildSummary, UpstreamBuildOptions } from './types.js';
import { Yesterday } from './yesterday.js';

/**
 * The daily index run against an upstream model host: list trending public models (and the missing
 * log), index each at its current revision, find the sources holding it, and write the day's
 * objects with {@link buildIndex}. Finished models are kept in a work ref (`build-<date>`) as result
 * objects keyed by `id@revision`, so a run killed at any point and started again reuses them and ends
 * with the same catalog.
 */
export async function runUpstreamBuild(options: UpstreamBuildOptions): Promise<BuildSummary> {
  const metrics = options.metrics ?? noMetrics;
  const clock = options.clock ?? systemClock;
  const started = clock.now();
  try {
    const summary = await run({ ...options, metrics });
    metrics.emit({ type: 'upstream-run', ok: true, seconds: (clock.now() - started) / 1000 });
    return summary;
  } catch (e) {
    metrics.emit({ type: 'upstream-run', ok: false, seconds: (clock.now() - started) / 1000 });
    throw e;
  }
}

async function run(options: UpstreamBuildOptions & { metrics: Metrics }): Promise<BuildSummary> {
  const { metrics } = options;
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
        // One pause per window the run waits for (requests queued behind the same window are not new pauses).
        metrics.emit({ type: 'upstream-pause', bucket: w.bucket, seconds: w.waitMs / 1000 });
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
    // Every request the run sends, by its rate-limit bucket (retries included: each is a request the host counts).
    fetch: (input, init) => {
      metrics.emit({ type: 'upstream-request', bucket: bucketOf(input instanceof Request ? input.url : String(input)) });
      return options.fetch(input, init);
    },
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
