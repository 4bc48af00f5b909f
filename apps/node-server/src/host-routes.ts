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

/** The answer to one request under `/-/`, from its method and path alone (the query is ignored). */
function hostAnswer(method: string, target: string, index: () => IndexStore): HubResponse {
  const q = target.indexOf('?');
  const path = q === -1 ? target : target.slice(0, q);
  if (path !== '/-/live' && path !== '/-/ready') {
    return errorResponse('hub', 404, 'NotFound', 'No such host route: this host answers GET /-/live and GET /-/ready under /-/.');
  }
  if (method !== 'GET' && method !== 'HEAD') {
    return errorResponse('hub', 405, 'MethodNotAllowed', `${path} answers GET and HEAD only.`, { allow: 'GET, HEAD' });
  }
  if (path === '/-/live') return json(200, { ok: true }, NO_STORE);
  const current = index();
  return json(200, { ok: true, catalog: current.catalogAddress, models: current.totals.models }, NO_STORE);
}

/** The node:http listener of the `/-/` routes (hubListener hands it every path under `/-/`). */
export function hostRoutes(index: () => IndexStore): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const out = hostAnswer(req.method ?? 'GET', req.url ?? '/', index);
    const body = typeof out.body === 'string' ? out.body : '';
    writeHubResponse(res, { ...out, headers: { ...out.headers, 'content-length': String(Buffer.byteLength(body)) } });
  };
}
