import { type BuildModelInput, canonicalBytes, createHub, putJson, readArchive } from '@hub/core-index';
import { createTestHub, request } from '@hub/core-index/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { createMcpHandler, mcpRoutes } from './index.js';
import { TEXT_LIMIT } from './paging.js';

type TestHub = Awaited<ReturnType<typeof createTestHub>>;
let t: TestHub;
let hub: ReturnType<typeof createHub>;

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

async function rpc(body: unknown, headers: Record<string, string> = {}, h = hub) {
  return request(h, '/mcp', {
    method: 'POST',
    headers: { ...HEADERS, ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

async function call(name: string, args: unknown, h = hub) {
  const res = await rpc({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name, arguments: args } }, {}, h);
  expect(res.status).toBe(200);
  const body = res.json();
  expect(body.error).toBeUndefined();
  return body.result as { content: Array<{ type: string; text: string }>; structuredContent?: any; isError?: boolean };
}

beforeAll(async () => {
  t = await createTestHub();
  hub = createHub(t.deps, mcpRoutes());
});

describe('POST /mcp: the JSON-RPC envelope', () => {
  it('initialize negotiates the client version when supported, else the latest', async () => {
    const init = (v: string) => ({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: v, capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    const a = await rpc(init('2025-03-26'));
    expect(a.status).toBe(200);
    expect(a.headers['content-type']).toMatch(/^application\/json/);
    expect(a.headers['mcp-session-id']).toBeUndefined();
    const r = a.json().result;
    expect(r.protocolVersion).toBe('2025-03-26');
    expect(r.serverInfo.name).toBe('model-hub');
    expect(Object.keys(r.capabilities).sort()).toEqual(['prompts', 'resources', 'tools']);
    expect(r.capabilities.tools).toEqual({ listChanged: false });
    expect(r.instructions).toMatch(/hub_repo_search/);
    const b = await rpc(init('1999-01-01'));
    expect(b.json().result.protocolVersion).toBe('2025-11-25');
  });

  it('ping answers an empty result without a session', async () => {
    const res = await rpc({ jsonrpc: '2.0', id: 'p', method: 'ping' }, { 'mcp-protocol-version': '2025-06-18' });
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ jsonrpc: '2.0', id: 'p', result: {} });
  });

  it('notifications get 202 with no body', async () => {
    const res = await rpc({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(res.status).toBe(202);
    expect(res.bytes.byteLength).toBe(0);
    expect(res.headers['content-type']).toBeUndefined();
    const other = await rpc({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 3 } });
    expect(other.status).toBe(202);
  });

  it('malformed JSON is -32700', async () => {
    const res = await rpc('{"jsonrpc": "2.0", "id": 1, "method": ');
    expect(res.status).toBe(400);
    expect(res.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
  });

  it('invalid requests are -32600', async () => {
    for (const bad of [
      { jsonrpc: '1.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', id: 1 },
      { jsonrpc: '2.0', id: 1, method: 42 },
      { jsonrpc: '2.0', id: { x: 1 }, method: 'ping' },
      [{ jsonrpc: '2.0', id: 1, method: 'ping' }],
      'just a string',
    ]) {
      const res = await rpc(JSON.stringify(bad));
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(res.json().error.code, JSON.stringify(bad)).toBe(-32600);
      expect(res.json().error.message).toMatch(/Invalid request/);
    }
  });

  it('unknown methods are -32601 (so auto-negotiating clients fall back)', async () => {
    const res = await rpc({ jsonrpc: '2.0', id: 3, method: 'server/discover' });
    expect(res.status).toBe(200);
    expect(res.json()).toMatchObject({ id: 3, error: { code: -32601 } });
    expect(res.json().error.message).toMatch(/tools\/list/);
  });

  it('bad params are -32602', async () => {
    const cases = [
      { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { arguments: {} } },
      { jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'no_such_tool', arguments: {} } },
      { jsonrpc: '2.0', id: 4, method: 'resources/read', params: {} },
      { jsonrpc: '2.0', id: 4, method: 'resources/read', params: { uri: 'hub://catalog/not-an-address' } },
      { jsonrpc: '2.0', id: 4, method: 'resources/read', params: { uri: 'hub://nothing-here' } },
      { jsonrpc: '2.0', id: 4, method: 'prompts/get', params: { name: 'download-and-verify', arguments: {} } },
      { jsonrpc: '2.0', id: 4, method: 'initialize', params: { capabilities: {} } },
      { jsonrpc: '2.0', id: 4, method: 'tools/list', params: [1, 2] },
    ];
    for (const c of cases) {
      const res = await rpc(c);
      expect(res.status, JSON.stringify(c)).toBe(200);
      expect(res.json().error?.code, JSON.stringify(c)).toBe(-32602);
    }
    const unknown = await rpc(cases[1]);
    expect(unknown.json().error.message).toMatch(/hub_repo_search/);
  });

  it('GET and DELETE are 405 {error}; other methods too', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await request(hub, '/mcp', { method, headers: { accept: 'text/event-stream' } });
      expect(res.status).toBe(405);
      expect(res.json()).toEqual({ error: expect.stringMatching(/POST/) });
      expect(res.headers['x-error-code']).toBe('MethodNotAllowed');
    }
    expect((await request(hub, '/mcp', { method: 'PUT' })).status).toBe(405);
  });

  it('refuses a foreign browser Origin (DNS rebinding) but not localhost, its own host or no Origin', async () => {
    const ping = { jsonrpc: '2.0', id: 1, method: 'ping' };
    const evil = await rpc(ping, { origin: 'https://evil.example' });
    expect(evil.status).toBe(403);
    expect(evil.json().error).toMatch(/Origin/);
    expect((await rpc(ping, { origin: 'null' })).status).toBe(403);
    expect((await rpc(ping, { origin: 'http://localhost:5173' })).status).toBe(200);
    expect((await rpc(ping, { origin: 'http://127.0.0.1:6274' })).status).toBe(200);
    expect((await rpc(ping, { origin: 'http://hub.test' })).status).toBe(200);
    expect((await rpc(ping)).status).toBe(200);
  });

  it('drops credentials and still answers (read rules)', async () => {
    const res = await rpc({ jsonrpc: '2.0', id: 1, method: 'ping' }, { authorization: 'Bearer secret', cookie: 'a=b' });
    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('wrong content types and Accept headers get a clear {error}', async () => {
    const ping = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' });
    const text = await request(hub, '/mcp', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: ping });
    expect(text.status).toBe(415);
    expect(text.json().error).toMatch(/application\/json/);
    const html = await request(hub, '/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/html' },
      body: ping,
    });
    expect(html.status).toBe(406);
    // A client that sends no Accept (curl) is answered.
    const bare = await request(hub, '/mcp', { method: 'POST', headers: { 'content-type': 'application/json' }, body: ping });
    expect(bare.status).toBe(200);
  });

  it('refuses an unsupported mcp-protocol-version header', async () => {
    const res = await rpc({ jsonrpc: '2.0', id: 1, method: 'ping' }, { 'mcp-protocol-version': '1999-01-01' });
    expect(res.status).toBe(400);
    expect(res.headers['x-error-code']).toBe('UnsupportedProtocolVersion');
    expect(res.json().error).toMatch(/2025-11-25/);
    for (const v of ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05']) {
      expect((await rpc({ jsonrpc: '2.0', id: 1, method: 'ping' }, { 'mcp-protocol-version': v })).status).toBe(200);
    }
  });

  it('a body over 4 MiB is 413 in the hub shape', async () => {
    const res = await rpc(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"${'a'.repeat(4 * 1024 * 1024)}"}}`);
    expect(res.status).toBe(413);
    expect(res.json().error).toBeTruthy();
  });
});

describe('tools', () => {
  it('tools/list gives every tool with a title, an object schema and read-only annotations', async () => {
    const res = await rpc({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    const tools = res.json().result.tools as any[];
    expect(tools.map((x) => x.name).sort()).toEqual([
      'get_download',
      'hub_archive',
      'hub_health',
      'hub_repo_details',
      'hub_repo_search',
      'model_details',
      'model_search',
    ]);
    for (const tool of tools) {
      expect(tool.title).toBeTruthy();
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, openWorldHint: true });
    }
    const search = tools.find((x) => x.name === 'hub_repo_search');
    expect(Object.keys(search.inputSchema.properties)).toEqual(
      expect.arrayContaining(['query', 'author', 'filters', 'task', 'library', 'sort', 'limit', 'cursor']),
    );
    expect(search.inputSchema.properties.limit).toMatchObject({ minimum: 1, maximum: 100, default: 20 });
  });

  it('hub_repo_search finds by words, author, task, library and tags', async () => {
    const all = await call('hub_repo_search', {});
    expect(all.isError).toBeUndefined();
    // The unlisted model is not offered by search.
    expect(all.structuredContent.models.map((m: any) => m.id)).toEqual(['synthetic-org/tiny-llama-GGUF', 'synthetic-org/bert-ish']);
    expect(all.content[0]?.text).toMatch(/tiny-llama-GGUF/);
    expect((await call('hub_repo_search', { query: 'llama' })).structuredContent.total).toBe(1);
    expect((await call('hub_repo_search', { task: 'fill-mask' })).structuredContent.models[0].id).toBe('synthetic-org/bert-ish');
    expect((await call('hub_repo_search', { library: 'gguf' })).structuredContent.total).toBe(1);
    expect((await call('hub_repo_search', { filters: ['bert', 'transformers'] })).structuredContent.total).toBe(1);
    expect((await call('hub_repo_search', { author: 'nobody' })).structuredContent.total).toBe(0);
    const byDownloads = await call('hub_repo_search', { sort: 'downloads' });
    expect(byDownloads.structuredContent.models[0].id).toBe('synthetic-org/bert-ish');
    const legacy = await call('model_search', { query: 'bert', task: 'fill-mask', limit: 5 });
    expect(legacy.structuredContent.models[0].id).toBe('synthetic-org/bert-ish');
  });

  it('bad tool arguments are isError results that name the fix', async () => {
    const r = await call('hub_repo_search', { limit: 500 });
    expect(r.isError).toBe(true);
    expect(r.content[0]?.text).toMatch(/`limit`/);
    expect(r.content[0]?.text).toMatch(/Fix: call it like hub_repo_search \{/);
    const d = await call('hub_repo_details', { repo_ids: [] });
    expect(d.isError).toBe(true);
    expect((await call('get_download', {})).isError).toBe(true);
    expect((await call('hub_repo_search', { repo_types: ['dataset'] })).content[0]?.text).toMatch(/models only/);
  });

  it('a tool result over the limit is cut and carries a cursor to continue', async () => {
    // SYNTHETIC: 150 tiny models, so the 8 KB text limit cuts the listing before `limit` rows.
    const many: BuildModelInput[] = Array.from({ length: 150 }, (_, i) => ({
      id: `synthetic-many/model-with-a-fairly-long-name-${String(i).padStart(3, '0')}`,
      revision: i.toString(16).padStart(40, '0'),
      files: [{ path: 'model.gguf', size: 100 + i, sha256: i.toString(16).padStart(64, 'a') }],
      row: {
        downloads: 1000 - i,
        likes: i,
        trendingScore: 1000 - i,
        pipeline_tag: 'text-generation',
        library_name: 'gguf',
        tags: ['gguf'],
      },
      sources: [{ source: 'mirror-a', type: 'http' }],
    }));
    const big = await createTestHub({ models: many });
    const h = createHub(big.deps, mcpRoutes());
    const first = await call('hub_repo_search', { query: 'fairly', limit: 100 }, h);
    expect(first.structuredContent.total).toBe(150);
    expect(first.structuredContent.returned).toBeLessThan(100);
    expect(first.content[0]?.text.length).toBeLessThan(TEXT_LIMIT + 600);
    const cursor = first.structuredContent.next_cursor as string;
    expect(cursor).toBeTruthy();
    expect(first.content[0]?.text).toContain(cursor);
    // Follow the cursors to the end: every model exactly once, in order.
    const seen: string[] = first.structuredContent.models.map((m: any) => m.id);
    let next: string | null = cursor;
    for (let guard = 0; next && guard < 20; guard++) {
      const more = await call('hub_repo_search', { query: 'fairly', limit: 100, cursor: next }, h);
      seen.push(...more.structuredContent.models.map((m: any) => m.id));
      next = more.structuredContent.next_cursor;
    }
    expect(seen).toEqual(many.map((m) => m.id));
    // `limit` cuts too.
    const five = await call('hub_repo_search', { query: 'fairly', limit: 5 }, h);
    expect(five.structuredContent.returned).toBe(5);
    expect(five.structuredContent.next_cursor).toBeTruthy();
    // A cursor used with other arguments, or damaged, is refused with a fix.
    const wrong = await call('hub_repo_search', { query: 'other', cursor }, h);
    expect(wrong.isError).toBe(true);
    expect(wrong.content[0]?.text).toMatch(/Fix:/);
    expect((await call('hub_repo_search', { cursor: '%%%' }, h)).isError).toBe(true);
    // Archive days and file listings page the same way.
    const files = await call(
      'hub_repo_details',
      { repo_ids: ['synthetic-many/model-with-a-fairly-long-name-000'], operations: ['files'], limit: 1 },
      h,
    );
    expect(files.structuredContent.next_cursor).toBeTruthy();
  });

  it('hub_repo_details shows overview, files, quants and sources', async () => {
    const r = await call('hub_repo_details', {
      repo_ids: ['SYNTHETIC-ORG/tiny-llama-gguf', 'synthetic-org/bert-ish'],
      operations: ['overview', 'files', 'quants', 'sources'],
    });
    expect(r.isError, r.content[0]?.text).toBeUndefined();
    const [llama, bert] = r.structuredContent.models;
    expect(llama.id).toBe('synthetic-org/tiny-llama-GGUF');
    expect(llama.revision).toBe('a'.repeat(40));
    expect(llama.quants).toEqual(['Q4_K_M', 'Q8_0']);
    expect(llama.files).toHaveLength(3);
    expect(llama.files[1]).toEqual({ path: 'tiny-llama-Q4_K_M.gguf', size: 1_000_000, sha256: '2'.repeat(64) });
    expect(llama.sources).toEqual(['Mirror A', 'Mirror B']);
    expect(llama.source_health.map((s: any) => s.source)).toEqual(['mirror-a', 'mirror-b']);
    expect(llama.quant_files).toEqual([
      { quant: 'Q4_K_M', size: 1_000_000, files: ['tiny-llama-Q4_K_M.gguf'] },
      { quant: 'Q8_0', size: 2_000_000, files: ['tiny-llama-Q8_0.gguf'] },
    ]);
    expect(llama.file_count).toBe(3);
    expect(bert.license).toBe('apache-2.0');
    expect(r.content[0]?.text).toMatch(/sha256 5{64}/);
    const legacy = await call('model_details', { model_id: 'synthetic-org/bert-ish' });
    expect(legacy.structuredContent.models[0].pipeline_tag).toBe('fill-mask');
  });

  it('an unknown model is an isError answer naming the fix, and is recorded', async () => {
    const r = await call('hub_repo_details', { repo_ids: ['someone/missing-model'] });
    expect(r.isError).toBe(true);
    expect(r.content[0]?.text).toMatch(/hub_repo_search/);
    expect(await t.deps.missing.list()).toContain('someone/missing-model');
    const d = await call('get_download', { model: 'someone/other-missing' });
    expect(d.isError).toBe(true);
  });

  it('get_download gives the hub URL, SHA-256, size, the source chosen now, and commands', async () => {
    const r = await call('get_download', { model: 'synthetic-org/tiny-llama-GGUF', quant: 'q8_0' });
    expect(r.isError).toBeUndefined();
    const f = r.structuredContent.files[0];
    expect(f).toMatchObject({
      path: 'tiny-llama-Q8_0.gguf',
      size: 2_000_000,
      sha256: '3'.repeat(64),
      url: `http://hub.test/synthetic-org/tiny-llama-GGUF/resolve/${'a'.repeat(40)}/tiny-llama-Q8_0.gguf`,
      source: { name: 'mirror-a', display: 'Mirror A' },
    });
    expect(f.commands.download).toBe(`curl -fL --create-dirs -o tiny-llama-Q8_0.gguf ${f.url}`);
    expect(f.commands.verify).toBe(`echo '${'3'.repeat(64)}  tiny-llama-Q8_0.gguf' | sha256sum -c`);
    expect(r.content[0]?.text).toContain(f.commands.verify);
    expect(f.commands.hub).toBe(`hub get synthetic-org/tiny-llama-GGUF tiny-llama-Q8_0.gguf --hub http://hub.test`);
    expect(r.content[0]?.text).toContain(f.commands.hub);
    // Default quantisation, `owner/name:QUANT`, exact paths, and a /via/ preference.
    expect((await call('get_download', { model: 'synthetic-org/tiny-llama-GGUF' })).structuredContent.quant).toBe('Q4_K_M');
    expect((await call('get_download', { model: 'synthetic-org/tiny-llama-GGUF:Q8_0' })).structuredContent.quant).toBe('Q8_0');
    const via = await call('get_download', { model: 'synthetic-org/tiny-llama-GGUF', quant: 'Q4_K_M', via: 'b' });
    expect(via.structuredContent.files[0].source.name).toBe('mirror-b');
    const nested = await call('get_download', { model: 'synthetic-org/bert-ish', path: 'nested/dir/vocab.txt' });
    expect(nested.structuredContent.files[0].url).toMatch(/\/resolve\/b{40}\/nested\/dir\/vocab\.txt$/);
    // A non-GGUF model without a path: every file.
    expect((await call('get_download', { model: 'synthetic-org/bert-ish' })).structuredContent.files).toHaveLength(3);
  });

  it('get_download with a missing quant or path names the choices', async () => {
    const q = await call('get_download', { model: 'synthetic-org/tiny-llama-GGUF', quant: 'Q2_K' });
    expect(q.isError).toBe(true);
    expect(q.content[0]?.text).toMatch(/Q4_K_M, Q8_0/);
    const p = await call('get_download', { model: 'synthetic-org/bert-ish', path: 'nope.bin' });
    expect(p.isError).toBe(true);
    expect(p.content[0]?.text).toMatch(/config\.json/);
    const both = await call('get_download', { model: 'synthetic-org/bert-ish', path: 'config.json', quant: 'Q4_K_M' });
    expect(both.isError).toBe(true);
  });

  it('get_download says when no source is live', async () => {
    const down = await createTestHub();
    down.health.record('mirror-a', { ok: false, reason: 'timeout', at: 1 });
    down.health.record('mirror-b', { ok: false, reason: 'status', at: 1 });
    const r = await call('get_download', { model: 'synthetic-org/bert-ish', path: 'config.json' }, createHub(down.deps, mcpRoutes()));
    expect(r.structuredContent.files[0].source).toBeNull();
    expect(r.content[0]?.text).toMatch(/none live now.*api\/hub\/health/);
  });

  it('hub_health and hub_archive', async () => {
    t.health.record('mirror-b', { ok: false, reason: 'timeout', at: 1_700_000_000_000 });
    const h = await call('hub_health', {});
    expect(h.structuredContent).toEqual(t.health.snapshot());
    expect(h.content[0]?.text).toMatch(/Mirror B \[mirror-b\]: down \(timeout\)/);
    // never probed (no probe file) is not "ok · last reached never probed": it is offered on trust, and says what it holds
    expect(h.content[0]?.text).toMatch(/Mirror A \[mirror-a\]: offered, not checked \(no probe file\) · holds \d+ of this index's models/);
    expect(h.content[0]?.text).not.toContain('never probed');
    const a = await call('hub_archive', {});
    const archive = await readArchive(t.objects);
    expect(a.structuredContent.days).toEqual(archive.days);
    expect(a.structuredContent.days[0].catalog).toBe(t.catalog);
    expect(a.content[0]?.text).toContain(t.catalog);
  });
});

