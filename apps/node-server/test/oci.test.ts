import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { goTemplateProblem } from '@hub/dialect-oci';
import { demoTreeDir } from '@hub/node-toolkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHub, type TestHub } from './helpers.js';

/**
 * The OCI dialect driven over real HTTP on 127.0.0.1 by skopeo, by Ollama's pull sequence (protocols.md
 * 4.2, done with fetch) and by llama.cpp's older `-hf` request (protocols.md 3.1). Weight bytes come from
 * the loopback byte source on `localhost` (another hostname, as Ollama needs) through the hub's 307.
 */

const run = promisify(execFile);
const sha256 = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex');
const DEMO_DIR = demoTreeDir();

const OLLAMA_HEADERS = {
  accept: 'application/vnd.docker.distribution.manifest.v2+json',
  'user-agent': 'ollama/0.34.0 (amd64 linux) Go/go1.24.0',
};
const LLAMA_CPP_HEADERS = { accept: 'application/json', 'user-agent': 'llama-cpp' };

const skopeo = await run('skopeo', ['--version']).then(
  () => true,
  () => false,
);
if (!skopeo) console.warn('skopeo is not installed (apt-get install -y skopeo): the skopeo tests are skipped');
const golang = await run('go', ['version']).then(
  () => true,
  () => false,
);

/**
 * Parses Go text/templates as Ollama does (template.New("").Funcs(its FuncMap).Parse; the functions are
 * stubbed, since parsing only needs their names): a JSON array of templates on stdin, a JSON array of
 * errors ("" = parses) on stdout.
 */
const GO_PARSE = `package main

import (
	"encoding/json"
	"os"
	"text/template"
)

func main() {
	var in []string
	if err := json.NewDecoder(os.Stdin).Decode(&in); err != nil {
		panic(err)
	}
	funcs := template.FuncMap{
		"json":             func(v any) string { return "" },
		"currentDate":      func(args ...string) string { return "" },
		"yesterdayDate":    func(args ...string) string { return "" },
		"toTypeScriptType": func(v any) string { return "" },
		"formatDate":       func(args ...any) string { return "" },
	}
	out := make([]string, len(in))
	for i, s := range in {
		if _, err := template.New("").Option("missingkey=zero").Funcs(funcs).Parse(s); err != nil {
			out[i] = err.Error()
		}
	}
	json.NewEncoder(os.Stdout).Encode(out)
}
`;

async function goParseErrors(templates: string[]): Promise<string[]> {
  const dir = await tempDir('oci-go-');
  await writeFile(path.join(dir, 'main.go'), GO_PARSE);
  const child = execFile('go', ['run', 'main.go'], {
    cwd: dir,
    env: { ...process.env, HOME: dir, GOCACHE: path.join(dir, 'cache'), GO111MODULE: 'off' },
    timeout: 120_000,
  });
  child.stdin?.end(JSON.stringify(templates));
  let out = '';
  child.stdout?.on('data', (d) => {
    out += d;
  });
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  expect(code).toBe(0);
  return JSON.parse(out) as string[];
}

// ---- SYNTHETIC fixtures, written for these tests (not real model-host data) ----------------------

/** A header-only GGUF v3 (no tensors) with the given metadata, followed by `tail` filler bytes. */
function ggufBytes(kv: Array<[string, number | string]>, tail: number): Uint8Array {
  const parts: Buffer[] = [];
  const u32 = (n: number) => {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(n);
    return b;
  };
  const u64 = (n: number) => {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(n));
    return b;
  };
  const str = (s: string) => {
    const b = Buffer.from(s, 'utf8');
    return Buffer.concat([u64(b.length), b]);
  };
  parts.push(Buffer.from('GGUF'), u32(3), u64(0), u64(kv.length));
  for (const [k, v] of kv) parts.push(str(k), ...(typeof v === 'number' ? [u32(4), u32(v)] : [u32(8), str(v)]));
  const header = Buffer.concat(parts);
  const padded = Buffer.concat([header, Buffer.alloc((32 - (header.length % 32)) % 32)]);
  const filler = Buffer.from(Array.from({ length: tail }, (_, i) => (i * 2_654_435_761) >>> 24));
  return new Uint8Array(Buffer.concat([padded, filler]));
}

