import { createHub, type Hub, sha256Hex } from '@hub/core-index';
import { createTestHub, request, SYNTHETIC_MODELS, type TestHub } from '@hub/core-index/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  DOCKER_AI_CONFIG,
  DOCKER_AI_GGUF,
  DOCKER_AI_LICENSE,
  DOCKER_AI_TEMPLATE,
  DOCKER_MANIFEST,
  FILEPATH,
  MODELPACK_ARTIFACT,
  MODELPACK_CONFIG,
  MODELPACK_DOC,
  MODELPACK_WEIGHT,
  MODELPACK_WEIGHT_CONFIG,
  OCI_CONFIG,
  OCI_MANIFEST,
  OLLAMA_MODEL,
} from './media-types.js';
import { ociRoutes } from './routes.js';
import { CLIENTS } from './testing/clients.js';

const TINY = '/v2/synthetic-org/tiny-llama-gguf';
const BERT = '/v2/synthetic-org/bert-ish';

let t: TestHub;
let hub: Hub;

beforeAll(async () => {
  t = await createTestHub({ models: SYNTHETIC_MODELS });
  hub = createHub(t.deps, ociRoutes());
});

async function get(path: string, headers: Record<string, string>) {
  const res = await request(hub, path, { headers });
  expect(res.status).toBe(200);
  expect(res.headers.vary).toMatch(/Accept/);
  expect(res.headers['docker-content-digest']).toBe(`sha256:${sha256Hex(res.bytes)}`);
  return { res, m: res.json() };
}

async function hubBlob(repo: string, digest: string) {
  const res = await request(hub, `${repo}/blobs/${digest}`);
  expect(res.status).toBe(200);
  expect(`sha256:${sha256Hex(res.bytes)}`).toBe(digest);
  return res;
}

