import { createTokenVerifier, MemoryAccountStore, TokenBucketLimiter } from '@hub/account';
import { createTestIdentityProvider } from '@hub/account/testing';
import { accessLog, createHub, type Logger, type MetricEvent, type Metrics, ROUTE_GROUPS } from '@hub/core-index';
import { createTestHub, request } from '@hub/core-index/testing';
import { describe, expect, it } from 'vitest';
import { buildOpenApi } from './discovery/openapi.js';
import { type HubDeps, hubRoutes } from './routes.js';
import { composedHub } from './testing/test-hub.js';

/**
 * The metric events of the full route table (design 10.2): what `createHub` emits for every answer, and what the
 * publish, account and MCP routes emit, through the one `deps.metrics` interface. SYNTHETIC models (createTestHub).
 */

const NOW = 1_700_000_000_000;

async function setup() {
  const t = await createTestHub();
  const events: MetricEvent[] = [];
  const metrics: Metrics = { emit: (e) => void events.push(e) };
  const idp = await createTestIdentityProvider({ issuer: 'https://id.example.test', audience: 'hub-site' });
  const accounts = {
    store: new MemoryAccountStore(),
    limiter: new TokenBucketLimiter({ burst: 1, perSecond: 0.001 }),
    verifier: await createTokenVerifier({ publicKey: idp.publicKeyPem, issuer: 'https://id.example.test', audience: 'hub-site' }),
  };
  const deps: HubDeps = { ...t.deps, metrics, accounts };
  const hub = createHub(deps, hubRoutes());
  const token = await idp.sign({ sub: 'did:plc:synthetic-metrics' }, { now: NOW });
  const of = <T extends MetricEvent['type']>(type: T) => events.filter((e): e is Extract<MetricEvent, { type: T }> => e.type === type);
  return { t, hub, events, of, token };
}

describe('createHub emits one request event per answer', () => {
  it('with the route pattern and group, never the path, and the redirect source', async () => {
    const { hub, of } = await setup();
    const r = await request(hub, '/synthetic-org/tiny-llama-GGUF/resolve/main/tiny-llama-Q4_K_M.gguf?token=QUERYSECRET');
    expect(r.status).toBe(302);
    expect(of('request')).toEqual([
      {
        type: 'request',
        route: '/:owner/:name/resolve/:rev/*path',
        group: 'hf',
        method: 'GET',
        status: 302,
        seconds: expect.any(Number),
        source: 'mirror-a',
        bytes: 0,
      },
    ]);
    expect(of('request')[0]?.seconds).toBeGreaterThanOrEqual(0);
    expect(of('redirect')).toEqual([{ type: 'redirect', source: 'mirror-a', group: 'hf' }]);
    expect(JSON.stringify(of('request'))).not.toContain('tiny-llama');
    expect(JSON.stringify(of('request'))).not.toContain('QUERYSECRET');
  });

  it('labels unmatched paths none, a 405 by the route it names, HEAD and odd methods by bounded words', async () => {
    const { hub, of } = await setup();
    await request(hub, '/no/such/page/anywhere');
    await request(hub, '/api/v1/health', { method: 'DELETE' });
    await request(hub, '/api/models/synthetic-org/bert-ish', { method: 'HEAD' });
    await request(hub, '/api/models', { method: 'BREW' });
    await request(hub, '/api/models', { method: 'OPTIONS', headers: { origin: 'https://x.test', 'access-control-request-method': 'GET' } });
    const seen = of('request').map((e) => [e.route, e.group, e.method, e.status]);
    expect(seen).toEqual([
      ['none', 'none', 'GET', 404],
      ['/api/v1/health', 'objects', 'DELETE', 405],
      ['/api/models/:owner/:name', 'hf', 'HEAD', 200],
      ['/api/models', 'hf', 'OTHER', 405],
      ['/api/models', 'hf', 'OPTIONS', 204],
    ]);
  });

  it('counts a file no live source holds, on the model-host and the registry routes', async () => {
    const { t, hub, of } = await setup();
    t.health.record('mirror-a', { ok: false, reason: 'unreachable', at: NOW });
    t.health.record('mirror-b', { ok: false, reason: 'timeout', at: NOW });
    const hf = await request(hub, '/synthetic-org/bert-ish/resolve/main/config.json');
    expect(hf.status).toBe(503);
    const oci = await request(hub, `/v2/synthetic-org/bert-ish/blobs/sha256:${'4'.repeat(64)}`);
    expect(oci.status).toBe(503);
    expect(of('no-live-source')).toEqual([
      { type: 'no-live-source', group: 'hf' },
      { type: 'no-live-source', group: 'oci' },
    ]);
    expect(of('redirect')).toEqual([]);
  });
});

