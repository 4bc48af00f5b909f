import { createHub, type Hub, sha256Hex } from '@hub/core-index';
import { createTestHub, request, type TestHub } from '@hub/core-index/testing';
import { beforeEach, describe, expect, it } from 'vitest';
import { ociRoutes } from '../routes.js';
import { bucketRoutes } from './routes.js';
import { BUCKETS_REF } from './store.js';

// SYNTHETIC bytes, made up for these tests.
const enc = (s: string) => new TextEncoder().encode(s);
const TOKEN = 'bucket-test-token';
const auth = { authorization: `Basic ${btoa(`anyone:${TOKEN}`)}` };
const B = '/v2/hub/buckets/data';
const digestOf = (b: Uint8Array) => `sha256:${sha256Hex(b)}`;

let t: TestHub;
let hub: Hub;
const hubFor = (role: 'server' | 'edge') =>
  createHub({ ...t.deps, settings: { ...t.deps.settings, registryTokens: [TOKEN], role } }, [...bucketRoutes(), ...ociRoutes()]);

beforeEach(async () => {
  t = await createTestHub();
  hub = hubFor('server');
});

async function pushBlob(bytes: Uint8Array, bucket = B): Promise<string> {
  const digest = digestOf(bytes);
  const res = await request(hub, `${bucket}/blobs/uploads/?digest=${digest}`, { method: 'POST', headers: auth, body: bytes });
  expect(res.status).toBe(201);
  expect(res.headers['docker-content-digest']).toBe(digest);
  return digest;
}

function manifestOf(config: string, layers: Array<{ digest: string; size: number }>) {
  return enc(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: 'application/vnd.oci.image.manifest.v1+json',
      config: { mediaType: 'application/vnd.oci.image.config.v1+json', digest: config, size: 2 },
      layers: layers.map((l) => ({ mediaType: 'application/vnd.oci.image.layer.v1.tar', ...l })),
    }),
  );
}

