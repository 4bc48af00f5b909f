import { createHub, type Hub, sha256Hex } from '@hub/core-index';
import { createTestHub, request, type TestHub } from '@hub/core-index/testing';
import { beforeEach, describe, expect, it } from 'vitest';
import { ociRoutes } from '../routes.js';
import { bucketRoutes } from './routes.js';

// SYNTHETIC bytes, made up for these tests.
const enc = (s: string) => new TextEncoder().encode(s);
const TOKEN = 'bucket-index-test-token';
const auth = { authorization: `Bearer ${TOKEN}` };
const B = '/v2/hub/buckets/packs';
const digestOf = (b: Uint8Array) => `sha256:${sha256Hex(b)}`;
const MANIFEST = 'application/vnd.oci.image.manifest.v1+json';
const INDEX = 'application/vnd.oci.image.index.v1+json';

let t: TestHub;
let hub: Hub;

beforeEach(async () => {
  t = await createTestHub();
  hub = createHub({ ...t.deps, settings: { ...t.deps.settings, registryTokens: [TOKEN], role: 'server' } }, [
    ...bucketRoutes(),
    ...ociRoutes(),
  ]);
});

async function pushBlob(bytes: Uint8Array): Promise<string> {
  const digest = digestOf(bytes);
  const res = await request(hub, `${B}/blobs/uploads/?digest=${digest}`, { method: 'POST', headers: auth, body: bytes });
  expect(res.status).toBe(201);
  return digest;
}

async function pushManifest(ref: string, bytes: Uint8Array, type: string) {
  return request(hub, `${B}/manifests/${ref}`, { method: 'PUT', headers: { ...auth, 'content-type': type }, body: bytes });
}

/** A manifest with an empty config and one layer, pushed by digest (as skopeo pushes the manifests of an index). */
async function pushedManifest(layer: Uint8Array): Promise<{ digest: string; size: number }> {
  const config = await pushBlob(enc('{}'));
  const layerDigest = await pushBlob(layer);
  const bytes = enc(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: MANIFEST,
      config: { mediaType: 'application/vnd.oci.image.config.v1+json', digest: config, size: 2 },
      layers: [{ mediaType: 'application/vnd.oci.image.layer.v1.tar', digest: layerDigest, size: layer.byteLength }],
    }),
  );
  const digest = digestOf(bytes);
  const res = await pushManifest(digest, bytes, MANIFEST);
  expect(res.status).toBe(201);
  expect(res.headers['docker-content-digest']).toBe(digest);
  return { digest, size: bytes.byteLength };
}

const indexOf = (manifests: Array<{ digest: string; size: number }>) =>
  enc(JSON.stringify({ schemaVersion: 2, mediaType: INDEX, manifests: manifests.map((m) => ({ mediaType: MANIFEST, ...m })) }));

describe('bucket image indexes and HEAD', () => {
  it('an image index naming two pushed manifests is stored under its tag and read back by tag and digest', async () => {
    const a = await pushedManifest(enc('SYNTHETIC layer a'));
    const b = await pushedManifest(enc('SYNTHETIC layer b'));
    const index = indexOf([a, b]);
    const put = await pushManifest('v2', index, INDEX);
    expect(put.status).toBe(201);
    expect(put.headers['docker-content-digest']).toBe(digestOf(index));
    expect((await request(hub, `${B}/tags/list`)).json()).toEqual({ name: 'hub/buckets/packs', tags: ['v2'] });
    for (const ref of ['v2', digestOf(index)]) {
      const got = await request(hub, `${B}/manifests/${ref}`, { headers: { accept: INDEX } });
      expect(got.status).toBe(200);
      expect(got.headers['content-type']).toBe(INDEX);
      expect(digestOf(got.bytes)).toBe(digestOf(index));
    }
    // the manifests it names, by digest
    const m = await request(hub, `${B}/manifests/${a.digest}`);
    expect(m.headers['content-type']).toBe(MANIFEST);
    expect(digestOf(m.bytes)).toBe(a.digest);
  });

  it('an image index naming a manifest the bucket does not hold is MANIFEST_BLOB_UNKNOWN and no tag is made', async () => {
    const a = await pushedManifest(enc('SYNTHETIC layer a'));
    const absent = { digest: digestOf(enc('a manifest never pushed')), size: 23 };
    const res = await pushManifest('v3', indexOf([a, absent]), INDEX);
    expect(res.status).toBe(400);
    expect(res.json().errors[0]).toMatchObject({ code: 'MANIFEST_BLOB_UNKNOWN', message: expect.stringContaining(absent.digest) });
    expect((await request(hub, `${B}/manifests/v3`)).status).toBe(404);
    expect((await request(hub, `${B}/tags/list`)).json().tags).toEqual([]);
  });

  it('HEAD of a manifest and of a blob: the GET headers (Docker-Content-Digest, length) and no body; unknown is 404', async () => {
    const layer = enc('SYNTHETIC layer for HEAD');
    const m = await pushedManifest(layer);
    const put = await pushManifest('v1', (await request(hub, `${B}/manifests/${m.digest}`)).bytes, MANIFEST);
    expect(put.status).toBe(201);
    const head = await request(hub, `${B}/manifests/v1`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers['docker-content-digest']).toBe(m.digest);
    expect(head.headers['content-type']).toBe(MANIFEST);
    expect(head.headers['content-length']).toBe(String(m.size));
    expect(head.bytes.byteLength).toBe(0);
    const blob = await request(hub, `${B}/blobs/${digestOf(layer)}`, { method: 'HEAD' });
    expect(blob.status).toBe(200);
    expect(blob.headers['docker-content-digest']).toBe(digestOf(layer));
    expect(blob.headers['content-length']).toBe(String(layer.byteLength));
    expect(blob.bytes.byteLength).toBe(0);
    // as a pushing client asks before an upload: a blob the bucket does not hold
    expect((await request(hub, `${B}/blobs/${digestOf(enc('not here'))}`, { method: 'HEAD' })).status).toBe(404);
  });
});
