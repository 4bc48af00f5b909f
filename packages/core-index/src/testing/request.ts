import type { HubRequest } from '../http/contract.js';
import type { Hub } from '../http/create-hub.js';

export interface TestResponse {
  status: number;
  headers: Record<string, string>;
  bytes: Uint8Array;
  text: string;
  json<T = any>(): T;
}

/**
 * Drive a hub in-process (no sockets), for unit tests of routes. Integration tests go over real
 * HTTP against the hosts instead.
 */
export async function request(
  hub: Hub,
  path: string,
  init: { method?: string; headers?: Record<string, string>; body?: Uint8Array | string } = {},
): Promise<TestResponse> {
  const headers = new Map(Object.entries(init.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v] as const));
  const body = init.body === undefined ? null : typeof init.body === 'string' ? new TextEncoder().encode(init.body) : init.body;
  const req: HubRequest = {
    method: init.method ?? 'GET',
    url: path.startsWith('http') ? path : `http://hub.test${path}`,
    headers: { get: (n) => headers.get(n.toLowerCase()) ?? null },
    body: body
      ? (async function* () {
          yield body;
        })()
      : null,
  };
  const res = await hub.handle(req);
  let bytes: Uint8Array;
  if (res.body === null) bytes = new Uint8Array();
  else if (typeof res.body === 'string') bytes = new TextEncoder().encode(res.body);
  else if (res.body instanceof Uint8Array) bytes = res.body;
  else bytes = new Uint8Array(await new Response(res.body).arrayBuffer());
  const text = new TextDecoder().decode(bytes);
  return { status: res.status, headers: res.headers, bytes, text, json: () => JSON.parse(text) };
}
