import { type ErrorShape, errorResponse, type HubRequest, type HubResponse, type Route, requestTarget } from './contract.js';
import { finish } from './finish.js';
import { decideHost, type HostPolicy } from './host-policy.js';
import { Router } from './router.js';
import { shapeForPath } from './rules.js';

/** The error shape of the route a request would reach (its group's), else the shape of its path's prefix. */
export function shapesOf(router: Router<any>): (method: string, path: string) => ErrorShape {
  return (method, path) => {
    const m = router.match(method === 'HEAD' || method === 'OPTIONS' ? 'GET' : method, path);
    if (m.kind === 'found') return m.route.errors;
    if (m.kind === 'method' || m.kind === 'bad-encoding') return m.sample?.errors ?? shapeForPath(path);
    return shapeForPath(path);
  };
}

/**
 * The error-shape lookup of a route table, for a host that must refuse a request before its hub exists (the edge
 * before its first index is read): pass it to `admitRequest`. `hub.admit` is the same over the hub's own table.
 */
export function errorShapes(routes: readonly Route<any>[]): (method: string, path: string) => ErrorShape {
  return shapesOf(new Router(routes as Route<any>[]));
}

/** A request's headers when none are known (a refusal before the request is read). */
const NO_HEADERS: HubRequest['headers'] = { get: () => null };

/** What a host knows about a request before the hub reads it. */
export interface AdmitInput {
  method: string;
  /** the request target as sent (origin-form or absolute-form) */
  target: string;
  /** the request's headers (`host`, `origin`, and behind a trusted proxy `forwarded`, `x-forwarded-*`) */
  header(name: string): string | null;
  /** the scheme of the connection (`http` or `https`) */
  protocol: string;
  /** where the host listens and what it trusts; without it only the `Host` syntax is checked */
  policy?: HostPolicy;
}

export type Admission = { ok: true; url: string; path: string; origin: string } | { ok: false; response: HubResponse };

/**
 * The gate both hosts pass every request through before `hub.handle` (via `hub.admit`, which knows each route's
 * error shape): the route from the request target alone (`requestTarget`), then the host policy (`decideHost`:
 * `Host` parsed alone as the WHATWG URL parser does, a trusted proxy's forwarded scheme and host, the DNS-rebinding
 * rule, the origin of absolute URLs). A refusal is 400 or 403 in the error shape of the route the request would
 * reach. One function, so node-server and the edge refuse exactly the same requests with exactly the same answers.
 */
export function admitRequest(req: AdmitInput, shapeOf: (method: string, path: string) => ErrorShape): Admission {
  const method = req.method.toUpperCase();
  const target = requestTarget(req.target);
  // A refusal leaves with the headers every answer gets (CORS, nosniff, a length), as if no route matched.
  const refuse = (status: number, code: string, message: string): Admission => ({
    ok: false,
    response: finish(
      errorResponse(shapeOf(method, target.path), status, code, message),
      { method: req.method, url: target.path, headers: NO_HEADERS, body: null },
      undefined,
      undefined,
    ),
  });
  if (!target.ok) return refuse(400, 'BAD_REQUEST', target.message);
  const decided = decideHost(req.policy, { method, path: target.path, protocol: req.protocol, header: req.header });
  if (!decided.ok) return refuse(decided.status, decided.code, decided.message);
  return {
    ok: true,
    // The URL names the scheme and host the client used (behind a trusted proxy, the proxy's): answers kept by URL
    // (the answer cache) are then never served to a request that would build other absolute URLs.
    url: `${decided.effective.origin}${target.pathAndQuery}`,
    path: target.path,
    origin: decided.origin,
  };
}
