import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { tempDirs } from '@hub/node-toolkit/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getCommand } from '../src/cli-get.js';
import { startTestHub, type TestHub } from './helpers.js';

/**
 * The examples a new user meets first, EXECUTED against the demo hub: every command of `/agent.md`, of the `/`
 * brief and of each model page is read out of the text the hub serves and run as the client it names would run it
 * (the HTTP requests that client makes, the MCP example through the MCP SDK client, `hub get` itself). An example
 * that names a model the client cannot use (llama.cpp on a model without a GGUF) or a wrong argument fails here.
 */
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const tempDir = tempDirs(afterAll);
let hub: TestHub;

beforeAll(async () => {
  hub = await startTestHub();
});
afterAll(async () => {
  await hub?.close();
});

const unescapeHtml = (s: string) =>
  s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');

/** The commands of a Markdown text: every `inline code` span. */
function markdownCommands(md: string): string[] {
  return [...md.matchAll(/`([^`\n]+)`/g)].map((m) => m[1] as string);
}

/** The commands of a model page: each `<pre class="cmd">` block, line by line. */
function pageCommands(html: string): string[] {
  return [...html.matchAll(/<pre class="cmd"[^>]*><code>([\s\S]*?)<\/code><\/pre>/g)].map((m) => unescapeHtml(m[1] as string));
}

async function body(url: string, init?: RequestInit): Promise<Uint8Array> {
  const res = await fetch(url, init);
  expect(res.status, url).toBe(200);
  return new Uint8Array(await res.arrayBuffer());
}

/** The index's SHA-256 of a file, from the tree listing every client reads. */
async function indexedSha(id: string, file: string): Promise<string> {
  const tree = (await (await fetch(`${hub.url}/api/models/${id}/tree/main?recursive=true`)).json()) as Array<{ path: string; oid: string }>;
  const entry = tree.find((e) => e.path === file);
  expect(entry, `${id} lists ${file}`).toBeDefined();
  return entry?.oid as string;
}

/** `hf download ID [FILE]` (huggingface_hub): revision, then each file through /resolve/ following the redirect. */
async function hfDownload(endpoint: string, id: string, file?: string): Promise<void> {
  const info = await fetch(`${endpoint}/api/models/${id}/revision/main`);
  expect(info.status, `hf download ${id}: revision`).toBe(200);
  const { sha, siblings } = (await info.json()) as { sha: string; siblings: Array<{ rfilename: string }> };
  const files = file ? [file] : siblings.map((s) => s.rfilename);
  expect(files.length).toBeGreaterThan(0);
  for (const f of files) {
    const bytes = await body(`${endpoint}/${id}/resolve/${sha}/${f}`);
    expect(sha256(bytes), `${id} ${f}`).toBe(await indexedSha(id, f));
  }
}

/** `llama-cli -hf ID[:QUANT]` (clients-2026.md 4): refs, the tree, the plan (tag, Q4_K_M, Q8_0, first GGUF), the file. */
async function llamaCli(endpoint: string, ref: string): Promise<void> {
  const [id, tag] = ref.split(':') as [string, string | undefined];
  const headers = { 'user-agent': 'llama-cpp/b9999', accept: 'application/json' };
  const refs = await fetch(`${endpoint}api/models/${id}/refs`, { headers });
  expect(refs.status, `llama-cli -hf ${ref}: refs`).toBe(200);
  const commit = ((await refs.json()) as { branches: Array<{ name: string; targetCommit: string }> }).branches.find(
    (b) => b.name === 'main',
  )?.targetCommit;
  expect(commit).toMatch(/^[0-9a-f]{40}$/);
  const tree = (await (await fetch(`${endpoint}api/models/${id}/tree/${commit}?recursive=true`, { headers })).json()) as Array<{
    type: string;
    path: string;
    oid: string;
  }>;
  const ggufs = tree.filter((e) => e.type === 'file' && /\.gguf$/i.test(e.path) && !/mmproj/i.test(e.path));
  const byTag = (t: string) => ggufs.find((e) => new RegExp(`${t}[.-]`, 'i').test(e.path));
  const chosen = (tag ? byTag(tag) : undefined) ?? byTag('Q4_K_M') ?? byTag('Q8_0') ?? ggufs[0];
  expect(chosen, `llama-cli -hf ${ref}: the model has a GGUF to load`).toBeDefined();
  const url = `${endpoint}${id}/resolve/${commit}/${chosen?.path}`;
  expect((await fetch(url, { method: 'HEAD', headers })).status).toBe(200);
  expect(sha256(await body(url, { headers }))).toBe(chosen?.oid);
}

/** `ollama pull --insecure HOST/NAME:TAG`: the manifest with Ollama's Accept, then the model layer, by its digest. */
async function ollamaPull(ref: string): Promise<void> {
  const m = /^([^/]+)\/(.+):([^:]+)$/.exec(ref);
  expect(m, ref).toBeTruthy();
  const [, host, name, tag] = m as unknown as [string, string, string, string];
  const base = `http://${host}`;
  const res = await fetch(`${base}/v2/${name}/manifests/${tag}`, {
    headers: { accept: 'application/vnd.docker.distribution.manifest.v2+json', 'user-agent': 'ollama/0.34.0 (amd64 linux) Go/go1.24.0' },
  });
  expect(res.status, `ollama pull ${ref}: manifest`).toBe(200);
  const manifest = (await res.json()) as { layers: Array<{ mediaType: string; digest: string }> };
  const model = manifest.layers.find((l) => l.mediaType === 'application/vnd.ollama.image.model');
  expect(model, `ollama pull ${ref}: a model layer`).toBeDefined();
  const bytes = await body(`${base}/v2/${name}/blobs/${model?.digest}`);
  expect(`sha256:${sha256(bytes)}`).toBe(model?.digest);
}

