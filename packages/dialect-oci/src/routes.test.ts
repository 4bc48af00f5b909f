import { type BuildModelInput, createHub, type Hub, sha256Hex } from '@hub/core-index';
import { createTestHub, request, SYNTHETIC_MODELS, type TestHub } from '@hub/core-index/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { goTemplateProblem } from './go-template.js';
import { repository } from './manifests.js';
import { DOCKER_CONFIG, DOCKER_MANIFEST, OCI_CONFIG, OCI_MANIFEST } from './media-types.js';
import { ociRoutes } from './routes.js';

// ---- SYNTHETIC fixtures (made up for these tests; not real model-host data) ----------------------

const CHATML =
  "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

const hex = (c: string) => c.repeat(64);

const VISION: BuildModelInput = {
  id: 'Synthetic.Org/Vision-GGUF',
  revision: 'd'.repeat(40),
  license: 'apache-2.0',
  files: [
    { path: 'README.md', size: 10, sha256: hex('a') },
    { path: 'vision-Q4_K_M.gguf', size: 4_000, sha256: hex('b') },
    { path: 'vision-q5_k_m.gguf', size: 5_000, sha256: hex('c') },
    { path: 'mmproj-vision-F32.gguf', size: 320, sha256: hex('d') },
    { path: 'mmproj-vision-F16.gguf', size: 160, sha256: hex('e') },
    { path: 'big/vision-Q8_0-00001-of-00002.gguf', size: 8_000, sha256: hex('f') },
    { path: 'big/vision-Q8_0-00002-of-00002.gguf', size: 7_000, sha256: `${'0'.repeat(63)}1` },
    { path: 'vision-custom.gguf', size: 3_000, sha256: `${'0'.repeat(63)}2` },
  ],
  facts: {
    parameters: 7_615_616_512,
    context: 32_768,
    gguf: [
      {
        path: 'vision-Q4_K_M.gguf',
        architecture: 'qwen2',
        quantization: 'Q4_K_M',
        parameters: 7_615_616_512,
        context_length: 32_768,
        chat_template: CHATML,
      },
      { path: 'vision-custom.gguf', architecture: 'qwen2', file_type: 17 },
    ],
  },
  sources: [{ source: 'mirror-a', type: 'http' }],
};

const NO_Q4KM: BuildModelInput = {
  id: 'synthetic-org/no-q4km-GGUF',
  revision: 'e'.repeat(40),
  license: null,
  files: [
    { path: 'x-Q8_0.gguf', size: 800, sha256: `${'0'.repeat(63)}3` },
    { path: 'x-Q5_K_S.gguf', size: 500, sha256: `${'0'.repeat(63)}4` },
    { path: 'x-F16.gguf', size: 1600, sha256: `${'0'.repeat(63)}5` },
  ],
  facts: { gguf: [{ path: 'x-F16.gguf', architecture: 'llama', chat_template: 'outetts-0.3 {{ messages }}' }] },
  sources: [{ source: 'mirror-a', type: 'http' }],
};

/** Its dash alias `synthetic-org/tiny-llama-gguf` is a real repository, which wins. */
const DOTTED_CLASH: BuildModelInput = {
  id: 'synthetic.org/tiny-llama-GGUF',
  revision: 'f'.repeat(40),
  license: null,
  files: [{ path: 'other-Q4_K_M.gguf', size: 99, sha256: `${'0'.repeat(63)}6` }],
  sources: [{ source: 'mirror-a', type: 'http' }],
};

const SKOPEO_ACCEPT = [
  'application/vnd.oci.image.manifest.v1+json',
  'application/vnd.docker.distribution.manifest.v2+json',
  'application/vnd.docker.distribution.manifest.v1+prettyjws',
  'application/vnd.docker.distribution.manifest.v1+json',
  'application/vnd.docker.distribution.manifest.list.v2+json',
  'application/vnd.oci.image.index.v1+json',
].join(', ');
const OLLAMA = { accept: DOCKER_MANIFEST, 'user-agent': 'ollama/0.34.0 (amd64 linux) Go/go1.24.0' };
const LLAMA_CPP = { accept: 'application/json', 'user-agent': 'llama-cpp' };

const TINY = '/v2/synthetic-org/tiny-llama-gguf';
const BERT = '/v2/synthetic-org/bert-ish';
const VIS = '/v2/synthetic.org/vision-gguf';

let t: TestHub;
let hub: Hub;

