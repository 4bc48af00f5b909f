import type { AnswerLabels, CacheBudget, MetricEvent, Metrics, RouteGroup, Tally } from '@hub/core-index';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { MadeState } from './made-answers-file.js';
import { GroupHistogram, type Series, syncedCounter } from './metrics-series.js';

// node-server's metrics sink (design 10.2): the core's metric events as prom-client 15 metrics in one registry, read
// by `GET /metrics` (the metrics port, or the main port with the metrics token). Every family is documented in
// docs/operations.md; the alert rules and the dashboard in ops/ name only these.

/**
 * prom-client's default process metrics, less the three gauges it names `*_total` (`promtool check metrics` refuses a
 * gauge with a counter's suffix). Their values stay readable under `nodejs_active_handles` and friends.
 */
const REFUSED_DEFAULTS = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

/** Latency buckets for answers that mostly take well under a millisecond (a redirect, a cached JSON body). */
export const REQUEST_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
/** Probe buckets: a probe fetches a small file from a mirror, and times out at `probeTimeoutSeconds` (default 10). */
const PROBE_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export interface PromMetrics extends Metrics {
  prepare(answer: AnswerLabels, also: readonly MetricEvent[]): Tally;
  /** Show the series of these routes (their 5xx) and sources (their probes) at 0 from the first scrape. */
  declare(known: { routes?: ReadonlyArray<{ method: string; path: string; group: RouteGroup }>; sources?: readonly string[] }): void;
  /** Export what each cache holds (read at every scrape) and each cache's bound (`hub_cache_bytes`, `hub_cache_limit_bytes`). */
  watchCaches(use: () => Readonly<Record<CacheName, number>>, budget: CacheBudget): void;
  /** Export the made answers' state and tallies (read at every scrape: `hub_made_answers_*`). */
  watchMade(state: () => MadeState): void;
  readonly registry: Registry;
  /** The exposition text (Prometheus text format 0.0.4). */
  scrape(): Promise<string>;
  readonly contentType: string;
}

const CACHE_NAMES = ['index', 'answers', 'objects', 'rows'] as const;
type CacheName = (typeof CACHE_NAMES)[number];

/** Kept answers timed one in this many on average (`Metrics.keptTimingSample`). */
const KEPT_TIMING_SAMPLE = 16;

