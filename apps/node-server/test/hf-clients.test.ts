import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { downloadFile, fileDownloadInfo, fileExists, listFiles, listModels, modelInfo, snapshotDownload } from '@huggingface/hub';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHub, type TestHub } from './helpers.js';

/**
 * The model-host dialect driven by the host's real clients over HTTP on 127.0.0.1, against node-server
 * and its loopback byte source (a static mirror on localhost that honours Range and sends an ETag).
 */

const run = promisify(execFile);
const sha256 = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex');

// ---- SYNTHETIC fixture: a tiny transformers-style model written for these tests -------------------
// The tokenizer is a hand-written WordLevel vocabulary; config and weights are made up. None of it is
// real model-host data.

const MODEL = 'synthetic-hf/tiny-wordlevel';
const VOCAB = { '[UNK]': 0, '[PAD]': 1, hello: 2, world: 3, hub: 4, model: 5, files: 6 };
const TOKENIZER_JSON = JSON.stringify({
  version: '1.0',
  truncation: null,
  padding: null,
  added_tokens: [
    { id: 0, content: '[UNK]', single_word: false, lstrip: false, rstrip: false, normalized: false, special: true },
    { id: 1, content: '[PAD]', single_word: false, lstrip: false, rstrip: false, normalized: false, special: true },
  ],
  normalizer: { type: 'Lowercase' },
  pre_tokenizer: { type: 'Whitespace' },
  post_processor: null,
  decoder: null,
  model: { type: 'WordLevel', vocab: VOCAB, unk_token: '[UNK]' },
});
const TOKENIZER_CONFIG = JSON.stringify({
  _comment: 'SYNTHETIC test tokenizer',
  tokenizer_class: 'PreTrainedTokenizerFast',
  model_max_length: 16,
  unk_token: '[UNK]',
  pad_token: '[PAD]',
});
const CONFIG = JSON.stringify({
  _comment: 'SYNTHETIC test config',
  model_type: 'bert',
  architectures: ['BertModel'],
  vocab_size: Object.keys(VOCAB).length,
  hidden_size: 8,
  num_hidden_layers: 1,
  num_attention_heads: 2,
  intermediate_size: 16,
  max_position_embeddings: 16,
});
/** SYNTHETIC "weights": deterministic pseudo-random bytes. */
const WEIGHTS = Uint8Array.from({ length: 40_000 }, (_, i) => (i * 2_654_435_761) >>> 24);

const TREE: Record<string, Uint8Array | string> = {
  'README.md': '# tiny-wordlevel\n\nSYNTHETIC test model for the hub.\n',
  'config.json': CONFIG,
  'tokenizer.json': TOKENIZER_JSON,
  'tokenizer_config.json': TOKENIZER_CONFIG,
  'model.safetensors': WEIGHTS,
  'extra/notes v1.txt': 'a file in a folder, with a space in its name\n',
};

let hub: TestHub;
let commit: string;
const tmp: string[] = [];

async function tempDir(prefix: string): Promise<string> {
  const d = await mkdtemp(path.join(os.tmpdir(), prefix));
  tmp.push(d);
  return d;
}

beforeAll(async () => {
  hub = await startTestHub({ trees: { [MODEL]: TREE } });
  commit = (await (await fetch(`${hub.url}/api/models/${MODEL}`)).json()).sha;
});
afterAll(async () => {
  await hub?.close();
  for (const d of tmp) await rm(d, { recursive: true, force: true });
});