beforeAll(async () => {
  t = await createTestHub({ models: [...SYNTHETIC_MODELS, VISION, NO_Q4KM, DOTTED_CLASH] });
  hub = createHub(t.deps, ociRoutes());
});

function expectOciError(
  res: { status: number; headers: Record<string, string>; json(): any },
  status: number,
  code: string,
  fromDialect = true,
) {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  const body = res.json();
  expect(body).toEqual({ errors: [{ code, message: expect.any(String) }] });
  expect(body.errors[0].message.length).toBeGreaterThan(20);
  // The hub's own 401 for writes is answered before any dialect handler runs.
  if (fromDialect) expect(res.headers['docker-distribution-api-version']).toBe('registry/2.0');
}

async function manifest(path: string, headers: Record<string, string> = OLLAMA) {
  const res = await request(hub, path, { headers });
  expect(res.status).toBe(200);
  return { res, m: res.json() };
}

async function blob(repo: string, digest: string) {
  const res = await request(hub, `${repo}/blobs/${digest}`);
  expect(res.status).toBe(200);
  expect(sha256Hex(res.bytes)).toBe(digest.slice(7));
  return res;
}

describe('API check and catalog', () => {
  it('GET /v2/ answers 200 {} with the API version header (also /v2 and HEAD)', async () => {
    for (const [path, method] of [
      ['/v2/', 'GET'],
      ['/v2', 'GET'],
      ['/v2/', 'HEAD'],
    ] as const) {
      const res = await request(hub, path, { method });
      expect(res.status).toBe(200);
      expect(res.headers['docker-distribution-api-version']).toBe('registry/2.0');
      expect(res.headers['access-control-allow-origin']).toBe('*');
      if (method === 'GET') expect(res.json()).toEqual({});
      else expect(res.bytes.byteLength).toBe(0);
    }
  });

  it('lists every repository in lowercase, in lexical order, without aliases', async () => {
    const res = await request(hub, '/v2/_catalog');
    expect(res.status).toBe(200);
    expect(res.headers['docker-distribution-api-version']).toBe('registry/2.0');
    const all = t.index.models().map((m) => m.id.toLowerCase());
    // The index built by the fixture is archived, so the archive repository (issue 9) is listed too.
    expect(res.json()).toEqual({ repositories: [...all, 'hub/index'].sort() });
    expect(res.json().repositories).not.toContain('synthetic-org/vision-gguf');
  });

  it('pages the catalog with n/last and an absolute Link rel="next"', async () => {
    const all: string[] = (await request(hub, '/v2/_catalog')).json().repositories;
    const seen: string[] = [];
    let url: string | undefined = 'http://hub.test/v2/_catalog?n=2';
    let pages = 0;
    while (url) {
      const res = await request(hub, url);
      expect(res.status).toBe(200);
      const page: string[] = res.json().repositories;
      expect(page.length).toBeLessThanOrEqual(2);
      seen.push(...page);
      const link = res.headers.link;
      url = link ? /^<([^>]+)>; rel="next"$/.exec(link)?.[1] : undefined;
      if (link) expect(url).toMatch(/^http:\/\/hub\.test\/v2\/_catalog\?n=2&last=/);
      pages++;
    }
    expect(seen).toEqual(all);
    expect(pages).toBe(Math.ceil(all.length / 2));
    expect((await request(hub, `/v2/_catalog?last=${encodeURIComponent(all[0] as string)}`)).json().repositories).toEqual(all.slice(1));
    expect((await request(hub, '/v2/_catalog?n=0')).json().repositories).toEqual([]);
  });

  it('refuses a bad page size', async () => {
    expectOciError(await request(hub, '/v2/_catalog?n=-1'), 400, 'PAGINATION_NUMBER_INVALID');
    expectOciError(await request(hub, `${TINY}/tags/list?n=abc`), 400, 'PAGINATION_NUMBER_INVALID');
  });
});

