import cluster from 'node:cluster';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import net, { type Socket } from 'node:net';
import { accessLog, bearerToken, type Logger, type Metrics, noMetrics, teeMetrics, timingSafeEqualString } from '@hub/core-index';
import type { HubConfigFile } from './config.js';
import { listenOn } from './listen.js';
// Types only: prom-client (and the @opentelemetry/api it loads) is imported when metrics are on, never otherwise.
import type { PromMetrics } from './metrics.js';

/**
 * Where `GET /metrics` is answered (issue 28): on its own listener (`metricsPort`, loopback unless `metricsHost` says
 * otherwise), or on the main port only with `Authorization: Bearer <metricsToken>`. Never on the public port without
 * the token: without one configured, `/metrics` on the main port is an ordinary hub path (404).
 */

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

function isMetricsPath(url: string | undefined): boolean {
  if (!url) return false;
  const q = url.indexOf('?');
  return (q === -1 ? url : url.slice(0, q)) === '/metrics';
}

function plain(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
    'content-length': String(Buffer.byteLength(body)),
    ...headers,
  });
  res.end(body);
}

/** Answer one request for the exposition: GET and HEAD only. */
async function serveScrape(sink: PromMetrics, req: IncomingMessage, res: ServerResponse, log: Logger): Promise<void> {
  const method = req.method ?? 'GET';
  if (method !== 'GET' && method !== 'HEAD') {
    plain(res, 405, 'The metrics are read with GET /metrics.\n', { allow: 'GET, HEAD' });
    return;
  }
  try {
    // Bytes, as the hub's own answers are written: Node's HTTP code then sees the one kind of body it is optimised for.
    const body = Buffer.from(await sink.scrape());
    res.writeHead(200, {
      'content-type': sink.contentType,
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      'content-length': String(body.length),
    });
    res.end(method === 'HEAD' ? undefined : body);
  } catch (e) {
    log.error({ err: (e as Error).message }, 'metrics scrape failed');
    if (!res.headersSent) plain(res, 500, 'The metrics could not be collected; see the hub log.\n');
    else res.destroy();
  }
}

/** The whole listener of the metrics port: `/metrics`, and 404 for anything else. */
function metricsListener(sink: PromMetrics, log: Logger): Listener {
  return (req, res) => {
    if (!isMetricsPath(req.url)) {
      plain(res, 404, 'Only /metrics is served on this port.\n');
      return;
    }
    void serveScrape(sink, req, res, log);
  };
}

/** The bearer token a request carries, if any: the hub's one rule (`bearerToken`), over Node's headers. */
function bearer(req: IncomingMessage): string | undefined {
  const h = req.headers.authorization;
  if (!h || h.length > 4096) return undefined;
  return bearerToken({
    method: req.method ?? 'GET',
    url: '/metrics',
    body: null,
    headers: { get: (n) => (n === 'authorization' ? h : null) },
  });
}

/**
 * The main port's listener with `/metrics` in front when a metrics token is configured: the token compared in
 * constant time, 401 without it. Other paths go to `next` unchanged.
 */
export function withMetricsRoute(next: Listener, sink: PromMetrics, token: string, log: Logger): Listener {
  return (req, res) => {
    if (!isMetricsPath(req.url)) return next(req, res);
    const sent = bearer(req);
    if (sent === undefined || !timingSafeEqualString(sent, token)) {
      plain(res, 401, 'GET /metrics on this port needs Authorization: Bearer <metricsToken>.\n', {
        'www-authenticate': 'Bearer realm="hub-metrics"',
      });
      return;
    }
    void serveScrape(sink, req, res, log);
  };
}

export interface MetricsServer {
  /** `http://HOST:PORT/metrics` */
  url: string;
  port: number;
  close(): Promise<void>;
}

/**
 * Listen for the metrics port (port 0 picks a free one) and hand every connection to the hub's own `http.Server`
 * (Node's documented `server.emit('connection', socket)`), which answers it with the metrics listener (`wrap`).
 *
 * One `http.Server` for both ports, not a second server: Node's HTTP code is optimised for the objects it has seen,
 * and the requests, responses and sockets of a second server have other hidden classes. One scrape of a second server
 * deoptimised about 30 of Node's HTTP functions in a loaded hub, which then ran them polymorphic: 10.6 % more CPU per
 * request with a scrape a second, against 1.2 % with metrics on and no scrape (docs/benchmarks.md, 2026-11-28).
 */
async function listenForMetrics(server: Server, sockets: Set<Socket>, host: string, port: number): Promise<MetricsServer> {
  const listener = net.createServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    server.emit('connection', socket);
  });
  // the one listening function of node-server (listen.ts): the address actually bound
  const bound = await listenOn(listener, port, host);
  return {
    url: `${bound.url}/metrics`,
    port: bound.port,
    close: () =>
      new Promise<void>((resolve) => {
        listener.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}

/** What the hub's configuration asks of metrics, checked; `metrics` is the sink every part emits to. */
export interface Observability {
  metrics: Metrics;
  /** The prom-client sink, when `/metrics` is served somewhere. */
  prom: PromMetrics | undefined;
  /**
   * The hub's listener with the metrics in front: every request that came in on the metrics port goes to the metrics
   * listener, and `/metrics` on the main port needs the metrics token when one is configured.
   */
  wrap(listener: Listener): Listener;
  /** Listen on `metricsPort`, when set, for the hub's `http.Server` (the one whose listener `wrap` made). */
  listen(server: Server): Promise<MetricsServer | undefined>;
}

/**
 * From the configuration: prom-client when `metricsPort` or `metricsToken` is set, the access log when `logRequests`
 * is, neither by default (the hub then measures nothing per request, and prom-client is not even loaded: about 70 ms
 * of the start). A setting that cannot work fails the start.
 */
export async function observabilityFrom(
  config: Pick<HubConfigFile, 'metricsPort' | 'metricsHost' | 'metricsToken' | 'logRequests'>,
  log: Logger,
  probeIntervalSeconds: number,
): Promise<Observability> {
  const { metricsPort, metricsHost, metricsToken, logRequests } = config;

  let prom =
    metricsPort !== undefined || metricsToken !== undefined
      ? (await import('./metrics.js')).promMetrics({ probeIntervalSeconds })
      : undefined;
  // A worker of `hub serve --workers N` serves the sum over every worker, which the primary collects (workers.ts).
  if (prom && cluster.isWorker) prom = { ...prom, scrape: (await import('./workers.js')).clusterScrape(prom.registry) };
  const metrics = teeMetrics(prom ?? noMetrics, logRequests ? accessLog(log) : noMetrics);
  // The open sockets accepted on the metrics port: a request on one of them is answered by the metrics listener only.
  const metricsSockets = new Set<Socket>();
  return {
    metrics,
    prom,
    wrap(listener) {
      if (!prom) return listener;
      const main = metricsToken !== undefined ? withMetricsRoute(listener, prom, metricsToken, log) : listener;
      if (metricsPort === undefined) return main;
      const scrape = metricsListener(prom, log);
      return (req, res) => (metricsSockets.has(req.socket) ? scrape(req, res) : main(req, res));
    },
    listen: async (server) =>
      prom && metricsPort !== undefined ? listenForMetrics(server, metricsSockets, metricsHost ?? '127.0.0.1', metricsPort) : undefined,
  };
}
