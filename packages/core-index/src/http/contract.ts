import { fnvLanes, fnvLanesOf, fnvLanesOfText } from '../index/fnv.js';
import type { PreparedBody } from '../index/store-types.js';
import type { RouteGroup } from '../observe/metrics.js';
import type { RouteApi } from './api.js';
/**
 * The request/response contract every handler speaks.
 *
 * A web `Request` already satisfies {@link HubRequest}; the Koa host passes a cheaper object.
 * Handlers return a plain {@link HubResponse}; the edge wraps it in a `Response`, the Koa host
 * writes it straight to the socket.
 */

export interface HeaderBag {
  get(name: string): string | null;
}

export type BodySource = ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;

export interface HubRequest {
  readonly method: string;
  /** The absolute URL of the request (`http://host/path?query`). */
  readonly url: string;
  readonly headers: HeaderBag;
  /** The request body, read lazily; null when there is none. */
  readonly body: BodySource | null;
}

export type ResponseBody = Uint8Array | string | ReadableStream<Uint8Array> | null;

export interface HubResponse {
  status: number;
  /** Lower-case header names. */
  headers: Record<string, string>;
  body: ResponseBody;
}

/** The error shape a route group answers with (spec: Errors, Shapes by route group). */
export type ErrorShape = 'hub' | 'objects' | 'oci' | 'text';

/** Which cross-cutting rules apply to a route. */
export type RuleSet = 'read' | 'account' | 'publish' | 'registry-write';

export interface RouteContext<D> {
  req: HubRequest;
  /** Decoded path parameters; a trailing `*name` parameter joins its segments with `/`. */
  params: Record<string, string>;
  deps: D;
  /** Parsed lazily from `req.url`. */
  readonly query: URLSearchParams;
  /** `scheme://host` the client used (or the configured base URL), for absolute links. */
  readonly origin: string;
  /** The request path, still percent-encoded. */
  readonly path: string;
  /** The raw query string, without `?` (empty when none). */
  readonly search: string;
}

export type Handler<D> = (ctx: RouteContext<D>) => HubResponse | Promise<HubResponse>;

/** What a route serves, for the serving policy: one model, and one of its files by path or SHA-256 (or the whole model). */
export interface PolicySubject {
  id: string;
  path?: string;
  sha256?: string;
}

export interface Route<D> {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** Pattern: static segments, `:param` segments, and an optional last `*rest` segment. */
  path: string;
  rules: RuleSet;
  errors: ErrorShape;
  /** Its group: the metric label of its requests and its tag in /openapi.json, set in its package's table. */
  group: RouteGroup;
  /**
   * Cache policy on successful answers: seconds, `immutable`, or `no-store`.
   * Error answers are always `no-store`.
   */
  cache?: number | 'immutable' | 'no-store';
  /**
   * The answer is a function of the URL, the request headers the handler reads and the loaded index (`'index'`), or
   * also the source health (`'index+health'`): nothing else (no clock, no store but the index, no side effect). The
   * hub then keeps the final answer and serves it again until the index or the health changes (`AnswerCache`).
   */
  reuse?: 'index' | 'index+health';
  handler: Handler<D>;
  /**
   * The model (and file) this route serves, from its path parameters: the serving policy (http/policy.ts) is applied
   * to it before the handler runs. Routes that hand out bytes or their addresses declare it; listings do not.
   */
  subject?: (params: Record<string, string>) => PolicySubject | undefined;
  /** Short summary for the machine description. */
  summary?: string;
  /** Its answers, query and body for the machine description, written beside the route (see `describeRoutes`). */
  api?: RouteApi;
}

// ---- building responses ----------------------------------------------------------------------

const encoder = new TextEncoder();

export function utf8(s: string): Uint8Array {
  return encoder.encode(s);
}

export function json(status: number, value: unknown, headers: Record<string, string> = {}): HubResponse {
  return { status, headers: { 'content-type': 'application/json; charset=utf-8', ...headers }, body: JSON.stringify(value) };
}

export function text(
  status: number,
  body: string,
  contentType = 'text/plain; charset=utf-8',
  headers: Record<string, string> = {},
): HubResponse {
  return { status, headers: { 'content-type': contentType, ...headers }, body };
}

export type { PreparedBody };

export function prepare(value: unknown, contentType = 'application/json; charset=utf-8', etagSeed?: string): PreparedBody {
  const bytes =
    typeof value === 'string' ? encoder.encode(value) : value instanceof Uint8Array ? value : encoder.encode(JSON.stringify(value));
  return { bytes, contentType, etag: `"${etagSeed ?? fnv1a(bytes)}"` };
}

export function sendPrepared(p: PreparedBody, status = 200, headers: Record<string, string> = {}): HubResponse {
  return { status, headers: { 'content-type': p.contentType, etag: p.etag, ...headers }, body: p.bytes };
}

/** A fast 64-bit-ish content fingerprint for ETags (two FNV-1a lanes, index/fnv.ts); not a security hash. */
export function fnv1a(bytes: Uint8Array): string {
  fnvLanesOf(bytes);
  return lanesHex();
}

/**
 * {@link fnv1a} of the UTF-8 bytes of `text`, the same value, without encoding the text when it is ASCII (a query
 * string almost always is).
 */
export function fnv1aText(text: string): string {
  fnvLanesOfText(text);
  return lanesHex();
}

