import { addressOf } from '@hub/core-index';
import { describe, expect, it } from 'vitest';
import { fetchObject } from './hub-objects.js';

// fetchObject against a fetch that answers as the object API does (packages/objects/src/routes.ts: the bytes with
// Content-Type and X-Object-Kind; `/meta` as JSON), counting the requests. SYNTHETIC object.

const bytes = new TextEncoder().encode('{"kind":"note","text":"SYNTHETIC"}');
const address = addressOf(bytes);

function hubFetch(withKind: boolean) {
  const asked: string[] = [];
  const f = (async (input: string | URL | Request) => {
    const url = new URL(String(input));
    asked.push(url.pathname);
    if (url.pathname === `/api/v1/objects/${address}`)
      return new Response(bytes, {
        headers: { 'content-type': 'application/json', ...(withKind ? { 'x-object-kind': 'note' } : {}) },
      });
    if (url.pathname === `/api/v1/objects/${address}/meta`)
      return Response.json({ id: address, kind: 'note', media_type: 'application/json', size: bytes.byteLength });
    return new Response('not found', { status: 404 });
  }) as typeof fetch;
  return { f, asked };
}

describe('fetchObject', () => {
  it('takes the kind and media type from the answer that carries the bytes: one request an object', async () => {
    const { f, asked } = hubFetch(true);
    const o = await fetchObject('http://hub.test', address, f);
    expect([o.kind, o.mediaType, o.bytes]).toEqual(['note', 'application/json', bytes]);
    expect(asked).toEqual([`/api/v1/objects/${address}`]);
  });

  it('asks /meta when the answer has no X-Object-Kind (an older hub, or a proxy that drops it)', async () => {
    const { f, asked } = hubFetch(false);
    const o = await fetchObject('http://hub.test', address, f);
    expect([o.kind, o.mediaType]).toEqual(['note', 'application/json']);
    expect(asked).toEqual([`/api/v1/objects/${address}`, `/api/v1/objects/${address}/meta`]);
  });
});