const CHATML =
  "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

const CHAT_MODEL = 'synthetic.org/chat-GGUF';
const CHAT_ALIAS = 'synthetic-org/chat-gguf'; // Ollama cannot pull a namespace with a dot
const CHAT_Q4 = ggufBytes(
  [
    ['general.architecture', 'llama'],
    ['general.name', 'SYNTHETIC chat test model'],
    ['llama.context_length', 2048],
    ['general.file_type', 15],
    ['tokenizer.chat_template', CHATML],
  ],
  300_000,
);
const CHAT_Q8 = ggufBytes(
  [
    ['general.architecture', 'llama'],
    ['general.name', 'SYNTHETIC chat test model'],
    ['llama.context_length', 2048],
    ['general.file_type', 7],
    ['tokenizer.chat_template', CHATML],
  ],
  500_000,
);
const CHAT_MMPROJ = ggufBytes(
  [
    ['general.architecture', 'clip'],
    ['general.name', 'SYNTHETIC projector'],
  ],
  20_000,
);
const CHAT_TREE: Record<string, Uint8Array | string> = {
  'README.md': '# chat-GGUF\n\nSYNTHETIC GGUF test model (header-only GGUF files with a ChatML chat template).\n',
  'chat-Q4_K_M.gguf': CHAT_Q4,
  'chat-Q8_0.gguf': CHAT_Q8,
  'mmproj-chat-F16.gguf': CHAT_MMPROJ,
  '.hub-facts.json': JSON.stringify({ license: 'mit', pipeline_tag: 'text-generation', library_name: 'gguf' }),
};
const CHAT_BY_PATH: Record<string, Uint8Array> = {
  'chat-Q4_K_M.gguf': CHAT_Q4,
  'chat-Q8_0.gguf': CHAT_Q8,
  'mmproj-chat-F16.gguf': CHAT_MMPROJ,
};

// ---- helpers ----------------------------------------------------------------------------------

const tmp: string[] = [];
async function tempDir(prefix: string): Promise<string> {
  const d = await mkdtemp(path.join(os.tmpdir(), prefix));
  tmp.push(d);
  return d;
}

function hostOf(url: string): string {
  return new URL(url).host;
}

interface Manifest {
  schemaVersion: number;
  mediaType: string;
  config: { mediaType: string; digest: string; size: number };
  layers: Array<{ mediaType: string; digest: string; size: number; annotations?: Record<string, string> }>;
  ggufFile?: { rfilename: string; blobId: string; size: number };
  mmprojFile?: { rfilename: string; blobId: string; size: number };
}

/**
 * Ollama's pull (protocols.md 4.2): manifest with its Accept; per blob HEAD (follows redirects) for the
 * size, GET without following a redirect to another hostname (307, or 200 + Location for hub-made
 * blobs), ranged part GETs on that direct URL, then the SHA-256 check. Returns every blob's bytes.
 */
