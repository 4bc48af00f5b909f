import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { blake3Hex } from '@hub/core-index';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestHub, type TestHub } from './helpers.js';

/**
 * The MCP server at /mcp driven by the SDK's own client (Streamable HTTP) and the inspector's CLI,
 * against node-server on 127.0.0.1 serving the bundled demo index (a tiny real GGUF and a small
 * transformers-style model) and its demo byte mirror.
 */

const run = promisify(execFile);
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

const GGUF = 'demo/tiny-llama-2-GGUF';
const BERT = 'demo/tiny-bert-synthetic';

/**
 * The inspector release used for its CLI mode: 0.15.0 is the newest release that declares no Node
 * engine (0.16.0 and later declare >=22.7.5, 2.x >=22.19.0), so it is the one that is meant to run
 * on Node 20. Downloaded from the npm registry by npx on first use.
 */
const INSPECTOR = '@modelcontextprotocol/inspector@0.15.0';

let hub: TestHub;
let client: Client;
let transport: StreamableHTTPClientTransport;

type CallResult = { content: Array<{ type: string; text: string }>; structuredContent?: any; isError?: boolean };
async function call(name: string, args: Record<string, unknown>): Promise<CallResult> {
  return (await client.callTool({ name, arguments: args })) as CallResult;
}

beforeAll(async () => {
  hub = await startTestHub();
  client = new Client({ name: 'hub-mcp-test', version: '1.0.0' });
  transport = new StreamableHTTPClientTransport(new URL(`${hub.url}/mcp`));
  await client.connect(transport);
});

afterAll(async () => {
  await client?.close();
  await hub?.close();
});

describe('the SDK client over Streamable HTTP', () => {
  it('initializes statelessly and learns the tools, resources and prompts capabilities', () => {
    expect(client.getServerVersion()?.name).toBe('model-hub');
    expect(client.getServerCapabilities()).toMatchObject({ tools: {}, resources: {}, prompts: {} });
    expect(client.getInstructions()).toMatch(/get_download/);
    expect(transport.sessionId).toBeUndefined();
    expect(transport.protocolVersion).toBe('2025-11-25');
  });

  it('lists the tools with schemas and read-only annotations', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      'get_download',
      'hub_archive',
      'hub_health',
      'hub_repo_details',
      'hub_repo_search',
      'model_details',
      'model_search',
    ]);
    for (const t of tools) {
      expect(t.title).toBeTruthy();
      expect(t.annotations?.readOnlyHint).toBe(true);
      expect(t.annotations?.destructiveHint).toBe(false);
    }
  });

  it('hub_repo_search and model_search: good and bad arguments', async () => {
    const all = await call('hub_repo_search', { query: 'tiny' });
    expect(all.isError).toBeFalsy();
    expect(all.structuredContent.models.map((m: any) => m.id).sort()).toEqual([BERT, GGUF]);
    expect(all.content[0]?.text).toContain(GGUF);
    const bad = await call('hub_repo_search', { limit: 0 });
    expect(bad.isError).toBe(true);
    expect(bad.content[0]?.text).toMatch(/limit.*Fix:/s);

    const legacy = await call('model_search', { query: 'bert', limit: 5 });
    expect(legacy.structuredContent.models.map((m: any) => m.id)).toEqual([BERT]);
    const legacyBad = await call('model_search', { limit: 'many' });
    expect(legacyBad.isError).toBe(true);
  });

  it('hub_repo_details and model_details: good and bad arguments', async () => {
    const r = await call('hub_repo_details', { repo_ids: [GGUF], operations: ['overview', 'files', 'quants', 'sources'] });
    expect(r.isError).toBeFalsy();
    const m = r.structuredContent.models[0];
    expect(m.id).toBe(GGUF);
    expect(m.revision).toMatch(/^[0-9a-f]{40}$/);
    expect(m.quants).toEqual(['F16']);
    expect(m.files.map((f: any) => f.path)).toContain('llama-2-tiny-random-F16.gguf');
    expect((await call('hub_repo_details', { repo_ids: 'demo/x' })).isError).toBe(true);
    const unknown = await call('hub_repo_details', { repo_ids: ['nobody/nothing'] });
    expect(unknown.isError).toBe(true);
    expect(unknown.content[0]?.text).toMatch(/hub_repo_search/);

    const legacy = await call('model_details', { model_id: BERT });
    expect(legacy.structuredContent.models[0].id).toBe(BERT);
    expect((await call('model_details', {})).isError).toBe(true);
  });

  it('get_download: a URL that redirects to bytes with the SHA-256 it returned', async () => {
    const r = await call('get_download', { model: GGUF });
    expect(r.isError).toBeFalsy();
    const [file] = r.structuredContent.files;
    expect(file.url).toBe(`${hub.url}/${GGUF}/resolve/${r.structuredContent.revision}/${file.path}`);
    expect(file.source?.name).toBeTruthy();
    const first = await fetch(file.url, { redirect: 'manual' });
    expect([302, 307]).toContain(first.status);
    const res = await fetch(file.url);
    expect(res.status).toBe(200);
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect(bytes.byteLength).toBe(file.size);
    expect(sha256(bytes)).toBe(file.sha256);

    const bad = await call('get_download', { model: GGUF, quant: 'Q9_X' });
    expect(bad.isError).toBe(true);
    expect(bad.content[0]?.text).toMatch(/F16/);
    expect((await call('get_download', { path: 'x' })).isError).toBe(true);
  });

  it('get_download: the exact commands it gives download and verify the file', async () => {
    const r = await call('get_download', { model: BERT, path: 'config.json' });
    const [file] = r.structuredContent.files;
    const dir = await mkdtemp(path.join(os.tmpdir(), 'mcp-dl-'));
    try {
      await run('sh', ['-c', file.commands.download], { cwd: dir, timeout: 30_000 });
      expect(sha256(await readFile(path.join(dir, 'config.json')))).toBe(file.sha256);
      const { stdout } = await run('sh', ['-c', file.commands.verify], { cwd: dir, timeout: 30_000 });
      expect(stdout.trim()).toBe('config.json: OK');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('hub_health and hub_archive: good and bad arguments', async () => {
    const h = await call('hub_health', {});
    expect(h.isError).toBeFalsy();
    const live = await (await fetch(`${hub.url}/api/hub/health`)).json();
    expect(h.structuredContent.order).toEqual(live.order);
    expect((await call('hub_health', { verbose: true })).isError).toBe(true);

    const a = await call('hub_archive', { limit: 1 });
    expect(a.isError).toBeFalsy();
    expect(a.structuredContent.days[0].catalog).toMatch(/^blake3:[0-9a-f]{64}$/);
    expect((await call('hub_archive', { limit: 1000 })).isError).toBe(true);
  });

  it('an unknown tool is a JSON-RPC error -32602', async () => {
    await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toMatchObject({ code: -32602 });
  });

  it('reads the descriptor and today catalog resources; the catalog hashes to its address', async () => {
    const { resources } = await client.listResources();
    const catalog = resources.find((r) => r.uri.startsWith('hub://catalog/'));
    expect(resources.map((r) => r.uri)).toContain('hub://descriptor');
    expect(catalog).toBeTruthy();
    const descriptor = JSON.parse(String(textOf((await client.readResource({ uri: 'hub://descriptor' })).contents[0])));
    const served = await (await fetch(`${hub.url}/`, { headers: { accept: 'application/json' } })).json();
    expect(descriptor.catalog).toBe(served.catalog);
    const address = (catalog?.uri ?? '').slice('hub://catalog/'.length);
    expect(address).toBe(served.catalog);
    const text = String(textOf((await client.readResource({ uri: catalog?.uri ?? '' })).contents[0]));
    expect(`blake3:${blake3Hex(new TextEncoder().encode(text))}`).toBe(address);
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates[0]?.uriTemplate).toBe('hub://catalog/{address}');
  });

  it('gets the download-and-verify prompt', async () => {
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(['download-and-verify']);
    const p = await client.getPrompt({ name: 'download-and-verify', arguments: { model: GGUF } });
    const text = (p.messages[0]?.content as { text: string } | undefined)?.text ?? '';
    expect(text).toMatch(/sha256sum -c/);
    expect(text).toMatch(/get_download/);
    await expect(client.getPrompt({ name: 'download-and-verify', arguments: {} })).rejects.toMatchObject({ code: -32602 });
  });
});

