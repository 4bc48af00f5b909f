import {
  type AnswerLabels,
  type GroupLabel,
  type MetricEvent,
  type Metrics,
  methodLabel,
  type RequestEvent,
  type Tally,
  tallyOf,
} from '../observe/metrics.js';
import type { AnswerCache } from './answer-cache.js';
import type { HubRequest, HubResponse, Route } from './contract.js';

/** The route an answer came from, as the answer is made (or the route a 405 names); undefined when none matched. */
export interface Seen {
  route: Route<any> | undefined;
}

/** What createHub keeps with a whole answer: the route that made it, and its tally once it has been served again. */
export interface KeptMeta {
  readonly route: Route<any>;
  tally: Tally | undefined;
}

interface RouteLabels {
  route: string;
  group: GroupLabel;
}

const UNMATCHED: RouteLabels = { route: 'none', group: 'none' };

export type Observer = ReturnType<typeof observer>;

/**
 * The metric events of one answered request (design 10.2): the request itself, a redirect to the source that serves
 * (a 3xx with `X-Hub-Source`), and a file no live source holds (a 503 with `Retry-After` on a download route). Labels
 * are the route's pattern and its `group`, taken once per route. `observe` emits them for one answer; `prepare` makes
 * the tally of a kept answer, which is the same answer each time it is served.
 */
export function observer(metrics: Metrics) {
  const labels = new Map<Route<any>, RouteLabels>();
  const labelsOf = (route: Route<any> | undefined): RouteLabels => {
    if (!route) return UNMATCHED;
    let l = labels.get(route);
    if (!l) {
      l = { route: route.path, group: route.group };
      labels.set(route, l);
    }
    return l;
  };
  const answerLabels = (method: string, res: HubResponse, route: Route<any> | undefined): AnswerLabels => {
    const { route: pattern, group } = labelsOf(route);
    const h = res.headers;
    const length = h['content-length'];
    return {
      route: pattern,
      group,
      method: methodLabel(method),
      status: res.status,
      source: res.status >= 300 && res.status < 400 ? h['x-hub-source'] : undefined,
      bytes: length === undefined ? undefined : Number(length),
    };
  };
  /** The events an answer emits besides the request itself. */
  const derived = (a: AnswerLabels, res: HubResponse): MetricEvent | undefined => {
    if (a.source !== undefined) return { type: 'redirect', source: a.source, group: a.group };
    if (res.status === 503 && res.headers['retry-after'] !== undefined && (a.group === 'hf' || a.group === 'oci'))
      return { type: 'no-live-source', group: a.group };
    return undefined;
  };
  return {
    observe(req: HubRequest, res: HubResponse, route: Route<any> | undefined, seconds: number): void {
      const e: RequestEvent = { type: 'request', ...answerLabels(req.method, res, route), seconds };
      metrics.emit(e);
      const also = derived(e, res);
      if (also) metrics.emit(also);
    },
    prepare(method: string, res: HubResponse, route: Route<any> | undefined): Tally {
      const a = answerLabels(method, res, route);
      const also = derived(a, res);
      return tallyOf(metrics, a, also ? [also] : []);
    },
  };
}

/**
 * The kept answers of a hub, counted: each through the tally prepared the first time it is served again (its series
 * resolved once), so a kept answer costs a few additions, and two clock reads when it is timed. With a sink's
 * `keptTimingSample` N, about one kept answer in N is timed (random gaps, so no pattern of requests can line up with
 * them), its time weighing N in the latency histogram: the clock reads were the whole measured cost of metrics on a
 * kept answer (docs/benchmarks.md, 2026-11-28 afternoon). Returns the kept answer to a request, or undefined.
 */
export function countedKeptAnswers(
  metrics: Metrics,
  obs: Observer,
  answers: AnswerCache<KeptMeta>,
): (raw: HubRequest) => HubResponse | undefined {
  const sample = metrics.prepare && metrics.keptTimingSample !== undefined ? Math.max(1, Math.floor(metrics.keptTimingSample)) : 1;
  /** Kept answers to count untimed before the next timed one: uniform over 0 .. 2N-2, so one in N on average. */
  let untimed = 0;
  const tallyOfKept = (raw: HubRequest, meta: KeptMeta, response: HubResponse): Tally => {
    if (!meta.tally) meta.tally = obs.prepare(raw.method, response, meta.route);
    return meta.tally;
  };
  return (raw) => {
    if (untimed > 0) {
      const kept = answers.get(raw);
      if (!kept) return undefined;
      untimed--;
      tallyOfKept(raw, kept.meta, kept.response)(0, 0);
      return kept.response;
    }
    const from = performance.now();
    const kept = answers.get(raw);
    if (!kept) return undefined;
    if (sample > 1) untimed = Math.floor(Math.random() * (2 * sample - 1));
    tallyOfKept(raw, kept.meta, kept.response)((performance.now() - from) / 1000, sample);
    return kept.response;
  };
}
