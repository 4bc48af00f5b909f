import type { HostPolicy, Hub } from '@hub/core-index';
import { serve } from '@hub/core-index';
import type { Middleware } from 'koa';
import { NodeRequest, writeOrFail } from './node-listener.js';

/**
 * The whole hub as one Koa middleware, for operators who mount the hub inside their own Koa app: the same request
 * path as node-server's own listener (`serve`). Paths under `/-/` (the host's own liveness, readiness and metrics
 * routes) fall through to the next middleware.
 */
export function hubMiddleware(hub: Hub, policy?: HostPolicy): Middleware {
  return async (ctx, next) => {
    if (ctx.req.url?.startsWith('/-/')) return next();
    const out = await serve(new NodeRequest(ctx.req, ctx.protocol, policy), hub);
    ctx.respond = false;
    // Koa was told the hub answers: an answer Node cannot write gets the hub's own 500, as on node-server's listener,
    // never Koa's error path for a response it no longer owns.
    writeOrFail(ctx.res, out);
  };
}
