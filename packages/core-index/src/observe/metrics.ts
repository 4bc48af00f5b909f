import type { Logger } from '../http/deps.js';
import type { ProbeReason } from '../sources/prober.js';

/**
 * Metric events (design 10.2): the core says what happened, a host's sink turns it into numbers (prom-client on
 * node-server, nothing or a Workers Analytics Engine dataset at the edge). No handler imports a metrics library; each
 * emits through `deps.metrics`.
 *
 * Every label value an event carries is bounded: route patterns (never paths), source names from the configuration,
 * outcome words, tool names from the tool table. Never a model id, a path, a query or anything a client sent.
 */

/** The route groups requests are counted under, decided by the route's pattern (see {@link routeGroup}). */
export type RouteGroup = 'hf' | 'oci' | 'buckets' | 'objects' | 'account' | 'mcp' | 'spaces' | 'discovery' | 'none';

/** One answered request: the route's pattern, never its path. */
export interface RequestEvent {
  type: 'request';
  /** The matched route's pattern (`/:owner/:name/resolve/:rev/*path`), or `none` when no route matched. */
  route: string;
  group: RouteGroup;
  /** GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS, else OTHER. */
  method: string;
  status: number;
  /** From the request reaching `hub.handle` to its answer's head (a streamed body may still be flowing). */
  seconds: number;
  /** The source a redirect points at (`X-Hub-Source`), when the answer is one. */
  source: string | undefined;
  /** The answer's length when known (Content-Length). */
  bytes: number | undefined;
}

/** The upstream run (`hub index build --upstream`), as it goes. */
export type UpstreamEvent =
  /** A model's outcome: indexed anew, failed, or kept from the previous day after a failure. */
  | { type: 'upstream-model'; outcome: 'done' | 'failed' | 'kept' }
  /** One request to the upstream, by its rate-limit bucket. */
  | { type: 'upstream-request'; bucket: string }
  /** The upstream asked the run to wait (429 / Retry-After) for this long. */
  | { type: 'upstream-pause'; bucket: string; seconds: number }
  /** The run ended (ok false: it stopped before writing an index). */
  | { type: 'upstream-run'; ok: boolean; seconds: number };

export type MetricEvent =
  | RequestEvent
  /** A download was redirected to a source (3xx with `X-Hub-Source`). */
  | { type: 'redirect'; source: string; group: RouteGroup }
  /** A file was asked for and no live source holds it (503 with `Retry-After`). */
  | { type: 'no-live-source'; group: RouteGroup }
  /** One probe of a source finished. */
  | { type: 'probe'; source: string; ok: boolean; reason: ProbeReason; seconds: number }
  /** A source's state as restored from storage at start (before its next probe). */
  | { type: 'source-state'; source: string; ok: boolean }
  /** The hub serves this index now (at start and on every switch). */
  | { type: 'index'; snapshot: string; models: number; files: number }
  /** `POST /api/v1/objects` with a valid publisher token. */
  | { type: 'publish'; outcome: 'created' | 'existing' | 'refused' }
  /** A write to `/api/account/*`: done, refused (4xx), limited (429) or without a valid sign-in (401). */
  | { type: 'account-write'; outcome: 'ok' | 'refused' | 'limited' | 'unauthorized' }
  /** An MCP `tools/call` of a known tool. */
  | { type: 'mcp-tool'; tool: string; isError: boolean }
  | UpstreamEvent;

/** What every answer of one kind has in common: a request event without its time. */
export type AnswerLabels = Omit<RequestEvent, 'type' | 'seconds'>;

/**
 * Counts one answer of a prepared kind: what `emit` of the request event (with `seconds`) and of the prepared events
 * without a time would count, in the same series. `weight` is how many answers that time stands for in the latency
 * histogram: 1 when every answer is timed; with {@link Metrics.keptTimingSample} N, N for a kept answer that was timed
 * and 0 for one that was not (`seconds` then means nothing; the answer counts in every other family).
 */
export type Tally = (seconds: number, weight: number) => void;