describe('tags', () => {
  it('lists quantisations, GGUF file names and latest, in lexical order', async () => {
    const res = await request(hub, `${TINY}/tags/list`);
    expect(res.status).toBe(200);
    expect(res.headers['docker-distribution-api-version']).toBe('registry/2.0');
    expect(res.json()).toEqual({
      name: 'synthetic-org/tiny-llama-gguf',
      tags: ['Q4_K_M', 'Q8_0', 'latest', 'tiny-llama-Q4_K_M.gguf', 'tiny-llama-Q8_0.gguf'],
    });
  });

  it('never lists projectors or later split parts; lists a quant-less GGUF by file name', async () => {
    const tags: string[] = (await request(hub, `${VIS}/tags/list`)).json().tags;
    expect(tags).toEqual([
      'Q4_K_M',
      'Q5_K_M',
      'Q8_0',
      'latest',
      'vision-Q4_K_M.gguf',
      'vision-Q8_0-00001-of-00002.gguf',
      'vision-custom.gguf',
      'vision-q5_k_m.gguf',
    ]);
  });

  it('a non-GGUF model has latest only', async () => {
    expect((await request(hub, `${BERT}/tags/list`)).json()).toEqual({ name: 'synthetic-org/bert-ish', tags: ['latest'] });
  });

  it('pages tags with n/last', async () => {
    const res = await request(hub, `${TINY}/tags/list?n=2`);
    expect(res.json().tags).toEqual(['Q4_K_M', 'Q8_0']);
    expect(res.headers.link).toBe(`<http://hub.test${TINY}/tags/list?n=2&last=Q8_0>; rel="next"`);
    const next = await request(hub, `${TINY}/tags/list?n=2&last=Q8_0`);
    expect(next.json().tags).toEqual(['latest', 'tiny-llama-Q4_K_M.gguf']);
    const last = await request(hub, `${TINY}/tags/list?n=2&last=tiny-llama-Q4_K_M.gguf`);
    expect(last.json().tags).toEqual(['tiny-llama-Q8_0.gguf']);
    expect(last.headers.link).toBeUndefined();
  });

  it('matches repository names case-insensitively', async () => {
    const res = await request(hub, '/v2/SYNTHETIC-ORG/Tiny-Llama-GGUF/tags/list');
    expect(res.status).toBe(200);
    expect(res.json().name).toBe('synthetic-org/tiny-llama-gguf');
  });
});

