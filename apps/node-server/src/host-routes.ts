/**
 * The host's own routes under `/-/`: liveness and readiness for an operator's checks (a load balancer, systemd, a
 * container runtime). They are answered here on node:http, without Koa: a start then loads no Koa and no router only
 * for these two (docs/decisions/scale-and-speed.md, "A start loads what it serves"). An operator who wants a Koa app
 * mounts the hub in it with `hubMiddleware`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorResponse, type HubResponse, type IndexStore, json } from '@hub/core-index';
import { writeHubResponse } from './node-listener.js';

const NO_STORE = { 'cache-control': 'no-store' };
/** What every hub answer carries (core-index finish): reads from every origin, and no content sniffing. */
const SHARED = { 'access-control-allow-origin': '*', 'x-content-type-options': 'nosniff' };
const PATHS = new Set(['/-/live', '/-/ready']);

/** The answer to `/-/live` or `/-/ready`, from the method alone (the query is ignored). */
function hostAnswer(method: string, path: string, index: () => IndexStore): HubResponse {
  if (method !== 'GET' && method !== 'HEAD') {
    return errorResponse('hub', 405, 'MethodNotAllowed', `${path} answers GET and HEAD only.`, { allow: 'GET, HEAD', ...SHARED });
  }
  if (path === '/-/live') return json(200, { ok: true }, { ...NO_STORE, ...SHARED });
  const current = index();
  return json(200, { ok: true, catalog: current.catalogAddress, models: current.totals.models }, { ...NO_STORE, ...SHARED });
}

/**
 * The node:http listener of the `/-/` routes: hubListener hands it every path under `/-/`. It answers `/-/live` and
 * `/-/ready` and returns false for any other path, which the hub then answers as it answers every unknown path (the
 * same 404, CORS and nosniff; the same 400 for a bad Host or target).
 */
export function hostRoutes(index: () => IndexStore): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    const target = req.url ?? '/';
    const q = target.indexOf('?');
    const path = q === -1 ? target : target.slice(0, q);
    if (!PATHS.has(path)) return false;
    const out = hostAnswer(req.method ?? 'GET', path, index);
    const body = typeof out.body === 'string' ? out.body : '';
    writeHubResponse(res, { ...out, headers: { ...out.headers, 'content-length': String(Buffer.byteLength(body)) } });
    return true;
  };
}