describe('@huggingface/hub against the hub', () => {
  it('modelInfo answers the indexed commit and every file', async () => {
    const info = await modelInfo({ name: MODEL, hubUrl: hub.url, additionalFields: ['sha', 'filePaths'] });
    expect(info.name).toBe(MODEL);
    expect(info.private).toBe(false);
    expect(info.sha).toMatch(/^[0-9a-f]{40}$/);
    expect(info.sha).toBe(commit);
    expect([...info.filePaths].sort()).toEqual(Object.keys(TREE).sort());
  });

  it('listFiles lists every file recursively with oid = SHA-256, and a folder on its own', async () => {
    const entries = [];
    for await (const e of listFiles({ repo: MODEL, hubUrl: hub.url, recursive: true })) entries.push(e);
    expect(entries.map((e) => e.path).sort()).toEqual(Object.keys(TREE).sort());
    for (const e of entries) {
      expect(e.type).toBe('file');
      expect(e.oid).toBe(sha256(TREE[e.path] as Uint8Array | string));
      expect(e).not.toHaveProperty('xetHash');
    }
    expect(entries.find((e) => e.path === 'model.safetensors')?.lfs).toEqual({
      oid: sha256(WEIGHTS),
      size: WEIGHTS.byteLength,
      pointerSize: 130,
    });
    const folder = [];
    for await (const e of listFiles({ repo: MODEL, hubUrl: hub.url, path: 'extra', revision: commit })) folder.push(e.path);
    expect(folder).toEqual(['extra/notes v1.txt']);
  });

  it('fileDownloadInfo follows the 302 to the byte source and reads size and ETag there', async () => {
    const info = await fileDownloadInfo({ repo: MODEL, path: 'model.safetensors', hubUrl: hub.url });
    expect(info).not.toBeNull();
    expect(info?.size).toBe(WEIGHTS.byteLength);
    expect(info?.etag).toBeTruthy();
    expect(info?.xet).toBeUndefined();
    const missing = await fileDownloadInfo({ repo: MODEL, path: 'nope.bin', hubUrl: hub.url });
    expect(missing).toBeNull();
  });

  it('downloadFile returns the exact bytes, whose SHA-256 is the index value', async () => {
    const tree = (await (await fetch(`${hub.url}/api/models/${MODEL}/tree/main?recursive=true`)).json()) as Array<{
      path: string;
      oid: string;
    }>;
    for (const file of ['model.safetensors', 'tokenizer.json', 'extra/notes v1.txt']) {
      const blob = await downloadFile({ repo: MODEL, path: file, hubUrl: hub.url });
      expect(blob, file).not.toBeNull();
      const bytes = new Uint8Array(await (blob as Blob).arrayBuffer());
      expect(sha256(bytes)).toBe(tree.find((e) => e.path === file)?.oid);
    }
    expect(await downloadFile({ repo: MODEL, path: 'missing.txt', hubUrl: hub.url })).toBeNull();
  });

  it('fileExists is true for a file and false for a missing one (HEAD /raw/)', async () => {
    expect(await fileExists({ repo: MODEL, path: 'config.json', hubUrl: hub.url })).toBe(true);
    expect(await fileExists({ repo: MODEL, path: 'extra/notes v1.txt', hubUrl: hub.url })).toBe(true);
    expect(await fileExists({ repo: MODEL, path: 'not-there.json', hubUrl: hub.url })).toBe(false);
  });

  it('snapshotDownload fetches every file into a cache folder named by the commit, hashes matching the index', async () => {
    const cacheDir = await tempDir('hf-cache-');
    const folder = await snapshotDownload({ repo: MODEL, hubUrl: hub.url, cacheDir });
    expect(path.basename(folder)).toBe(commit);
    for (const [p, content] of Object.entries(TREE)) {
      const bytes = await readFile(path.join(folder, p));
      expect(sha256(bytes), p).toBe(sha256(content));
    }
    const blobs = await readdir(path.join(cacheDir, 'models--synthetic-hf--tiny-wordlevel', 'blobs'));
    // Blobs are named by the SHA-256 the hub reported (lfs.oid, else oid).
    expect(blobs.sort()).toEqual(
      Object.values(TREE)
        .map((c) => sha256(c))
        .sort(),
    );
    expect((await readFile(path.join(cacheDir, 'models--synthetic-hf--tiny-wordlevel', 'refs', 'main'), 'utf8')).trim()).toBe(commit);
  });
});

