import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { HeaderBag, HostPolicy, Hub, HubRequest, HubResponse, RequestScope } from '@hub/core-index';
import type { Middleware } from 'koa';

/** A `HeaderBag` over Node's already-parsed, lower-cased header object: no copy per request. */
class NodeHeaders implements HeaderBag {
  constructor(private readonly raw: IncomingHttpHeaders) {}
  get(name: string): string | null {
    const v = this.raw[name.toLowerCase()];
    if (v === undefined) return null;
    return Array.isArray(v) ? v.join(', ') : v;
  }
}

/**
 * Build the cheap request object the hub reads (a web `Request` would cost about a third of throughput), after the
 * hub's gate (`hub.admit`: the route from the request target alone, the host policy of design 10.1). A refused
 * request comes back as the answer to send.
 */
export function toHubRequest(
  hub: Hub,
  req: IncomingMessage,
  protocol: string,
  policy?: HostPolicy,
): { req: HubRequest; scope: RequestScope } | HubResponse {
  const headers = new NodeHeaders(req.headers);
  const admitted = hub.admit({
    method: req.method ?? 'GET',
    target: req.url ?? '/',
    header: (name) => headers.get(name),
    protocol,
    ...(policy ? { policy } : {}),
  });
  if (!admitted.ok) return admitted.response;
  const hasBody = req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined;
  return {
    req: {
      method: req.method ?? 'GET',
      url: admitted.url,
      headers,
      body: hasBody ? (req as AsyncIterable<Uint8Array>) : null,
    },
    scope: { origin: admitted.origin },
  };
}

/** Write a hub response straight to the socket. */
export function writeHubResponse(res: ServerResponse, out: HubResponse): void {
  res.writeHead(out.status, out.headers);
  const body = out.body;
  if (body === null || body === undefined) {
    res.end();
  } else if (typeof body === 'string' || Buffer.isBuffer(body)) {
    res.end(body);
  } else if (body instanceof Uint8Array) {
    // A Buffer view over the same memory: Node copies a plain Uint8Array before writing it.
    res.end(Buffer.from(body.buffer, body.byteOffset, body.byteLength));
  } else {
    Readable.fromWeb(body as import('node:stream/web').ReadableStream<Uint8Array>)
      .on('error', () => res.destroy())
      .pipe(res);
  }
}

/**
 * The node:http listener: hub paths go straight to `hub.handle` (no Koa context per request); only the host's own
 * routes under `/-/` (liveness and readiness, host-routes.ts) go to `hostRoutes`. Koa cost about a fifth of the
 * throughput on the hot routes when it wrapped every request (docs/benchmarks.md).
 */
export function hubListener(
  hub: Hub,
  hostRoutes: (req: IncomingMessage, res: ServerResponse) => unknown,
  policy?: HostPolicy,
  protocol = 'http',
) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const url = req.url ?? '/';
    // the host's own `/-/` routes; a path under `/-/` they do not answer is the hub's, as any unknown path
    if (url.startsWith('/-/') && hostRoutes(req, res) !== false) return;
    const admitted = toHubRequest(hub, req, protocol, policy);
    // an invalid Host or request target, or a rebinding refusal, is answered without reaching the routes
    if ('status' in admitted) {
      writeHubResponse(res, admitted);
      return;
    }
    // A kept whole answer (the index and health unchanged since it was made) is written in this same turn. Its key is
    // the admitted URL, whose origin is the one absolute URLs were built from (or baseUrl's, the same for all).
    const kept = hub.cached(admitted.req);
    if (kept) {
      writeHubResponse(res, kept);
      return;
    }
    hub.handle(admitted.req, admitted.scope).then(
      (out) => writeHubResponse(res, out),
      () => {
        // hub.handle answers its own errors; this is the last guard so a socket is never left open.
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end(res.headersSent ? undefined : '{"error":"Internal error"}');
      },
    );
  };
}

/**
 * The whole hub as one Koa middleware (for operators who mount the hub inside their own Koa app). Paths under `/-/` (the host's own liveness, readiness and
 * metrics routes) fall through to the next middleware.
 */
export function hubMiddleware(hub: Hub, policy?: HostPolicy): Middleware {
  return async (ctx, next) => {
    const url = ctx.req.url ?? '/';
    if (url.startsWith('/-/')) return next();
    const admitted = toHubRequest(hub, ctx.req, ctx.protocol, policy);
    const out = 'status' in admitted ? admitted : await hub.handle(admitted.req, admitted.scope);
    ctx.respond = false;
    writeHubResponse(ctx.res, out);
  };
}