describe('GGUF manifests (Docker v2 / Ollama shape)', () => {
  it('Q4_K_M: model layer, config, licence, ggufFile; digest and length headers', async () => {
    const { res, m } = await manifest(`${TINY}/manifests/Q4_K_M`);
    expect(res.headers['content-type']).toBe(DOCKER_MANIFEST);
    expect(res.headers['docker-content-digest']).toBe(`sha256:${sha256Hex(res.bytes)}`);
    expect(res.headers['content-length']).toBe(String(res.bytes.byteLength));
    expect(res.headers.vary).toBe('Accept, User-Agent');
    expect(m.schemaVersion).toBe(2);
    expect(m.mediaType).toBe(DOCKER_MANIFEST);
    expect(m.config.mediaType).toBe(DOCKER_CONFIG);
    expect(m.layers.map((l: any) => l.mediaType)).toEqual(['application/vnd.ollama.image.model', 'application/vnd.ollama.image.license']);
    expect(m.layers[0]).toMatchObject({
      digest: `sha256:${'2'.repeat(64)}`,
      size: 1_000_000,
      annotations: { 'org.opencontainers.image.title': 'tiny-llama-Q4_K_M.gguf' },
    });
    expect(m.ggufFile).toEqual({ rfilename: 'tiny-llama-Q4_K_M.gguf', blobId: `sha256:${'2'.repeat(64)}`, size: 1_000_000 });
    expect(m.mmprojFile).toBeUndefined();

    const config = (await blob(TINY, m.config.digest)).json();
    expect(config).toEqual({
      model_format: 'gguf',
      model_family: 'llama',
      model_families: ['llama'],
      model_type: '1M',
      file_type: 'Q4_K_M',
      context_length: 4096,
      architecture: 'amd64',
      os: 'linux',
      rootfs: { type: 'layers', diff_ids: m.layers.map((l: any) => l.digest) },
    });
    expect(config.remote_host).toBeUndefined();
    const license = await blob(TINY, m.layers[1].digest);
    expect(license.text).toBe('mit');
    expect(m.layers[1].size).toBe(3);
    expect(m.config.size).toBe((await blob(TINY, m.config.digest)).bytes.byteLength);
  });

  it('tags resolve case-insensitively, by file name (with or without .gguf) and latest = Q4_K_M', async () => {
    const { res: q } = await manifest(`${TINY}/manifests/Q4_K_M`);
    for (const tag of ['q4_k_m', 'latest', 'tiny-llama-Q4_K_M.gguf', 'TINY-LLAMA-q4_k_m.GGUF', 'tiny-llama-Q4_K_M']) {
      const { res } = await manifest(`${TINY}/manifests/${tag}`);
      expect(res.text).toBe(q.text);
    }
    const { m: q8 } = await manifest(`${TINY}/manifests/q8_0`);
    expect(q8.ggufFile.rfilename).toBe('tiny-llama-Q8_0.gguf');
    expect(q8.layers[0].digest).toBe(`sha256:${'3'.repeat(64)}`);
  });

  it('latest follows the preference order when there is no Q4_K_M', async () => {
    const { m } = await manifest('/v2/synthetic-org/no-q4km-gguf/manifests/latest');
    expect(m.ggufFile.rfilename).toBe('x-Q5_K_S.gguf');
    // This template is refused by the mapping: no template layer, no licence (none known).
    expect(m.layers.map((l: any) => l.mediaType)).toEqual(['application/vnd.ollama.image.model']);
    const config = (await blob('/v2/synthetic-org/no-q4km-gguf', m.config.digest)).json();
    expect(config.file_type).toBe('Q5_K_S');
    expect(config.model_family).toBe('llama');
    expect(config.model_type).toBeUndefined();
  });

  it('projector, template, params and licence layers; families include clip; split parts in order', async () => {
    const { m } = await manifest(`${VIS}/manifests/Q4_K_M`);
    expect(m.layers.map((l: any) => l.mediaType)).toEqual([
      'application/vnd.ollama.image.model',
      'application/vnd.ollama.image.projector',
      'application/vnd.ollama.image.template',
      'application/vnd.ollama.image.params',
      'application/vnd.ollama.image.license',
    ]);
    expect(m.layers[1].digest).toBe(`sha256:${hex('e')}`); // the F16 projector
    expect(m.mmprojFile).toEqual({ rfilename: 'mmproj-vision-F16.gguf', blobId: `sha256:${hex('e')}`, size: 160 });
    const template = await blob(VIS, m.layers[2].digest);
    expect(template.text).toContain('{{ .Prompt }}');
    expect(goTemplateProblem(template.text)).toBeUndefined();
    const params = (await blob(VIS, m.layers[3].digest)).json();
    expect(params.stop).toEqual(expect.arrayContaining(['<|im_end|>']));
    expect((await blob(VIS, m.layers[4].digest)).text).toBe('apache-2.0');
    const config = (await blob(VIS, m.config.digest)).json();
    expect(config).toMatchObject({
      model_family: 'qwen2',
      model_families: ['qwen2', 'clip'],
      model_type: '7.6B',
      file_type: 'Q4_K_M',
      context_length: 32_768,
    });

    // The Q8_0 split: both parts as model layers, part 1 as ggufFile; facts of the model fill in.
    const { m: q8 } = await manifest(`${VIS}/manifests/Q8_0`);
    expect(q8.layers.slice(0, 2).map((l: any) => l.annotations['org.opencontainers.image.title'])).toEqual([
      'big/vision-Q8_0-00001-of-00002.gguf',
      'big/vision-Q8_0-00002-of-00002.gguf',
    ]);
    expect(q8.ggufFile.rfilename).toBe('big/vision-Q8_0-00001-of-00002.gguf');
    const c8 = (await blob(VIS, q8.config.digest)).json();
    expect(c8.file_type).toBe('Q8_0');
    // The same template bytes are one blob for every tag.
    expect(q8.layers.find((l: any) => l.mediaType.endsWith('.template')).digest).toBe(m.layers[2].digest);
    // A later split part and a projector are not tags.
    expectOciError(await request(hub, `${VIS}/manifests/vision-Q8_0-00002-of-00002.gguf`), 404, 'MANIFEST_UNKNOWN');
    expectOciError(await request(hub, `${VIS}/manifests/mmproj-vision-F16.gguf`), 404, 'MANIFEST_UNKNOWN');
    // A GGUF without a quantisation in its name is reachable by file name.
    const { m: custom } = await manifest(`${VIS}/manifests/vision-custom.gguf`);
    expect(custom.ggufFile.rfilename).toBe('vision-custom.gguf');
    // Its quantisation comes from the GGUF header's general.file_type (17 = Q5_K_M).
    expect((await blob(VIS, custom.config.digest)).json().file_type).toBe('Q5_K_M');
  });

  it("llama.cpp's request gets the same Docker shape with ggufFile", async () => {
    const { res, m } = await manifest(`${TINY}/manifests/latest`, LLAMA_CPP);
    expect(res.headers['content-type']).toBe(DOCKER_MANIFEST);
    expect(m.ggufFile.rfilename).toBe('tiny-llama-Q4_K_M.gguf');
    const { res: plain } = await manifest(`${TINY}/manifests/latest`, {});
    expect(plain.text).toBe(res.text);
  });
});