describe('resources and prompts', () => {
  it('lists the descriptor and today catalog, and reads the catalog bytes by address', async () => {
    const list = (await rpc({ jsonrpc: '2.0', id: 1, method: 'resources/list' })).json().result.resources as any[];
    expect(list.map((r) => r.uri)).toEqual(['hub://descriptor', `hub://catalog/${t.catalog}`]);
    const templates = (await rpc({ jsonrpc: '2.0', id: 1, method: 'resources/templates/list' })).json().result.resourceTemplates;
    expect(templates[0].uriTemplate).toBe('hub://catalog/{address}');
    const desc = (await rpc({ jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: 'hub://descriptor' } })).json().result;
    expect(JSON.parse(desc.contents[0].text)).toMatchObject({ format: 'svc.model-hub.descriptor/v1', catalog: t.catalog });
    const cat = (await rpc({ jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: `hub://catalog/${t.catalog}` } })).json()
      .result;
    const stored = await t.objects.get(t.catalog);
    expect(cat.contents[0].text).toBe(new TextDecoder().decode(stored?.bytes));
    expect(canonicalBytes(JSON.parse(cat.contents[0].text))).toEqual(stored?.bytes);
  });

  it('a descriptor function from the host replaces the built-in one', async () => {
    const h = createHub(t.deps, mcpRoutes({ descriptor: (index) => ({ format: 'custom', catalog: index.catalogAddress }) }));
    const desc = (await rpc({ jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: 'hub://descriptor' } }, {}, h)).json().result;
    expect(JSON.parse(desc.contents[0].text)).toEqual({ format: 'custom', catalog: t.catalog });
  });

  it('reading an absent object is -32602 naming the catalog', async () => {
    const other = await putJson(t.objects, 'test', { SYNTHETIC: true });
    const ok = await rpc({ jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: `hub://catalog/${other}` } });
    expect(ok.json().result.contents[0].text).toBe('{"SYNTHETIC":true}');
    const res = await rpc({ jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: `hub://catalog/blake3:${'0'.repeat(64)}` } });
    expect(res.json().error.code).toBe(-32602);
    expect(res.json().error.message).toContain(t.catalog);
  });

  it('prompts: download-and-verify', async () => {
    const list = (await rpc({ jsonrpc: '2.0', id: 1, method: 'prompts/list' })).json().result.prompts;
    expect(list).toEqual([
      expect.objectContaining({
        name: 'download-and-verify',
        arguments: expect.arrayContaining([expect.objectContaining({ name: 'model', required: true })]),
      }),
    ]);
    const got = (
      await rpc({
        jsonrpc: '2.0',
        id: 1,
        method: 'prompts/get',
        params: { name: 'download-and-verify', arguments: { model: 'synthetic-org/tiny-llama-GGUF', quant: 'Q4_K_M' } },
      })
    ).json().result;
    const text = got.messages[0].content.text as string;
    expect(text).toMatch(/get_download/);
    expect(text).toContain(`echo '${'2'.repeat(64)}  tiny-llama-Q4_K_M.gguf' | sha256sum -c`);
  });
});

describe('createMcpHandler (web-standard hosts)', () => {
  it('answers a web Request with a web Response', async () => {
    const handle = createMcpHandler(t.deps);
    const res = await handle(
      new Request('https://edge.example/mcp', {
        method: 'POST',
        headers: HEADERS,
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'get_download', arguments: { model: 'synthetic-org/bert-ish', path: 'config.json' } },
        }),
      }),
    );
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.result.structuredContent.files[0].url).toBe(
      `https://edge.example/synthetic-org/bert-ish/resolve/${'b'.repeat(40)}/config.json`,
    );
    const get = await handle(new Request('https://edge.example/mcp'));
    expect(get.status).toBe(405);
    const huge = await handle(
      new Request('https://edge.example/mcp', { method: 'POST', headers: HEADERS, body: 'x'.repeat(4 * 1024 * 1024 + 1) }),
    );
    expect(huge.status).toBe(413);
  });
});
