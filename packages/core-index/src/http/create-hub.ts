import {
  type AnswerLabels,
  type MetricEvent,
  type Metrics,
  methodLabel,
  noMetrics,
  type RequestEvent,
  type RouteGroup,
  routeGroup,
  type Tally,
  tallyOf,
} from '../observe/metrics.js';
import { type Admission, type AdmitInput, admitRequest, shapesOf } from './admit.js';
import { AnswerCache, type Kept } from './answer-cache.js';
import { BodyTooLargeError, errorResponse, type HubRequest, type HubResponse, type Route, type RouteContext } from './contract.js';
import type { CoreDeps } from './deps.js';
import { finish } from './finish.js';
import { policyGate } from './policy.js';
import { Router } from './router.js';
import {
  badEncoding,
  bearerToken,
  internalError,
  methodNotAllowed,
  notFound,
  registryCredential,
  shapeForPath,
  tokenMatches,
  tooLarge,
  withoutCookies,
  withoutCredentials,
} from './rules.js';

/** What belongs to one request rather than to the hub (the edge passes its `ctx.waitUntil` here). */
export interface RequestScope {
  /** Background work started by this request; replaces `deps.defer` for this request only. */
  defer?(p: Promise<unknown>): void;
  /** The origin absolute URLs are built from, as `admit` decided it (`baseUrl`, or the validated scheme and host). */
  origin?: string;
}

export interface Hub {
  /** Answer one request. Never throws; never answers 500 for bad input. */
  handle(req: HubRequest, scope?: RequestScope): Promise<HubResponse>;
  /**
   * The gate before `handle` (design 10.1): the request target, the host policy, and a refusal in the error shape
   * of the route the request would reach. Pass the admitted `origin` to `handle` in the scope.
   */
  admit(req: AdmitInput): Admission;
  /**
   * The kept whole answer to this request (a `reuse` route answered it before, and the index and health are the
   * same), synchronously, or undefined: then call `handle`. `handle` consults the same cache first, so a host that
   * never calls this gets the same answers. The answer is frozen: write it, do not change it.
   */
  cached(req: HubRequest): HubResponse | undefined;
  routes: readonly Route<any>[];
}

/**
 * Compose routes into one table and apply the cross-cutting rules once.
 * Both hosts call `handle`; neither contains a route or a rule.
 */
