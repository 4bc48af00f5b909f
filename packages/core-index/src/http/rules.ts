import {
  BodyTooLargeError,
  type ErrorShape,
  errorResponse,
  type HeaderBag,
  type HubRequest,
  type HubResponse,
  type Route,
  type RuleSet,
} from './contract.js';

/**
 * The cross-cutting rules, written once for every route and both hosts:
 * credential dropping, CORS, cache headers, conditional requests, HEAD, and error shapes.
 */

/** Headers browsers may read on read routes (hf.js and transformers.js read these). */
export const EXPOSED_HEADERS = [
  'content-length',
  'content-range',
  'content-type',
  'etag',
  'link',
  'location',
  'repr-digest',
  'x-error-code',
  'x-error-message',
  'x-hub-source',
  'x-linked-etag',
  'x-linked-size',
  'x-repo-commit',
  'docker-content-digest',
  'accept-ranges',
].join(', ');

const CREDENTIAL_HEADERS = new Set(['authorization', 'cookie', 'proxy-authorization']);

/** A view of the request without credentials: read routes never see them, and nothing logs them. */
export function withoutCredentials(req: HubRequest): HubRequest {
  const headers: HeaderBag = {
    get(name: string) {
      return CREDENTIAL_HEADERS.has(name.toLowerCase()) ? null : req.headers.get(name);
    },
  };
  return { method: req.method, url: req.url, headers, body: req.body };
}

/** A view of the request without cookies (account and publish routes read only the bearer token). */
export function withoutCookies(req: HubRequest): HubRequest {
  const headers: HeaderBag = {
    get(name: string) {
      return name.toLowerCase() === 'cookie' ? null : req.headers.get(name);
    },
  };
  return { method: req.method, url: req.url, headers, body: req.body };
}

/** Constant-time comparison of two strings (length is not secret: tokens have fixed lengths). */
export function timingSafeEqualString(a: string, b: string): boolean {
  const ea = new TextEncoder().encode(a);
  const eb = new TextEncoder().encode(b);
  let diff = ea.length ^ eb.length;
  const n = Math.max(ea.length, eb.length);
  for (let i = 0; i < n; i++) diff |= (ea[i % (ea.length || 1)] ?? 0) ^ (eb[i % (eb.length || 1)] ?? 0);
  return diff === 0;
}

/** Does the token match any of the configured ones? Every candidate is compared, in constant time each. */
export function tokenMatches(token: string | undefined, allowed: readonly string[]): boolean {
  if (!token) return false;
  let ok = false;
  for (const t of allowed) if (timingSafeEqualString(token, t)) ok = true;
  return ok;
}

/** The bearer token of a request, if any. */
export function bearerToken(req: HubRequest): string | undefined {
  const h = req.headers.get('authorization');
  if (!h) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
  return m?.[1];
}

/** The password of `Basic` credentials or a bearer token: what a container-registry login sends. */
export function registryCredential(req: HubRequest): string | undefined {
  const h = req.headers.get('authorization');
  if (!h) return undefined;
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(h);
  if (bearer) return bearer[1];
  const basic = /^Basic\s+(\S+)\s*$/i.exec(h);
  if (!basic?.[1]) return undefined;
  try {
    const decoded = atob(basic[1]);
    const i = decoded.indexOf(':');
    return i === -1 ? undefined : decoded.slice(i + 1);
  } catch {
    return undefined;
  }
}

/**
 * The 401 of a write route whose credential is not one of the hub's, or undefined when it is (or the route takes
 * none here): a publish route wants a publisher token (`Authorization: Bearer`), a registry write the registry token a
 * `docker login` sends (Basic or Bearer). No token and a wrong one are told apart (issue 27); neither says anything
 * about the tokens there are. Every configured token is compared, in constant time each.
 */
export function credentialRefusal(
  rules: RuleSet,
  req: HubRequest,
  tokens: { publisherTokens: readonly string[]; registryTokens: readonly string[] },
): HubResponse | undefined {
  if (rules === 'publish') {
    if (tokenMatches(bearerToken(req), tokens.publisherTokens)) return undefined;
    const sent = req.headers.get('authorization') !== null;
    return errorResponse(
      'objects',
      401,
      'UNAUTHORIZED',
      sent
        ? 'The publisher token sent was not accepted by this hub: check it (Authorization: Bearer <token>), or ask its operator for one.'
        : 'A publisher token is needed: send Authorization: Bearer <token>.',
      { 'www-authenticate': sent ? 'Bearer realm="hub", error="invalid_token"' : 'Bearer realm="hub"' },
    );
  }
  if (rules === 'registry-write') {
    if (tokenMatches(registryCredential(req), tokens.registryTokens)) return undefined;
    return errorResponse(
      'oci',
      401,
      'UNAUTHORIZED',
      'Writes under /v2/ (bucket pushes to hub/buckets/{name}) need the registry token that a registry login sends (docker login, skopeo --dest-creds USER:TOKEN) or Authorization: Bearer TOKEN.',
      { 'www-authenticate': 'Basic realm="hub"' },
    );
  }
  return undefined;
}