export function promMetrics(
  options: { defaultMetrics?: boolean; probeIntervalSeconds?: number; keptTimingSample?: number } = {},
): PromMetrics {
  const registry = new Registry();
  if (options.defaultMetrics !== false) {
    collectDefaultMetrics({ register: registry });
    for (const name of REFUSED_DEFAULTS) registry.removeSingleMetric(name);
  }
  const registers = [registry];

  // The per-request families count in plain numbers on the hot path and reach prom-client only when scraped:
  // prom-client hashes and validates a label object on every inc() and observe(), about a microsecond each.
  const requests = syncedCounter(
    registry,
    'hub_requests_total',
    'Requests answered, by route pattern, route group, method and status class.',
    ['route', 'group', 'method', 'status_class'],
  );
  const responseBytes = syncedCounter(
    registry,
    'hub_response_bytes_total',
    'Bytes of answers with a known length, by route group (the hub never sends weight bytes: these are metadata).',
    ['group'],
  );
  const redirects = syncedCounter(
    registry,
    'hub_redirects_total',
    'Downloads redirected to a byte source, by the source that serves them.',
    ['source'],
  );
  const duration = new GroupHistogram(
    'hub_request_duration_seconds',
    'Time from a request reaching the hub to its answer head, by route group.',
    REQUEST_BUCKETS,
  );
  registry.registerMetric(duration as unknown as Parameters<Registry['registerMetric']>[0]);
  const noLive = new Counter({
    name: 'hub_no_live_source_total',
    help: 'Files asked for that no live source holds (answered 503 with Retry-After), by route group.',
    labelNames: ['group'] as const,
    registers,
  });
  const sourceUp = new Gauge({
    name: 'hub_source_up',
    help: 'Whether a source passed its last probe (1) or failed it (0); only probed sources appear.',
    labelNames: ['source'] as const,
    registers,
  });
  const probeDuration = new Histogram({
    name: 'hub_source_probe_duration_seconds',
    help: 'How long each probe of a source took, passed or failed.',
    labelNames: ['source'] as const,
    buckets: PROBE_BUCKETS,
    registers,
  });
  const probeFailures = new Counter({
    name: 'hub_source_probe_failures_total',
    help: 'Failed probes, by source and reason (mismatch, status, timeout, unreachable).',
    labelNames: ['source', 'reason'] as const,
    registers,
  });
  const probeInterval = new Gauge({
    name: 'hub_source_probe_interval_seconds',
    help: 'Seconds between probes of a source whose last probe passed (probeIntervalSeconds).',
    registers,
  });
  if (options.probeIntervalSeconds !== undefined) probeInterval.set(options.probeIntervalSeconds);
  const indexTimestamp = new Gauge({
    name: 'hub_index_snapshot_timestamp_seconds',
    help: 'The day of the index served, as Unix seconds at 00:00 UTC of that day.',
    registers,
  });
  const indexModels = new Gauge({ name: 'hub_index_models', help: 'Models in the index served.', registers });
  const indexFiles = new Gauge({ name: 'hub_index_files', help: 'Files in the index served.', registers });
  const indexSwitches = new Counter({
    name: 'hub_index_switches_total',
    help: 'Times the hub started serving an index (at start, then at each switch to a new day).',
    registers,
  });
  const published = new Counter({
    name: 'hub_objects_published_total',
    help: 'Authorised publish attempts, by outcome (created, existing, refused).',
    labelNames: ['outcome'] as const,
    registers,
  });
  const accountWrites = new Counter({
    name: 'hub_account_writes_total',
    help: 'Writes to /api/account/*, by outcome (ok, refused, limited = 429, unauthorized = 401).',
    labelNames: ['outcome'] as const,
    registers,
  });
  const mcpCalls = new Counter({
    name: 'hub_mcp_tool_calls_total',
    help: 'MCP tools/call requests, by tool and whether the answer was an error.',
    labelNames: ['tool', 'is_error'] as const,
    registers,
  });

  // The upstream run inside the server (`hub serve --refresh`); a separate `hub index build` process is not scraped.
  const upstreamModels = new Counter({
    name: 'hub_upstream_models_total',
    help: 'Models the upstream run finished, by outcome (done, failed = skipped, kept = yesterday kept after a failure).',
    labelNames: ['outcome'] as const,
    registers,
  });
  const upstreamRequests = new Counter({
    name: 'hub_upstream_requests_total',
    help: 'Requests the upstream run sent, by rate-limit bucket.',
    labelNames: ['bucket'] as const,
    registers,
  });
  const upstreamPauses = new Counter({
    name: 'hub_upstream_rate_limit_pauses_total',
    help: 'Times the upstream run waited for a rate-limit window, by bucket.',
    labelNames: ['bucket'] as const,
    registers,
  });
  const upstreamWaited = new Counter({
    name: 'hub_upstream_rate_limit_wait_seconds_total',
    help: 'Seconds the upstream run waited for rate-limit windows, by bucket.',
    labelNames: ['bucket'] as const,
    registers,
  });
  const upstreamRuns = new Counter({
    name: 'hub_upstream_runs_total',
    help: 'Upstream runs that ended, by outcome (ok: an index was written; failed).',
    labelNames: ['outcome'] as const,
    registers,
  });
  const upstreamLastRun = new Gauge({
    name: 'hub_upstream_last_run_timestamp_seconds',
    help: 'When the last upstream run ended (Unix seconds).',
    registers,
  });
  const upstreamLastDuration = new Gauge({
    name: 'hub_upstream_last_run_duration_seconds',
    help: 'How long the last upstream run took.',
    registers,
  });

  // Zero series for every known label set, so increase() and rate() see the first event after a start (a series
  // that appears at 1 has no earlier sample to rise from). prom-client's labels() alone creates nothing; inc(0) does.
  for (const outcome of ['created', 'existing', 'refused']) published.inc({ outcome }, 0);
  for (const outcome of ['ok', 'refused', 'limited', 'unauthorized']) accountWrites.inc({ outcome }, 0);
  for (const group of ['hf', 'oci']) noLive.inc({ group }, 0);
  for (const outcome of ['done', 'failed', 'kept']) upstreamModels.inc({ outcome }, 0);
  for (const outcome of ['ok', 'failed']) upstreamRuns.inc({ outcome }, 0);

  const STATUS_CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx'];
  const statusClass = (status: number) => STATUS_CLASSES[Math.floor(status / 100) - 1] ?? 'other';

  const requestSeries = new Map<string, Map<string, Series[]>>();
  /** The `hub_requests_total` series of a request: route → method → status class, by strings the core keeps. */
  function requestSeriesOf(e: AnswerLabels): Series {
    let byMethod = requestSeries.get(e.route);
    if (!byMethod) {
      byMethod = new Map();
      requestSeries.set(e.route, byMethod);
    }
    let byStatus = byMethod.get(e.method);
    if (!byStatus) {
      byStatus = [];
      byMethod.set(e.method, byStatus);
    }
    const cls = (e.status / 100) | 0;
    let series = byStatus[cls];
    if (!series) {
      series = requests.open({ route: e.route, group: e.group, method: e.method, status_class: statusClass(e.status) });
      byStatus[cls] = series;
    }
    return series;
  }

  /**
   * A kept answer's tally: its series resolved once, so serving it again adds to four numbers (the request series,
   * the group's histogram, its bytes and its redirect), with no event object and no lookup.
   */
  function prepare(a: AnswerLabels, also: readonly MetricEvent[]): Tally {
    const series = requestSeriesOf(a);
    const histogram = duration.group(a.group);
    const length = a.bytes !== undefined && Number.isFinite(a.bytes) ? a.bytes : undefined;
    const bytes = length !== undefined ? responseBytes.series('group', a.group) : undefined;
    const redirect = also.find((e): e is Extract<MetricEvent, { type: 'redirect' }> => e.type === 'redirect');
    const redirected = redirect ? redirects.series('source', redirect.source) : undefined;
    const rest = also.filter((e) => e !== redirect);
    return (seconds, weight) => {
      series.count++;
      if (weight > 0) duration.record(histogram, seconds, weight);
      if (bytes) bytes.count += length as number;
      if (redirected) redirected.count++;
      for (const e of rest) emit(e);
    };
  }

  function emit(e: MetricEvent): void {
    switch (e.type) {
      case 'request': {
        // The hot path of answers that are not kept: one string key per series, plain numbers.
        requestSeriesOf(e).count++;
        duration.observe(e.group, e.seconds);
        if (e.bytes !== undefined && Number.isFinite(e.bytes)) responseBytes.add('group', e.group, e.bytes);
        break;
      }
      case 'redirect':
        redirects.add('source', e.source, 1);
        break;
      case 'no-live-source':
        noLive.labels({ group: e.group }).inc();
        break;
      case 'probe':
        sourceUp.labels({ source: e.source }).set(e.ok ? 1 : 0);
        probeDuration.labels({ source: e.source }).observe(e.seconds);
        if (!e.ok) probeFailures.labels({ source: e.source, reason: e.reason }).inc();
        break;
      case 'source-state':
        sourceUp.labels({ source: e.source }).set(e.ok ? 1 : 0);
        break;
      case 'index': {
        const day = Date.parse(`${e.snapshot}T00:00:00Z`);
        if (Number.isFinite(day)) indexTimestamp.set(day / 1000);
        indexModels.set(e.models);
        indexFiles.set(e.files);
        indexSwitches.inc();
        break;
      }
      case 'publish':
        published.labels({ outcome: e.outcome }).inc();
        break;
      case 'account-write':
        accountWrites.labels({ outcome: e.outcome }).inc();
        break;
      case 'mcp-tool':
        mcpCalls.labels({ tool: e.tool, is_error: e.isError ? 'true' : 'false' }).inc();
        break;
      case 'upstream-model':
        upstreamModels.labels({ outcome: e.outcome }).inc();
        break;
      case 'upstream-request':
        upstreamRequests.labels({ bucket: e.bucket }).inc();
        break;
      case 'upstream-pause':
        upstreamPauses.labels({ bucket: e.bucket }).inc();
        upstreamWaited.labels({ bucket: e.bucket }).inc(e.seconds);
        break;
      case 'upstream-run':
        upstreamRuns.labels({ outcome: e.ok ? 'ok' : 'failed' }).inc();
        upstreamLastRun.set(Date.now() / 1000);
        upstreamLastDuration.set(e.seconds);
        break;
    }
  }

  /**
   * The label sets known once the hub is assembled: a 5xx series for each route and method (what HubErrors5xx sums)
   * and the probe-duration series of each source (what HubSlowProbes reads), all at 0 until counted.
   */
  function declare(known: {
    routes?: ReadonlyArray<{ method: string; path: string; group: RouteGroup }>;
    sources?: readonly string[];
  }): void {
    for (const r of known.routes ?? []) {
      const group = r.group;
      for (const method of r.method === 'GET' ? ['GET', 'HEAD'] : [r.method])
        requestSeriesOf({ route: r.path, group, method, status: 500, source: undefined, bytes: undefined });
    }
    for (const source of known.sources ?? []) probeDuration.zero({ source });
  }

  function watchCaches(use: () => Readonly<Record<CacheName, number>>, budget: CacheBudget): void {
    new Gauge({
      name: 'hub_cache_bytes',
      help: 'Bytes each cache of the process holds now (index pages and models, kept answers, objects, rows).',
      labelNames: ['cache'] as const,
      registers,
      collect() {
        const now = use();
        for (const cache of CACHE_NAMES) this.set({ cache }, now[cache]);
      },
    });
    const limit = new Gauge({
      name: 'hub_cache_limit_bytes',
      help: 'The most bytes each cache may hold: its share of cacheMegabytes.',
      labelNames: ['cache'] as const,
      registers,
    });
    for (const cache of CACHE_NAMES) limit.set({ cache }, budget[cache]);
  }

  function watchMade(state: () => MadeState): void {
    /** a 0/1 gauge read from the state at each scrape */
    const flag = (name: string, help: string, on: (s: MadeState) => boolean) =>
      new Gauge({
        name,
        help,
        registers,
        collect() {
          this.set(on(state()) ? 1 : 0);
        },
      });
    flag(
      'hub_made_answers_in_use',
      "Whether the day served answers its cold look-ups from the data folder's made-answers file (1) or renders them from its index pages (0).",
      (s) => s.inUse,
    );
    flag(
      'hub_made_answers_table_in_memory',
      "Whether the made-answers file's slot table is held in memory (1: a look-up is one read) or read from the file (0).",
      (s) => s.tableInMemory,
    );
    // counted in plain numbers by the readers, read at each scrape
    const made = syncedCounter(
      registry,
      'hub_made_answers_total',
      'Look-ups answered from the made-answers file (answered), and records it refused (refused: damaged or cut; answered from the index pages instead).',
      ['outcome'],
    );
    for (const outcome of ['answered', 'refused'] as const) made.open({ outcome }, () => state()[outcome]);
  }

  return {
    registry,
    contentType: registry.contentType,
    declare,
    watchCaches,
    watchMade,
    emit,
    prepare,
    keptTimingSample: options.keptTimingSample ?? KEPT_TIMING_SAMPLE,
    scrape: () => registry.metrics(),
  };
}