/** `curl … URL` (with -L): the bytes at the end of the redirects. */
async function curl(line: string): Promise<{ url: string; bytes: Uint8Array }> {
  const url = /(https?:\/\/\S+)/.exec(line)?.[1] as string;
  expect(line).toMatch(/ -f?L|-fLO/);
  return { url, bytes: await body(url) };
}

/** Runs one example line; returns what it was (so a test can check that every kind was met). */
async function runExample(line: string): Promise<string | undefined> {
  // (a request template such as /api/v1/objects/{blake3:…} is a pattern, not an example)
  const get = /^GET (https?:\/\/[^\s{]+)$/.exec(line);
  if (get) {
    expect((await fetch(get[1] as string)).status, line).toBe(200);
    return 'GET';
  }
  const hf = /HF_ENDPOINT=(\S+) hf download (\S+)(?: ([^-\s]\S*))?/.exec(line);
  if (hf) {
    await hfDownload(hf[1] as string, hf[2] as string, hf[3]);
    return 'hf';
  }
  const llama = /MODEL_ENDPOINT=(\S+) llama-cli -hf (\S+)/.exec(line);
  if (llama) {
    await llamaCli(llama[1] as string, llama[2] as string);
    return 'llama';
  }
  const ollama = /ollama pull --insecure (\S+)/.exec(line);
  if (ollama) {
    await ollamaPull(ollama[1] as string);
    return 'ollama';
  }
  if (/^curl /.test(line)) {
    await curl(line);
    return 'curl';
  }
  return undefined;
}

describe('the agent brief (/agent.md and / for agents): every example runs against the demo hub', () => {
  it('/agent.md and the / brief are the same text, and each of their commands works as written', async () => {
    const brief = await (await fetch(`${hub.url}/agent.md`)).text();
    expect(await (await fetch(`${hub.url}/`, { headers: { accept: '*/*' } })).text()).toBe(brief);
    const kinds = new Set<string>();
    for (const line of markdownCommands(brief)) {
      const kind = await runExample(line);
      if (kind) kinds.add(kind);
    }
    expect([...kinds].sort()).toEqual(['GET', 'curl', 'hf', 'llama', 'ollama']);
  });

  it("the brief's SHA256SUMS example: the sums download, and sha256sum -c passes on a file fetched the same way", async () => {
    const brief = await (await fetch(`${hub.url}/agent.md`)).text();
    const sumsLine = markdownCommands(brief).find((c) => c.includes('SHA256SUMS')) as string;
    const { url, bytes } = await curl(sumsLine);
    const lines = new TextDecoder().decode(bytes).trim().split('\n');
    expect(lines.length).toBeGreaterThan(0);
    const [sum, file] = (lines[0] as string).split(/\s+/) as [string, string];
    expect(sha256(await body(url.replace(/SHA256SUMS$/, file)))).toBe(sum);
  });
});

describe('each model page: every command block runs against the demo hub', () => {
  for (const id of ['demo/tiny-llama-2-GGUF', 'demo/tiny-bert-synthetic']) {
    it(`${id}: hf, huggingface_hub, llama.cpp and Ollama (when it has a GGUF), curl + sha256sum -c, hub get, MCP`, async () => {
      const html = await (await fetch(`${hub.url}/models/${id}`)).text();
      const blocks = pageCommands(html);
      expect(blocks.length).toBeGreaterThan(4);
      const kinds = new Set<string>();
      for (const block of blocks) {
        // huggingface_hub (Python): hf_hub_download(ID, FILE, endpoint=…) or snapshot_download(ID, endpoint=…)
        const py = /(hf_hub_download|snapshot_download)\("([^"]+)"(?:, "([^"]+)")?, endpoint="([^"]+)"\)/.exec(block);
        if (py) {
          await hfDownload(py[4] as string, py[2] as string, py[3]);
          kinds.add('python');
          continue;
        }
        // curl + sha256sum -c: the sums and the file, then the check the block runs
        if (block.includes('sha256sum -c')) {
          const [sumsLine, fileLine] = block.split('\n').filter((l) => l.startsWith('curl ')) as [string, string];
          const sums = new TextDecoder().decode((await curl(sumsLine)).bytes);
          const file = /-o (\S+) /.exec(fileLine)?.[1] as string;
          const { bytes } = await curl(fileLine);
          expect(sums).toContain(`${sha256(bytes)}  ${file}`);
          const echo = /echo '([0-9a-f]{64}) {2}(\S+)'/.exec(block);
          if (echo) expect(echo[1]).toBe(sha256(bytes));
          kinds.add('curl');
          continue;
        }
        // hub get: the real command, in-process
        const hubGet = /HUB_URL=(\S+) hub get (\S+) --to (\S+)/.exec(block);
        if (hubGet) {
          const dir = await tempDir('hub-example-');
          const out: string[] = [];
          const code = await getCommand([hubGet[2] as string, '--to', path.join(dir, hubGet[3] as string)], {
            out: (l) => out.push(l),
            err: (l) => out.push(l),
            tty: false,
            env: { HUB_URL: hubGet[1] },
          });
          expect(code, out.join('\n')).toBe(0);
          kinds.add('hub get');
          continue;
        }
        // MCP: the tool call exactly as the block writes it, through the MCP SDK client
        const mcp = /"url": "([^"]+)"[\s\S]*call the tool (\w+) with (\{.*\})/.exec(block);
        if (mcp) {
          const client = new Client({ name: 'examples-test', version: '1.0.0' });
          await client.connect(new StreamableHTTPClientTransport(new URL(mcp[1] as string)));
          try {
            const r = (await client.callTool({ name: mcp[2] as string, arguments: JSON.parse(mcp[3] as string) })) as {
              isError?: boolean;
              content: Array<{ text?: string }>;
            };
            expect(r.isError, r.content.map((c) => c.text).join('\n')).toBeFalsy();
            expect(r.content.map((c) => c.text).join('\n')).toContain('/resolve/');
          } finally {
            await client.close();
          }
          kinds.add('mcp');
          continue;
        }
        for (const line of block.split('\n')) {
          const kind = await runExample(line);
          if (kind) kinds.add(kind);
        }
      }
      const gguf = id.endsWith('GGUF');
      expect([...kinds].sort()).toEqual(
        (gguf ? ['curl', 'hf', 'hub get', 'llama', 'mcp', 'ollama', 'python'] : ['curl', 'hf', 'hub get', 'mcp', 'python']).sort(),
      );
    });
  }

  it('the hub get example wrote the verified file', async () => {
    // (a guard that the in-process run above wrote bytes, not only exited 0)
    const dir = await tempDir('hub-example-');
    const code = await getCommand(['demo/tiny-bert-synthetic', 'config.json', '--to', dir, '--hub', hub.url], {
      out: () => {},
      err: () => {},
      tty: false,
      env: {},
    });
    expect(code).toBe(0);
    const bytes = new Uint8Array(await readFile(path.join(dir, 'config.json')));
    expect(sha256(bytes)).toBe(await indexedSha('demo/tiny-bert-synthetic', 'config.json'));
  });
});
