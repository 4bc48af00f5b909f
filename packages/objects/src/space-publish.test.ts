import { type Address, addressOf, canonicalJson, createHub, readSpaces, SpaceObjectSchema, spaceMediaType } from '@hub/core-index';
import { createTestHub, request } from '@hub/core-index/testing';
import { describe, expect, it } from 'vitest';
import { publishRoutes } from './publish-routes.js';
import { objectRoutes } from './routes.js';

const TOKEN = 'test-publisher-token';
const auth = { authorization: `Bearer ${TOKEN}` };

async function setup() {
  const t = await createTestHub();
  const hub = createHub(t.deps, [...objectRoutes(), ...publishRoutes()]);
  return { ...t, hub };
}

function post(hub: ReturnType<typeof createHub>, kind: string, contentType: string, body: Uint8Array | string) {
  return request(hub, '/api/v1/objects', {
    method: 'POST',
    headers: { ...auth, 'content-type': contentType, 'x-object-kind': kind },
    body,
  });
}

const html = new TextEncoder().encode('<!doctype html><title>t</title><script src="app.js"></script>');
const js = new TextEncoder().encode('document.title = "ran";');

function space(files: { path: string; bytes: Uint8Array }[], extra: Record<string, unknown> = {}) {
  return {
    kind: 'model-hub.space',
    name: 'demo',
    title: 'Demo',
    about: 'A test space',
    entry: 'index.html',
    files: files.map((f) => ({ path: f.path, address: addressOf(f.bytes), size: f.bytes.byteLength, media_type: spaceMediaType(f.path) })),
    prev: null,
    ...extra,
  };
}