function lanesHex(): string {
  return (fnvLanes[0] as number).toString(16).padStart(8, '0') + (fnvLanes[1] as number).toString(16).padStart(8, '0');
}

// ---- errors, one shape per route group -------------------------------------------------------

/**
 * The single place an error body is rendered. `code` is a machine code:
 * - `hub`: `{error}` with the code in `X-Error-Code` (model-host dialect, /mcp, /api/account, /);
 * - `objects`: `{code, message}`;
 * - `oci`: `{errors: [{code, message}]}`;
 * - `text`: `text/plain` (unknown paths).
 */
export function errorResponse(
  shape: ErrorShape,
  status: number,
  code: string,
  message: string,
  headers: Record<string, string> = {},
): HubResponse {
  const base: Record<string, string> = { 'cache-control': 'no-store', ...headers };
  switch (shape) {
    case 'hub':
      return json(status, { error: message }, { 'x-error-code': code, ...base });
    case 'objects':
      return json(status, { code, message }, base);
    case 'oci':
      return json(status, { errors: [{ code, message }] }, base);
    default:
      return text(status, `${message}\n`, 'text/plain; charset=utf-8', base);
  }
}

// ---- reading bodies with a limit -------------------------------------------------------------

export class BodyTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`The request body is larger than ${limit} bytes.`);
  }
}

/**
 * Read a request body into memory, stopping (and throwing {@link BodyTooLargeError}) as soon as it
 * passes `limit` bytes, so an oversized body is never buffered whole.
 */
export async function readBody(req: HubRequest, limit: number): Promise<Uint8Array> {
  const declared = req.headers.get('content-length');
  if (declared !== null && Number(declared) > limit) throw new BodyTooLargeError(limit);
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of iterateBody(req.body)) {
    total += chunk.byteLength;
    if (total > limit) throw new BodyTooLargeError(limit);
    chunks.push(chunk);
  }
  return concatBytes(chunks, total);
}

export async function* iterateBody(body: BodySource | null): AsyncGenerator<Uint8Array> {
  if (!body) return;
  if (typeof (body as ReadableStream<Uint8Array>).getReader === 'function') {
    const reader = (body as ReadableStream<Uint8Array>).getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        if (value) yield value;
      }
    } finally {
      reader.releaseLock();
    }
  } else {
    for await (const chunk of body as AsyncIterable<Uint8Array>) yield chunk;
  }
}

export function concatBytes(chunks: Uint8Array[], total?: number): Uint8Array {
  const size = total ?? chunks.reduce((n, c) => n + c.byteLength, 0);
  if (chunks.length === 1 && chunks[0]?.byteLength === size) return chunks[0] as Uint8Array;
  const out = new Uint8Array(size);
  let offset = 0;
  for (const c of chunks) {
    out.set(c, offset);
    offset += c.byteLength;
  }
  return out;
}

// ---- small parsing helpers shared by the dialects --------------------------------------------

/** `true/false/True/False/1/0` (and absent → fallback), as the model host's clients send booleans. */
export function parseBool(value: string | null | undefined, fallback = false): boolean {
  if (value === null || value === undefined || value === '') return fallback;
  const v = value.toLowerCase();
  if (v === 'true' || v === '1' || v === 'yes') return true;
  if (v === 'false' || v === '0' || v === 'no') return false;
  return fallback;
}

/** Parse `bytes=a-b` for a body of `size` bytes. Returns null when absent or unsatisfiable as a single range. */
export function parseRange(header: string | null, size: number): { start: number; end: number } | 'unsatisfiable' | null {
  if (!header) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m) return null;
  const [, a, b] = m;
  let start: number;
  let end: number;
  if (a === '') {
    if (b === '') return null;
    const suffix = Number(b);
    if (suffix === 0) return 'unsatisfiable';
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(a);
    end = b === '' ? size - 1 : Math.min(Number(b), size - 1);
  }
  if (start >= size || start > end) return 'unsatisfiable';
  return { start, end };
}

// ---- the request target (issue 19) -----------------------------------------------------------

export type RequestTarget = { ok: true; pathAndQuery: string; path: string } | { ok: false; path: string; message: string };

/**
 * The route comes from the request target alone: origin-form (`/path?query`) as sent, absolute-form
 * (`http://host/path`) by its path and query. `Host` is decided apart (`decideHost`, host-policy.ts) and used only
 * as the origin, never parsed for a path, so a `/`, `?` or `#` in it cannot choose the route.
 */
export function requestTarget(target: string): RequestTarget {
  let pathAndQuery = target;
  if (!target.startsWith('/')) {
    if (/^https?:\/\//i.test(target)) {
      try {
        const u = new URL(target);
        pathAndQuery = `${u.pathname}${u.search}`;
      } catch {
        return { ok: false, path: '/', message: 'The request target is not a valid absolute URL.' };
      }
    } else if (target === '*') {
      pathAndQuery = '/';
    } else {
      return { ok: false, path: '/', message: 'The request target must start with "/" or be an absolute http(s) URL.' };
    }
  }
  const hash = pathAndQuery.indexOf('#');
  if (hash >= 0) pathAndQuery = pathAndQuery.slice(0, hash);
  const q = pathAndQuery.indexOf('?');
  const path = q >= 0 ? pathAndQuery.slice(0, q) : pathAndQuery;
  return { ok: true, pathAndQuery, path };
}
