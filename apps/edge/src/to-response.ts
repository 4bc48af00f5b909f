import type { HubResponse } from '@hub/core-index';

const NULL_BODY = new Set([101, 204, 205, 304]);

/**
 * Wrap a hub answer in a web `Response`, translating only. A HEAD answer arrives with its
 * `content-length` and a null body; workerd sends that header as given on HEAD (checked in
 * test/worker.test.ts), so node and the edge announce the same length.
 */
export function toResponse(res: HubResponse): Response {
  const body = NULL_BODY.has(res.status) ? null : (res.body as BodyInit | null);
  return new Response(body, { status: res.status, headers: res.headers });
}