async function ollamaPull(base: string, name: string, tag: string, partCount = 3) {
  const res = await fetch(`${base}/v2/${name}/manifests/${tag}`, { headers: OLLAMA_HEADERS });
  expect(res.status).toBe(200);
  const manifest = (await res.json()) as Manifest;
  expect(manifest.schemaVersion).toBe(2);
  expect(manifest.mediaType).toBe('application/vnd.docker.distribution.manifest.v2+json');
  const blobs = new Map<string, { bytes: Uint8Array; redirected: boolean; mediaType: string }>();
  for (const d of [...manifest.layers, manifest.config]) {
    expect(d.digest).toMatch(/^sha256[:-][0-9a-fA-F]{64}$/);
    const url = `${base}/v2/${name}/blobs/${d.digest}`;
    const head = await fetch(url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    const total = Number(head.headers.get('content-length'));
    expect(total).toBe(d.size);
    const get = await fetch(url, { redirect: 'manual', headers: { 'user-agent': OLLAMA_HEADERS['user-agent'] } });
    const location = get.headers.get('location');
    expect(location, `${d.mediaType} has a Location`).toBeTruthy();
    const direct = new URL(location as string, url).href;
    const redirected = get.status === 307;
    if (redirected) {
      expect(hostOf(direct)).not.toBe(hostOf(url));
      expect(new URL(direct).hostname).toBe('localhost');
      await get.body?.cancel();
    } else {
      expect(get.status).toBe(200);
      expect(direct).toBe(url);
      await get.arrayBuffer();
    }
    const bytes = new Uint8Array(total);
    const size = Math.max(1, Math.ceil(total / partCount));
    for (let start = 0; start < total; start += size) {
      const end = Math.min(total, start + size) - 1;
      const part = await fetch(direct, { headers: { range: `bytes=${start}-${end}` } });
      const got = new Uint8Array(await part.arrayBuffer());
      expect(got.byteLength).toBe(end - start + 1);
      bytes.set(got, start);
    }
    expect(`sha256:${sha256(bytes)}`).toBe(d.digest.toLowerCase());
    blobs.set(d.digest, { bytes, redirected, mediaType: d.mediaType });
  }
  return { manifest, blobs };
}

/** The fields of Ollama's ConfigV2 (types/model/config.go), with the JSON types Go decodes them into. */
function expectOllamaConfig(bytes: Uint8Array) {
  const config = JSON.parse(Buffer.from(bytes).toString('utf8'));
  const strings = ['model_format', 'model_family', 'model_type', 'file_type', 'architecture', 'os'];
  for (const k of strings) if (k in config) expect(typeof config[k], k).toBe('string');
  if ('model_families' in config) expect(config.model_families.every((f: unknown) => typeof f === 'string')).toBe(true);
  if ('context_length' in config) expect(Number.isInteger(config.context_length)).toBe(true);
  expect(config.model_format).toBe('gguf');
  expect(config.architecture).toBe('amd64');
  expect(config.os).toBe('linux');
  expect(config).not.toHaveProperty('remote_host');
  expect(config).not.toHaveProperty('remote_model');
  return config;
}

async function skopeoCopy(base: string, ref: string): Promise<{ dir: string; manifest: Manifest }> {
  const dir = await tempDir('oci-skopeo-');
  const host = hostOf(base);
  await run('skopeo', ['copy', '--src-tls-verify=false', `docker://${host}/${ref}`, `dir:${dir}`], { timeout: 60_000 });
  const manifest = JSON.parse(await readFile(path.join(dir, 'manifest.json'), 'utf8')) as Manifest;
  // dir: holds each blob under its hex digest: hash them all.
  for (const d of [manifest.config, ...manifest.layers]) {
    const bytes = await readFile(path.join(dir, d.digest.slice('sha256:'.length)));
    expect(bytes.byteLength).toBe(d.size);
    expect(`sha256:${sha256(bytes)}`).toBe(d.digest);
  }
  return { dir, manifest };
}

async function skopeoInspect(base: string, ref: string): Promise<any> {
  const { stdout } = await run('skopeo', ['inspect', '--tls-verify=false', `docker://${hostOf(base)}/${ref}`], { timeout: 60_000 });
  return JSON.parse(stdout);
}

afterAll(async () => {
  for (const d of tmp) await rm(d, { recursive: true, force: true });
});

// ---- the bundled demo index -------------------------------------------------------------------

describe('the demo index (a real tiny GGUF and a small transformers-style model)', () => {
  let hub: TestHub;
  const GGUF = 'demo/tiny-llama-2-gguf';
  const GGUF_FILE = 'llama-2-tiny-random-F16.gguf';
  const BERT = 'demo/tiny-bert-synthetic';
  let ggufBytesOnDisk: Buffer;

  beforeAll(async () => {
    hub = await startTestHub();
    ggufBytesOnDisk = await readFile(path.join(DEMO_DIR, 'demo', 'tiny-llama-2-GGUF', GGUF_FILE));
  });
  afterAll(async () => {
    await hub?.close();
  });

  it('answers the API check, the catalog and the tags', async () => {
    const v2 = await fetch(`${hub.url}/v2/`);
    expect(v2.status).toBe(200);
    expect(v2.headers.get('docker-distribution-api-version')).toBe('registry/2.0');
    expect(await v2.json()).toEqual({});
    const catalog = await (await fetch(`${hub.url}/v2/_catalog`)).json();
    expect(catalog.repositories).toEqual(expect.arrayContaining([GGUF, BERT]));
    expect(await (await fetch(`${hub.url}/v2/${GGUF}/tags/list`)).json()).toEqual({ name: GGUF, tags: ['F16', 'latest', GGUF_FILE] });
    expect(await (await fetch(`${hub.url}/v2/${BERT}/tags/list`)).json()).toEqual({ name: BERT, tags: ['latest'] });
  });

  it("weight blobs redirect (307) to the loopback byte source: Ollama's on another hostname, others on the one they used", async () => {
    const digest = `sha256:${sha256(ggufBytesOnDisk)}`;
    const port = new URL(hub.mirrorUrl).port;
    expect(new URL(hub.url).hostname).toBe('127.0.0.1');
    const ollama = await fetch(`${hub.url}/v2/${GGUF}/blobs/${digest}`, {
      redirect: 'manual',
      headers: { 'user-agent': 'ollama/0.34.2 (amd64 linux) Go/go1.24.0' },
    });
    expect(ollama.status).toBe(307);
    expect(new URL(ollama.headers.get('location') as string).host).toBe(`localhost:${port}`);
    const res = await fetch(`${hub.url}/v2/${GGUF}/blobs/${digest}`, { redirect: 'manual' });
    expect(res.status).toBe(307);
    expect(new URL(res.headers.get('location') as string).host).toBe(`127.0.0.1:${port}`);
  });

  it.skipIf(!skopeo)('skopeo inspect succeeds on the GGUF quant tag and on the non-GGUF model', async () => {
    const info = await skopeoInspect(hub.url, `${GGUF}:F16`);
    expect(info.Architecture).toBe('amd64');
    expect(info.Os).toBe('linux');
    expect(info.Layers).toContain(`sha256:${sha256(ggufBytesOnDisk)}`);
    expect(info.Digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    const manifest = await fetch(`${hub.url}/v2/${GGUF}/manifests/${info.Digest}`);
    expect(manifest.headers.get('content-type')).toBe('application/vnd.oci.image.manifest.v1+json');
    expect(sha256(new Uint8Array(await manifest.arrayBuffer()))).toBe(info.Digest.slice(7));
    const bert = await skopeoInspect(hub.url, `${BERT}:latest`);
    expect(bert.Layers.length).toBeGreaterThan(0);
  });

  it.skipIf(!skopeo)('skopeo copy … dir: fetches every layer of the GGUF through the 307, each hashing to its digest', async () => {
    const { dir, manifest } = await skopeoCopy(hub.url, `${GGUF}:F16`);
    expect(manifest.mediaType).toBe('application/vnd.oci.image.manifest.v1+json');
    const model = manifest.layers.find((l) => l.mediaType === 'application/vnd.ollama.image.model');
    expect(model?.digest).toBe(`sha256:${sha256(ggufBytesOnDisk)}`);
    const copied = await readFile(path.join(dir, sha256(ggufBytesOnDisk)));
    expect(Buffer.compare(copied, ggufBytesOnDisk)).toBe(0);
  });

  it.skipIf(!skopeo)('skopeo copy … dir: fetches every file of the non-GGUF model, titled by path', async () => {
    const { dir, manifest } = await skopeoCopy(hub.url, `${BERT}:latest`);
    const onDisk = (await readdir(path.join(DEMO_DIR, BERT))).filter((f) => !f.startsWith('.'));
    const titles = manifest.layers.map((l) => l.annotations?.['org.opencontainers.image.title']);
    expect([...titles].sort()).toEqual([...onDisk].sort());
    for (const l of manifest.layers) {
      const original = await readFile(path.join(DEMO_DIR, BERT, l.annotations?.['org.opencontainers.image.title'] as string));
      expect(Buffer.compare(await readFile(path.join(dir, l.digest.slice(7))), original)).toBe(0);
    }
  });

  it("Ollama's pull sequence: 307 for the GGUF, 200 + Location for hub-made blobs, ranged parts, SHA-256 of each", async () => {
    const { manifest, blobs } = await ollamaPull(hub.url, GGUF, 'f16');
    const model = blobs.get(`sha256:${sha256(ggufBytesOnDisk)}`);
    expect(model?.redirected).toBe(true);
    expect(model?.mediaType).toBe('application/vnd.ollama.image.model');
    const config = expectOllamaConfig(blobs.get(manifest.config.digest)?.bytes as Uint8Array);
    // Facts read from the real GGUF header.
    expect(config).toMatchObject({ model_family: 'llama', model_families: ['llama'], file_type: 'F16', context_length: 4096 });
    expect(blobs.get(manifest.config.digest)?.redirected).toBe(false);
  });

  it("llama.cpp's older request gets ggufFile, which downloads through /resolve/main/", async () => {
    const res = await fetch(`${hub.url}/v2/${GGUF}/manifests/latest`, { headers: LLAMA_CPP_HEADERS });
    expect(res.status).toBe(200);
    const m = (await res.json()) as Manifest;
    expect(m.ggufFile?.rfilename).toBe(GGUF_FILE);
    const url = `${hub.url}/${GGUF}/resolve/main/${m.ggufFile?.rfilename}`;
    const head = await fetch(url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(Number(head.headers.get('content-length'))).toBe(m.ggufFile?.size);
    const get = await fetch(url);
    expect(get.status).toBe(200);
    const bytes = new Uint8Array(await get.arrayBuffer());
    expect(`sha256:${sha256(bytes)}`).toBe(m.ggufFile?.blobId);
  });

  it.runIf(skopeo)('skopeo copies the ModelPack tags (artifactType, raw layers, every blob hashed)', async () => {
    for (const ref of [`${GGUF}:F16-modelpack`, `${BERT}:latest-modelpack`]) {
      const { manifest } = await skopeoCopy(hub.url, ref);
      expect((manifest as Manifest & { artifactType?: string }).artifactType).toBe('application/vnd.cncf.model.manifest.v1+json');
      for (const l of manifest.layers) expect(l.annotations?.['org.cncf.model.filepath']).toBeTruthy();
    }
  });

  it('errors keep the OCI shape over HTTP', async () => {
    const cases: Array<[string, RequestInit, number, string]> = [
      [`/v2/nobody/nothing/manifests/latest`, {}, 404, 'NAME_UNKNOWN'],
      [`/v2/${BERT}/manifests/Q4_K_M`, {}, 404, 'MANIFEST_UNKNOWN'],
      [`/v2/${GGUF}/blobs/sha256:${'0'.repeat(64)}`, {}, 404, 'BLOB_UNKNOWN'],
      [`/v2/${GGUF}/manifests/latest`, { method: 'PUT', body: '{}' }, 401, 'UNAUTHORIZED'],
      [`/v2/${GGUF}/blobs/uploads/`, { method: 'POST' }, 401, 'UNAUTHORIZED'],
    ];
    for (const [p, init, status, code] of cases) {
      const res = await fetch(`${hub.url}${p}`, init);
      expect(res.status, p).toBe(status);
      expect((await res.json()).errors[0].code).toBe(code);
    }
  });
});

// ---- a SYNTHETIC GGUF with a chat template, a projector and a dotted owner ----------------------

describe('a GGUF with a chat template, a projector and a dotted owner (SYNTHETIC)', () => {
  let hub: TestHub;

  beforeAll(async () => {
    hub = await startTestHub({ trees: { [CHAT_MODEL]: CHAT_TREE } });
  });
  afterAll(async () => {
    await hub?.close();
  });

  it("Ollama's pull through the dash alias: model, projector, template, params, licence, config", async () => {
    const { manifest, blobs } = await ollamaPull(hub.url, CHAT_ALIAS, 'q4_k_m');
    const byType = (t: string) => [...blobs.values()].filter((b) => b.mediaType === `application/vnd.ollama.image.${t}`);
    expect(sha256(byType('model')[0]?.bytes as Uint8Array)).toBe(sha256(CHAT_Q4));
    expect(sha256(byType('projector')[0]?.bytes as Uint8Array)).toBe(sha256(CHAT_MMPROJ));
    expect(byType('model')[0]?.redirected).toBe(true);
    const template = Buffer.from(byType('template')[0]?.bytes as Uint8Array).toString('utf8');
    expect(template).toContain('{{ .Prompt }}');
    expect(template).toContain('<|im_start|>');
    expect(goTemplateProblem(template)).toBeUndefined();
    const params = JSON.parse(Buffer.from(byType('params')[0]?.bytes as Uint8Array).toString('utf8'));
    expect(params.stop).toEqual(expect.arrayContaining(['<|im_end|>']));
    expect(Buffer.from(byType('license')[0]?.bytes as Uint8Array).toString('utf8')).toBe('mit');
    for (const t of ['template', 'params', 'license']) expect(byType(t)[0]?.redirected).toBe(false);
    const config = expectOllamaConfig(blobs.get(manifest.config.digest)?.bytes as Uint8Array);
    expect(config).toMatchObject({ model_family: 'llama', model_families: ['llama', 'clip'], file_type: 'Q4_K_M', context_length: 2048 });
    // The alias and the real name give the same manifest bytes.
    const direct = await fetch(`${hub.url}/v2/${CHAT_MODEL.toLowerCase()}/manifests/Q4_K_M`, { headers: OLLAMA_HEADERS });
    const alias = await fetch(`${hub.url}/v2/${CHAT_ALIAS}/manifests/Q4_K_M`, { headers: OLLAMA_HEADERS });
    expect(await direct.text()).toBe(await alias.text());
  });

  it.skipIf(!golang)("the template layer parses with Go's text/template as Ollama parses it", async () => {
    const m = (await (await fetch(`${hub.url}/v2/${CHAT_ALIAS}/manifests/latest`, { headers: OLLAMA_HEADERS })).json()) as Manifest;
    const layer = m.layers.find((l) => l.mediaType === 'application/vnd.ollama.image.template');
    const template = await (await fetch(`${hub.url}/v2/${CHAT_ALIAS}/blobs/${layer?.digest}`)).text();
    // Controls: the Go parser and the hub's own check refuse the same malformed templates.
    const broken = ['{{ if .System }}no end', '{{ end }}', '{{ .Prompt ', '{{ else }}'];
    const errors = await goParseErrors([template, ...broken]);
    expect(errors[0]).toBe('');
    for (const [i, t] of broken.entries()) {
      expect(errors[i + 1], t).not.toBe('');
      expect(goTemplateProblem(t), t).toBeDefined();
    }
  });

  it("llama.cpp's older request: ggufFile and mmprojFile download through /resolve/main/", async () => {
    const res = await fetch(`${hub.url}/v2/${CHAT_ALIAS}/manifests/Q8_0`, { headers: LLAMA_CPP_HEADERS });
    expect(res.status).toBe(200);
    const m = (await res.json()) as Manifest;
    expect(m.ggufFile?.rfilename).toBe('chat-Q8_0.gguf');
    expect(m.mmprojFile?.rfilename).toBe('mmproj-chat-F16.gguf');
    for (const f of [m.ggufFile, m.mmprojFile]) {
      // llama.cpp builds the URL from the repository it was given and the file name.
      const get = await fetch(`${hub.url}/${CHAT_MODEL}/resolve/main/${f?.rfilename}`);
      expect(get.status).toBe(200);
      const bytes = new Uint8Array(await get.arrayBuffer());
      expect(bytes.byteLength).toBe(f?.size);
      expect(`sha256:${sha256(bytes)}`).toBe(f?.blobId);
      expect(sha256(bytes)).toBe(sha256(CHAT_BY_PATH[f?.rfilename as string] as Uint8Array));
    }
  });

  it.skipIf(!skopeo)('skopeo inspect and copy the GGUF with its hub-made layers', async () => {
    const info = await skopeoInspect(hub.url, `${CHAT_ALIAS}:q8_0`);
    expect(info.Labels).toMatchObject({ file_type: 'Q8_0', model_family: 'llama', 'org.opencontainers.image.licenses': 'mit' });
    const { manifest } = await skopeoCopy(hub.url, `${CHAT_MODEL.toLowerCase()}:Q8_0`);
    expect(manifest.layers.map((l) => l.mediaType)).toEqual([
      'application/vnd.ollama.image.model',
      'application/vnd.ollama.image.projector',
      'application/vnd.ollama.image.template',
      'application/vnd.ollama.image.params',
      'application/vnd.ollama.image.license',
    ]);
  });
});
