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

/** Write an answer; one Node cannot write as made (a header value it refuses) gets the last guard's 500 instead. */
export function writeOrFail(res: ServerResponse, out: HubResponse): void {
  try {
    writeHubResponse(res, out);
  } catch {
    failed(res);
  }
}

/** The last guard of an answer that could not be written (`serve` answers its own errors): a socket is never left open. */
function failed(res: ServerResponse): void {
  try {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    res.writeHead(500, { 'content-type': 'application/json' });
    res.end('{"error":"Internal error"}');
  } catch {
    res.destroy();
  }
}

/** At most this many answers wait for the end of a turn; the next one writes them (about 5 ms of cold look-ups). */
const TURN_WRITE_MAX = 32;

/**
 * Answers made in one turn of the event loop, written together at its end (`setImmediate`: after the poll phase has
 * run every request that arrived in it), in the order they were made. Under load a turn reads many requests; written
 * one by one, each answer's `writev` woke the load's reader on its own (on loopback the receiving side's work is
 * charged to the sender's system call), which cost a cold look-up at 100,000 models about a fifth of its CPU time
 * (docs/decisions/scale-and-speed.md "Answers written at the end of the turn"). An idle server answers in the same
 * turn as before, one `setImmediate` later. Answers on one connection keep their order (node:http queues a pipelined
 * answer behind the one before it). An answer that cannot be written (a header Node refuses) gets a 500 and does not
 * stop the others. At most {@link TURN_WRITE_MAX} answers wait: a turn that reads more writes them as it goes.
 */
export class TurnWriter {
  /** response, answer, response, answer, … (no pair allocated per request) */
  private queue: Array<ServerResponse | HubResponse> = [];
  private readonly flush = (): void => {
    const q = this.queue;
    this.queue = [];
    for (let i = 0; i < q.length; i += 2) writeOrFail(q[i] as ServerResponse, q[i + 1] as HubResponse);
  };

  write(res: ServerResponse, out: HubResponse): void {
    if (this.queue.length === 0) setImmediate(this.flush);
    this.queue.push(res, out);
    // a turn that reads many requests (thousands of connections) holds none of its answers for long
    if (this.queue.length >= 2 * TURN_WRITE_MAX) this.flush();
  }
}

/**
 * The node:http listener: hub paths go to the one request path (`serve`: the gate, the kept answer, the routes), and
 * every answer is written at the end of the turn it was made in ({@link TurnWriter}); the host's own routes under
 * `/-/` (liveness and readiness, host-routes.ts) go to `hostRoutes` first. No Koa context per request: Koa cost about
 * a fifth of the throughput on the hot routes when it wrapped every request (docs/benchmarks.md).
 */
export function hubListener(
  hub: Hub,
  hostRoutes: (req: IncomingMessage, res: ServerResponse) => unknown,
  policy?: HostPolicy,
  protocol = 'http',
) {
  const turn = new TurnWriter();
  return (req: IncomingMessage, res: ServerResponse): void => {
    // the host's own `/-/` routes; a path under `/-/` they do not answer is the hub's, as any unknown path
    if (req.url?.startsWith('/-/') && hostRoutes(req, res) !== false) return;
    const out = serve(new NodeRequest(req, protocol, policy), hub);
    if (out instanceof Promise)
      out.then(
        (answer) => turn.write(res, answer),
        () => failed(res),
      );
    else turn.write(res, out);
  };
}