describe('publishing a model-hub.space object', () => {
  it('stores a space whose files the hub holds; its address is the root that seals every file', async () => {
    const { hub, objects } = await setup();
    expect((await post(hub, 'model-hub.file', 'text/html', html)).status).toBe(201);
    expect((await post(hub, 'model-hub.file', 'text/javascript', js)).status).toBe(201);
    const body = canonicalJson(
      space([
        { path: 'app.js', bytes: js },
        { path: 'index.html', bytes: html },
      ]),
    );
    const res = await post(hub, 'model-hub.space', 'application/json', body);
    expect(res.status).toBe(201);
    const root = res.json().id as Address;
    expect(root).toBe(addressOf(new TextEncoder().encode(body)));
    expect(SpaceObjectSchema.parse(JSON.parse(new TextDecoder().decode((await objects.get(root))?.bytes)))).toMatchObject({ name: 'demo' });
  });

  it('refuses a space naming an address the hub does not hold, in the objects error shape, storing nothing', async () => {
    const { hub, objects } = await setup();
    expect((await post(hub, 'model-hub.file', 'text/html', html)).status).toBe(201);
    const body = canonicalJson(
      space([
        { path: 'app.js', bytes: js },
        { path: 'index.html', bytes: html },
      ]),
    );
    const res = await post(hub, 'model-hub.space', 'application/json', body);
    expect(res.status).toBe(400);
    expect(res.json()).toMatchObject({ code: 'UNKNOWN_ADDRESS' });
    expect(res.json().message).toContain(addressOf(js));
    expect(await objects.has(addressOf(new TextEncoder().encode(body)))).toBe(false);
  });

  it('refuses unsorted files, an entry that is not a file, and unsafe paths', async () => {
    const { hub } = await setup();
    await post(hub, 'model-hub.file', 'text/html', html);
    await post(hub, 'model-hub.file', 'text/javascript', js);
    const bad = [
      space([
        { path: 'index.html', bytes: html },
        { path: 'app.js', bytes: js },
      ]),
      space([{ path: 'app.js', bytes: js }], { entry: 'index.html' }),
      space([{ path: '../index.html', bytes: html }], { entry: '../index.html' }),
      space([{ path: 'index.html', bytes: html }], { name: 'blake3:x' }),
    ];
    for (const s of bad) {
      const res = await post(hub, 'model-hub.space', 'application/json', canonicalJson(s));
      expect(res.status).toBe(400);
      expect(res.json()).toMatchObject({ code: 'INVALID_OBJECT' });
    }
  });

  it('the model-hub.spaces catalog must name roots the hub holds', async () => {
    const { hub } = await setup();
    await post(hub, 'model-hub.file', 'text/html', html);
    const root = (
      await post(hub, 'model-hub.space', 'application/json', canonicalJson(space([{ path: 'index.html', bytes: html }])))
    ).json().id as string;
    const ok = await post(
      hub,
      'model-hub.spaces',
      'application/json',
      canonicalJson({ kind: 'model-hub.spaces', spaces: { demo: root }, prev: null }),
    );
    // The hub wrote this very catalog when the space was published (same canonical bytes).
    expect(ok.status).toBe(200);
    const missing = addressOf(new TextEncoder().encode('not stored'));
    const res = await post(
      hub,
      'model-hub.spaces',
      'application/json',
      canonicalJson({ kind: 'model-hub.spaces', spaces: { demo: missing }, prev: null }),
    );
    expect(res.status).toBe(400);
    expect(res.json()).toMatchObject({ code: 'UNKNOWN_ADDRESS' });
  });

  it('a published space becomes current: a new spaces catalog (prev = the old one) behind the spaces ref; prev is compared', async () => {
    const { hub, objects } = await setup();
    await post(hub, 'model-hub.file', 'text/html', html);
    await post(hub, 'model-hub.file', 'text/javascript', js);
    expect((await readSpaces(objects)).address).toBeNull();
    const v1 = (await post(hub, 'model-hub.space', 'application/json', canonicalJson(space([{ path: 'index.html', bytes: html }])))).json()
      .id as Address;
    const first = await readSpaces(objects);
    expect(first.catalog.spaces).toEqual({ demo: v1 });
    expect(first.catalog.prev).toBeNull();
    expect(addressOf((await objects.get(first.address as Address))?.bytes as Uint8Array)).toBe(first.address);
    // The same bytes again: 200, nothing moves.
    expect(
      (await post(hub, 'model-hub.space', 'application/json', canonicalJson(space([{ path: 'index.html', bytes: html }])))).status,
    ).toBe(200);
    expect((await readSpaces(objects)).address).toBe(first.address);
    // A second version that does not name v1 as prev is a conflict, and is not stored.
    const stale = canonicalJson(
      space([
        { path: 'app.js', bytes: js },
        { path: 'index.html', bytes: html },
      ]),
    );
    const conflict = await post(hub, 'model-hub.space', 'application/json', stale);
    expect(conflict.status).toBe(409);
    expect(conflict.json()).toMatchObject({ code: 'CONFLICT' });
    expect(conflict.json().message).toContain(v1);
    expect(await objects.has(addressOf(new TextEncoder().encode(stale)))).toBe(false);
    const v2body = canonicalJson(
      space(
        [
          { path: 'app.js', bytes: js },
          { path: 'index.html', bytes: html },
        ],
        { prev: v1 },
      ),
    );
    const v2 = await post(hub, 'model-hub.space', 'application/json', v2body);
    expect(v2.status).toBe(201);
    const second = await readSpaces(objects);
    expect(second.catalog).toEqual({ kind: 'model-hub.spaces', spaces: { demo: v2.json().id }, prev: first.address });
  });

  it('media types follow the extension; unknown ones are octet streams', () => {
    expect(spaceMediaType('a/index.HTML')).toBe('text/html; charset=utf-8');
    expect(spaceMediaType('app.mjs')).toBe('text/javascript; charset=utf-8');
    expect(spaceMediaType('x.wasm')).toBe('application/wasm');
    expect(spaceMediaType('README')).toBe('application/octet-stream');
  });
});
