import type { CoreDeps } from '../deps.js';
import { AnswerCache } from './answer-cache.js';
import {
  BodyTooLargeError,
  errorResponse,
  type HubRequest,
  type HubResponse,
  type RebindingSettings,
  type Route,
  type RouteContext,
  rebindingRefusal,
  requestTarget,
} from './contract.js';
import { Router } from './router.js';
import {
  badEncoding,
  bearerToken,
  cacheControl,
  EXPOSED_HEADERS,
  etagMatches,
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
}

export interface Hub {
  /** Answer one request. Never throws; never answers 500 for bad input. */
  handle(req: HubRequest, scope?: RequestScope): Promise<HubResponse>;
  /**
   * The kept whole answer to this request (a `reuse` route answered it before, and the index and health are the
   * same), synchronously, or undefined: then call `handle`. `handle` consults the same cache first, so a host that
   * never calls this gets the same answers. The answer is frozen: write it, do not change it.
   */
  cached(req: HubRequest): HubResponse | undefined;
  routes: readonly Route<any>[];
}

const encoder = new TextEncoder();

/**
 * Compose routes into one table and apply the cross-cutting rules once.
 * Both hosts call `handle`; neither contains a route or a rule.
 */
export function createHub<D extends CoreDeps>(deps: D, routes: Route<D>[]): Hub {
  const router = new Router<D>(routes);
  const siteOrigin = deps.settings.siteOrigin;
  const answers = new AnswerCache(deps);

  async function handle(raw: HubRequest, scope?: RequestScope): Promise<HubResponse> {
    const kept = answers.get(raw);
    if (kept) return kept;
    let shape = 'text' as Route<D>['errors'];
    let route: Route<D> | undefined;
    try {
      const { path, query } = splitUrl(raw.url);
      shape = shapeForPath(path);
      const method = raw.method.toUpperCase();

      if (method === 'OPTIONS') return preflight(router.match('GET', path), path, raw, siteOrigin);

      const m = router.match(method, path);
      if (m.kind === 'none') return finish(notFound(path), raw, undefined, siteOrigin);
      if (m.kind === 'bad-encoding') return finish(badEncoding(m.sample?.errors ?? shape, path), raw, m.sample, siteOrigin);
      if (m.kind === 'method') return finish(methodNotAllowed(m.sample.errors, method, path, m.allowed), raw, m.sample, siteOrigin);
      route = m.route;
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
            return finish(
              errorResponse('objects', 401, 'UNAUTHORIZED', 'A publisher token is needed: send Authorization: Bearer <token>.', {
                'www-authenticate': 'Bearer realm="hub"',
              }),
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

      const origin = deps.settings.baseUrl ?? originOf(raw.url);
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
      const res = finish(await route.handler(ctx), raw, route, siteOrigin);
      if (reuse && recorded && under) answers.put(raw, res, reuse, recorded.read, under.index, under.health);
      return res;
    } catch (e) {
      if (e instanceof BodyTooLargeError) return finish(tooLarge(shape, e), raw, route, siteOrigin);
      if (isClientAbort(e)) {
        // The client went away mid-body: its doing, not an internal failure (issue 19).
        deps.log.info({ method: raw.method, path: safePath(raw.url) }, 'request aborted by the client');
        return finish(errorResponse(shape, 400, 'ABORTED', 'The request body was cut off.'), raw, route, siteOrigin);
      }
      deps.log.error({ err: describeError(e), method: raw.method, path: safePath(raw.url) }, 'request failed');
      return finish(internalError(shape), raw, route, siteOrigin);
    }
  }

  return { handle, cached: (req) => answers.get(req), routes };
}

/** An error raised by reading a body the client stopped sending (Node: `aborted` / ECONNRESET). */
function isClientAbort(e: unknown): boolean {
  if (!(e instanceof Error)) return false;
  const code = (e as { code?: unknown }).code;
  return e.message === 'aborted' || code === 'ECONNRESET' || code === 'ERR_STREAM_PREMATURE_CLOSE' || e.name === 'AbortError';
}

function finish(res: HubResponse, req: HubRequest, route: Route<any> | undefined, siteOrigin: string | undefined): HubResponse {
  const h = res.headers;
  // CORS: reads from every origin; account routes only from the site origin, with credentials.
  if (route?.rules === 'account') {
    const origin = req.headers.get('origin');
    if (siteOrigin && origin === siteOrigin) {
      h['access-control-allow-origin'] = siteOrigin;
      h['access-control-allow-credentials'] = 'true';
      h.vary = h.vary ? `${h.vary}, Origin` : 'Origin';
    }
  } else {
    h['access-control-allow-origin'] = '*';
    h['access-control-expose-headers'] = EXPOSED_HEADERS;
  }
  if (route && res.status >= 200 && res.status < 400 && h['cache-control'] === undefined) {
    const cc = cacheControl(route);
    if (cc) h['cache-control'] = cc;
  }
  h['x-content-type-options'] = 'nosniff';

  // Conditional GET.
  const method = req.method.toUpperCase();
  if ((method === 'GET' || method === 'HEAD') && res.status === 200 && h.etag) {
    const inm = req.headers.get('if-none-match');
    if (inm && etagMatches(inm, h.etag)) {
      const { 'content-type': _ct, 'content-length': _cl, ...rest } = h;
      return { status: 304, headers: rest, body: null };
    }
  }

  // Bytes and a length for every fixed body; HEAD keeps the length and drops the body.
  let body = res.body;
  if (typeof body === 'string') body = encoder.encode(body);
  if (body instanceof Uint8Array) h['content-length'] = String(body.byteLength);
  // No body at all (a redirect): an empty one, so both hosts send Content-Length: 0 (workerd always does).
  else if (body === null && method !== 'HEAD' && res.status !== 204 && res.status !== 304 && h['content-length'] === undefined) {
    body = new Uint8Array(0);
    h['content-length'] = '0';
  }
  if (method === 'HEAD') body = null;
  else if (res.status === 204 || res.status === 304) body = null;
  return { status: res.status, headers: h, body };
}

function preflight(m: ReturnType<Router<any>['match']>, path: string, req: HubRequest, siteOrigin: string | undefined): HubResponse {
  if (m.kind === 'none') return finish(notFound(path), req, undefined, siteOrigin);
  const route = m.kind === 'found' || m.kind === 'method' ? (m.kind === 'found' ? m.route : m.sample) : m.sample;
  const headers: Record<string, string> = {
    'access-control-allow-methods': 'GET, HEAD, POST, PUT, DELETE, OPTIONS',
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

/** A request's headers when none are known (a refusal before the request is read). */
const NO_HEADERS: HubRequest['headers'] = { get: () => null };

export type Admission = { ok: true; url: string; path: string } | { ok: false; response: HubResponse };

/**
 * The gate both hosts pass every request through before `hub.handle`: the URL comes from the request target
 * alone (`requestTarget`, `Host` validated, 400 in the path's error shape when invalid), then the DNS-rebinding rule
 * (`rebindingRefusal`, 403) when the host gives its listening settings. One function, so node-server and the edge
 * refuse exactly the same requests with exactly the same answers.
 */
export function admitRequest(req: {
  method: string;
  target: string;
  host: string | null | undefined;
  origin: string | null | undefined;
  protocol: string;
  rebinding?: RebindingSettings;
}): Admission {
  const target = requestTarget(req.target, req.host, req.protocol);
  // A refusal leaves with the headers every answer gets (CORS, nosniff, a length), as if no route matched.
  const refuse = (response: HubResponse): Admission => ({
    ok: false,
    response: finish(response, { method: req.method, url: target.path, headers: NO_HEADERS, body: null }, undefined, undefined),
  });
  if (!target.ok) return refuse(errorResponse(shapeForPath(target.path), 400, 'BAD_REQUEST', target.message));
  if (req.rebinding) {
    const refusal = rebindingRefusal(req.rebinding, { method: req.method, path: target.path, host: req.host, origin: req.origin });
    if (refusal) return refuse(errorResponse(shapeForPath(target.path), 403, 'FORBIDDEN_HOST', refusal));
  }
  return { ok: true, url: target.url, path: target.path };
}