describe('Accept negotiation: the OCI image manifest', () => {
  it('a client that accepts the OCI manifest gets an OCI image manifest with the same layers', async () => {
    const { res: d, m: docker } = await manifest(`${VIS}/manifests/Q4_K_M`);
    const { res, m } = await manifest(`${VIS}/manifests/Q4_K_M`, { accept: SKOPEO_ACCEPT });
    expect(res.headers['content-type']).toBe(OCI_MANIFEST);
    expect(m.mediaType).toBe(OCI_MANIFEST);
    expect(res.headers['docker-content-digest']).toBe(`sha256:${sha256Hex(res.bytes)}`);
    expect(res.headers['docker-content-digest']).not.toBe(d.headers['docker-content-digest']);
    expect(res.headers.etag).not.toBe(d.headers.etag);
    expect(m.config.mediaType).toBe(OCI_CONFIG);
    expect(m.layers).toEqual(docker.layers);
    const config = (await blob(VIS, m.config.digest)).json();
    expect(config).toMatchObject({
      architecture: 'amd64',
      os: 'linux',
      rootfs: { type: 'layers', diff_ids: m.layers.map((l: any) => l.digest) },
    });
    expect(config.config.Labels).toMatchObject({
      'org.opencontainers.image.title': 'Synthetic.Org/Vision-GGUF',
      'org.opencontainers.image.revision': 'd'.repeat(40),
      'org.opencontainers.image.licenses': 'apache-2.0',
      file_type: 'Q4_K_M',
    });
  });

  it('an OCI manifest with q=0 does not count; the OCI type alone does', async () => {
    const { res } = await manifest(`${TINY}/manifests/latest`, { accept: `${OCI_MANIFEST};q=0, ${DOCKER_MANIFEST}` });
    expect(res.headers['content-type']).toBe(DOCKER_MANIFEST);
    const { res: oci } = await manifest(`${TINY}/manifests/latest`, { accept: OCI_MANIFEST });
    expect(oci.headers['content-type']).toBe(OCI_MANIFEST);
  });

  it('GET and HEAD by digest return the same bytes and headers, whatever Accept says', async () => {
    for (const accept of [SKOPEO_ACCEPT, DOCKER_MANIFEST]) {
      const { res } = await manifest(`${TINY}/manifests/Q8_0`, { accept });
      const digest = res.headers['docker-content-digest'] as string;
      for (const other of [SKOPEO_ACCEPT, DOCKER_MANIFEST, 'application/json']) {
        const byDigest = await request(hub, `${TINY}/manifests/${digest}`, { headers: { accept: other } });
        expect(byDigest.status).toBe(200);
        expect(byDigest.text).toBe(res.text);
        expect(byDigest.headers['content-type']).toBe(res.headers['content-type']);
        const head = await request(hub, `${TINY}/manifests/${digest}`, { method: 'HEAD', headers: { accept: other } });
        expect(head.status).toBe(200);
        expect(head.bytes.byteLength).toBe(0);
        expect(head.headers['docker-content-digest']).toBe(digest);
        expect(head.headers['content-length']).toBe(String(res.bytes.byteLength));
        expect(head.headers['content-type']).toBe(res.headers['content-type']);
      }
    }
  });

  it('HEAD by tag carries the digest and length of the GET body', async () => {
    const { res } = await manifest(`${TINY}/manifests/latest`, { accept: SKOPEO_ACCEPT });
    const head = await request(hub, `${TINY}/manifests/latest`, { method: 'HEAD', headers: { accept: SKOPEO_ACCEPT } });
    expect(head.status).toBe(200);
    expect(head.bytes.byteLength).toBe(0);
    expect(head.headers['docker-content-digest']).toBe(res.headers['docker-content-digest']);
    expect(head.headers['content-length']).toBe(res.headers['content-length']);
  });

  it('If-None-Match with the manifest ETag gives 304', async () => {
    const { res } = await manifest(`${TINY}/manifests/latest`);
    const again = await request(hub, `${TINY}/manifests/latest`, { headers: { ...OLLAMA, 'if-none-match': res.headers.etag as string } });
    expect(again.status).toBe(304);
  });
});

