import { admitRequest, type ErrorShape, errorShapes, type HostPolicy } from '@hub/core-index';
import { hubRoutes } from '@hub/hub';
import type { Env } from './bindings.js';
import { createEdgeHub, type EdgeHub, NoIndexError } from './edge-hub.js';
import { edgeHostPolicy } from './host-settings.js';
import { toResponse } from './to-response.js';

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

function unavailable(e: unknown): Response {
  const message =
    e instanceof NoIndexError
      ? e.message
      : `The hub could not start: ${e instanceof Error ? e.message : String(e)}. Check the bindings and vars in wrangler.jsonc.`;
  console.log(JSON.stringify({ level: 'error', msg: 'hub start failed', err: String(e) }));
  return new Response(`${message}\n`, {
    status: 503,
    headers: {
      'content-type': 'text/plain; charset=utf-8',
      'cache-control': 'no-store',
      'retry-after': '60',
      'access-control-allow-origin': '*',
    },
  });
}

/** The error shape of each route, from the route table alone (built on the first request of an isolate). */
let shapes: ((method: string, path: string) => ErrorShape) | undefined;

export default {
  /** Every request: the web `Request` goes straight in as the hub's request; the answer is wrapped in a `Response`. */
  async fetch(req: Request, env: Env, ctx: ExecutionContextLike): Promise<Response> {
    // The same gate as node-server (admitRequest, as hub.admit): the route from the request target alone, the host
    // policy; a refusal is 400 or 403 in the error shape of the route the request would reach. It runs before the hub
    // starts, so a bad Host never sees a 503 for a missing index. workerd answers some invalid Hosts itself.
    const url = req.url;
    const slash = url.indexOf('/', url.indexOf('://') + 3);
    shapes ??= errorShapes(hubRoutes());
    let policy: HostPolicy;
    try {
      policy = edgeHostPolicy(env);
    } catch (e) {
      return unavailable(e);
    }
    const admitted = admitRequest(
      {
        method: req.method,
        target: slash === -1 ? '/' : url.slice(slash),
        header: (name) => (name === 'host' ? (req.headers.get('host') ?? new URL(url).host) : req.headers.get(name)),
        protocol: url.slice(0, url.indexOf(':')),
        policy,
      },
      shapes,
    );
    if (!admitted.ok) return toResponse(admitted.response);
    let edge: EdgeHub;
    try {
      edge = await edgeHub(env);
    } catch (e) {
      return unavailable(e);
    }
    for (const p of edge.refresh(Date.now())) ctx.waitUntil(p);
    // The hub reads the admitted URL (behind a trusted proxy, the proxy's scheme and host), which also keys the answer cache.
    const hubReq = admitted.url === url ? req : new Request(admitted.url, req);
    const res = await edge.hub.handle(hubReq, { ...edge.scope((p) => ctx.waitUntil(p)), origin: admitted.origin });
    return toResponse(res);
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
