import { type Address, addressOf, type CoreDeps, createHub, type HubRequest, sha256Hex } from '@hub/core-index';
import { createTestHub, request } from '@hub/core-index/testing';
import { describe, expect, it } from 'vitest';
import { fetchObject, publishObject } from './publish-client.js';
import { CHUNK_BYTES, publishRoutes } from './publish-routes.js';
import { objectRoutes } from './routes.js';

const TOKEN = 'test-publisher-token';
const auth = { authorization: `Bearer ${TOKEN}` };

async function setup(maxRequestBytes?: number) {
  const t = await createTestHub();
  if (maxRequestBytes) t.deps.settings.maxRequestBytes = maxRequestBytes;
  const hub = createHub<CoreDeps>(t.deps, [...objectRoutes<CoreDeps>(), ...publishRoutes<CoreDeps>()]);
  return { ...t, hub };
}

/** A fetch that drives the hub in-process, for the client functions. */
function inProcessFetch(hub: ReturnType<typeof createHub>): typeof fetch {
  return (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = String(input);
    const headers = new Headers(init?.headers);
    const body = init?.body as Uint8Array | undefined;
    const req: HubRequest = {
      method: init?.method ?? 'GET',
      url,
      headers: { get: (n) => headers.get(n) },
      body: body
        ? (async function* () {
            yield body;
          })()
        : null,
    };
    const res = await hub.handle(req);
    return new Response(res.body as BodyInit | null, { status: res.status, headers: res.headers });
  }) as typeof fetch;
}

describe('POST /api/v1/objects', () => {
  it('401 without a publisher token or with a wrong one, in the objects shape', async () => {
    const { hub } = await setup();
    const cases: Record<string, string>[] = [{}, { authorization: 'Bearer nope' }, { authorization: `Basic ${btoa(`x:${TOKEN}`)}` }];
    for (const headers of cases) {
      const res = await request(hub, '/api/v1/objects', {
        method: 'POST',
        headers: { ...headers, 'content-type': 'text/plain', 'x-object-kind': 'note' },
        body: 'hi',
      });
      expect(res.status).toBe(401);
      expect(res.json()).toMatchObject({ code: 'UNAUTHORIZED' });
      expect(res.headers['www-authenticate']).toContain('Bearer');
    }
    expect((await request(hub, '/api/v1/objects')).status).toBe(401);
  });

  it('201 with ObjectMetadata for new bytes, 200 for the same bytes again; the server computes the address', async () => {
    const { hub, objects } = await setup();
    const body = new TextEncoder().encode('{"hello":"world"}');
    const init = { method: 'POST', headers: { ...auth, 'content-type': 'application/json; charset=utf-8', 'x-object-kind': 'note' }, body };
    const first = await request(hub, '/api/v1/objects', init);
    expect(first.status).toBe(201);
    const meta = first.json();
    expect(meta).toMatchObject({ id: addressOf(body), kind: 'note', media_type: 'application/json', size: body.byteLength });
    expect(first.headers.location).toBe(`http://hub.test/api/v1/objects/${meta.id}`);
    expect(first.headers['cache-control']).toBe('no-store');
    const again = await request(hub, '/api/v1/objects', init);
    expect(again.status).toBe(200);
    expect(again.json()).toEqual(meta);
    expect((await objects.get(meta.id as Address))?.bytes).toEqual(body);
    const read = await request(hub, `/api/v1/objects/${meta.id}`);
    expect(read.status).toBe(200);
    expect(read.headers['content-type']).toBe('application/json');
    expect(read.text).toBe('{"hello":"world"}');
  });

  it('400 in the objects shape for a missing kind, a bad media type, an empty body or an invalid index object', async () => {
    const { hub } = await setup();
    const post = (headers: Record<string, string>, body: string) =>
      request(hub, '/api/v1/objects', { method: 'POST', headers: { ...auth, ...headers }, body });
    expect((await post({ 'content-type': 'text/plain' }, 'x')).json()).toMatchObject({ code: 'INVALID_KIND' });
    expect((await post({ 'x-object-kind': 'note' }, 'x')).json()).toMatchObject({ code: 'INVALID_MEDIA_TYPE' });
    expect((await post({ 'x-object-kind': 'Bad Kind!', 'content-type': 'text/plain' }, 'x')).status).toBe(400);
    expect((await post({ 'x-object-kind': 'note', 'content-type': 'text/plain' }, '')).json()).toMatchObject({ code: 'EMPTY_BODY' });
    const invalid = await post({ 'x-object-kind': 'model-hub.model', 'content-type': 'application/json' }, '{"kind":"model-hub.model"}');
    expect(invalid.status).toBe(400);
    expect(invalid.json().code).toBe('INVALID_OBJECT');
  });

  it('413 over maxRequestBytes while streaming, without reading the whole body', async () => {
    const { hub } = await setup(1024 * 1024);
    let pulled = 0;
    const chunk = new Uint8Array(64 * 1024);
    const req: HubRequest = {
      method: 'POST',
      url: 'http://hub.test/api/v1/objects',
      headers: {
        get: (n) =>
          ({ authorization: `Bearer ${TOKEN}`, 'content-type': 'application/octet-stream', 'x-object-kind': 'blob' })[n.toLowerCase()] ??
          null,
      },
      body: (async function* () {
        for (let i = 0; i < 64; i++) {
          pulled++;
          yield chunk; // 4 MiB offered in all, no Content-Length
        }
      })(),
    };
    const res = await hub.handle(req);
    expect(res.status).toBe(413);
    expect(JSON.parse(new TextDecoder().decode(res.body as Uint8Array))).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    expect(pulled).toBeLessThanOrEqual(17);
    // A declared Content-Length over the limit is refused before any byte is read.
    let touched = false;
    const declared = await hub.handle({
      ...req,
      headers: { get: (n) => (n.toLowerCase() === 'content-length' ? String(2 * 1024 * 1024) : req.headers.get(n)) },
      body: (async function* () {
        touched = true;
        yield chunk;
      })(),
    });
    expect(declared.status).toBe(413);
    expect(touched).toBe(false);
  });
});

