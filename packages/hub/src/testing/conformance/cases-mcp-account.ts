import type { CaseExpectation, ConformanceCase } from './types.js';

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const rpc = (id: number, method: string, params: object = {}) => JSON.stringify({ jsonrpc: '2.0', id, method, params });

/** MCP over Streamable HTTP, and the account surface. */
export function mcpAccountCases(): ConformanceCase[] {
  return [
    {
      name: 'POST /mcp initialize',
      area: 'mcp',
      request: {
        method: 'POST',
        path: '/mcp',
        headers: MCP_HEADERS,
        body: rpc(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'conformance', version: '1' } }),
      },
      expect: {
        status: 200,
        headers: { 'access-control-allow-origin': '*', 'cache-control': 'no-store' },
        check: (r) => (r.json?.result?.serverInfo?.name ? undefined : 'no serverInfo'),
      },
    },
    {
      name: 'POST /mcp tools/list',
      area: 'mcp',
      request: { method: 'POST', path: '/mcp', headers: MCP_HEADERS, body: rpc(2, 'tools/list') },
      expect: {
        status: 200,
        check: (r) => (r.json?.result?.tools?.some((t: any) => t.name === 'get_download') ? undefined : 'no get_download tool'),
      },
    },
    {
      name: 'POST /mcp tools/call get_download',
      area: 'mcp',
      request: {
        method: 'POST',
        path: '/mcp',
        headers: MCP_HEADERS,
        body: rpc(3, 'tools/call', { name: 'get_download', arguments: { model: 'demo/tiny-llama-2-GGUF' } }),
      },
      expect: {
        status: 200,
        check: (r) => (r.json?.result && !r.json.result.isError ? undefined : `tool failed: ${r.text.slice(0, 200)}`),
      },
    },
    {
      name: 'POST /mcp with broken JSON is -32700',
      area: 'mcp',
      request: { method: 'POST', path: '/mcp', headers: MCP_HEADERS, body: '{"jsonrpc":' },
      expect: { status: 400, check: (r) => (r.json?.error?.code === -32700 ? undefined : 'wrong code') },
    },
    {
      name: 'GET /mcp is 405',
      area: 'mcp',
      request: { path: '/mcp' },
      expect: { status: 405, headers: { allow: 'POST', 'x-error-code': 'MethodNotAllowed' } },
    },
    { name: 'DELETE /mcp is 405', area: 'mcp', request: { method: 'DELETE', path: '/mcp' }, expect: { status: 405 } },
    {
      name: 'GET /api/account/health',
      area: 'account',
      request: { path: '/api/account/health' },
      expect: (o) => ({
        status: 200,
        headers: { 'cache-control': 'no-store', 'access-control-allow-origin': null },
        json: { ok: true, configured: o.accountsConfigured },
      }),
    },
    {
      name: 'GET /api/account/me without a token is 401 (503 without sign-in keys)',
      area: 'account',
      request: { path: '/api/account/me' },
      expect: (o): CaseExpectation =>
        o.accountsConfigured
          ? { status: 401, headers: { 'www-authenticate': /^Bearer realm="account"/ } }
          : { status: 503, headers: { 'x-error-code': 'AccountsNotConfigured' } },
    },
    {
      name: 'GET /api/account/saved with a malformed token is 401 (503 without keys)',
      area: 'account',
      request: { path: '/api/account/saved', headers: { authorization: 'Bearer not.a.jwt' } },
      expect: (o) => ({ status: o.accountsConfigured ? 401 : 503 }),
    },
    {
      name: 'POST /api/account/request without a token is 401 (503 without keys)',
      area: 'account',
      request: { method: 'POST', path: '/api/account/request', headers: { 'content-type': 'application/json' }, body: '{"model":"a/b"}' },
      expect: (o) => ({ status: o.accountsConfigured ? 401 : 503 }),
    },
    {
      name: 'a preflight from another origin on an account route gets no CORS',
      area: 'account',
      request: {
        method: 'OPTIONS',
        path: '/api/account/me',
        headers: { origin: 'https://elsewhere.example', 'access-control-request-method': 'GET' },
      },
      expect: { status: 204, headers: { 'access-control-allow-origin': null } },
    },
    ...(
      [
        ['PUT', '/api/account/saved', '{"saved":[]}'],
        ['POST', '/api/account/saved/demo/tiny-bert-synthetic', undefined],
        ['DELETE', '/api/account/saved/demo/tiny-bert-synthetic', undefined],
        ['POST', '/api/account/publish-interest', undefined],
        ['PUT', '/api/account/wallet', '{"wallet":null}'],
      ] as const
    ).map(
      ([method, path, body]): ConformanceCase => ({
        name: `${method} ${path} without a token is 401 (503 without keys)`,
        area: 'account',
        request: { method, path, headers: { 'content-type': 'application/json' }, ...(body ? { body } : {}) },
        expect: (o) => ({ status: o.accountsConfigured ? 401 : 503, headers: { 'cache-control': 'no-store' } }),
      }),
    ),
    {
      name: 'GET /api/account/nothing is 404',
      area: 'account',
      request: { path: '/api/account/nothing' },
      expect: { status: 404, headers: { 'x-error-code': 'NotFound' } },
    },
  ];
}
