import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { type HeaderBag, type HostPolicy, type HostRequest, type Hub, type HubRequest, type HubResponse, serve } from '@hub/core-index';

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
 * A node:http request as the hub's one request path reads it (`serve` in core-index): the gate's view (method,
 * target, headers, scheme, host policy), and the cheap request object the routes read once it is admitted (a web
 * `Request` would cost about a third of throughput): Node's parsed headers and the socket as the body, no copy.
 */
export class NodeRequest implements HostRequest {
  readonly method: string;
  readonly target: string;
  readonly policy?: HostPolicy;
  private readonly headers: NodeHeaders;
  constructor(
    private readonly req: IncomingMessage,
    readonly protocol: string,
    policy?: HostPolicy,
  ) {
    this.method = req.method ?? 'GET';
    this.target = req.url ?? '/';
    this.headers = new NodeHeaders(req.headers);
    if (policy) this.policy = policy;
  }
  /** A property, not a method: the gate passes it on alone. */
  readonly header = (name: string): string | null => this.headers.get(name);
  request(url: string): HubRequest {
    const h = this.req.headers;
    const hasBody = h['content-length'] !== undefined || h['transfer-encoding'] !== undefined;
    return { method: this.method, url, headers: this.headers, body: hasBody ? (this.req as AsyncIterable<Uint8Array>) : null };
  }
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

/** The last guard of a promised answer (`serve` answers its own errors): a socket is never left open. */
function failed(res: ServerResponse): void {
  if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
  res.end(res.headersSent ? undefined : '{"error":"Internal error"}');
}

/**
 * The node:http listener: hub paths go to the one request path (`serve`: the gate, the kept answer, the routes), and
 * a refusal or a kept answer is written in this same turn; the host's own routes under `/-/` (liveness and
 * readiness, host-routes.ts) go to `hostRoutes` first. No Koa context per request: Koa cost about a fifth of the throughput
 * on the hot routes when it wrapped every request (docs/benchmarks.md).
 */
export function hubListener(
  hub: Hub,
  hostRoutes: (req: IncomingMessage, res: ServerResponse) => unknown,
  policy?: HostPolicy,
  protocol = 'http',
) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    // the host's own `/-/` routes; a path under `/-/` they do not answer is the hub's, as any unknown path
    if (req.url?.startsWith('/-/') && hostRoutes(req, res) !== false) return;
    const out = serve(new NodeRequest(req, protocol, policy), hub);
    if (out instanceof Promise)
      out.then(
        (answer) => writeHubResponse(res, answer),
        () => failed(res),
      );
    else writeHubResponse(res, out);
  };
}