export function cacheControl(route: Route<unknown>): string | undefined {
  const c = route.cache;
  if (c === undefined) return undefined;
  if (c === 'immutable') return 'public, max-age=31536000, immutable';
  if (c === 'no-store') return 'no-store';
  return `public, max-age=${c}`;
}

/** The error shape for a path no route claims, by prefix. */
export function shapeForPath(path: string): ErrorShape {
  if (path === '/v2' || path.startsWith('/v2/')) return 'oci';
  if (path.startsWith('/api/v1/')) return 'objects';
  if (path.startsWith('/api/') || path === '/mcp') return 'hub';
  return 'text';
}

export function notFound(path: string): HubResponse {
  const shape = shapeForPath(path);
  switch (shape) {
    case 'oci':
      return errorResponse('oci', 404, 'NAME_UNKNOWN', `No registry route at ${path}. See /v2/ and /openapi.json.`);
    case 'objects':
      return errorResponse('objects', 404, 'NOT_FOUND', `No object route at ${path}. See /openapi.json for the routes.`);
    case 'hub':
      return errorResponse('hub', 404, 'NotFound', `No route at ${path}. See /openapi.json for the routes.`);
    default:
      return errorResponse('text', 404, 'NotFound', `Not found: ${path}. The routes are listed at /llms.txt and /openapi.json.`);
  }
}

export function methodNotAllowed(shape: ErrorShape, method: string, path: string, allowed: string[]): HubResponse {
  const allow = allowed.join(', ');
  const headers = { allow };
  const msg = `${method} is not allowed on ${path}: the hub is read-only here; use ${allow}.`;
  if (shape === 'oci') return errorResponse('oci', 405, 'UNSUPPORTED', msg, headers);
  if (shape === 'objects') return errorResponse('objects', 405, 'READ_ONLY', msg, headers);
  // `/` and the model-host dialect: `{error}` with `X-Error-Code: ReadOnly` (spec: Endpoints).
  return errorResponse(shape === 'text' ? 'hub' : shape, 405, 'ReadOnly', msg, headers);
}

export function badEncoding(shape: ErrorShape, path: string): HubResponse {
  const msg = `The path ${path.slice(0, 200)} has invalid percent-encoding; encode each segment with encodeURIComponent.`;
  if (shape === 'oci') return errorResponse('oci', 400, 'NAME_INVALID', msg);
  if (shape === 'objects') return errorResponse('objects', 400, 'BAD_REQUEST', msg);
  return errorResponse(shape === 'text' ? 'hub' : shape, 400, 'BadRequest', msg);
}

/** 413, with advice for what the route takes: publishing advice only where one publishes (issue 27). */
export function tooLarge(shape: ErrorShape, e: BodyTooLargeError, route?: Route<any>): HubResponse {
  const advice =
    route?.rules === 'publish'
      ? 'publish a larger file as 16 MiB chunks joined by a chunked record (hub objects put does this).'
      : route?.rules === 'registry-write'
        ? 'push a larger blob in chunks (POST, then PATCH each chunk, then PUT with its digest).'
        : route?.path === '/mcp'
          ? 'send one smaller JSON-RPC message (a batch as separate requests).'
          : 'send a smaller body.';
  const msg = `The request body is over ${e.limit} bytes; ${advice}`;
  if (shape === 'oci') return errorResponse('oci', 413, 'SIZE_INVALID', msg);
  if (shape === 'objects') return errorResponse('objects', 413, 'PAYLOAD_TOO_LARGE', msg);
  return errorResponse(shape === 'text' ? 'hub' : shape, 413, 'PayloadTooLarge', msg);
}

export function internalError(shape: ErrorShape): HubResponse {
  const msg = 'The hub failed to answer this request; it has been logged. Try again, or see /api/hub/health.';
  if (shape === 'oci') return errorResponse('oci', 500, 'UNKNOWN', msg);
  if (shape === 'objects') return errorResponse('objects', 500, 'INTERNAL', msg);
  return errorResponse(shape === 'text' ? 'hub' : shape, 500, 'Internal', msg);
}

/** Strong or weak match of an `If-None-Match` list against an ETag. */
export function etagMatches(ifNoneMatch: string, etag: string): boolean {
  if (ifNoneMatch.trim() === '*') return true;
  const strip = (t: string) => t.trim().replace(/^W\//, '');
  const target = strip(etag);
  return ifNoneMatch.split(',').some((t) => strip(t) === target);
}

export { BodyTooLargeError };