describe('/mcp over raw HTTP', () => {
  const post = (body: string, headers: Record<string, string> = {}) =>
    fetch(`${hub.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body,
    });

  it('GET and DELETE are 405 {error}', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${hub.url}/mcp`, { method, headers: { accept: 'text/event-stream' } });
      expect(res.status).toBe(405);
      expect(await res.json()).toEqual({ error: expect.stringMatching(/POST/) });
    }
  });

  it('notifications are 202 with no body; JSON-RPC errors carry their codes', async () => {
    const note = await post('{"jsonrpc":"2.0","method":"notifications/initialized"}');
    expect(note.status).toBe(202);
    expect(await note.text()).toBe('');
    expect((await (await post('{"jsonrpc":')).json()).error.code).toBe(-32700);
    expect((await (await post('{"jsonrpc":"2.0","id":1}')).json()).error.code).toBe(-32600);
    expect((await (await post('{"jsonrpc":"2.0","id":1,"method":"server/discover"}')).json()).error.code).toBe(-32601);
    expect((await (await post('{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{}}')).json()).error.code).toBe(-32602);
  });

  it('refuses a foreign browser Origin and accepts loopback ones', async () => {
    const ping = '{"jsonrpc":"2.0","id":1,"method":"ping"}';
    expect((await post(ping, { origin: 'https://evil.example' })).status).toBe(403);
    expect((await post(ping, { origin: 'http://localhost:6274' })).status).toBe(200);
    expect((await post(ping, { origin: hub.url })).status).toBe(200);
  });
});

describe('the inspector CLI', () => {
  it(`runs tools/list and tools/call against the hub (${INSPECTOR}, Node ${process.versions.node})`, async () => {
    const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';
    const base = ['-y', INSPECTOR, '--cli', `${hub.url}/mcp`];
    const opts = { timeout: 240_000, maxBuffer: 8 * 1024 * 1024, env: { ...process.env, npm_config_update_notifier: 'false' } };
    const list = await run(npx, [...base, '--method', 'tools/list'], opts);
    const tools = JSON.parse(list.stdout).tools as Array<{ name: string }>;
    expect(tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(['hub_repo_search', 'hub_repo_details', 'get_download', 'hub_health', 'hub_archive']),
    );
    const dl = await run(npx, [...base, '--method', 'tools/call', '--tool-name', 'get_download', '--tool-arg', `model=${GGUF}`], opts);
    const result = JSON.parse(dl.stdout);
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent.files[0].sha256).toMatch(/^[0-9a-f]{64}$/);
  }, 300_000);
});

/** The text of a resource content (a text resource, not a blob). */
function textOf(c: { uri: string } | undefined): string {
  return String(c && 'text' in c ? c.text : undefined);
}