export function createHub<D extends CoreDeps>(deps: D, routes: Route<D>[]): Hub {
  const router = new Router<D>(routes);
  const siteOrigin = deps.settings.siteOrigin;
  const metrics = deps.metrics ?? noMetrics;
  const observe = metrics === noMetrics ? undefined : observer(metrics);
  const answers = new AnswerCache<KeptMeta<D>>(deps);

  /**
   * A kept whole answer (`Route.reuse`), counted like any other answer: through the tally prepared the first time it
   * is served again (its series resolved once), so a kept answer costs a few additions, and two clock reads when it
   * is timed. With a sink's `keptTimingSample` N, about one kept answer in N is timed (random gaps, so no pattern of
   * requests can line up with them), its time weighing N in the latency histogram: the clock reads were the whole
   * measured cost of metrics on a kept answer (docs/benchmarks.md, 2026-11-28 afternoon).
   */
  const sample =
    observe && metrics.prepare && metrics.keptTimingSample !== undefined ? Math.max(1, Math.floor(metrics.keptTimingSample)) : 1;
  /** Kept answers to count untimed before the next timed one: uniform over 0 .. 2N-2, so one in N on average. */
  let untimed = 0;

  /** The kept answer to `raw`, counted (and timed from `start`, or from now, when its turn comes), or undefined. */
  function keptAnswer(obs: Observer, raw: HubRequest, start?: number): HubResponse | undefined {
    if (untimed > 0) {
      const kept = answers.get(raw);
      if (!kept) return undefined;
      untimed--;
      keptTally(obs, raw, kept)(0, 0);
      return kept.response;
    }
    const from = start ?? performance.now();
    const kept = answers.get(raw);
    if (!kept) return undefined;
    if (sample > 1) untimed = Math.floor(Math.random() * (2 * sample - 1));
    keptTally(obs, raw, kept)((performance.now() - from) / 1000, sample);
    return kept.response;
  }

  function keptTally(obs: Observer, raw: HubRequest, kept: Kept<KeptMeta<D>>): Tally {
    const meta = kept.meta;
    if (!meta.tally) meta.tally = obs.prepare(raw.method, kept.response, meta.route);
    return meta.tally;
  }

  function cached(raw: HubRequest): HubResponse | undefined {
    return observe ? keptAnswer(observe, raw) : answers.get(raw)?.response;
  }

  function handle(raw: HubRequest, scope?: RequestScope): Promise<HubResponse> {
    // Metrics off: nothing measured, nothing allocated.
    if (!observe) {
      const kept = answers.get(raw);
      return kept ? Promise.resolve(kept.response) : answer(raw, scope, undefined);
    }
    // One clock read for both: the kept answer's time when its turn comes, else the computed answer's.
    const start = performance.now();
    const kept = keptAnswer(observe, raw, start);
    if (kept) return Promise.resolve(kept);
    const seen: Seen = { route: undefined };
    // One reaction on the answer's own promise (no second async frame to await it).
    return answer(raw, scope, seen).then((res) => {
      observe.observe(raw, res, seen.route, (performance.now() - start) / 1000);
      return res;
    });
  }

  /** The answer to one request; `seen.route` is the route it was matched to (or the route a 405 names). */
  async function answer(raw: HubRequest, scope: RequestScope | undefined, seen: Seen | undefined): Promise<HubResponse> {
    let shape = 'text' as Route<D>['errors'];
    let route: Route<D> | undefined;
    try {
      const { path, query } = splitUrl(raw.url);
      shape = shapeForPath(path);
      const method = raw.method.toUpperCase();

      if (method === 'OPTIONS') {
        const pm = router.match('GET', path);
        if (seen && pm.kind !== 'none') seen.route = pm.kind === 'found' ? pm.route : pm.sample;
        return preflight(pm, router, path, raw, siteOrigin);
      }

      const m = router.match(method, path);
      if (m.kind === 'none') return finish(slashRedirect(router, method, path, query) ?? notFound(path), raw, undefined, siteOrigin);
      if (m.kind === 'bad-encoding') {
        if (seen) seen.route = m.sample;
        return finish(badEncoding(m.sample?.errors ?? shape, path), raw, m.sample, siteOrigin);
      }
      if (m.kind === 'method') {
        if (seen) seen.route = m.sample;
        return finish(methodNotAllowed(m.sample.errors, method, path, m.allowed), raw, m.sample, siteOrigin);
      }
      route = m.route;
      if (seen) seen.route = route;
      shape = route.errors;

      // A route whose whole answer may be kept: record the request headers its handler reads (the answer's variants),
      // and the index and health it answers under.
      const reuse = route.reuse && route.rules === 'read' ? route.reuse : undefined;
      const recorded = reuse ? answers.recorder(raw.headers) : undefined;
      const under = reuse ? { index: deps.index(), health: answers.healthVersion() } : undefined;
      let req: HubRequest;
      switch (route.rules) {
        case 'read':
          req = withoutCredentials(recorded ? { method: raw.method, url: raw.url, headers: recorded.headers, body: raw.body } : raw);
          break;
        case 'publish':
          if (!tokenMatches(bearerToken(raw), deps.settings.publisherTokens)) {
            // No token and a wrong one are told apart (issue 27); neither says anything about the tokens there are.
            const sent = raw.headers.get('authorization') !== null;
            return finish(
              errorResponse(
                'objects',
                401,
                'UNAUTHORIZED',
                sent
                  ? 'The publisher token sent was not accepted by this hub: check it (Authorization: Bearer <token>), or ask its operator for one.'
                  : 'A publisher token is needed: send Authorization: Bearer <token>.',
                { 'www-authenticate': sent ? 'Bearer realm="hub", error="invalid_token"' : 'Bearer realm="hub"' },
              ),
              raw,
              route,
              siteOrigin,
            );
          }
          req = withoutCookies(raw);
          break;
        case 'registry-write':
          if (!tokenMatches(registryCredential(raw), deps.settings.registryTokens)) {
            return finish(
              errorResponse(
                'oci',
                401,
                'UNAUTHORIZED',
                'Writes under /v2/ (bucket pushes to hub/buckets/{name}) need the registry token that a registry login sends (docker login, skopeo --dest-creds USER:TOKEN) or Authorization: Bearer TOKEN.',
                {
                  'www-authenticate': 'Basic realm="hub"',
                },
              ),
              raw,
              route,
              siteOrigin,
            );
          }
          req = withoutCookies(raw);
          break;
        default:
          req = withoutCookies(raw);
      }

      const origin = scope?.origin ?? deps.settings.baseUrl ?? originOf(raw.url);
      let parsedQuery: URLSearchParams | undefined;
      const ctx: RouteContext<D> = {
        req,
        params: m.params,
        deps: scope?.defer ? { ...deps, defer: scope.defer } : deps,
        origin,
        path,
        search: query,
        get query() {
          parsedQuery ??= new URLSearchParams(query);
          return parsedQuery;
        },
      };
      const gate = policyGate(deps.settings.policy, deps.index(), route, m.params); // design 11.2, never a redirect
      const res = finish((gate instanceof Promise ? await gate : gate) ?? (await route.handler(ctx)), raw, route, siteOrigin);
      if (reuse && recorded && under) answers.put(raw, res, { route, tally: undefined }, reuse, recorded.read, under.index, under.health);
      return res;
    } catch (e) {
      if (e instanceof BodyTooLargeError) return finish(tooLarge(shape, e, route), raw, route, siteOrigin);
      if (isClientAbort(e)) {
        // The client went away mid-body: its doing, not an internal failure (issue 19).
        deps.log.info({ method: raw.method, path: safePath(raw.url) }, 'request aborted by the client');
        return finish(errorResponse(shape, 400, 'ABORTED', 'The request body was cut off.'), raw, route, siteOrigin);
      }
      deps.log.error({ err: describeError(e), method: raw.method, path: safePath(raw.url) }, 'request failed');
      return finish(internalError(shape), raw, route, siteOrigin);
    }
  }

  const shapeOf = shapesOf(router);
  return { handle, cached, admit: (req) => admitRequest(req, shapeOf), routes };
}

