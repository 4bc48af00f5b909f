import { stat } from 'node:fs/promises';
import http from 'node:http';
import path from 'node:path';
import { MIRROR_MANIFEST } from '@hub/core-index';
import { CORS, listenerUrl, listenLoopback, sendFileBytes } from './demo-mirror.js';

export interface MirrorFolderServer {
  /** `http://localhost:PORT/` on loopback or every interface, else `http://ADDRESS:PORT/` */
  url: string;
  port: number;
  close(): Promise<void>;
}

const FILE = /^\/sha256\/([0-9a-f]{64})$/;

/**
 * Serve a local mirror folder (design 10.3) the way any static web server with `Range` would: `GET|HEAD /manifest.json`
 * and `/sha256/<hex>` (206 with `Content-Range` for a `Range`, a strong `ETag` of the SHA-256, CORS). Nothing else of
 * the folder is reachable: `.partial/` and `damaged/` never are. `hub mirror serve` and `hub serve` over an imported
 * bundle use it.
 */
export async function serveMirrorFolder(options: { root: string; port?: number; host?: string }): Promise<MirrorFolderServer> {
  const root = path.resolve(options.root);
  const server = http.createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  async function handle(req: http.IncomingMessage, res: http.ServerResponse) {
    if (req.method === 'OPTIONS') {
      res.writeHead(204, CORS);
      return res.end();
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { ...CORS, allow: 'GET, HEAD' });
      return res.end();
    }
    const urlPath = (req.url ?? '/').split('?')[0] as string;
    const m = FILE.exec(urlPath);
    const file = m ? path.join(root, 'sha256', m[1] as string) : urlPath === `/${MIRROR_MANIFEST}` ? path.join(root, MIRROR_MANIFEST) : '';
    const st = file ? await stat(file).catch(() => undefined) : undefined;
    if (!st?.isFile()) {
      res.writeHead(404, { ...CORS, 'content-type': 'text/plain' });
      return res.end('not found\n');
    }
    const headers: Record<string, string> = m
      ? { ...CORS, etag: `"${m[1]}"`, 'content-type': 'application/octet-stream', 'cache-control': 'public, max-age=31536000, immutable' }
      : { ...CORS, 'content-type': 'application/json', 'cache-control': 'no-cache' };
    sendFileBytes(req, res, file, st.size, headers);
  }
  const host = options.host ?? '127.0.0.1';
  const { port, close } = await listenLoopback(server, options.port ?? 0, host);
  return { url: `${listenerUrl(host, port)}/`, port, close };
}
