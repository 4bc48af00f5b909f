import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createHub } from '@hub/core-index';
import { createTestHub, request } from '@hub/core-index/testing';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { ociRoutes } from './routes.js';

/** modelpack/model-spec's config schema (fixtures/modelpack/SOURCE.md) and the manifest rules of its docs/spec.md. */
const schema = JSON.parse(readFileSync(fileURLToPath(new URL('../fixtures/modelpack/config-schema.json', import.meta.url)), 'utf8'));
const LAYER_TYPES = new Set(
  ['weight', 'weight.config', 'doc', 'code', 'dataset'].flatMap((k) =>
    ['raw', 'tar', 'tar+gzip', 'tar+zstd'].map((f) => `application/vnd.cncf.model.${k}.v1.${f}`),
  ),
);

describe('ModelPack manifests and configs validate against modelpack/model-spec', () => {
  it('GGUF tags and a non-GGUF model', async () => {
    const t = await createTestHub();
    const hub = createHub(t.deps, ociRoutes());
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    (addFormats as unknown as (a: unknown) => void)(ajv);
    const validate = ajv.compile(schema);
    const refs = ['synthetic-org/tiny-llama-gguf:Q4_K_M', 'synthetic-org/tiny-llama-gguf:latest', 'synthetic-org/bert-ish:latest'];
    for (const ref of refs) {
      const [repo, tag] = ref.split(':');
      const res = await request(hub, `/v2/${repo}/manifests/${tag}-modelpack`);
      expect(res.status, ref).toBe(200);
      const m = res.json();
      // docs/spec.md: the manifest's REQUIRED properties.
      expect(m.schemaVersion).toBe(2);
      expect(m.mediaType).toBe('application/vnd.oci.image.manifest.v1+json');
      expect(res.headers['content-type']).toBe(m.mediaType);
      expect(m.artifactType).toBe('application/vnd.cncf.model.manifest.v1+json');
      expect(m.config.mediaType).toBe('application/vnd.cncf.model.config.v1+json');
      expect(m.layers.length).toBeGreaterThan(0);
      for (const l of m.layers) {
        expect(LAYER_TYPES.has(l.mediaType), l.mediaType).toBe(true);
        expect(l.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
        expect(Number.isInteger(l.size)).toBe(true);
        expect(l.annotations['org.cncf.model.filepath']).toBeTruthy();
      }
      const config = (await request(hub, `/v2/${repo}/blobs/${m.config.digest}`)).json();
      const ok = validate(config);
      expect(validate.errors ?? [], `${ref}: ${JSON.stringify(config)}`).toEqual([]);
      expect(ok).toBe(true);
      expect(config.modelfs.diffIds).toEqual(m.layers.map((l: { digest: string }) => l.digest));
    }
  });

  it('the schema is the real one: it refuses a config without modelfs or with a stray field', () => {
    const ajv = new Ajv2020({ strict: false });
    (addFormats as unknown as (a: unknown) => void)(ajv);
    const validate = ajv.compile(schema);
    expect(validate({ descriptor: {}, config: {} })).toBe(false);
    expect(validate({ descriptor: {}, config: { bogus: 1 }, modelfs: { type: 'layers', diffIds: ['sha256:x'] } })).toBe(false);
    expect(validate({ descriptor: {}, config: {}, modelfs: { type: 'layers', diffIds: ['sha256:x'] } })).toBe(true);
  });
});
