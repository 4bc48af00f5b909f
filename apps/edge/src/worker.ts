import { admitRequest, type ErrorShape, errorShapes, type HostPolicy, type HubResponse, type HubStart, serve } from '@hub/core-index';
import { hubRoutes } from '@hub/hub';
import type { Env } from './bindings.js';
import { createEdgeHub, type EdgeHub, NoIndexError } from './edge-hub.js';
import { edgeHostPolicy } from './host-settings.js';
import { toResponse } from './to-response.js';
import { WebRequest } from './web-request.js';

/** What the runtime passes as the third argument (`ctx.waitUntil`). */
export interface ExecutionContextLike {
  waitUntil(p: Promise<unknown>): void;
}

/** The cron's "no index yet" is logged once per isolate. */
let noIndexLogged = false;

/** One hub per `env` object (per isolate); nothing request-scoped lives here. */
const hubs = new WeakMap<object, Promise<EdgeHub>>();

/** The hub for this `env`, built on first use; a failed start is retried on the next request. */
export function edgeHub(env: Env): Promise<EdgeHub> {
  let p = hubs.get(env);
  if (!p) {
    p = createEdgeHub(env);
    hubs.set(env, p);
    p.catch(() => hubs.delete(env));
  }
  return p;
}

function unavailable(e: unknown): HubResponse {
  const message =
    e instanceof NoIndexError
      ? e.message
      : `The hub could not start: ${e instanceof Error ? e.message : String(e)}. Check the bindings and vars in wrangler.jsonc.`;
  console.log(JSON.stringify({ level: 'error', msg: 'hub start failed', err: String(e) }));
  return {
    status: 503,
    headers: {
      'content-type': 'text/plain; charset=utf-8',
      'cache-control': 'no-store',
      'retry-after': '60',
      'access-control-allow-origin': '*',
    },
    body: `${message}\n`,
  };
}

/** The error shape of each route, from the route table alone (built on the first request of an isolate). */
let shapes: ((method: string, path: string) => ErrorShape) | undefined;

/**
 * The hub as the one request path sees it at the edge (`HubStart`): the gate over the route table alone, so a bad
 * `Host` is refused (400 or 403 in the error shape of the route it would reach) before the hub starts and never
 * sees a 503 for a missing index; then the hub of this isolate with its due refreshes, its background work going to
 * this request's own `ctx.waitUntil`.
 */
function startOn(env: Env, ctx: ExecutionContextLike): HubStart {
  return {
    admit: (req) => {
      shapes ??= errorShapes(hubRoutes());
      return admitRequest(req, shapes);
    },
    async start() {
      let edge: EdgeHub;
      try {
        edge = await edgeHub(env);
      } catch (e) {
        return unavailable(e);
      }
      for (const p of edge.refresh(Date.now())) ctx.waitUntil(p);
      return { hub: edge.hub, scope: edge.scope((p) => ctx.waitUntil(p)) };
    },
  };
}

export default {
  /** Every request goes through the same path as node-server's (`serve`), translated to and from the web's types. */
  async fetch(req: Request, env: Env, ctx: ExecutionContextLike): Promise<Response> {
    let policy: HostPolicy;
    try {
      policy = edgeHostPolicy(env);
    } catch (e) {
      return toResponse(unavailable(e));
    }
    return toResponse(await serve(new WebRequest(req, policy), startOn(env, ctx)));
  },

  /**
   * The cron trigger: one probe round of core-index's prober over the sources that are due (state in
   * KV, so every isolate reads the results), and a re-check of the index ref.
   */
  async scheduled(_event: unknown, env: Env, ctx: ExecutionContextLike): Promise<void> {
    let edge: EdgeHub;
    try {
      edge = await edgeHub(env);
    } catch (e) {
      // No index uploaded yet: nothing to probe for; say so once per isolate instead of failing every minute.
      if (!(e instanceof NoIndexError)) throw e;
      if (!noIndexLogged) console.log(JSON.stringify({ level: 'warn', msg: 'cron: no index yet, nothing to probe', fix: e.message }));
      noIndexLogged = true;
      return;
    }
    ctx.waitUntil(edge.recheckIndex());
    // The same round node-server's timer runs; the prober logs each outcome.
    await edge.health.load();
    await edge.health.round();
  },
};