describe('non-GGUF models', () => {
  it('latest is an artifact whose layers are every file, titled by path, digest = file SHA-256', async () => {
    for (const accept of [SKOPEO_ACCEPT, DOCKER_MANIFEST]) {
      const { res, m } = await manifest(`${BERT}/manifests/latest`, { accept });
      expect(res.headers['content-type']).toBe(m.mediaType);
      const model = t.index.warm('synthetic-org/bert-ish');
      expect(m.layers).toEqual(
        model?.files.map((f) => ({
          mediaType: 'application/octet-stream',
          digest: `sha256:${f.sha256}`,
          size: f.size,
          annotations: { 'org.opencontainers.image.title': f.path },
        })),
      );
      expect(m.ggufFile).toBeUndefined();
      const config = (await blob(BERT, m.config.digest)).json();
      expect(config).toMatchObject({
        architecture: 'amd64',
        os: 'linux',
        rootfs: { type: 'layers', diff_ids: m.layers.map((l: any) => l.digest) },
      });
      expect(m.config.mediaType).toBe(accept === SKOPEO_ACCEPT ? OCI_CONFIG : DOCKER_CONFIG);
    }
  });

  it('a quantisation tag on a model without GGUF is MANIFEST_UNKNOWN, naming the reason', async () => {
    const res = await request(hub, `${BERT}/manifests/Q4_K_M`, { headers: OLLAMA });
    expectOciError(res, 404, 'MANIFEST_UNKNOWN');
    expect(res.json().errors[0].message).toContain('no GGUF');
  });
});