/** The one interface every part emits through. `emit` never throws and never waits. */
export interface Metrics {
  emit(event: MetricEvent): void;
  /**
   * Optional: resolve once the series an answer of this kind counts in (a kept whole answer is the same route,
   * method, status, source and length every time it is served), so that each such answer only adds to them: no
   * event object, no lookup. `also` are the events without a time each such answer emits too (its redirect). A sink
   * without `prepare` is sent the same events through `emit` ({@link tallyOf}).
   */
  prepare?(answer: AnswerLabels, also: readonly MetricEvent[]): Tally;
  /**
   * Optional, with `prepare` only: time kept answers on a random sample of about one in N (each timing weighing N in
   * the latency histogram, the others weighing 0), not every one. A kept answer is served in well under a microsecond,
   * and its two clock reads cost a metrics-on hub about 4 % of its CPU per request (docs/benchmarks.md, 2026-11-28
   * afternoon). Absent: every answer is timed (the access log needs each one's milliseconds).
   */
  readonly keptTimingSample?: number;
}

/** Metrics off: every event dropped. */
export const noMetrics: Metrics = { emit() {} };

/** The tally of one kind of answer on any sink: its own `prepare`, else the same events through `emit`. */
export function tallyOf(sink: Metrics, answer: AnswerLabels, also: readonly MetricEvent[]): Tally {
  if (sink.prepare) return sink.prepare(answer, also);
  // Every answer is timed for a sink without `prepare` (it has no keptTimingSample), so `weight` is always 1 here.
  return (seconds) => {
    sink.emit({ type: 'request', ...answer, seconds });
    for (const e of also) sink.emit(e);
  };
}

/** Several sinks as one (node-server: prom-client and the access log). */
export function teeMetrics(...sinks: Metrics[]): Metrics {
  const live = sinks.filter((s) => s !== noMetrics);
  if (live.length === 0) return noMetrics;
  if (live.length === 1) return live[0] as Metrics;
  // Sampled timing only when every sink takes the same sample (the access log takes none: it logs each time).
  const samples = new Set(live.map((s) => (s.prepare ? s.keptTimingSample : undefined)));
  const sample = samples.size === 1 ? [...samples][0] : undefined;
  return {
    emit(event) {
      for (const s of live) s.emit(event);
    },
    prepare(answer, also) {
      const tallies = live.map((s) => tallyOf(s, answer, also));
      return (seconds, weight) => {
        for (const t of tallies) t(seconds, weight);
      };
    },
    ...(sample !== undefined ? { keptTimingSample: sample } : {}),
  };
}

/**
 * The access log (`logRequests`): one structured line per request, built from the request event alone, so it holds
 * the method, the route pattern, the status, the milliseconds, the chosen source and the length, and nothing the
 * client sent (no path, no query, no header): a credential, a cookie, a `/via/{token}/` or a `?token=` cannot reach it.
 */
export function accessLog(log: Logger): Metrics {
  return {
    emit(e) {
      if (e.type !== 'request') return;
      log.info(
        {
          method: e.method,
          route: e.route,
          group: e.group,
          status: e.status,
          ms: Math.round(e.seconds * 1e6) / 1e3,
          ...(e.source !== undefined ? { source: e.source } : {}),
          ...(e.bytes !== undefined ? { bytes: e.bytes } : {}),
        },
        'request',
      );
    },
  };
}

/**
 * The group of a route pattern: the model-host dialect (`hf`), the registry (`oci`), buckets, objects, accounts, MCP,
 * spaces, and everything else a person or an agent reads to find things (`discovery`: the site, the descriptors,
 * health, the archive).
 */
export function routeGroup(pattern: string | undefined): RouteGroup {
  if (pattern === undefined) return 'none';
  if (pattern.startsWith('/v2/hub/buckets/') || pattern === '/buckets' || pattern === '/buckets/') return 'buckets';
  if (pattern === '/v2' || pattern.startsWith('/v2/')) return 'oci';
  if (pattern.startsWith('/api/v1/')) return 'objects';
  if (pattern.startsWith('/api/account/')) return 'account';
  if (pattern === '/mcp') return 'mcp';
  if (pattern.startsWith('/spaces')) return 'spaces';
  if (pattern.startsWith('/api/models') || pattern.startsWith('/via/') || /^\/:owner\/:name\/(resolve|raw)\//.test(pattern)) return 'hf';
  return 'discovery';
}

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** A request method as a bounded label value. */
export function methodLabel(method: string): string {
  if (METHODS.has(method)) return method;
  const m = method.toUpperCase();
  return METHODS.has(m) ? m : 'OTHER';
}
