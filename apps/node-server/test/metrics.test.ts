import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { sample, startTestHub, type TestHub } from './helpers.js';

/**
 * `/metrics` and the access log over real HTTP (issue 28): where the exposition is served and where it is not, what
 * it holds after real requests, `promtool check metrics` on a real scrape, and an access-log line that holds none of
 * the credentials its request carried.
 */

// SYNTHETIC: made-up bytes and names for these tests, no real model.
const TREES = {
  'synthetic/metrics': { 'weights.bin': 'SYNTHETIC weights for the metrics tests\n', 'config.json': '{"_comment":"SYNTHETIC"}' },
};
const TOKEN = 'metrics-token-0123456789abcdef';
const PROMTOOL = '/usr/bin/promtool';

const hubs: TestHub[] = [];
afterEach(async () => {
  while (hubs.length) await hubs.pop()?.close();
});

async function hub(config: Parameters<typeof startTestHub>[0] = {}): Promise<TestHub> {
  const h = await startTestHub({ trees: TREES, ...config });
  hubs.push(h);
  return h;
}

describe('/metrics', () => {
  it('is off by default: no listener, and /metrics on the main port is an ordinary 404', async () => {
    const h = await hub();
    expect(h.running.metrics).toBeUndefined();
    const res = await fetch(`${h.url}/metrics`);
    expect(res.status).toBe(404);
    expect(await res.text()).not.toContain('hub_requests_total');
  });

  it('serves the families on its own loopback listener, and nothing else there', async () => {
    const h = await hub({ config: { metricsPort: 0 } });
    const m = h.running.metrics;
    expect(m?.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    // Without a metrics token the main port does not serve them.
    expect((await fetch(`${h.url}/metrics`)).status).toBe(404);

    const redirect = await fetch(`${h.url}/synthetic/metrics/resolve/main/weights.bin`, { redirect: 'manual' });
    expect(redirect.status).toBe(302);
    expect((await fetch(`${h.url}/api/models/synthetic/metrics`)).status).toBe(200);
    expect((await fetch(`${h.url}/api/models/synthetic/no-such-model`)).status).toBe(404);
    expect((await fetch(`${h.url}/no/such/route`)).status).toBe(404);

    const res = await fetch(m?.url ?? '');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain; version=0.0.4');
    const text = await res.text();
    expect(sample(text, 'hub_redirects_total', { source: 'test-mirror' })).toBe(1);
    expect(
      sample(text, 'hub_requests_total', { route: '/:owner/:name/resolve/:rev/*path', group: 'hf', method: 'GET', status_class: '3xx' }),
    ).toBe(1);
    expect(sample(text, 'hub_requests_total', { route: '/api/models/:owner/:name', status_class: '2xx' })).toBe(1);
    expect(sample(text, 'hub_requests_total', { route: '/api/models/:owner/:name', status_class: '4xx' })).toBe(1);
    // `/metrics` on the main port and `/no/such/route`: no route matched either.
    expect(sample(text, 'hub_requests_total', { route: 'none', group: 'none', status_class: '4xx' })).toBe(2);
    // Bounded labels: patterns only, never the paths or model ids asked for.
    expect(text).not.toContain('no-such-model');
    expect(text).not.toContain('synthetic/metrics');
    expect(text).not.toContain('/no/such/route');
    expect(sample(text, 'hub_request_duration_seconds_count', { group: 'hf' })).toBe(3);
    expect(sample(text, 'hub_request_duration_seconds_bucket', { group: 'hf', le: '0.0001' })).toBeDefined();
    expect(sample(text, 'hub_index_models')).toBe(1);
    expect(sample(text, 'hub_index_files')).toBe(2);
    // a day loaded whole has no made answers (a day served from its pages reads them: made-answers.test.ts)
    expect(sample(text, 'hub_made_answers_in_use')).toBe(0);
    expect(sample(text, 'hub_made_answers_total', { outcome: 'answered' })).toBe(0);
    expect(sample(text, 'hub_index_snapshot_timestamp_seconds')).toBe(Date.parse('2026-11-22T00:00:00Z') / 1000);
    expect(sample(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(text).not.toContain('nodejs_active_handles_total');
    // The caches: what each holds (the kept answer of the look-up; the model's objects) within its share of the
    // default 128 MB (cacheMegabytes).
    expect(sample(text, 'hub_cache_limit_bytes', { cache: 'index' })).toBe(64 * 2 ** 20);
    expect(sample(text, 'hub_cache_limit_bytes', { cache: 'answers' })).toBe(Math.floor(128 * 2 ** 20 * 0.2));
    expect(sample(text, 'hub_cache_bytes', { cache: 'answers' })).toBeGreaterThan(0);
    for (const cache of ['index', 'answers', 'objects', 'rows'])
      expect(sample(text, 'hub_cache_bytes', { cache })).toBeLessThanOrEqual(sample(text, 'hub_cache_limit_bytes', { cache }) as number);

    expect((await fetch(m?.url.replace('/metrics', '/other') ?? '')).status).toBe(404);
    expect((await fetch(m?.url ?? '', { method: 'POST' })).status).toBe(405);
    // The metrics port hands its connections to the hub's own server, yet answers nothing of the hub's: a hub path
    // there is the metrics listener's 404, and the scrapes are not counted as hub requests.
    const hubPath = await fetch(m?.url.replace('/metrics', '/api/models/synthetic/metrics') ?? '');
    expect(hubPath.status).toBe(404);
    expect(await hubPath.text()).toBe('Only /metrics is served on this port.\n');
    const again = await (await fetch(m?.url ?? '')).text();
    expect(sample(again, 'hub_requests_total', { route: '/api/models/:owner/:name', status_class: '2xx' })).toBe(1);
    expect(sample(again, 'hub_requests_total', { route: 'none', group: 'none', status_class: '4xx' })).toBe(2);
  });

  it('closes the metrics port with the hub, a kept-alive scrape connection included', async () => {
    const h = await startTestHub({ trees: TREES, config: { metricsPort: 0 } });
    const url = h.running.metrics?.url ?? '';
    const agent = new http.Agent({ keepAlive: true });
    const get = () =>
      new Promise<number>((resolve, reject) =>
        http.get(url, { agent }, (res) => res.resume().on('end', () => resolve(res.statusCode ?? 0))).on('error', reject),
      );
    expect(await get()).toBe(200);
    expect(await get()).toBe(200);
    await h.close();
    await expect(get()).rejects.toThrow();
    await expect(fetch(url)).rejects.toThrow();
    agent.destroy();
  });

  it('counts kept answers exactly: N more answers of a kept redirect and a kept list are N more in every family', async () => {
    const h = await hub({ config: { metricsPort: 0, logRequests: true } });
    const resolve = `${h.url}/synthetic/metrics/resolve/main/weights.bin`;
    const list = `${h.url}/api/models?limit=5`;
    // The first answers are made by their handlers; the hub keeps them (issue 31). Served again from the kept
    // answers, synchronously, as node-server's listener does.
    const kept = (url: string) =>
      h.running.hub.cached({ method: 'GET', url, headers: { get: (n) => (n === 'host' ? new URL(h.url).host : null) }, body: null });
    // A change of source health (the start's first probe round) drops kept redirects, so the redirect is asked for
    // until it is kept; every one of those answers is counted.
    let firsts = 0;
    let keptRedirect: ReturnType<typeof kept>;
    do {
      expect((await fetch(resolve, { redirect: 'manual' })).status).toBe(302);
      firsts++;
      keptRedirect = kept(resolve);
    } while (keptRedirect === undefined && firsts < 20);
    expect(keptRedirect?.status).toBe(302);
    const listLength = Number((await fetch(list)).headers.get('content-length'));
    expect(listLength).toBeGreaterThan(0);
    expect(kept(list)?.status).toBe(200);

    const before = await (await fetch(h.running.metrics?.url ?? '')).text();
    const N = 25;
    for (let i = 0; i < N; i++) {
      expect((await fetch(resolve, { redirect: 'manual' })).status).toBe(302);
      expect((await fetch(list)).status).toBe(200);
    }
    const after = await (await fetch(h.running.metrics?.url ?? '')).text();
    // the two `kept(...)` calls above count too: an answer handed out is an answer served
    const more = (name: string, labels: Record<string, string>) => (sample(after, name, labels) ?? 0) - (sample(before, name, labels) ?? 0);
    expect(more('hub_requests_total', { route: '/:owner/:name/resolve/:rev/*path', method: 'GET', status_class: '3xx' })).toBe(N);
    expect(more('hub_requests_total', { route: '/api/models', method: 'GET', status_class: '2xx' })).toBe(N);
    expect(more('hub_redirects_total', { source: 'test-mirror' })).toBe(N);
    expect(more('hub_request_duration_seconds_count', { group: 'hf' })).toBe(2 * N);
    expect(more('hub_request_duration_seconds_bucket', { group: 'hf', le: '+Inf' })).toBe(2 * N);
    expect(more('hub_response_bytes_total', { group: 'hf' })).toBe(N * listLength);
    // Totals since the start: the handlers' answers, the two handed out by `kept`, and the N of each.
    expect(sample(after, 'hub_requests_total', { route: '/api/models', status_class: '2xx' })).toBe(N + 2);
    expect(sample(after, 'hub_redirects_total', { source: 'test-mirror' })).toBe(N + firsts + 1);
    // The access log is a sink too: one line per kept answer as well.
    const lines = h.logs
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.msg === 'request' && l.route === '/api/models');
    expect(lines).toHaveLength(N + 2);
    expect(lines.at(-1)).toMatchObject({ method: 'GET', group: 'hf', status: 200, bytes: listLength });
  });

  it('times kept answers on a sample without the access log: every answer counted, the histogram in steps of 16', async () => {
    const h = await hub({ config: { metricsPort: 0 } });
    const list = `${h.url}/api/models?limit=5`;
    expect((await fetch(list)).status).toBe(200);
    const kept = () =>
      h.running.hub.cached({ method: 'GET', url: list, headers: { get: (n) => (n === 'host' ? new URL(h.url).host : null) }, body: null });
    expect(kept()?.status).toBe(200);
    const before = await (await fetch(h.running.metrics?.url ?? '')).text();
    const N = 800;
    for (let i = 0; i < N; i++) expect(kept()?.status).toBe(200);
    const after = await (await fetch(h.running.metrics?.url ?? '')).text();
    const more = (name: string, labels: Record<string, string>) => (sample(after, name, labels) ?? 0) - (sample(before, name, labels) ?? 0);
    expect(more('hub_requests_total', { route: '/api/models', method: 'GET', status_class: '2xx' })).toBe(N);
    // About N / 16 timings, each counted 16 times: the count estimates the N answers.
    const timed = more('hub_request_duration_seconds_count', { group: 'hf' });
    expect(timed % 16).toBe(0);
    expect(timed).toBeGreaterThan(N * 0.5);
    expect(timed).toBeLessThan(N * 1.5);
    expect(more('hub_request_duration_seconds_bucket', { group: 'hf', le: '+Inf' })).toBe(timed);
  });

  it('on the main port only with Authorization: Bearer <metricsToken>', async () => {
    const h = await hub({ config: { metricsToken: TOKEN } });
    expect(h.running.metrics).toBeUndefined();
    const none = await fetch(`${h.url}/metrics`);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toContain('Bearer');
    expect((await none.text()).includes('hub_')).toBe(false);
    const wrong = await fetch(`${h.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN.slice(0, -1)}x` } });
    expect(wrong.status).toBe(401);
    const basic = await fetch(`${h.url}/metrics`, { headers: { authorization: `Basic ${Buffer.from(`x:${TOKEN}`).toString('base64')}` } });
    expect(basic.status).toBe(401);
    const ok = await fetch(`${h.url}/metrics?x=1`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('# TYPE hub_requests_total counter');
  });

  it('refuses settings that cannot work at start', async () => {
    await expect(startTestHub({ trees: TREES, config: { metricsToken: 'short' } })).rejects.toThrow(/metricsToken/);
    await expect(startTestHub({ trees: TREES, config: { metricsPort: 70000 } })).rejects.toThrow(/metricsPort/);
  });

  it.skipIf(!existsSync(PROMTOOL))(
    'a real scrape passes promtool check metrics with no output (needs promtool: the prometheus package)',
    async () => {
      const h = await hub({ config: { metricsPort: 0 } });
      await fetch(`${h.url}/synthetic/metrics/resolve/main/weights.bin`, { redirect: 'manual' });
      await fetch(`${h.url}/v2/synthetic/metrics/tags/list`);
      await fetch(`${h.url}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'hub_health', arguments: {} } }),
      });
      const text = await (await fetch(h.running.metrics?.url ?? '')).text();
      expect(sample(text, 'hub_mcp_tool_calls_total', { tool: 'hub_health', is_error: 'false' })).toBe(1);
      const check = spawnSync(PROMTOOL, ['check', 'metrics'], { input: text, encoding: 'utf8', timeout: 30_000 });
      expect({ status: check.status, stdout: check.stdout, stderr: check.stderr }).toEqual({ status: 0, stdout: '', stderr: '' });
    },
  );
});

describe('the access log (logRequests)', () => {
  it('is off by default', async () => {
    const h = await hub();
    await fetch(`${h.url}/api/models/synthetic/metrics`);
    expect(h.logs.filter((l) => JSON.parse(l).msg === 'request')).toEqual([]);
  });

  it('writes one line per request and none of the credentials the request carried', async () => {
    const h = await hub({ config: { logRequests: true } });
    const secrets = ['AUTHSECRET-4f1d', 'COOKIESECRET-77aa', 'QUERYSECRET-9c2e', 'VIASECRET-31b0'];
    const res = await fetch(`${h.url}/synthetic/metrics/resolve/main/weights.bin?token=${secrets[2]}&access_token=${secrets[2]}`, {
      redirect: 'manual',
      headers: { authorization: `Bearer ${secrets[0]}`, cookie: `session=${secrets[1]}` },
    });
    expect(res.status).toBe(302);
    // A token in the path (`/via/{token}/`) stays out too: the line names the route pattern, never the path.
    const via = await fetch(`${h.url}/via/${secrets[3]}/synthetic/metrics/resolve/main/weights.bin`, { redirect: 'manual' });
    expect(via.status).toBe(302);

    const lines = h.logs.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === 'request');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({
      method: 'GET',
      route: '/:owner/:name/resolve/:rev/*path',
      group: 'hf',
      status: 302,
      source: 'test-mirror',
      bytes: 0,
    });
    expect(typeof lines[0]?.ms).toBe('number');
    expect(lines[1]).toMatchObject({ route: '/via/:token/:owner/:name/resolve/:rev/*path', status: 302 });
    for (const line of h.logs) for (const secret of secrets) expect(line).not.toContain(secret);
  });
});
