import { describe, expect, it } from 'vitest';
import { loadIndex } from '../index/index-store.js';
import { type AnswerLabels, type MetricEvent, type Metrics, teeMetrics } from '../observe/metrics.js';
import { createTestHub } from '../testing/fixture.js';
import { AnswerCache } from './answer-cache.js';
import { type HubRequest, json, type Route, text } from './contract.js';
import { createHub } from './create-hub.js';
import type { CoreDeps } from './deps.js';

// Whole answers kept for reuse (issue 31): served again without the handler until the index or the health changes,
// varied by the headers the handler read, never for errors, large bodies or routes that did not ask for it.

function req(path: string, headers: Record<string, string> = {}, method = 'GET'): HubRequest {
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  return { method, url: `http://hub.test${path}`, headers: { get: (n) => lower[n.toLowerCase()] ?? null }, body: null };
}

async function setup() {
  const t = await createTestHub();
  let index = t.index;
  const deps: CoreDeps = { ...t.deps, index: () => index };
  const calls: Record<string, number> = {};
  const count = (name: string) => {
    calls[name] = (calls[name] ?? 0) + 1;
  };
  const routes: Route<CoreDeps>[] = [
    {
      method: 'GET',
      path: '/kept',
      rules: 'read',
      errors: 'hub',
      group: 'discovery',
      cache: 60,
      reuse: 'index',
      handler: ({ req, deps }) => {
        count('kept');
        const kind = req.headers.get('accept') === 'text/plain' ? 'text' : 'json';
        const body = `${deps.index().catalogAddress} ${kind}`;
        return kind === 'text' ? text(200, body, 'text/plain; charset=utf-8', { etag: '"t1"' }) : json(200, { body }, { etag: '"j1"' });
      },
    },
    {
      method: 'GET',
      path: '/health-bound',
      rules: 'read',
      errors: 'hub',
      group: 'discovery',
      reuse: 'index+health',
      handler: ({ deps }) => {
        count('health-bound');
        return json(200, { ok: deps.health.snapshot().sources['mirror-a']?.ok });
      },
    },
    {
      method: 'GET',
      path: '/plain',
      rules: 'read',
      errors: 'hub',
      group: 'discovery',
      handler: () => {
        count('plain');
        return json(200, {});
      },
    },
    {
      method: 'GET',
      path: '/missing',
      rules: 'read',
      errors: 'hub',
      group: 'discovery',
      reuse: 'index',
      handler: () => {
        count('missing');
        return json(404, { error: 'no' });
      },
    },
    {
      method: 'GET',
      path: '/big',
      rules: 'read',
      errors: 'hub',
      group: 'discovery',
      reuse: 'index',
      handler: () => {
        count('big');
        return { status: 200, headers: { 'content-type': 'application/octet-stream' }, body: new Uint8Array(300 * 1024) };
      },
    },
  ];
  const hub = createHub(deps, routes);
  return { t, hub, calls, swapIndex: (i: typeof index) => (index = i) };
}

const decode = (b: unknown) => (b instanceof Uint8Array ? new TextDecoder().decode(b) : String(b));