interface Seen {
  route: Route<any> | undefined;
}

/** What createHub keeps with a whole answer: the route that made it, and its tally once it has been served again. */
interface KeptMeta<D extends CoreDeps> {
  readonly route: Route<D>;
  tally: Tally | undefined;
}

type Observer = ReturnType<typeof observer>;

interface RouteLabels {
  route: string;
  group: RouteGroup;
}

const UNMATCHED: RouteLabels = { route: 'none', group: 'none' };

/**
 * The metric events of one answered request (design 10.2): the request itself, a redirect to the source that serves
 * (a 3xx with `X-Hub-Source`), and a file no live source holds (a 503 with `Retry-After` on a download route). Labels
 * are the route's pattern and group, computed once per route. `observe` emits them for one answer; `prepare` makes
 * the tally of a kept answer, which is the same answer each time it is served.
 */
function observer(metrics: Metrics) {
  const labels = new Map<Route<any>, RouteLabels>();
  const labelsOf = (route: Route<any> | undefined): RouteLabels => {
    if (!route) return UNMATCHED;
    let l = labels.get(route);
    if (!l) {
      l = { route: route.path, group: routeGroup(route.path) };
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
      const { route: pattern, group } = labelsOf(route);
      const h = res.headers;
      const source = res.status >= 300 && res.status < 400 ? h['x-hub-source'] : undefined;
      const length = h['content-length'];
      const e: RequestEvent = {
        type: 'request',
        route: pattern,
        group,
        method: methodLabel(req.method),
        status: res.status,
        seconds,
        source,
        bytes: length === undefined ? undefined : Number(length),
      };
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

/** An error raised by reading a body the client stopped sending (Node: `aborted` / ECONNRESET). */
function isClientAbort(e: unknown): boolean {
  if (!(e instanceof Error)) return false;
  const code = (e as { code?: unknown }).code;
  return e.message === 'aborted' || code === 'ECONNRESET' || code === 'ERR_STREAM_PREMATURE_CLOSE' || e.name === 'AbortError';
}

/**
 * A read of a path no route claims that differs from a route's path only by a trailing slash (`/api/models/`,
 * `/models/{owner}/{name}/`): 308 to the path without it, the query kept (issue 27). Where both exist (`/models` and
 * `/models/`) both are routes and this never runs.
 */
function slashRedirect(router: Router<any>, method: string, path: string, query: string): HubResponse | undefined {
  if ((method !== 'GET' && method !== 'HEAD') || path.length < 2 || !path.endsWith('/')) return undefined;
  const bare = path.replace(/\/+$/, '');
  // Never a Location another origin could be read from (`//host`, `/\\host`).
  if (!/^\/[^/\\]/.test(bare) || router.match(method, bare).kind !== 'found') return undefined;
  return { status: 308, headers: { location: `${bare}${query ? `?${query}` : ''}` }, body: null };
}

function preflight(
  m: ReturnType<Router<any>['match']>,
  router: Router<any>,
  path: string,
  req: HubRequest,
  siteOrigin: string | undefined,
): HubResponse {
  if (m.kind === 'none') return finish(notFound(path), req, undefined, siteOrigin);
  const route = m.kind === 'found' || m.kind === 'method' ? (m.kind === 'found' ? m.route : m.sample) : m.sample;
  // The methods this path answers (a read-only route does not advertise PUT or DELETE): no route answers OPTIONS,
  // so matching it lists every method the path has.
  const at = router.match('OPTIONS', path);
  const methods = at.kind === 'method' ? at.allowed : ['GET', 'HEAD'];
  const headers: Record<string, string> = {
    'access-control-allow-methods': [...methods, 'OPTIONS'].join(', '),
    // A preflight is cached by Access-Control-Max-Age, never by the route's own cache policy (an immutable object).
    'cache-control': 'no-store',
    'access-control-allow-headers': req.headers.get('access-control-request-headers') ?? 'authorization, content-type',
    'access-control-max-age': '86400',
  };
  if (route?.rules === 'account') {
    const origin = req.headers.get('origin');
    if (!siteOrigin || origin !== siteOrigin) return { status: 204, headers: { vary: 'Origin' }, body: null };
  }
  return finish({ status: 204, headers, body: null }, req, route, siteOrigin);
}

/** Split an absolute or origin-form URL into its raw path and query without a full URL parse. */
export function splitUrl(url: string): { path: string; query: string } {
  let start = 0;
  const scheme = url.indexOf('://');
  if (scheme !== -1 && scheme < 10) {
    start = url.indexOf('/', scheme + 3);
    if (start === -1) return { path: '/', query: '' };
  }
  const q = url.indexOf('?', start);
  const hash = url.indexOf('#', start);
  const end = hash === -1 ? url.length : hash;
  if (q === -1 || q > end) return { path: url.slice(start, end) || '/', query: '' };
  return { path: url.slice(start, q) || '/', query: url.slice(q + 1, end) };
}

function originOf(url: string): string {
  const scheme = url.indexOf('://');
  if (scheme === -1) return '';
  const slash = url.indexOf('/', scheme + 3);
  return slash === -1 ? url : url.slice(0, slash);
}

function safePath(url: string): string {
  return splitUrl(url).path.slice(0, 300);
}

function describeError(e: unknown): { message: string; stack?: string } {
  if (e instanceof Error) return { message: e.message, stack: e.stack?.split('\n').slice(0, 6).join('\n') };
  return { message: String(e) };
}
