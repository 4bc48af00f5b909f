import { type Later, whenReady } from '../index/store-types.js';
import { noMetrics } from '../observe/metrics.js';
import { type Admission, type AdmitInput, admitRequest, shapesOf } from './admit.js';
import { AnswerCache } from './answer-cache.js';
import { BodyTooLargeError, errorResponse, type HubRequest, type HubResponse, type Route, type RouteContext } from './contract.js';
import type { CoreDeps } from './deps.js';
import { finish } from './finish.js';
import { countedKeptAnswers, type KeptMeta, observer, type Seen } from './metrics-observer.js';
import { policyGate } from './policy.js';
import { Router } from './router.js';
import {
  badEncoding,
  credentialRefusal,
  internalError,
  methodNotAllowed,
  notFound,
  shapeForPath,
  tooLarge,
  withoutCookies,
  withoutCredentials,
} from './rules.js';

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
   * `handle`, with a kept whole answer returned as is, in this same turn (no promise): what `serve` (serve.ts) calls
   * after the gate, so a host writes a kept answer without waiting a turn of the event loop.
   */
  respond(req: HubRequest, scope?: RequestScope): HubResponse | Promise<HubResponse>;
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
  /** Bytes of the whole answers kept now (bounded by the cache budget's `answers` share). */
  keptBytes(): number;
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
  const answers = new AnswerCache<KeptMeta>(deps, deps.settings.cache ? { maxBytes: deps.settings.cache.answers } : {});
  const keptAnswer = observe ? countedKeptAnswers(metrics, observe, answers) : (raw: HubRequest) => answers.get(raw)?.response;

  function respond(raw: HubRequest, scope?: RequestScope): HubResponse | Promise<HubResponse> {
    const kept = keptAnswer(raw);
    if (kept) return kept;
    // Metrics off: nothing measured, nothing allocated.
    if (!observe) return answer(raw, scope, undefined);
    const start = performance.now();
    const seen: Seen = { route: undefined };
    // One reaction on the answer's own promise (no second async frame to await it).
    return whenReady(answer(raw, scope, seen), (res) => {
      observe.observe(raw, res, seen.route, (performance.now() - start) / 1000);
      return res;
    });
  }

  /**
   * The answer to one request; `seen.route` is the route it was matched to (or the route a 405 names). At once when
   * the policy gate and the handler answer at once (a warm model: no promise and no turn of the microtask queue
   * between the request and its answer), else a promise that never rejects.
   */
  function answer(raw: HubRequest, scope: RequestScope | undefined, seen: Seen | undefined): Later<HubResponse> {
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
      // A write whose credential is not the hub's is refused here (publish and registry writes), before its handler.
      const refused = credentialRefusal(route.rules, raw, deps.settings);
      if (refused) return finish(refused, raw, route, siteOrigin);
      const req =
        route.rules === 'read'
          ? withoutCredentials(recorded ? { method: raw.method, url: raw.url, headers: recorded.headers, body: raw.body } : raw)
          : withoutCookies(raw);

      const origin = scope?.origin ?? deps.settings.baseUrl ?? originOf(raw.url);
      const ctx = new Context<D>(req, m.params, scope?.defer ? { ...deps, defer: scope.defer } : deps, origin, path, query);
      const matched = route;
      const gate = policyGate(deps.settings.policy, deps.index(), matched, m.params); // design 11.2, never a redirect
      const done = (out: HubResponse): HubResponse => {
        const res = finish(out, raw, matched, siteOrigin);
        if (reuse && recorded && under)
          answers.put(raw, res, { route: matched, tally: undefined }, reuse, recorded.read, under.index, under.health);
        return res;
      };
      const out = whenReady(gate, (refused) => refused ?? matched.handler(ctx));
      return out instanceof Promise ? out.then(done).catch((e) => failed(e, raw, matched.errors, matched)) : done(out);
    } catch (e) {
      return failed(e, raw, shape, route);
    }
  }

  /** The answer to a request whose handling threw or rejected: in the error shape of its route group, never a crash. */
  function failed(e: unknown, raw: HubRequest, shape: Route<D>['errors'], route: Route<D> | undefined): HubResponse {
    if (e instanceof BodyTooLargeError) return finish(tooLarge(shape, e, route), raw, route, siteOrigin);
    if (isClientAbort(e)) {
      // The client went away mid-body: its doing, not an internal failure (issue 19).
      deps.log.info({ method: raw.method, path: safePath(raw.url) }, 'request aborted by the client');
      return finish(errorResponse(shape, 400, 'ABORTED', 'The request body was cut off.'), raw, route, siteOrigin);
    }
    deps.log.error({ err: describeError(e), method: raw.method, path: safePath(raw.url) }, 'request failed');
    return finish(internalError(shape), raw, route, siteOrigin);
  }

  const shapeOf = shapesOf(router);
  return {
    handle: (raw, scope) => {
      const out = respond(raw, scope);
      return out instanceof Promise ? out : Promise.resolve(out);
    },
    respond,
    cached: (raw) => keptAnswer(raw),
    keptBytes: () => answers.keptBytes,
    admit: (req) => admitRequest(req, shapeOf),
    routes,
  };
}

/**
 * A route's context, its query parsed on first use. A class, not an object literal with a `get query()`: a literal's
 * getter is a new closure each time, so each context got a hidden class of its own, allocated in old space, and that
 * map kept the request's young objects alive through every scavenge until a full collection. Measured on a route of
 * one line over 100,000 requests (`node --trace-gc-nvp`): 6.5 µs a request with 4.8 MB promoted per scavenge
 * before, against a class's getter on the prototype, which allocates no map (a literal with a getter alone: 2.2 µs
 * an object, against 0.1 µs for one with a plain property).
 */
class Context<D> implements RouteContext<D> {
  private parsed: URLSearchParams | undefined;

  constructor(
    readonly req: HubRequest,
    readonly params: Record<string, string>,
    readonly deps: D,
    readonly origin: string,
    readonly path: string,
    readonly search: string,
  ) {}

  get query(): URLSearchParams {
    this.parsed ??= new URLSearchParams(this.search);
    return this.parsed;
  }
}

/**
 * `ctx` with other path parameters (a route that answers as another, such as `/api/models/owner%2Fname`): a copy
 * that keeps its prototype, so `query` still works; a spread (`{ ...ctx }`) would drop the getter.
 */
export function withParams<D>(ctx: RouteContext<D>, params: Record<string, string>): RouteContext<D> {
  return Object.assign(Object.create(Object.getPrototypeOf(ctx)) as RouteContext<D>, ctx, { params });
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