describe('the answer cache: whole answers of reuse routes', () => {
  it('answers a repeated request from the cache, the same bytes and headers, without the handler', async () => {
    const { hub, calls } = await setup();
    const first = await hub.handle(req('/kept'));
    expect(hub.cached(req('/kept'))).toBeDefined();
    const second = await hub.handle(req('/kept'));
    expect(calls.kept).toBe(1);
    expect(second.status).toBe(200);
    expect(second.headers).toEqual(first.headers);
    expect(decode(second.body)).toBe(decode(first.body));
    expect(second.headers['access-control-allow-origin']).toBe('*');
    expect(second.headers['cache-control']).toBe('public, max-age=60');
    // The kept answer cannot be changed by a host.
    expect(() => {
      (second.headers as Record<string, string>)['x-extra'] = '1';
    }).toThrow();
    // A route that did not ask for reuse always runs.
    await hub.handle(req('/plain'));
    await hub.handle(req('/plain'));
    expect(calls.plain).toBe(2);
    expect(hub.cached(req('/plain'))).toBeUndefined();
  });

  it('varies by the headers the handler read, by method, and answers If-None-Match as the rules do', async () => {
    const { hub, calls } = await setup();
    const asJson = await hub.handle(req('/kept'));
    const asText = await hub.handle(req('/kept', { accept: 'text/plain' }));
    expect(asText.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(asJson.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(calls.kept).toBe(2);
    expect(decode((await hub.handle(req('/kept', { accept: 'text/plain' }))).body)).toMatch(/ text$/);
    expect(decode((await hub.handle(req('/kept'))).body)).toMatch(/ json"}$/);
    expect(calls.kept).toBe(2);
    // A header the handler never read does not split the answers.
    await hub.handle(req('/kept', { 'user-agent': 'something' }));
    expect(calls.kept).toBe(2);
    // HEAD: the same headers, no body.
    const head = await hub.handle(req('/kept', {}, 'HEAD'));
    expect(head.body).toBeNull();
    expect(head.headers['content-length']).toBe(asJson.headers['content-length']);
    const headAgain = await hub.handle(req('/kept', {}, 'HEAD'));
    expect(headAgain.body).toBeNull();
    // Conditional GET: a matching tag gets 304 (kept as its own variant), another tag the full answer.
    const notModified = await hub.handle(req('/kept', { 'if-none-match': '"j1"' }));
    expect(notModified.status).toBe(304);
    expect((await hub.handle(req('/kept', { 'if-none-match': '"j1"' }))).status).toBe(304);
    const other = await hub.handle(req('/kept', { 'if-none-match': '"other"' }));
    expect(other.status).toBe(200);
    expect(decode(other.body)).toBe(decode(asJson.body));
  });

  it('drops an answer when the index changes, and a health-bound answer when the health changes', async () => {
    const { t, hub, calls, swapIndex } = await setup();
    const before = decode((await hub.handle(req('/kept'))).body);
    await hub.handle(req('/health-bound'));
    await hub.handle(req('/health-bound'));
    expect(calls['health-bound']).toBe(1);
    // A probe outcome: only the health-bound answer is made again, and shows the new state.
    t.health.record('mirror-a', { ok: false, reason: 'status', at: 1_700_000_000_000 });
    const after = await hub.handle(req('/health-bound'));
    expect(JSON.parse(decode(after.body))).toEqual({ ok: false });
    expect(calls['health-bound']).toBe(2);
    await hub.handle(req('/kept'));
    expect(calls.kept).toBe(1);
    // Another index (a reload): every answer is made again under it.
    swapIndex(await loadIndex(t.objects, t.catalog));
    expect(hub.cached(req('/kept'))).toBeUndefined();
    const again = decode((await hub.handle(req('/kept'))).body);
    expect(calls.kept).toBe(2);
    expect(again).toBe(before);
    await hub.handle(req('/health-bound'));
    expect(calls['health-bound']).toBe(3);
  });

  it('never keeps errors or bodies over the per-answer limit; a health without a version keeps no health-bound answer', async () => {
    const { hub, calls } = await setup();
    for (let i = 0; i < 2; i++) {
      expect((await hub.handle(req('/missing'))).status).toBe(404);
      expect((await hub.handle(req('/big'))).status).toBe(200);
    }
    expect(calls.missing).toBe(2);
    expect(calls.big).toBe(2);

    const t = await createTestHub();
    const health = {
      snapshot: () => t.health.snapshot(),
      choose: (i: never) => t.health.choose(i),
      source: (n: string) => t.health.source(n),
      display: (n: string) => t.health.display(n),
      retryAfterSeconds: () => 1,
    };
    let n = 0;
    const unversioned = createHub({ ...t.deps, health }, [
      {
        method: 'GET',
        path: '/health-bound',
        rules: 'read',
        errors: 'hub',
        group: 'discovery',
        reuse: 'index+health',
        handler: () => {
          n++;
          return json(200, {});
        },
      },
    ]);
    await unversioned.handle(req('/health-bound'));
    await unversioned.handle(req('/health-bound'));
    expect(n).toBe(2);
  });

  it('a kept answer fires the request event like any other, with the route that made it (hub.cached and handle)', async () => {
    const t = await createTestHub();
    const events: MetricEvent[] = [];
    const hub = createHub({ ...t.deps, metrics: { emit: (e) => void events.push(e) } }, [
      {
        method: 'GET',
        path: '/r/:name',
        rules: 'read',
        errors: 'hub',
        group: 'discovery',
        reuse: 'index+health',
        handler: ({ params }) => ({
          status: 302,
          headers: { location: `http://127.0.0.1:1/${params.name}`, 'x-hub-source': 'mirror-a' },
          body: null,
        }),
      },
    ]);
    await hub.handle(req('/r/x'));
    const kept = hub.cached(req('/r/x'));
    expect(kept?.status).toBe(302);
    await hub.handle(req('/r/x'));
    const requests = events.filter((e) => e.type === 'request');
    expect(requests.map((e) => [e.route, e.status, e.source])).toEqual([
      ['/r/:name', 302, 'mirror-a'],
      ['/r/:name', 302, 'mirror-a'],
      ['/r/:name', 302, 'mirror-a'],
    ]);
    expect(events.filter((e) => e.type === 'redirect')).toHaveLength(3);
  });

  it('counts a kept answer through the tally its sink prepared once, and a sink without prepare through emit', async () => {
    const t = await createTestHub();
    const prepared: Array<{ answer: AnswerLabels; also: readonly MetricEvent[] }> = [];
    const tallied: number[] = [];
    const withPrepare: Metrics = {
      emit: () => {},
      prepare(answer, also) {
        prepared.push({ answer, also });
        return (seconds, weight) => void tallied.push(weight === 1 ? seconds : Number.NaN);
      },
    };
    const emitted: MetricEvent[] = [];
    const hub = createHub({ ...t.deps, metrics: teeMetrics(withPrepare, { emit: (e) => void emitted.push(e) }) }, [
      {
        method: 'GET',
        path: '/r/:name',
        rules: 'read',
        errors: 'hub',
        group: 'discovery',
        reuse: 'index+health',
        handler: ({ params }) => ({
          status: 302,
          headers: { location: `http://127.0.0.1:1/${params.name}`, 'x-hub-source': 'mirror-a', 'content-length': '0' },
          body: null,
        }),
      },
    ]);
    await hub.handle(req('/r/x'));
    expect(prepared).toEqual([]);
    for (let i = 0; i < 3; i++) expect(hub.cached(req('/r/x'))?.status).toBe(302);
    await hub.handle(req('/r/x'));
    await hub.handle(req('/r/x', {}, 'HEAD'));
    // Prepared once for the kept GET, with its redirect; tallied at every serve, each with a time.
    expect(prepared).toEqual([
      {
        answer: { route: '/r/:name', group: 'discovery', method: 'GET', status: 302, source: 'mirror-a', bytes: 0 },
        also: [{ type: 'redirect', source: 'mirror-a', group: 'discovery' }],
      },
    ]);
    // Every one timed, weighing 1: this tee takes no sample (its second sink has no prepare).
    expect(tallied).toHaveLength(4);
    for (const s of tallied) expect(s).toBeGreaterThanOrEqual(0);
    // The sink without prepare saw every answer as events: the handler's two (GET, HEAD) and the four kept ones.
    expect(emitted.filter((e) => e.type === 'request')).toHaveLength(6);
    expect(emitted.filter((e) => e.type === 'redirect')).toHaveLength(6);
  });

  it('times kept answers on a random sample of one in N for a sink that asks, each timing weighing N', async () => {
    const t = await createTestHub();
    const N = 16;
    const weights: number[] = [];
    const sampled: Metrics = {
      emit: () => {},
      prepare: () => (seconds, weight) => {
        if (weight > 0) expect(seconds).toBeGreaterThanOrEqual(0);
        weights.push(weight);
      },
      keptTimingSample: N,
    };
    const route: Route<CoreDeps> = {
      method: 'GET',
      path: '/k',
      rules: 'read',
      errors: 'hub',
      group: 'discovery',
      reuse: 'index',
      handler: () => json(200, {}),
    };
    const hub = createHub({ ...t.deps, metrics: sampled }, [route]);
    await hub.handle(req('/k'));
    const SERVED = 32000;
    for (let i = 0; i < SERVED; i++) {
      // both ways in: the host's synchronous lookup, and handle
      if (i % 2) expect(hub.cached(req('/k'))?.status).toBe(200);
      else expect((await hub.handle(req('/k'))).status).toBe(200);
    }
    // Every kept answer counted once; timed ones weigh N, the others 0.
    expect(weights).toHaveLength(SERVED);
    expect(new Set(weights)).toEqual(new Set([0, N]));
    const timed = weights.filter((w) => w === N).length;
    // One in N on average: 2000 expected; gaps are uniform over 0..2N-2, so the count varies by about ±1 %.
    expect(timed).toBeGreaterThan(1800);
    expect(timed).toBeLessThan(2200);
    // The estimate the histogram's count makes of the answers served is within 10 % of the truth.
    expect(Math.abs(timed * N - SERVED) / SERVED).toBeLessThan(0.1);
    // A request pattern cannot line up with the sample: every other answer alone still holds about half the timings.
    const even = weights.filter((w, i) => i % 2 === 0 && w === N).length;
    expect(even / timed).toBeGreaterThan(0.4);
    expect(even / timed).toBeLessThan(0.6);
  });

  it('takes no sample when a sink that needs every time shares the tee (the access log), nor for a sink without prepare', () => {
    const sampled: Metrics = { emit: () => {}, prepare: () => () => {}, keptTimingSample: 16 };
    expect(teeMetrics(sampled, { emit: () => {} }).keptTimingSample).toBeUndefined();
    expect(teeMetrics(sampled, { ...sampled }).keptTimingSample).toBe(16);
    expect(teeMetrics(sampled, { ...sampled, keptTimingSample: 8 }).keptTimingSample).toBeUndefined();
    expect(teeMetrics(sampled).keptTimingSample).toBe(16);
  });

  it('holds at most maxEntries URLs (oldest dropped), maxVariants variants per URL and maxBytes of bodies; full, it keeps a new URL from its second ask', async () => {
    const t = await createTestHub();
    const cache = new AnswerCache<string>(
      { index: () => t.index, health: { ...t.deps.health, version: () => 1 } },
      {
        maxEntries: 2,
        maxVariants: 2,
        maxBytes: 1_000_000,
      },
    );
    const answer = (n: number) => ({ status: 200, headers: {}, body: new Uint8Array(n) });
    const keep = (r: HubRequest, bytes = 1, read = ['accept']) => cache.put(r, answer(bytes), r.url, 'index', new Set(read), t.index, 1);
    keep(req('/a'));
    keep(req('/b'));
    // full: a URL asked once passes through, and pushes nothing out
    keep(req('/c'));
    expect(cache.get(req('/c'))).toBeUndefined();
    expect(cache.get(req('/a'))?.meta).toBe('http://hub.test/a');
    keep(req('/c'));
    expect(cache.size).toBe(2);
    expect(cache.get(req('/a'))).toBeUndefined();
    expect(cache.get(req('/c'))?.meta).toBe('http://hub.test/c');
    // variants: two kept, a third not; each served to its own header values only
    keep(req('/c', { accept: 'text/html' }));
    keep(req('/c', { accept: 'text/plain' }));
    expect(cache.get(req('/c', { accept: 'text/html' }))?.response.status).toBe(200);
    expect(cache.get(req('/c', { accept: 'text/plain' }))).toBeUndefined();
    expect(cache.get(req('/c', { accept: 'text/html', 'if-none-match': '"x"' }))).toBeUndefined();
    // HEAD is kept apart from GET
    expect(cache.get(req('/c', {}, 'HEAD'))).toBeUndefined();
  });

  it('holds at most maxBytes, each answer counted at its body, headers and entry; the oldest dropped to fit; an answer over a quarter of it is not kept and pushes nothing out', async () => {
    const t = await createTestHub();
    const answer = (bytes: number) => ({
      status: 200,
      headers: { etag: '"x"', 'content-type': 'application/json' },
      body: new Uint8Array(bytes),
    });
    const keepIn = (cache: AnswerCache<string>, path: string, bytes: number) =>
      cache.put(req(path), answer(bytes), path, 'index', new Set(), t.index, undefined);
    // one answer as counted: more than its body (its headers, its URL and its objects take memory too)
    const probe = new AnswerCache<string>({ index: () => t.index, health: t.deps.health }, { maxBytes: 1e9 });
    keepIn(probe, '/1', 3000);
    const per = probe.keptBytes;
    expect(per).toBeGreaterThan(3000 + 2 * 'etag"x"content-typeapplication/json'.length);
    const cache = new AnswerCache<string>({ index: () => t.index, health: t.deps.health }, { maxBytes: 4 * per });
    const keep = (path: string, bytes: number) => keepIn(cache, path, bytes);
    for (const p of ['/1', '/2', '/3', '/4']) keep(p, 3000);
    expect(cache.keptBytes).toBe(4 * per);
    // full: kept from its second ask (the doorkeeper), then the oldest goes
    keep('/5', 3000);
    keep('/5', 3000);
    expect(cache.get(req('/1'))).toBeUndefined();
    expect(cache.get(req('/5'))?.response.body).toHaveLength(3000);
    expect(cache.keptBytes).toBe(4 * per);
    // a body over a quarter of the bound: before this rule a body of the whole bound emptied the cache, itself included
    keep('/big', per + 1);
    keep('/big', per + 1);
    expect(cache.get(req('/big'))).toBeUndefined();
    for (const p of ['/2', '/3', '/4', '/5']) expect(cache.get(req(p))?.response.body).toHaveLength(3000);
    keep('/huge', 4 * per);
    expect(cache.get(req('/huge'))).toBeUndefined();
    expect(cache.keptBytes).toBe(4 * per);
  });
});