describe('the huggingface_hub wire flow over real HTTP (Flow A, snapshot listing, paths-info form body)', () => {
  it('HEAD /resolve/ without following: the 302 carries X-Repo-Commit, X-Linked-Etag, X-Linked-Size and an absolute Location', async () => {
    const res = await fetch(`${hub.url}/${MODEL}/resolve/main/model.safetensors`, {
      method: 'HEAD',
      redirect: 'manual',
      headers: { 'accept-encoding': 'identity', authorization: 'Bearer hf_not_a_real_token_at_all_0000000000' },
    });
    expect(res.status).toBe(302);
    expect(res.headers.get('x-repo-commit')).toBe(commit);
    expect(res.headers.get('x-linked-etag')).toBe(`"${sha256(WEIGHTS)}"`);
    expect(res.headers.get('etag')).toBe(`"${sha256(WEIGHTS)}"`);
    expect(res.headers.get('x-linked-size')).toBe(String(WEIGHTS.byteLength));
    expect(res.headers.get('x-hub-source')).toBe('test-mirror');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('repr-digest')).toBe(`sha-256=:${Buffer.from(sha256(WEIGHTS), 'hex').toString('base64')}:`);
    const location = res.headers.get('location') as string;
    expect(location).toMatch(/^http:\/\/localhost:\d+\//);
    // Resume: a Range request to the Location answers 206 with the tail.
    const tail = await fetch(location, { headers: { range: 'bytes=39990-' } });
    expect(tail.status).toBe(206);
    expect(new Uint8Array(await tail.arrayBuffer())).toEqual(WEIGHTS.slice(39_990));
  });

  it('a missing file is 404 EntryNotFound with X-Repo-Commit; a missing revision RevisionNotFound; a missing repo RepoNotFound', async () => {
    const entry = await fetch(`${hub.url}/${MODEL}/resolve/main/nope.bin`, { method: 'HEAD' });
    expect([entry.status, entry.headers.get('x-error-code'), entry.headers.get('x-repo-commit')]).toEqual([404, 'EntryNotFound', commit]);
    const rev = await fetch(`${hub.url}/api/models/${MODEL}/revision/refs%2Fpr%2F1`);
    expect([rev.status, rev.headers.get('x-error-code')]).toEqual([404, 'RevisionNotFound']);
    expect((await rev.json()).error).toContain(commit);
    const repo = await fetch(`${hub.url}/api/models/synthetic-hf/never-indexed`);
    expect([repo.status, repo.headers.get('x-error-code')]).toEqual([404, 'RepoNotFound']);
    expect(typeof (await repo.json()).error).toBe('string');
  });

  it('revision/main then tree/{sha}?recursive=true&expand=false, with encoded revisions and 304 on If-None-Match', async () => {
    const info = await (await fetch(`${hub.url}/api/models/${MODEL}/revision/refs%2Fheads%2Fmain`)).json();
    expect(info.sha).toBe(commit);
    const tree = await fetch(`${hub.url}/api/models/${MODEL}/tree/${info.sha}?recursive=True&expand=False`);
    expect(tree.status).toBe(200);
    expect(tree.headers.get('cache-control')).toBe('public, max-age=60');
    const etag = tree.headers.get('etag') as string;
    expect((await tree.json()).length).toBe(Object.keys(TREE).length);
    const again = await fetch(`${hub.url}/api/models/${MODEL}/tree/${info.sha}?recursive=True&expand=False`, {
      headers: { 'if-none-match': etag },
    });
    expect(again.status).toBe(304);
  });

  it('paths-info with a form body, as huggingface_hub sends it', async () => {
    const res = await fetch(`${hub.url}/api/models/${MODEL}/paths-info/main`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams([
        ['paths', 'config.json'],
        ['paths', 'extra/notes v1.txt'],
        ['expand', 'false'],
      ]).toString(),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    const entries = (await res.json()) as Array<{ path: string; oid: string }>;
    expect(entries.map((e) => [e.path, e.oid])).toEqual([
      ['config.json', sha256(CONFIG)],
      ['extra/notes v1.txt', sha256(TREE['extra/notes v1.txt'] as string)],
    ]);
  });
});

describe('listModels across pages', () => {
  let many: TestHub;
  const COUNT = 505;
  beforeAll(async () => {
    const trees: Record<string, Record<string, string>> = {};
    // SYNTHETIC: 505 one-file models, more than one page of 500.
    for (let i = 0; i < COUNT; i++) trees[`synthetic-page/m${String(i).padStart(3, '0')}`] = { 'config.json': `{"i":${i}}` };
    many = await startTestHub({ trees });
  }, 120_000);
  afterAll(async () => {
    await many?.close();
  });

  it('follows Link rel="next" and sees every model once', async () => {
    const names: string[] = [];
    const seenUrls: string[] = [];
    const tracking: typeof fetch = async (input, init) => {
      seenUrls.push(String(input));
      return fetch(input, init);
    };
    for await (const m of listModels({ hubUrl: many.url, fetch: tracking })) names.push(m.name);
    expect(names).toHaveLength(COUNT);
    expect(new Set(names).size).toBe(COUNT);
    expect(seenUrls).toHaveLength(2);
    expect(seenUrls[1]).toMatch(new RegExp(`^${many.url}/api/models\\?.*cursor=`));
  });

  it('stops at the asked limit', async () => {
    const names: string[] = [];
    for await (const m of listModels({ hubUrl: many.url, limit: 3 })) names.push(m.name);
    expect(names).toHaveLength(3);
  });
});

describe('@huggingface/transformers with env.remoteHost at the hub', () => {
  it('loads AutoConfig and AutoTokenizer of the SYNTHETIC model', async () => {
    const { env, AutoConfig, AutoTokenizer } = await import('@huggingface/transformers');
    env.remoteHost = `${hub.url}/`;
    env.allowLocalModels = false;
    env.allowRemoteModels = true;
    env.cacheDir = await tempDir('tfjs-cache-');
    const config = (await AutoConfig.from_pretrained(MODEL)) as unknown as { model_type: string; hidden_size: number };
    expect(config.model_type).toBe('bert');
    expect(config.hidden_size).toBe(8);
    const tokenizer = await AutoTokenizer.from_pretrained(MODEL);
    const ids = tokenizer.encode('Hello hub WORLD unknownword', { add_special_tokens: false });
    expect(ids).toEqual([2, 4, 3, 0]);
    expect(tokenizer.decode([2, 3])).toContain('hello');
  }, 60_000);
});

describe('SHA256SUMS with the real sha256sum -c', () => {
  it('passes on every file fetched through /resolve/, and fails after one byte changes', async () => {
    const dir = await tempDir('sha256sums-');
    const tree = (await (await fetch(`${hub.url}/api/models/${MODEL}/tree/main?recursive=true`)).json()) as Array<{ path: string }>;
    for (const { path: p } of tree) {
      const res = await fetch(`${hub.url}/${MODEL}/resolve/main/${p.split('/').map(encodeURIComponent).join('/')}`);
      expect(res.status, p).toBe(200);
      expect(res.redirected).toBe(true);
      const file = path.join(dir, p);
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, new Uint8Array(await res.arrayBuffer()));
    }
    const sums = await fetch(`${hub.url}/${MODEL}/resolve/main/SHA256SUMS`);
    expect(sums.status).toBe(200);
    const text = await sums.text();
    expect(text.split('\n').filter(Boolean)).toHaveLength(Object.keys(TREE).length);
    const atCommit = await (await fetch(`${hub.url}/${MODEL}/resolve/${commit}/SHA256SUMS`)).text();
    expect(atCommit).toBe(text);
    await writeFile(path.join(dir, 'SHA256SUMS'), text);
    const ok = await run('sha256sum', ['-c', '--strict', 'SHA256SUMS'], { cwd: dir });
    expect(ok.stdout).toContain('model.safetensors: OK');
    expect(ok.stdout).toContain('extra/notes v1.txt: OK');

    const target = path.join(dir, 'model.safetensors');
    const bytes = await readFile(target);
    bytes[1234] = (bytes[1234] as number) ^ 0x01;
    await writeFile(target, bytes);
    const failed = await run('sha256sum', ['-c', 'SHA256SUMS'], { cwd: dir }).then(
      () => ({ code: 0, stdout: '' }),
      (e: { code: number; stdout: string }) => e,
    );
    expect(failed.code).toBe(1);
    expect(failed.stdout).toContain('model.safetensors: FAILED');
  });
});

