import { type ErrorShape, shapeForPath } from '@hub/core-index';
import fc from 'fast-check';

/**
 * The bad-input property suite (issue 19), generated from the route table itself: for every route and method,
 * arbitrary path parameters (percent-encoded, `%00`, `..`, overlong, invalid UTF-8), query values, headers (`Accept`,
 * `Range`, `If-None-Match`, `Content-Length`, credentials) and bodies (malformed or deep JSON, over the limits).
 * Properties: never a 5xx (bar the documented 503), the documented error shape of the route's group, an answer
 * within a bound, and nothing stored changes (checked by the caller's `unchanged`). One definition, run in process on
 * every `pnpm test` (packages/hub/src/bad-input.property.test.ts) and over HTTP against both hosts
 * (tests/conformance-both-hosts.test.ts). A new route is covered the day it is added.
 */

export interface BadInputRoute {
  method: string;
  path: string;
  errors?: ErrorShape;
}

export interface BadInputRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** the error shape the answer must have when it is an error */
  shape: ErrorShape;
}

export interface BadInputAnswer {
  status: number;
  text: string;
  contentType: string;
}

export interface BadInputOptions {
  seed: number;
  runs: number;
  /** an answer must come within this many milliseconds */
  boundMs?: number;
  /**
   * Over HTTP: leave out what a real HTTP client cannot send (a `Content-Length` that disagrees with the body) and
   * bodies over 1 MiB (the hosts' limits are tested on their own).
   */
  http?: boolean;
  /** Checked after every request: a description of what changed in the store, or undefined. */
  unchanged?: () => Promise<string | undefined> | string | undefined;
}

const segment = fc.oneof(
  fc.constantFrom('%00', '..', '%2e%2e', '%2F', '%E0%A4%A', '%FF%FE', '%', '.', 'a%20b', '%C0%AF', '~'),
  fc.string({ maxLength: 12 }).map((s) => encodeURIComponent(s)),
  fc.integer({ min: 200, max: 5000 }).map((n) => 'x'.repeat(n)),
  fc.stringMatching(/^[a-z0-9-]{1,12}$/),
);

const query = fc.oneof(
  fc.constant(''),
  fc
    .array(
      fc.tuple(
        fc.constantFrom('limit', 'search', 'author', 'sort', 'n', 'last', 'full', 'cursor', 'offset', 'q', 'x'),
        fc.oneof(
          fc.string({ maxLength: 8 }).map(encodeURIComponent),
          fc.constantFrom('-1', '1e309', '%00', 'NaN', '99999999999999999999', ''),
        ),
      ),
      { maxLength: 4 },
    )
    .map((kv) => `?${kv.map(([k, v]) => `${k}=${v}`).join('&')}`),
);

const headerValues = {
  accept: fc.constantFrom('*/*', 'application/json', 'text/html', '', 'application/vnd.oci.image.index.v1+json', 'x/y;q=abc'),
  range: fc.constantFrom('bytes=0-0', 'bytes=-1', 'bytes=5-1', 'bytes=abc', 'items=0-1', 'bytes=0-99999999999999999999'),
  'if-none-match': fc.constantFrom('*', '"x"', 'W/"y"', '""', 'garbage'),
  'content-type': fc.constantFrom('application/json', 'text/plain', 'multipart/form-data; boundary=x', 'application/octet-stream'),
  'content-length': fc.constantFrom('0', '5', '99999999', '-1', 'abc'),
  authorization: fc.constantFrom('Bearer x', 'Basic Og==', 'Bearer ', 'garbage'),
};

/**
 * `Host` values (issue 26): the invalid ones the WHATWG URL host parser rejects (or that hold a delimiter), a foreign
 * name a loopback-bound hub refuses, and valid loopback ones. In process only: an HTTP client cannot send most of them
 * (the raw-socket tests of both hosts do).
 */
export const BAD_HOSTS = ['xn--', 'a b', '%00', 'a@b', '[', '/', '?', '#', 'a:65536', '[::1]:99999', ':', 'a:b:c', 'a"b<c>'];
const hosts = fc.constantFrom(...BAD_HOSTS, 'evil.example', 'localhost', '127.0.0.1:8080', '[::1]:8080');

function bodies(http: boolean) {
  return fc.oneof(
    fc.constant(undefined),
    fc.string({ maxLength: 64 }),
    fc.constantFrom('{', '[]', 'null', '{"jsonrpc":"2.0"}', '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}'),
    fc.integer({ min: 1, max: 400 }).map((d) => `${'['.repeat(d)}${']'.repeat(d)}`),
    http ? fc.constant('a'.repeat(64 * 1024)) : fc.integer({ min: 1, max: 3 }).map((n) => 'a'.repeat(n * 1024 * 1024 + 1)),
  );
}