describe('blobs', () => {
  const weight = `sha256:${'2'.repeat(64)}`;

  it('HEAD of a weight layer: 200, exact Content-Length and Docker-Content-Digest, no body', async () => {
    const res = await request(hub, `${TINY}/blobs/${weight}`, { method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.headers['content-length']).toBe('1000000');
    expect(res.headers['docker-content-digest']).toBe(weight);
    expect(res.headers['docker-distribution-api-version']).toBe('registry/2.0');
    expect(res.bytes.byteLength).toBe(0);
  });

  it('GET of a weight layer: 307 to the first live source, on another host', async () => {
    const res = await request(hub, `${TINY}/blobs/${weight}`);
    expect(res.status).toBe(307);
    expect(res.headers.location).toBe(`http://127.0.0.1:1/a/synthetic-org/tiny-llama-GGUF/${'a'.repeat(40)}/tiny-llama-Q4_K_M.gguf`);
    expect(res.headers['x-hub-source']).toBe('mirror-a');
    expect(res.headers['docker-content-digest']).toBe(weight);
    expect(res.headers['cache-control']).toBe('no-store');
    // Uppercase hex is the same digest.
    expect((await request(hub, `${TINY}/blobs/${weight.toUpperCase().replace('SHA256', 'sha256')}`)).status).toBe(307);
  });

  it('GET of a weight layer with no live source: 503 with Retry-After', async () => {
    const own = await createTestHub();
    const h = createHub(own.deps, ociRoutes());
    // Failed just now: re-checked on the default schedule (the first re-check 40 s after a failure).
    own.health.record('mirror-a', { ok: false, reason: 'timeout', at: Date.now() });
    own.health.record('mirror-b', { ok: false, reason: 'status', at: Date.now() });
    const res = await request(h, `${TINY}/blobs/${weight}`);
    expectOciError(res, 503, 'UNAVAILABLE');
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(39);
    expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(40);
    expect(res.json().errors[0].message).toContain('/api/hub/health');
    // HEAD answers as GET does (issue 37): the 503's head, not the length of bytes no live source can send.
    const head = await request(h, `${TINY}/blobs/${weight}`, { method: 'HEAD' });
    expect([head.status, head.headers['retry-after'], head.headers['x-error-code']]).toEqual([
      503,
      res.headers['retry-after'],
      res.headers['x-error-code'],
    ]);
    // With mirror-b back, the file it holds goes there.
    own.health.record('mirror-b', { ok: true, reason: 'verified', at: 2 });
    const back = await request(h, `${TINY}/blobs/${weight}`);
    expect(back.status).toBe(307);
    expect(back.headers.location).toMatch(/^http:\/\/localhost:2\/b\//);
    expect((await request(h, `${TINY}/blobs/${weight}`, { method: 'HEAD' })).status).toBe(200);
  });

  it('hub-made blobs: 200 with the bytes, a Location to the same URL, Range honoured', async () => {
    const { m } = await manifest(`${VIS}/manifests/Q4_K_M`);
    const digest = m.layers[2].digest as string;
    const full = await blob(VIS, digest);
    expect(full.headers.location).toBe(`http://hub.test${VIS}/blobs/${digest}`);
    expect(full.headers['docker-content-digest']).toBe(digest);
    expect(full.headers['content-length']).toBe(String(m.layers[2].size));
    const part = await request(hub, `${VIS}/blobs/${digest}`, { headers: { range: 'bytes=2-9' } });
    expect(part.status).toBe(206);
    expect(part.headers['content-range']).toBe(`bytes 2-9/${full.bytes.byteLength}`);
    expect(part.text).toBe(full.text.slice(2, 10));
    expect(part.headers.location).toBe(full.headers.location);
    const tail = await request(hub, `${VIS}/blobs/${digest}`, { headers: { range: 'bytes=5-' } });
    expect(tail.bytes).toEqual(full.bytes.subarray(5));
    const bad = await request(hub, `${VIS}/blobs/${digest}`, { headers: { range: `bytes=${full.bytes.byteLength}-` } });
    expectOciError(bad, 416, 'RANGE_INVALID');
    expect(bad.headers['content-range']).toBe(`bytes */${full.bytes.byteLength}`);
    const head = await request(hub, `${VIS}/blobs/${digest}`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers['content-length']).toBe(String(full.bytes.byteLength));
    expect(head.bytes.byteLength).toBe(0);
  });

  it('every digest in every manifest is the SHA-256 of its bytes (hub-made) or of the indexed file', async () => {
    for (const repo of [TINY, VIS, BERT, '/v2/synthetic-org/no-q4km-gguf']) {
      const tags: string[] = (await request(hub, `${repo}/tags/list`)).json().tags;
      for (const tag of tags) {
        for (const accept of [SKOPEO_ACCEPT, DOCKER_MANIFEST]) {
          const { m } = await manifest(`${repo}/manifests/${tag}`, { accept });
          for (const d of [m.config, ...m.layers]) {
            const head = await request(hub, `${repo}/blobs/${d.digest}`, { method: 'HEAD' });
            expect(head.status).toBe(200);
            expect(head.headers['content-length']).toBe(String(d.size));
            if (d.annotations?.['org.opencontainers.image.title']) continue; // a file: its SHA-256 is the index's
            const res = await blob(repo, d.digest);
            expect(res.bytes.byteLength).toBe(d.size);
          }
        }
      }
    }
  });

  it('unknown and malformed digests', async () => {
    expectOciError(await request(hub, `${TINY}/blobs/sha256:${'9'.repeat(64)}`), 404, 'BLOB_UNKNOWN');
    // A file of another repository is not a blob of this one.
    expectOciError(await request(hub, `${TINY}/blobs/sha256:${'5'.repeat(64)}`), 404, 'BLOB_UNKNOWN');
    expectOciError(await request(hub, `${TINY}/blobs/sha256:xyz`), 400, 'DIGEST_INVALID');
    expectOciError(await request(hub, `${TINY}/blobs/latest`), 400, 'DIGEST_INVALID');
    expectOciError(await request(hub, `${TINY}/manifests/sha256:${'9'.repeat(64)}`), 404, 'MANIFEST_UNKNOWN');
    expectOciError(await request(hub, `${TINY}/manifests/sha256:nothex`), 400, 'DIGEST_INVALID');
  });
});

describe('names and errors', () => {
  it('an unknown repository is NAME_UNKNOWN and is recorded for the next index run', async () => {
    for (const path of [
      '/v2/nobody/nothing/manifests/latest',
      '/v2/nobody/nothing/tags/list',
      `/v2/nobody/nothing/blobs/sha256:${'1'.repeat(64)}`,
    ]) {
      expectOciError(await request(hub, path), 404, 'NAME_UNKNOWN');
    }
    expect(await t.deps.missing.list()).toContain('nobody/nothing');
  });

  it('an unknown tag is MANIFEST_UNKNOWN and lists the tags', async () => {
    const res = await request(hub, `${TINY}/manifests/Q2_K`);
    expectOciError(res, 404, 'MANIFEST_UNKNOWN');
    expect(res.json().errors[0].message).toContain('Q4_K_M');
  });

  it('a malformed name is NAME_INVALID; a name of other than two parts is NAME_UNKNOWN', async () => {
    expectOciError(await request(hub, '/v2/a%20b/c/tags/list'), 400, 'NAME_INVALID');
    expectOciError(await request(hub, '/v2/-x/c/manifests/latest'), 400, 'NAME_INVALID');
    expectOciError(await request(hub, '/v2/library/manifests/latest'), 404, 'NAME_UNKNOWN');
    expectOciError(await request(hub, '/v2/a/b/c/manifests/latest'), 404, 'NAME_UNKNOWN');
    expectOciError(await request(hub, '/v2/a/b/whatever'), 404, 'NAME_UNKNOWN');
    expectOciError(await request(hub, `${TINY}/manifests/`), 404, 'MANIFEST_UNKNOWN');
    // bad percent-encoding is refused by the hub itself, in this dialect's shape
    expectOciError(await request(hub, '/v2/a/b/c%zz/manifests/x'), 400, 'NAME_INVALID', false);
  });

  it('a dotted owner is also reachable through its dash alias; a real repository wins over an alias', async () => {
    const { res: direct } = await manifest(`${VIS}/manifests/latest`);
    const { res: alias } = await manifest('/v2/synthetic-org/vision-gguf/manifests/latest');
    expect(alias.text).toBe(direct.text);
    const blobRes = await request(hub, `/v2/synthetic-org/vision-gguf/blobs/sha256:${hex('b')}`);
    expect(blobRes.status).toBe(307);
    expect((await request(hub, '/v2/synthetic-org/vision-gguf/tags/list')).json().name).toBe('synthetic-org/vision-gguf');
    // synthetic.org/tiny-llama-GGUF's alias would be synthetic-org/tiny-llama-gguf, which is real.
    const { m } = await manifest(`${TINY}/manifests/latest`);
    expect(m.ggufFile.rfilename).toBe('tiny-llama-Q4_K_M.gguf');
    const { m: dotted } = await manifest('/v2/synthetic.org/tiny-llama-gguf/manifests/latest');
    expect(dotted.ggufFile.rfilename).toBe('other-Q4_K_M.gguf');
  });

  it('writes: 401 UNAUTHORIZED without the registry token, 405 UNSUPPORTED with it', async () => {
    const writes: Array<[string, string]> = [
      ['PUT', `${TINY}/manifests/latest`],
      ['DELETE', `${TINY}/manifests/latest`],
      ['POST', `${TINY}/blobs/uploads/`],
      ['PATCH', `${TINY}/blobs/uploads/some-session`],
      ['PUT', `${TINY}/blobs/uploads/some-session?digest=sha256:${'1'.repeat(64)}`],
      ['DELETE', `${TINY}/blobs/sha256:${'2'.repeat(64)}`],
      ['POST', '/v2/'],
      ['DELETE', '/v2/_catalog'],
      ['PUT', '/v2/new/repo/manifests/v1'],
    ];
    const basic = `Basic ${btoa('robot:test-registry-token')}`;
    for (const [method, path] of writes) {
      expectOciError(await request(hub, path, { method, body: 'x' }), 401, 'UNAUTHORIZED', false);
      expectOciError(
        await request(hub, path, { method, headers: { authorization: 'Bearer wrong' }, body: 'x' }),
        401,
        'UNAUTHORIZED',
        false,
      );
      for (const authorization of [basic, 'Bearer test-registry-token']) {
        const res = await request(hub, path, { method, headers: { authorization }, body: 'x' });
        expectOciError(res, 405, 'UNSUPPORTED');
      }
    }
  });

  it('credentials on reads are dropped, not refused', async () => {
    const res = await request(hub, `${TINY}/manifests/latest`, { headers: { ...OLLAMA, authorization: 'Bearer whatever' } });
    expect(res.status).toBe(200);
  });
});

describe('prepared once per index', () => {
  it('a repository (manifests and hub-made blobs) is built once and reused', async () => {
    const model = t.index.warm('synthetic-org/tiny-llama-GGUF');
    if (!model) throw new Error('fixture missing');
    const a = await repository(t.index, model);
    const b = await repository(t.index, model);
    expect(b).toBe(a);
    const { res } = await manifest(`${TINY}/manifests/latest`);
    const latest = a.manifests.get(a.tags.latest);
    expect(res.bytes).toEqual(latest?.docker.bytes);
  });
});
