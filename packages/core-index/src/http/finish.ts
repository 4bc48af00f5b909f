import type { HubRequest, HubResponse, Route } from './contract.js';
import { cacheControl, EXPOSED_HEADERS, etagMatches } from './rules.js';

const encoder = new TextEncoder();

/**
 * What every answer gets on its way out, whichever route (or none, or the gate) made it: CORS (reads from every
 * origin, account routes only from the site origin), `cache-control` from the route, nosniff, a conditional GET's
 * 304, bytes and a length for every fixed body, no body for HEAD, 204 and 304.
 */
export function finish(res: HubResponse, req: HubRequest, route: Route<any> | undefined, siteOrigin: string | undefined): HubResponse {
  const h = res.headers;
  // CORS: reads from every origin; account routes only from the site origin, with credentials.
  if (route?.rules === 'account') {
    const origin = req.headers.get('origin');
    if (siteOrigin && origin === siteOrigin) {
      h['access-control-allow-origin'] = siteOrigin;
      h['access-control-allow-credentials'] = 'true';
      h.vary = h.vary ? `${h.vary}, Origin` : 'Origin';
    }
  } else {
    h['access-control-allow-origin'] = '*';
    h['access-control-expose-headers'] = EXPOSED_HEADERS;
  }
  if (route && res.status >= 200 && res.status < 400 && h['cache-control'] === undefined) {
    const cc = cacheControl(route);
    if (cc) h['cache-control'] = cc;
  }
  h['x-content-type-options'] = 'nosniff';

  // Conditional GET.
  const method = req.method.toUpperCase();
  if ((method === 'GET' || method === 'HEAD') && res.status === 200 && h.etag) {
    const inm = req.headers.get('if-none-match');
    if (inm && etagMatches(inm, h.etag)) {
      const { 'content-type': _ct, 'content-length': _cl, ...rest } = h;
      return { status: 304, headers: rest, body: null };
    }
  }

  // Bytes and a length for every fixed body; HEAD keeps the length and drops the body.
  let body = res.body;
  if (typeof body === 'string') body = encoder.encode(body);
  if (body instanceof Uint8Array) h['content-length'] = String(body.byteLength);
  // No body at all (a redirect): an empty one, so both hosts send Content-Length: 0 (workerd always does).
  else if (body === null && method !== 'HEAD' && res.status !== 204 && res.status !== 304 && h['content-length'] === undefined) {
    body = new Uint8Array(0);
    h['content-length'] = '0';
  }
  if (method === 'HEAD') body = null;
  else if (res.status === 204 || res.status === 304) body = null;
  return { status: res.status, headers: h, body };
}