describe('llama.cpp newer-era sequence against the demo index', () => {
  let demo: TestHub;
  beforeAll(async () => {
    demo = await startTestHub();
  });
  afterAll(async () => {
    await demo?.close();
  });

  it('refs → tree/{commit}?recursive=true → HEAD resolve following the redirect → GET with Range', async () => {
    const headers = { 'user-agent': 'llama-cpp/b9999', accept: 'application/json' };
    const id = 'demo/tiny-llama-2-GGUF';
    const refs = await fetch(`${demo.url}/api/models/${id}/refs`, { headers });
    expect(refs.status).toBe(200);
    const branches = (await refs.json()).branches as Array<{ name: string; targetCommit: string }>;
    const main = branches.find((b) => b.name === 'main');
    expect(main?.targetCommit).toMatch(/^[0-9a-f]{40}$/);
    const target = main?.targetCommit as string;

    const treeRes = await fetch(`${demo.url}/api/models/${id}/tree/${target}?recursive=true`, { headers });
    expect(treeRes.status).toBe(200);
    expect(treeRes.headers.get('link')).toBeNull();
    const tree = (await treeRes.json()) as Array<{ type: string; path: string; oid: string; size: number; lfs?: { oid: string } }>;
    expect(Array.isArray(tree)).toBe(true);
    const gguf = tree.find((e) => e.type === 'file' && e.path.endsWith('.gguf'));
    expect(gguf).toBeDefined();
    const oid = gguf?.lfs?.oid ?? gguf?.oid;
    expect(oid).toMatch(/^[0-9a-f]{64}$/);

    const url = `${demo.url}/${id}/resolve/${target}/${gguf?.path}`;
    const hop = await fetch(url, { method: 'HEAD', redirect: 'manual', headers });
    expect(hop.status).toBe(302);
    expect(hop.headers.get('x-repo-commit')).toBe(target);
    expect(hop.headers.get('x-linked-etag')).toBe(`"${oid}"`);
    const head = await fetch(url, { method: 'HEAD', headers });
    expect(head.status).toBe(200);
    expect(head.redirected).toBe(true);
    expect(head.headers.get('etag')).toBeTruthy();
    expect(Number(head.headers.get('content-length'))).toBe(gguf?.size);
    expect(head.headers.get('accept-ranges')).toBe('bytes');

    const part = await fetch(url, { headers: { ...headers, range: 'bytes=0-3' } });
    expect(part.status).toBe(206);
    expect(new TextDecoder().decode(await part.arrayBuffer())).toBe('GGUF');
    const full = await fetch(url, { headers });
    expect(full.status).toBe(200);
    expect(sha256(new Uint8Array(await full.arrayBuffer()))).toBe(oid);
  });

  it('no answer of the sequence carries a Xet signal', async () => {
    const id = 'demo/tiny-llama-2-GGUF';
    const info = await (await fetch(`${demo.url}/api/models/${id}?blobs=true`)).json();
    for (const url of [
      `${demo.url}/api/models/${id}/refs`,
      `${demo.url}/api/models/${id}/tree/${info.sha}?recursive=true&expand=true`,
      `${demo.url}/api/models/${id}?blobs=true`,
      `${demo.url}/${id}/resolve/main/${info.siblings[0].rfilename}`,
    ]) {
      const res = await fetch(url, { redirect: 'manual' });
      for (const [k, v] of res.headers) {
        expect(k).not.toMatch(/^x-xet-/);
        expect(v.toLowerCase()).not.toContain('xet');
      }
      expect((await res.text()).toLowerCase()).not.toContain('xethash');
    }
  });
});
