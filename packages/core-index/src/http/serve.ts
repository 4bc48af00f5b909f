import type { Admission, AdmitInput } from './admit.js';
import type { HubRequest, HubResponse } from './contract.js';
import type { Hub, RequestScope } from './create-hub.js';

/**
 * A request as a host holds it: what the gate reads (`AdmitInput`: method, target, headers, scheme, host policy), and
 * how to make the hub's request once it is admitted (node-server wraps its parsed headers and the socket; the edge
 * passes its web `Request`, or a copy at the admitted URL). Built only for an admitted request.
 */
export interface HostRequest extends AdmitInput {
  request(url: string): HubRequest;
}

/**
 * A hub a host starts on first use (the edge: its index is read on the first request of an isolate). `admit` is the
 * gate over the route table alone (`errorShapes` with `admitRequest`), so a bad `Host` is refused before the start
 * and never waits for the index; `start` gives the hub, and the scope its background work goes to, for this request,
 * or the answer to send when the hub cannot start (the edge: a 503 that says what is missing).
 */
export interface HubStart {
  admit(req: AdmitInput): Admission;
  start(): Promise<{ hub: Hub; scope?: RequestScope } | HubResponse>;
}

/**
 * The one request path of both hosts (design 10.1): the gate (`admit`: the route from the request target alone, the
 * host policy, a refusal in the error shape of the route the request would reach), then the kept whole answer, then
 * the routes (`handle`). A refusal and a kept answer come back as they are, in this same turn; anything else as a
 * promise that never rejects. A host only translates: `hubListener` and `hubMiddleware`
 * (node-server) and `worker.fetch` (the edge) each wrap this one call.
 */
export function serve(host: HostRequest, to: Hub | HubStart, scope?: RequestScope): HubResponse | Promise<HubResponse> {
  const admitted = to.admit(host);
  if (!admitted.ok) return admitted.response;
  // The hub reads the admitted URL (behind a trusted proxy, the proxy's scheme and host), which also keys kept answers.
  const req = host.request(admitted.url);
  if ('respond' in to) return to.respond(req, { ...scope, origin: admitted.origin });
  return to
    .start()
    .then((started) => ('status' in started ? started : started.hub.respond(req, { ...scope, ...started.scope, origin: admitted.origin })));
}