describe('route and tool events', () => {
  it('publish: created, existing, refused (only with a publisher token)', async () => {
    const { hub, of } = await setup();
    const put = (body: string, kind = 'model-hub.test', token = 'test-publisher-token') =>
      request(hub, '/api/v1/objects', {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream', 'x-object-kind': kind },
        body,
      });
    expect((await put('SYNTHETIC object')).status).toBe(201);
    expect((await put('SYNTHETIC object')).status).toBe(200);
    expect((await put('SYNTHETIC object', 'NOT A KIND')).status).toBe(400);
    expect((await put('SYNTHETIC object', 'model-hub.test', 'wrong-token')).status).toBe(401);
    expect(of('publish').map((e) => e.outcome)).toEqual(['created', 'existing', 'refused']);
  });

  it('account writes: ok, limited (429), unauthorized (401), refused; reads are not writes', async () => {
    const { hub, of, token } = await setup();
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    expect((await request(hub, '/api/account/me', { headers: auth })).status).toBe(200);
    expect((await request(hub, '/api/account/publish-interest', { method: 'POST', headers: auth })).status).toBe(200);
    expect((await request(hub, '/api/account/publish-interest', { method: 'POST', headers: auth })).status).toBe(429);
    expect((await request(hub, '/api/account/publish-interest', { method: 'POST' })).status).toBe(401);
    expect(of('account-write').map((e) => e.outcome)).toEqual(['ok', 'limited', 'unauthorized']);
  });

  it('MCP: one event per tools/call, with isError, named from the tool table', async () => {
    const { hub, of } = await setup();
    const call = (name: string, args: unknown) =>
      request(hub, '/mcp', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
      });
    expect((await call('hub_health', {})).status).toBe(200);
    expect((await call('model_details', { model: 'nobody/nothing-here' })).status).toBe(200);
    expect((await call('model_details', { nonsense: 1 })).status).toBe(200);
    expect((await call('no_such_tool', {})).status).toBe(200);
    expect(of('mcp-tool')).toEqual([
      { type: 'mcp-tool', tool: 'hub_health', isError: false },
      { type: 'mcp-tool', tool: 'model_details', isError: true },
      { type: 'mcp-tool', tool: 'model_details', isError: true },
    ]);
  });
});

describe('route groups and the access log', () => {
  it('every route of the table names its group (set in its package), the metric label and the OpenAPI tag', () => {
    const routes = hubRoutes();
    const groupOf = (method: string, path: string) => routes.find((r) => r.method === method && r.path === path)?.group;
    for (const r of routes) expect(ROUTE_GROUPS, `${r.method} ${r.path}`).toContain(r.group);
    expect(groupOf('GET', '/v2/hub/buckets/:bucket/tags/list')).toBe('buckets');
    expect(groupOf('GET', '/via/:token/:owner/:name/raw/:rev/*path')).toBe('hf');
    expect(groupOf('GET', '/spaces/:name/*path')).toBe('spaces');
    expect(groupOf('GET', '/api/hub/archive')).toBe('discovery');
    expect(groupOf('GET', '/buckets')).toBe('buckets');
    const doc = buildOpenApi(routes) as { paths: Record<string, Record<string, { tags: string[] }>>; tags: { name: string }[] };
    expect(doc.paths['/v2/hub/buckets/{bucket}/tags/list']?.get?.tags).toEqual(['buckets']);
    expect(doc.paths['/api/models']?.get?.tags).toEqual(['hf']);
    expect(doc.tags.map((t) => t.name)).toEqual([...ROUTE_GROUPS]);
    const tagged = new Set(Object.values(doc.paths).flatMap((ops) => Object.values(ops).flatMap((op) => op.tags)));
    expect([...tagged].sort()).toEqual([...ROUTE_GROUPS].sort());
  });

  it('the access log writes one line per request from the event alone', async () => {
    const lines: Array<[object, string | undefined]> = [];
    const log: Logger = { debug() {}, info: (o, m) => void lines.push([o, m]), warn() {}, error() {} };
    const t = await createTestHub();
    const hub = composedHub({ ...t.deps, metrics: accessLog(log) });
    await request(hub, '/via/SECRETVIA/synthetic-org/bert-ish/resolve/main/config.json?access_token=SECRETQ', {
      headers: { authorization: 'Bearer SECRETAUTH', cookie: 'a=SECRETCOOKIE' },
    });
    expect(lines).toHaveLength(1);
    expect(lines[0]?.[1]).toBe('request');
    expect(lines[0]?.[0]).toEqual({
      method: 'GET',
      route: '/via/:token/:owner/:name/resolve/:rev/*path',
      group: 'hf',
      status: 302,
      ms: expect.any(Number),
      source: 'mirror-a',
      bytes: 0,
    });
    expect(JSON.stringify(lines)).not.toMatch(/SECRET/);
  });
});