describe('one tag, a shape per client', () => {
  it('Ollama gets Docker v2 with Ollama layers; llama.cpp Era A the same, with ggufFile', async () => {
    const { m } = await get(`${TINY}/manifests/Q4_K_M`, CLIENTS.ollama);
    expect(m.mediaType).toBe(DOCKER_MANIFEST);
    expect(m.layers[0].mediaType).toBe(OLLAMA_MODEL);
    const era = await get(`${TINY}/manifests/Q4_K_M`, CLIENTS.llamaEraA);
    expect(era.m.mediaType).toBe(DOCKER_MANIFEST);
    expect(era.m.ggufFile.rfilename).toMatch(/\.gguf$/);
  });

  it('containerd and skopeo-like clients get the OCI image manifest', async () => {
    const { m } = await get(`${TINY}/manifests/Q4_K_M`, CLIENTS.containerd);
    expect(m.mediaType).toBe(OCI_MANIFEST);
    expect(m.config.mediaType).toBe(OCI_CONFIG);
  });

  it('Docker Model Runner gets its v0.2 shape, parsed field by field as its code does', async () => {
    const { m } = await get(`${TINY}/manifests/Q4_K_M`, CLIENTS.dmr);
    // pkg/distribution: the manifest is an OCI image manifest; the config type selects the v0.2 reader.
    expect(m.schemaVersion).toBe(2);
    expect(m.mediaType).toBe(OCI_MANIFEST);
    expect(m.artifactType).toBeUndefined();
    expect(m.config.mediaType).toBe(DOCKER_AI_CONFIG);
    // GGUF layers: every layer of type gguf.v3, each named by org.cncf.model.filepath.
    const gguf = m.layers.filter((l: any) => l.mediaType === DOCKER_AI_GGUF);
    expect(gguf.length).toBeGreaterThan(0);
    for (const l of m.layers) {
      expect(l.mediaType).toMatch(/^application\/vnd\.docker\.ai\./);
      expect(typeof l.annotations[FILEPATH]).toBe('string');
      expect(l.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
      expect(l.size).toBeGreaterThanOrEqual(0);
    }
    const model = t.index.warm('synthetic-org/tiny-llama-GGUF');
    for (const l of gguf) expect(model?.files.some((f) => `sha256:${f.sha256}` === l.digest && f.size === l.size)).toBe(true);
    // The config: ConfigFile{config{format, quantization, parameters, architecture, size}, descriptor, rootfs}.
    const cfg = (await hubBlob(TINY, m.config.digest)).json();
    expect(cfg.config.format).toBe('gguf');
    expect(typeof cfg.config.size).toBe('string');
    // ContextSize *int32; Descriptor.Created *time.Time (omitted); RootFS {type, diff_ids}.
    if (cfg.config.context_size !== undefined) {
      expect(Number.isInteger(cfg.config.context_size)).toBe(true);
      expect(cfg.config.context_size).toBeLessThan(2 ** 31);
    }
    if (cfg.descriptor.created !== undefined) expect(Number.isNaN(Date.parse(cfg.descriptor.created))).toBe(false);
    for (const k of Object.keys(cfg.config)) {
      expect([
        'format',
        'quantization',
        'parameters',
        'architecture',
        'size',
        'gguf',
        'safetensors',
        'diffusers',
        'context_size',
      ]).toContain(k);
    }
    if (cfg.config.quantization !== undefined) expect(typeof cfg.config.quantization).toBe('string');
    if (cfg.config.parameters !== undefined) expect(typeof cfg.config.parameters).toBe('string');
    expect(typeof cfg.descriptor).toBe('object');
    expect(cfg.rootfs.type).toBe('rootfs');
    expect(cfg.rootfs.diff_ids).toEqual(m.layers.map((l: any) => l.digest));
    // Template and licence layers, where the model has them, are hub-made blobs served whole.
    for (const l of m.layers.filter((x: any) => x.mediaType === DOCKER_AI_TEMPLATE || x.mediaType === DOCKER_AI_LICENSE)) {
      await hubBlob(TINY, l.digest);
    }
  });

  it('modctl gets ModelPack: artifactType, model config, raw layers with filepath, diffIds = layer digests', async () => {
    const { m } = await get(`${TINY}/manifests/Q4_K_M`, CLIENTS.modctl);
    expect(m.mediaType).toBe(OCI_MANIFEST);
    expect(m.artifactType).toBe(MODELPACK_ARTIFACT);
    expect(m.config.mediaType).toBe(MODELPACK_CONFIG);
    for (const l of m.layers) expect(typeof l.annotations[FILEPATH]).toBe('string');
    expect(m.layers[0].mediaType).toBe(MODELPACK_WEIGHT);
    const cfg = (await hubBlob(TINY, m.config.digest)).json();
    expect(cfg.config.format).toBe('gguf');
    expect(cfg.modelfs).toEqual({ type: 'layers', diffIds: m.layers.map((l: any) => l.digest) });
    expect(cfg.descriptor.name).toBeTruthy();
  });

  it('a non-GGUF model: ModelPack of every file, typed by role; no Docker Model Runner shape', async () => {
    const { m } = await get(`${BERT}/manifests/latest`, CLIENTS.modctl);
    expect(m.artifactType).toBe(MODELPACK_ARTIFACT);
    const model = t.index.models().find((x) => x.id.toLowerCase() === 'synthetic-org/bert-ish');
    expect(m.layers.map((l: any) => l.annotations[FILEPATH]).sort()).toEqual(model?.files.map((f) => f.path).sort());
    for (const l of m.layers) {
      const p: string = l.annotations[FILEPATH];
      if (/\.(safetensors|bin|onnx)$/.test(p)) expect(l.mediaType).toBe(MODELPACK_WEIGHT);
      else if (/\.md$/i.test(p)) expect(l.mediaType).toBe(MODELPACK_DOC);
      else if (/\.json$/.test(p)) expect(l.mediaType).toBe(MODELPACK_WEIGHT_CONFIG);
    }
    // DMR on a non-GGUF model falls back to ModelPack, which it reads by artifactType.
    const dmr = await get(`${BERT}/manifests/latest`, CLIENTS.dmr);
    expect(dmr.m.artifactType).toBe(MODELPACK_ARTIFACT);
    const res = await request(hub, `${BERT}/manifests/latest-dmr`, { headers: CLIENTS.containerd });
    expect(res.status).toBe(404);
  });

  it('explicit tags -modelpack and -dmr give those shapes to any client; every shape is reachable by digest', async () => {
    const mp = await get(`${TINY}/manifests/Q4_K_M-modelpack`, CLIENTS.containerd);
    expect(mp.m.artifactType).toBe(MODELPACK_ARTIFACT);
    const dmr = await get(`${TINY}/manifests/q4_k_m-DMR`, CLIENTS.ollama);
    expect(dmr.m.config.mediaType).toBe(DOCKER_AI_CONFIG);
    const digests = new Set<string>();
    for (const headers of Object.values(CLIENTS)) {
      const { res } = await get(`${TINY}/manifests/Q4_K_M`, headers);
      digests.add(res.headers['docker-content-digest'] ?? '');
    }
    expect(digests.size).toBe(4); // docker, oci, dockerai, modelpack
    for (const d of digests) {
      for (const headers of Object.values(CLIENTS)) {
        const { res } = await get(`${TINY}/manifests/${d}`, headers);
        expect(res.headers['docker-content-digest']).toBe(d);
      }
    }
  });
});