describe('bucket pushes (OCI distribution push flow)', () => {
  it('refuses a push without the registry token (401, Basic challenge) and stores nothing', async () => {
    const bytes = enc('SYNTHETIC blob');
    const res = await request(hub, `${B}/blobs/uploads/?digest=${digestOf(bytes)}`, { method: 'POST', body: bytes });
    expect(res.status).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Basic realm="hub"');
    expect(res.json().errors[0].code).toBe('UNAUTHORIZED');
    expect(await t.deps.objects.readRef(BUCKETS_REF)).toBeFalsy();
  });

  it('monolithic, chunked (PATCH with Content-Range) and mounted blobs; a manifest by tag; reads by tag and digest', async () => {
    const config = await pushBlob(enc('{}'));
    // chunked: POST, two PATCHes, closing PUT
    const big = new Uint8Array(300_000).map((_, i) => (i * 7) & 0xff);
    const start = await request(hub, `${B}/blobs/uploads/`, { method: 'POST', headers: auth });
    expect(start.status).toBe(202);
    const location = start.headers.location as string;
    expect(location).toMatch(/^\/v2\/hub\/buckets\/data\/blobs\/uploads\/[0-9a-f-]+$/);
    const p1 = await request(hub, location, {
      method: 'PATCH',
      headers: { ...auth, 'content-range': '0-99999' },
      body: big.subarray(0, 100_000),
    });
    expect(p1.status).toBe(202);
    expect(p1.headers.range).toBe('0-99999');
    // out of order: 416 with the Range held so far
    const wrong = await request(hub, location, {
      method: 'PATCH',
      headers: { ...auth, 'content-range': '5-9' },
      body: big.subarray(5, 10),
    });
    expect(wrong.status).toBe(416);
    expect(wrong.headers.range).toBe('0-99999');
    const p2 = await request(hub, location, { method: 'PATCH', headers: auth, body: big.subarray(100_000) });
    expect(p2.headers.range).toBe('0-299999');
    const layer = digestOf(big);
    const done = await request(hub, `${location}?digest=${layer}`, { method: 'PUT', headers: auth });
    expect(done.status).toBe(201);
    expect(done.headers.location).toBe(`${B}/blobs/${layer}`);
    // the manifest, by tag
    const manifest = manifestOf(config, [{ digest: layer, size: big.length }]);
    const put = await request(hub, `${B}/manifests/v1`, {
      method: 'PUT',
      headers: { ...auth, 'content-type': 'application/vnd.oci.image.manifest.v1+json' },
      body: manifest,
    });
    expect(put.status).toBe(201);
    expect(put.headers['docker-content-digest']).toBe(digestOf(manifest));
    // reads, anonymous
    const tags = await request(hub, `${B}/tags/list`);
    expect(tags.json()).toEqual({ name: 'hub/buckets/data', tags: ['v1'] });
    for (const ref of ['v1', digestOf(manifest)]) {
      const m = await request(hub, `${B}/manifests/${ref}`);
      expect(m.status).toBe(200);
      expect(m.headers['content-type']).toBe('application/vnd.oci.image.manifest.v1+json');
      expect(digestOf(m.bytes)).toBe(digestOf(manifest));
    }
    const blob = await request(hub, `${B}/blobs/${layer}`);
    expect(digestOf(blob.bytes)).toBe(layer);
    const part = await request(hub, `${B}/blobs/${layer}`, { headers: { range: 'bytes=10-19' } });
    expect(part.status).toBe(206);
    expect([...part.bytes]).toEqual([...big.subarray(10, 20)]);
    // mount into another bucket
    const mount = await request(hub, `/v2/hub/buckets/other/blobs/uploads/?mount=${layer}&from=hub/buckets/data`, {
      method: 'POST',
      headers: auth,
    });
    expect(mount.status).toBe(201);
    expect((await request(hub, `/v2/hub/buckets/other/blobs/${layer}`)).status).toBe(200);
    // the catalog lists both buckets
    const catalog = await request(hub, '/v2/_catalog?n=1000');
    expect(catalog.json().repositories).toEqual(expect.arrayContaining(['hub/buckets/data', 'hub/buckets/other']));
  });

  it('a blob whose bytes do not match its digest is DIGEST_INVALID and nothing is stored', async () => {
    const bytes = enc('SYNTHETIC bytes');
    const claimed = digestOf(enc('other bytes'));
    const res = await request(hub, `${B}/blobs/uploads/?digest=${claimed}`, { method: 'POST', headers: auth, body: bytes });
    expect(res.status).toBe(400);
    expect(res.json().errors[0].code).toBe('DIGEST_INVALID');
    expect(await t.deps.objects.readRef(BUCKETS_REF)).toBeFalsy();
    expect((await request(hub, `${B}/blobs/${claimed}`)).status).toBe(404);
  });

  it('a manifest naming a blob the bucket does not hold is MANIFEST_BLOB_UNKNOWN', async () => {
    const config = await pushBlob(enc('{}'));
    const absent = digestOf(enc('never pushed'));
    const res = await request(hub, `${B}/manifests/v1`, {
      method: 'PUT',
      headers: { ...auth, 'content-type': 'application/vnd.oci.image.manifest.v1+json' },
      body: manifestOf(config, [{ digest: absent, size: 12 }]),
    });
    expect(res.status).toBe(400);
    expect(res.json().errors[0]).toMatchObject({ code: 'MANIFEST_BLOB_UNKNOWN', message: expect.stringContaining(absent) });
    expect((await request(hub, `${B}/manifests/v1`)).status).toBe(404);
  });

  it('the edge accepts no bucket push (405 naming node-server) but serves reads', async () => {
    await pushBlob(enc('{}'));
    const edge = hubFor('edge');
    const bytes = enc('x');
    const res = await request(edge, `${B}/blobs/uploads/?digest=${digestOf(bytes)}`, { method: 'POST', headers: auth, body: bytes });
    expect(res.status).toBe(405);
    expect((await request(edge, `${B}/blobs/${digestOf(enc('{}'))}`)).status).toBe(200);
  });

  it('an unknown bucket is 404 NAME_UNKNOWN naming the buckets here; a bad name is 400 NAME_INVALID', async () => {
    await pushBlob(enc('{}'));
    const res = await request(hub, '/v2/hub/buckets/nope/tags/list');
    expect(res.status).toBe(404);
    expect(res.json().errors[0].message).toContain('Buckets here: data');
    expect((await request(hub, '/v2/hub/buckets/Bad..Name/tags/list')).json().errors[0].code).toBe('NAME_INVALID');
  });
});