/** Put generated values into a route pattern's `:param` and `*rest` segments. */
export function fillPattern(pattern: string, values: string[]): string {
  let i = 0;
  return pattern
    .split('/')
    .map((part) => (part.startsWith(':') || part.startsWith('*') ? values[i++ % values.length] : part))
    .join('/');
}

/** Generated requests over every route of the table. */
export function badInputRequests(routes: readonly BadInputRoute[], http = false): fc.Arbitrary<BadInputRequest> {
  const { 'content-length': contentLength, ...rest } = headerValues;
  const fields: Record<string, fc.Arbitrary<string>> = http ? rest : { ...rest, 'content-length': contentLength, host: hosts };
  const headers = fc.record(fields, { requiredKeys: [] }) as fc.Arbitrary<Record<string, string>>;
  return fc
    .tuple(
      fc.nat({ max: routes.length - 1 }),
      fc.constantFrom('GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'ROUTE'),
      fc.array(segment, { minLength: 1, maxLength: 3 }),
      query,
      headers,
      bodies(http),
    )
    .map(([r, otherMethod, values, q, h, b]) => {
      const route = routes[r] as BadInputRoute;
      // Half the runs use the route's own method, the rest any method.
      const method = values.length % 2 === 0 ? otherMethod : route.method;
      const path = fillPattern(route.path, values) + q;
      const withBody = b !== undefined && method !== 'GET' && method !== 'HEAD';
      return { method, path, headers: h, ...(withBody ? { body: b } : {}), shape: route.errors ?? shapeForPath(path) };
    });
}

const STANDARD_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** What is wrong with one answer, or undefined. */
export function badInputProblem(req: BadInputRequest, res: BadInputAnswer, elapsedMs: number, boundMs: number): string | undefined {
  const what = `${req.method} ${req.path.slice(0, 200)}`;
  if (elapsedMs > boundMs) return `${what}: answered after ${elapsedMs} ms (bound ${boundMs} ms)`;
  // 503 is documented (accounts not configured, no live source holds the file). 501 is what RFC 9110 (15.6.2) asks
  // for a method the server does not recognise, and what workerd itself answers for one before any Worker runs; it
  // is allowed only for such a method. Any other 5xx is a bug.
  const unknownMethod = !STANDARD_METHODS.has(req.method);
  if (res.status >= 500 && res.status !== 503 && !(res.status === 501 && unknownMethod)) return `${what}: answered ${res.status}`;
  if (res.status === 501) return undefined;
  if (res.status < 400 || req.shape === 'text' || !res.contentType.includes('json') || res.text === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(res.text);
  } catch {
    return `${what}: ${res.status} with a JSON content type and a body that is not JSON`;
  }
  const v = value as Record<string, unknown>;
  // `{error}`; on /mcp the JSON-RPC envelope's `error` object
  if (req.shape === 'hub' && (v.error === undefined || v.error === null)) return `${what}: ${res.status} without {error}`;
  if (req.shape === 'objects' && typeof v.message !== 'string') return `${what}: ${res.status} without {code, message}`;
  if (req.shape === 'oci' && !Array.isArray(v.errors)) return `${what}: ${res.status} without {errors: [...]}`;
  return undefined;
}

/**
 * Run the property: `send` answers one generated request (in process or over HTTP). Throws fast-check's report
 * (seed, path and the shrunk counterexample) on the first failure.
 */
export async function checkBadInput(
  routes: readonly BadInputRoute[],
  send: (req: BadInputRequest) => Promise<BadInputAnswer>,
  options: BadInputOptions,
): Promise<void> {
  if (routes.length === 0) throw new Error('no routes to generate requests for');
  const boundMs = options.boundMs ?? 5_000;
  await fc.assert(
    fc.asyncProperty(badInputRequests(routes, options.http ?? false), async (req) => {
      const started = Date.now();
      const res = await send(req);
      const problem = badInputProblem(req, res, Date.now() - started, boundMs);
      if (problem) throw new Error(problem.slice(0, 500));
      const changed = await options.unchanged?.();
      if (changed) throw new Error(`${req.method} ${req.path.slice(0, 200)}: ${changed}`);
    }),
    { seed: options.seed, numRuns: options.runs, endOnFailure: true },
  );
}