describe('GET /api/v1/objects', () => {
  it('lists and searches by kind and prefix, pages with a cursor and Link, and refuses bad queries', async () => {
    const { hub, catalog } = await setup();
    const all = await request(hub, '/api/v1/objects?limit=1000', { headers: auth });
    expect(all.status).toBe(200);
    const items = all.json().items as Array<{ id: string; kind: string }>;
    expect(items.length).toBeGreaterThan(3);
    const catalogs = (await request(hub, '/api/v1/objects?kind=model-hub.catalog', { headers: auth })).json();
    expect(catalogs.items.map((i: { id: string }) => i.id)).toEqual([catalog]);
    const prefix = catalog.slice(7, 12);
    const byPrefix = (await request(hub, `/api/v1/objects?prefix=${prefix}`, { headers: auth })).json();
    expect(byPrefix.items.every((i: { id: string }) => i.id.startsWith(`blake3:${prefix}`))).toBe(true);
    const page1 = await request(hub, '/api/v1/objects?limit=2', { headers: auth });
    const p1 = page1.json();
    expect(p1.items).toHaveLength(2);
    expect(page1.headers.link).toContain(`cursor=${encodeURIComponent(p1.next)}`);
    const p2 = (await request(hub, `/api/v1/objects?limit=2&cursor=${p1.next}`, { headers: auth })).json();
    expect(p2.items[0].id > p1.items[1].id).toBe(true);
    for (const q of ['limit=0', 'limit=abc', 'cursor=nope', 'prefix=XYZ', 'kind=Bad!']) {
      const bad = await request(hub, `/api/v1/objects?${q}`, { headers: auth });
      expect(bad.status).toBe(400);
      expect(bad.json().code).toMatch(/^INVALID_/);
    }
  });
});

describe('publishObject and fetchObject', () => {
  it('a 40 MiB payload goes as 16 MiB chunks plus a chunked record and round-trips', async () => {
    const { hub } = await setup();
    const f = inProcessFetch(hub);
    const bytes = new Uint8Array(40 * 1024 * 1024);
    for (let i = 0; i < bytes.length; i += 4096) bytes[i] = (i / 4096) & 0xff;
    const r = await publishObject(
      'http://hub.test',
      TOKEN,
      bytes,
      { kind: 'weights', mediaType: 'application/octet-stream', filename: 'w.bin' },
      f,
    );
    expect(r.chunks).toHaveLength(3);
    expect(r.meta.kind).toBe('model-hub.chunked');
    expect(r.created).toBe(true);
    const back = await fetchObject('http://hub.test', r.address, f);
    expect(back.kind).toBe('weights');
    expect(back.bytes.byteLength).toBe(bytes.byteLength);
    expect(sha256Hex(back.bytes)).toBe(sha256Hex(bytes));
    // Publishing again: the same record, 200.
    const again = await publishObject(
      'http://hub.test',
      TOKEN,
      bytes,
      { kind: 'weights', mediaType: 'application/octet-stream', filename: 'w.bin' },
      f,
    );
    expect(again.address).toBe(r.address);
    expect(again.created).toBe(false);
    expect(CHUNK_BYTES).toBe(16 * 1024 * 1024);
  }, 120_000); // hashes 40 MiB several times in the pure packages' JS hashers: 10-30 s on a busy 2-core machine

  it('a small payload goes as one object; a wrong token is an error naming the status', async () => {
    const { hub } = await setup();
    const f = inProcessFetch(hub);
    const r = await publishObject(
      'http://hub.test/',
      TOKEN,
      new TextEncoder().encode('small'),
      { kind: 'note', mediaType: 'text/plain' },
      f,
    );
    expect(r.chunks).toBeUndefined();
    expect((await fetchObject('http://hub.test', r.address, f)).bytes).toEqual(new TextEncoder().encode('small'));
    await expect(
      publishObject('http://hub.test', 'wrong', new Uint8Array([1]), { kind: 'note', mediaType: 'text/plain' }, f),
    ).rejects.toThrow(/401 UNAUTHORIZED/);
  });
});
