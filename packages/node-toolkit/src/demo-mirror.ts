import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { parseRange } from '@hub/core-index';
import { hashFileStamped } from './hash-file.js';

/** The CORS headers a byte source sends (a browser downloads through redirects to it). */
export const CORS: Readonly<Record<string, string>> = Object.freeze({
  'access-control-allow-origin': '*',
  'access-control-expose-headers': 'content-length, content-range, etag, accept-ranges',
  'access-control-allow-headers': 'range',
});

export interface DemoMirror {
  /** `http://localhost:PORT` (a different hostname from the hub's 127.0.0.1, as Ollama needs) */
  url: string;
  port: number;
  /** The URL template a source config uses for this mirror. */
  template: string;
  close(): Promise<void>;
}

/**
 * A static byte source over a tree laid out as `{owner}/{name}/…`, answering
 * `GET|HEAD /{owner}/{name}/resolve/{revision}/{path}` like a model host's CDN: `Range` (206 and
 * `Content-Range`), a strong `ETag` (the SHA-256), `Accept-Ranges`, and CORS. It serves the demo
 * index offline, and tests use it as a loopback source.
 */
export async function startDemoMirror(options: { root: string; port?: number; host?: string }): Promise<DemoMirror> {
  const root = path.resolve(options.root);
  const etags = new Map<string, string>();
  const server = http.createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  async function handle(req: http.IncomingMessage, res: http.ServerResponse) {
    const cors = CORS;
    if (req.method === 'OPTIONS') {
      res.writeHead(204, cors);
      return res.end();
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { ...cors, allow: 'GET, HEAD' });
      return res.end();
    }
    const urlPath = (req.url ?? '/').split('?')[0] as string;
    const m = /^\/([^/]+)\/([^/]+)\/resolve\/[^/]+\/(.+)$/.exec(urlPath);
    let rel: string;
    try {
      rel = m ? [m[1], m[2], ...(m[3] as string).split('/')].map((s) => decodeURIComponent(s as string)).join('/') : '';
    } catch {
      rel = '';
    }
    const file = path.join(root, rel);
    if (!rel || !file.startsWith(root + path.sep) || rel.split('/').includes('..')) {
      res.writeHead(404, { ...cors, 'content-type': 'text/plain' });
      return res.end('not found\n');
    }
    let size: number;
    try {
      const st = await stat(file);
      if (!st.isFile()) throw new Error('not a file');
      size = st.size;
    } catch {
      res.writeHead(404, { ...cors, 'content-type': 'text/plain' });
      return res.end('not found\n');
    }
    let etag = etags.get(file);
    if (!etag) {
      etag = `"${(await hashFileStamped(file)).sha256}"`;
      etags.set(file, etag);
    }
    sendFileBytes(req, res, file, size, { ...cors, etag, 'content-type': 'application/octet-stream' });
  }
  const host = options.host ?? '127.0.0.1';
  const { port, close } = await listenLoopback(server, options.port ?? 0, host);
  const url = listenerUrl(host, port);
  return {
    url,
    port,
    template: `${url}/{id}/resolve/{revision}/{path}`,
    close,
  };
}

/** Answer GET/HEAD for one file on disk: `Range` (206, `Content-Range`, 416), `Accept-Ranges`, the given headers. */
export function sendFileBytes(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  file: string,
  size: number,
  headers: Record<string, string>,
): void {
  const base = { ...headers, 'accept-ranges': 'bytes' };
  const range = parseRange(req.headers.range ?? null, size);
  if (range === 'unsatisfiable') {
    res.writeHead(416, { ...base, 'content-range': `bytes */${size}` });
    res.end();
    return;
  }
  if (range) {
    res.writeHead(206, {
      ...base,
      'content-length': String(range.end - range.start + 1),
      'content-range': `bytes ${range.start}-${range.end}/${size}`,
    });
    if (req.method === 'HEAD') return void res.end();
    createReadStream(file, { start: range.start, end: range.end }).pipe(res);
    return;
  }
  res.writeHead(200, { ...base, 'content-length': String(size) });
  if (req.method === 'HEAD') return void res.end();
  createReadStream(file).pipe(res);
}

/**
 * The URL this machine reaches a server by that {@link listenLoopback} bound on `host`: `localhost` for the default
 * loopback address and for every interface (127.0.0.1 and ::1 both answer it), else the address itself (another
 * loopback address such as 127.0.0.2, or one network address).
 */
export function listenerUrl(host: string, port: number): string {
  const h = host.replace(/^\[|\]$/g, '');
  if (h === '0.0.0.0' || h === '::' || h === 'localhost' || h === '127.0.0.1' || h === '::1') return `http://localhost:${port}`;
  return `http://${h.includes(':') ? `[${h}]` : h}:${port}`;
}

/**
 * Listen on `host` (and, for the same port, on ::1, so `localhost` works whichever address family a client resolves
 * first). `close` stops both and drops open connections.
 */
export async function listenLoopback(
  server: http.Server,
  wantedPort: number,
  host: string,
): Promise<{ port: number; close(): Promise<void> }> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(wantedPort, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const v6 = http.createServer(server.listeners('request')[0] as http.RequestListener);
  await new Promise<void>((resolve) => {
    v6.once('error', () => resolve());
    v6.listen(port, '::1', () => resolve());
  });
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        v6.close(() => {});
        server.closeAllConnections?.();
        v6.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}
