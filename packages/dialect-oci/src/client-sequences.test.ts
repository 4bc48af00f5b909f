import { createHub, type Hub, sha256Hex } from '@hub/core-index';
import { createTestHub, request, SYNTHETIC_MODELS, type TestHub } from '@hub/core-index/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { DOCKER_AI_CONFIG, DOCKER_MANIFEST, MODELPACK_ARTIFACT, MODELPACK_CONFIG, OCI_MANIFEST, OLLAMA_MODEL } from './media-types.js';
import { ociRoutes } from './routes.js';
import { CLIENTS, CONTAINERD_ACCEPT } from './testing/clients.js';

/**
 * Each OCI client's pull, replayed request by request as its source sends it (docs/reference/clients-2026.md, with the
 * file each fact was read from), against the hub's OCI routes over the SYNTHETIC test index:
 * - Ollama 0.34 (server/images.go pullModelManifest, downloadBlob): GET manifest with Accept Docker v2 only, then
 *   GET every blob (config included); layer blobs are redirected to a source.
 * - containerd's resolver, also Docker Model Runner's (remotes/docker/resolver.go): HEAD the tag with its Accept
 *   list, then GET the manifest by the digest the HEAD gave with Accept = the descriptor's media type, then the
 *   config and layer blobs; Docker Model Runner resumes a layer with Range across the redirect
 *   (oci/remote/remote.go) and needs every layer to be a docker.ai or ModelPack type.
 * - modctl through oras-go (registry/remote/repository.go Resolve/Fetch): HEAD the tag with the OCI manifest Accept,
 *   GET it by digest, then the config blob and the layers.
 * Every hub-made blob's bytes hash to its digest; every file layer redirects (307) to a source URL and never to the
 * hub's own bytes.
 */

const REPO = '/v2/synthetic-org/tiny-llama-gguf';

let t: TestHub;
let hub: Hub;

beforeAll(async () => {
  t = await createTestHub({ models: SYNTHETIC_MODELS });
  hub = createHub(t.deps, ociRoutes());
});

interface Layer {
  mediaType: string;
  digest: string;
  size: number;
}

/** The file digests of the model: layers with these are redirected, everything else is hub-made. */
function fileDigests(): Set<string> {
  const m = t.index.warm('synthetic-org/tiny-llama-GGUF');
  return new Set((m?.files ?? []).map((f) => `sha256:${f.sha256}`));
}

/** GET a blob as the client would: hub-made blobs come back whole; file layers redirect to a source. */
async function pullBlob(layer: Layer, headers: Record<string, string>, files: Set<string>): Promise<'redirect' | 'bytes'> {
  const res = await request(hub, `${REPO}/blobs/${layer.digest}`, { headers });
  if (files.has(layer.digest)) {
    expect(res.status, layer.digest).toBe(307);
    expect(res.headers.location).toMatch(/^https?:\/\//);
    expect(res.headers.location).not.toContain('/v2/');
    return 'redirect';
  }
  expect(res.status, layer.digest).toBe(200);
  expect(`sha256:${sha256Hex(res.bytes)}`).toBe(layer.digest);
  expect(res.bytes.byteLength).toBe(layer.size);
  return 'bytes';
}

describe("each client's pull, request by request", () => {
  it('Ollama 0.34: GET manifest (Docker v2 only), then every blob; the GGUF layer redirects', async () => {
    const headers = CLIENTS.ollama;
    const res = await request(hub, `${REPO}/manifests/Q4_K_M`, { headers });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe(DOCKER_MANIFEST);
    const m = res.json() as { config: Layer; layers: Layer[] };
    expect(m.layers.some((l) => l.mediaType === OLLAMA_MODEL)).toBe(true);
    const files = fileDigests();
    expect(await pullBlob(m.config, headers, files)).toBe('bytes');
    const kinds = [];
    for (const l of m.layers) kinds.push(await pullBlob(l, headers, files));
    expect(kinds).toContain('redirect');
  });

  it('Docker Model Runner (containerd resolver): HEAD tag, GET by digest, config, layers resumed with Range', async () => {
    const ua = { 'user-agent': CLIENTS.dmr['user-agent'] };
    const head = await request(hub, `${REPO}/manifests/Q4_K_M`, { method: 'HEAD', headers: { ...ua, accept: CONTAINERD_ACCEPT } });
    expect(head.status).toBe(200);
    const digest = head.headers['docker-content-digest'] as string;
    expect(digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    const mediaType = head.headers['content-type'] as string;
    expect(mediaType).toBe(OCI_MANIFEST);
    // The fetch by digest carries Accept = the descriptor's media type only.
    const got = await request(hub, `${REPO}/manifests/${digest}`, { headers: { ...ua, accept: mediaType } });
    expect(got.status).toBe(200);
    expect(`sha256:${sha256Hex(got.bytes)}`).toBe(digest);
    const m = got.json() as { config: Layer; layers: Layer[] };
    expect(m.config.mediaType).toBe(DOCKER_AI_CONFIG);
    for (const l of m.layers) expect(l.mediaType).toMatch(/^application\/vnd\.docker\.ai\./);
    const files = fileDigests();
    expect(await pullBlob(m.config, ua, files)).toBe('bytes');
    for (const l of m.layers) {
      if (!files.has(l.digest)) {
        // hub-made layers (template, licence) are small and come whole
        expect(await pullBlob(l, ua, files)).toBe('bytes');
        continue;
      }
      // A resumed file layer: the hub answers the Range with a redirect (307, not 200), which the client follows
      // keeping its Range, so the 206 comes from the source.
      expect(await pullBlob(l, { ...ua, range: 'bytes=100-' }, files)).toBe('redirect');
    }
  });

  it('modctl (oras-go): HEAD tag with the OCI Accept, GET by digest, ModelPack config, raw layers', async () => {
    const headers = CLIENTS.modctl;
    const head = await request(hub, `${REPO}/manifests/Q4_K_M`, { method: 'HEAD', headers });
    expect(head.status).toBe(200);
    const digest = head.headers['docker-content-digest'] as string;
    const got = await request(hub, `${REPO}/manifests/${digest}`, { headers });
    expect(got.status).toBe(200);
    expect(`sha256:${sha256Hex(got.bytes)}`).toBe(digest);
    const m = got.json() as { artifactType: string; config: Layer; layers: Layer[] };
    expect(m.artifactType).toBe(MODELPACK_ARTIFACT);
    expect(m.config.mediaType).toBe(MODELPACK_CONFIG);
    const files = fileDigests();
    expect(await pullBlob(m.config, headers, files)).toBe('bytes');
    for (const l of m.layers) expect(await pullBlob(l, headers, files)).toBe(files.has(l.digest) ? 'redirect' : 'bytes');
  });

  it("a HEAD answers the GET's headers without a body, for every client's shape", async () => {
    for (const accept of [DOCKER_MANIFEST, OCI_MANIFEST, CONTAINERD_ACCEPT]) {
      const head = await request(hub, `${REPO}/manifests/Q4_K_M`, { method: 'HEAD', headers: { accept } });
      const get = await request(hub, `${REPO}/manifests/Q4_K_M`, { headers: { accept } });
      expect(head.status).toBe(200);
      expect(head.bytes.byteLength).toBe(0);
      expect(head.headers['docker-content-digest']).toBe(get.headers['docker-content-digest']);
      expect(head.headers['content-length']).toBe(String(get.bytes.byteLength));
    }
  });
});
