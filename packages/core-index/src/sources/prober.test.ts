import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SourceObject } from '../index/schemas.js';
import { sha256Hex } from '../index/sha256.js';
import type { SourceConfig } from '../index/source-kinds.js';
import type { MetricEvent } from '../observe/metrics.js';
import {
  currentProbeState,
  DEFAULT_PROBE_SETTINGS,
  nextProbeDelaySeconds,
  type ProbeState,
  probeConfigProblem,
  probeRetryAfterSeconds,
  probeSettings,
  probeSource,
  probeUrl,
  pullForward,
} from './prober.js';
import { MemorySourceHealth } from './source-health.js';
import { memoryProbeStorage, SourceProber, type SourceProberOptions } from './source-prober.js';

/** A prober over `sources` (in that order) with an injected fetch and clock, its state in memory. */
function proberOf(sources: SourceConfig[], options: Omit<SourceProberOptions, 'sources' | 'order'>) {
  return new SourceProber({ sources, order: sources.map((s) => s.name), storage: memoryProbeStorage(), ...options });
}

// SYNTHETIC probe file: made-up bytes for these tests.
const PROBE = new TextEncoder().encode('SYNTHETIC probe file for the prober tests\n');
const SHA = sha256Hex(PROBE);
const T0 = Date.parse('2026-11-22T00:00:00Z');

const source = (name: string, extra: Partial<SourceConfig> = {}): SourceConfig => ({
  name,
  display: name.toUpperCase(),
  token: name,
  kind: 'http',
  url: `http://${name}.test/{id}/resolve/{revision}/{path}`,
  probe: { path: 'probe/file/resolve/main/probe.bin', sha256: SHA },
  ...extra,
});

type Behaviour = 'ok' | 'wrong' | '404' | 'down' | 'hang' | 'stall-body';

/** An injected fetch: each host (`a.test`, …) behaves as the test says; counts calls and in-flight probes. */
function fakeFetch(behaviour: Record<string, Behaviour>) {
  const calls: string[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const fn = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = String(input);
    calls.push(url);
    const host = new URL(url).hostname.split('.')[0] as string;
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    try {
      await Promise.resolve();
      switch (behaviour[host] ?? 'ok') {
        case 'ok':
          return new Response(PROBE.slice());
        case 'wrong':
          return new Response(new TextEncoder().encode('SYNTHETIC wrong bytes\n'));
        case '404':
          return new Response('not found', { status: 404 });
        case 'down':
          throw new TypeError('fetch failed', {
            cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' }),
          });
        case 'hang':
          // Ignores the abort signal on purpose: the prober's own deadline must still end the probe.
          return await new Promise<Response>(() => {});
        case 'stall-body': {
          const body = new ReadableStream<Uint8Array>({
            start(c) {
              c.enqueue(PROBE.slice(0, 5));
              init?.signal?.addEventListener('abort', () => c.error(new DOMException('aborted', 'AbortError')));
            },
          });
          return new Response(body);
        }
      }
    } finally {
      inFlight--;
    }
  }) as typeof fetch;
  return { fn, calls, maxInFlight: () => maxInFlight };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('probeUrl and probe configuration', () => {
  it('resolves a relative probe path against the static part of the template, or the IPFS gateway', () => {
    expect(probeUrl(source('a'))).toBe('http://a.test/probe/file/resolve/main/probe.bin');
    expect(
      probeUrl(
        source('ms', {
          url: 'https://ms.test/models/{id}/resolve/{revision}/{path}',
          probe: { path: 'o/n/resolve/master/c.json', sha256: SHA },
        }),
      ),
    ).toBe('https://ms.test/models/o/n/resolve/master/c.json');
    expect(probeUrl(source('ipfs', { kind: 'ipfs', url: 'https://gw.test', probe: { path: 'ipfs/bafyroot/p.bin', sha256: SHA } }))).toBe(
      'https://gw.test/ipfs/bafyroot/p.bin',
    );
    expect(probeUrl(source('x', { probe: { path: 'https://elsewhere.test/p', sha256: SHA } }))).toBe('https://elsewhere.test/p');
    expect(probeUrl(source('x', { probe: { path: '/rooted/p', sha256: SHA } }))).toBe('http://x.test/rooted/p');
  });

  it('names what is wrong with a probe entry', () => {
    expect(probeConfigProblem(source('a'))).toBeUndefined();
    expect(probeConfigProblem(source('a', { probe: undefined }))).toBeUndefined();
    expect(probeConfigProblem(source('a', { probe: { path: 'p', sha256: 'abc' } }))).toMatch(/sha256 must be 64 hex/);
    expect(probeConfigProblem(source('a', { probe: { path: '', sha256: SHA } }))).toMatch(/probe.path/);
    expect(probeConfigProblem(source('a', { url: undefined, probe: { path: 'rel/p', sha256: SHA } }))).toMatch(/not an absolute URL/);
  });

  it('fills defaults and refuses settings that cannot work', () => {
    expect(probeSettings()).toEqual(DEFAULT_PROBE_SETTINGS);
    expect(probeSettings({ intervalSeconds: 5, retrySeconds: 1, retryMaxSeconds: 0.5 })).toMatchObject({
      intervalSeconds: 5,
      retrySeconds: 1,
      retryMaxSeconds: 1,
    });
    expect(() => probeSettings({ timeoutSeconds: 0 })).toThrow(/timeoutSeconds must be a positive number/);
    expect(() => probeSettings({ concurrency: Number.NaN })).toThrow(/concurrency/);
  });
});

describe('probeSource reasons', () => {
  const opts = (fetch: typeof globalThis.fetch) => ({ fetch, now: () => T0, timeoutSeconds: 10, maxBytes: 1024 });

  it('verified when the bytes hash to the expected SHA-256', async () => {
    const r = await probeSource(source('a'), opts(fakeFetch({}).fn));
    expect(r).toMatchObject({
      name: 'a',
      ok: true,
      reason: 'verified',
      status: 200,
      at: T0,
      url: 'http://a.test/probe/file/resolve/main/probe.bin',
    });
  });

  it('mismatch on other bytes, on a wrong size, and on a body over the limit', async () => {
    expect(await probeSource(source('a'), opts(fakeFetch({ a: 'wrong' }).fn))).toMatchObject({
      ok: false,
      reason: 'mismatch',
      status: 200,
    });
    const sized = source('a', { probe: { path: 'p', sha256: SHA, size: PROBE.length + 1 } });
    expect(await probeSource(sized, opts(fakeFetch({}).fn))).toMatchObject({
      ok: false,
      reason: 'mismatch',
      detail: expect.stringMatching(/bytes, expected/),
    });
    expect(await probeSource(source('a'), { ...opts(fakeFetch({}).fn), maxBytes: 8 })).toMatchObject({
      ok: false,
      reason: 'mismatch',
      detail: expect.stringMatching(/longer than 8/),
    });
  });

  it('status on a non-2xx answer', async () => {
    expect(await probeSource(source('a'), opts(fakeFetch({ a: '404' }).fn))).toMatchObject({ ok: false, reason: 'status', status: 404 });
  });

  it('unreachable when the connection fails', async () => {
    const r = await probeSource(source('a'), opts(fakeFetch({ a: 'down' }).fn));
    expect(r).toMatchObject({ ok: false, reason: 'unreachable' });
    expect(r.detail).toMatch(/ECONNREFUSED/);
  });

  it('timeout when the answer never comes, even from a fetch that ignores the abort signal', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const pending = probeSource(source('a'), opts(fakeFetch({ a: 'hang' }).fn));
    await vi.advanceTimersByTimeAsync(9_999);
    let settled = false;
    void pending.then(() => {
      settled = true;
    });
    await Promise.resolve();
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await pending).toMatchObject({ ok: false, reason: 'timeout' });
  });

  it('timeout when the body stalls after the headers', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const pending = probeSource(source('a'), opts(fakeFetch({ a: 'stall-body' }).fn));
    await vi.advanceTimersByTimeAsync(10_000);
    expect(await pending).toMatchObject({ ok: false, reason: 'timeout', status: 200 });
  });
});

describe('the re-check schedule', () => {
  it('probes healthy sources every interval and failing ones after 40 s doubling up to an hour', () => {
    const s = probeSettings();
    expect([0, 1, 2, 3, 4, 5, 6, 7, 8, 100].map((n) => nextProbeDelaySeconds(n, s))).toEqual([
      60, 40, 80, 160, 320, 640, 1280, 2560, 3600, 3600,
    ]);
  });

  it('re-checks a failing source first within one probe interval when the interval is shorter than the retry (issue 19)', () => {
    const s = probeSettings({ intervalSeconds: 2 });
    expect([0, 1, 2, 3, 4, 12, 100].map((n) => nextProbeDelaySeconds(n, s))).toEqual([2, 2, 4, 8, 16, 3600, 3600]);
    // A source healed after serving wrong bytes is probed again 2 s after its failing probe, not 40 s.
    expect(nextProbeDelaySeconds(1, probeSettings({ intervalSeconds: 2, retrySeconds: 40 }))).toBeLessThanOrEqual(2);
  });

  it('marks a failing source down at once, re-checks it on the growing schedule, and brings it back on a pass', async () => {
    let now = T0;
    const behaviour: Record<string, Behaviour> = { a: 'down', b: 'ok' };
    const f = fakeFetch(behaviour);
    const health = proberOf([source('a'), source('b')], { fetch: f.fn, now: () => now });

    let round = await health.round();
    expect(round.results.map((r) => [r.name, r.ok, r.reason])).toEqual([
      ['a', false, 'unreachable'],
      ['b', true, 'verified'],
    ]);
    expect(health.snapshot().sources).toEqual({
      a: { ok: false, checked: null, reason: 'unreachable' },
      b: { ok: true, checked: new Date(T0).toISOString(), reason: 'verified' },
    });
    expect(round.state.sources.a).toMatchObject({ failures: 1, next: new Date(T0 + 40_000).toISOString() });
    expect(round.state.sources.b).toMatchObject({ failures: 0, next: new Date(T0 + 60_000).toISOString() });
    expect(round.nextDue).toBe(T0 + 40_000);

    // Before anything is due, a round probes nothing.
    now = T0 + 39_000;
    round = await health.round();
    expect(round.results).toEqual([]);
    expect(round.skipped).toEqual(['a', 'b']);

    // a is re-checked at 40 s (still down: next in 80 s), b at 60 s.
    now = T0 + 40_000;
    round = await health.round();
    expect(round.results.map((r) => r.name)).toEqual(['a']);
    expect(round.state.sources.a).toMatchObject({ failures: 2, next: new Date(now + 80_000).toISOString() });
    now = T0 + 60_000;
    round = await health.round();
    expect(round.results.map((r) => r.name)).toEqual(['b']);

    // a comes back: not probed before its re-check time, offered again as soon as one probe passes.
    behaviour.a = 'ok';
    now = T0 + 119_000;
    round = await health.round();
    expect(round.results).toEqual([]);
    expect(health.choose({ id: 'o/n', revision: 'r'.repeat(40), path: 'f', sources: holders('a', 'b') })).toMatchObject({
      ok: true,
      choice: { source: 'b' },
    });
    now = T0 + 120_000;
    round = await health.round();
    expect(round.results.map((r) => [r.name, r.reason])).toEqual([
      ['a', 'verified'],
      ['b', 'verified'],
    ]);
    expect(round.state.sources.a).toMatchObject({
      ok: true,
      failures: 0,
      checked: new Date(now).toISOString(),
      next: new Date(now + 60_000).toISOString(),
    });
    expect(health.choose({ id: 'o/n', revision: 'r'.repeat(40), path: 'f', sources: holders('a', 'b') })).toMatchObject({
      ok: true,
      choice: { source: 'a' },
    });
  });

  it('keeps the last success as checked when a probe fails, and force probes every source', async () => {
    let now = T0;
    const behaviour: Record<string, Behaviour> = { a: 'ok' };
    const f = fakeFetch(behaviour);
    const health = proberOf([source('a')], { fetch: f.fn, now: () => now });
    await health.round();
    behaviour.a = 'wrong';
    now = T0 + 1_000;
    expect((await health.round()).results).toEqual([]);
    const round = await health.round({ force: true });
    expect(round.state.sources.a).toMatchObject({ ok: false, reason: 'mismatch', checked: new Date(T0).toISOString(), failures: 1 });
  });

  it('uses configured numbers', async () => {
    const f = fakeFetch({ a: '404' });
    const round = await proberOf([source('a')], {
      fetch: f.fn,
      now: () => T0,
      settings: { retrySeconds: 2, retryMaxSeconds: 5, intervalSeconds: 1 },
    }).round();
    // The first re-check comes no later than the 1 s interval (issue 19).
    expect(round.state.sources.a?.next).toBe(new Date(T0 + 1_000).toISOString());
    const s = probeSettings({ retrySeconds: 2, retryMaxSeconds: 5 });
    expect([1, 2, 3].map((n) => nextProbeDelaySeconds(n, s))).toEqual([2, 4, 5]);
  });

  it('gives Retry-After as the seconds until the earliest failing source is re-checked', async () => {
    const round = await proberOf([source('a'), source('b')], { fetch: fakeFetch({ a: 'down', b: 'down' }).fn, now: () => T0 }).round();
    expect(probeRetryAfterSeconds(round.state, T0)).toBe(40);
    expect(probeRetryAfterSeconds(round.state, T0 + 39_500)).toBe(1);
    expect(probeRetryAfterSeconds(round.state, T0 + 100_000)).toBe(1);
    expect(probeRetryAfterSeconds({ v: 1, sources: {} }, T0, { intervalSeconds: 30 })).toBe(30);
  });
});

describe('SourceProber rounds', () => {
  it('never probes more than `concurrency` sources at once, even when forced', async () => {
    const names = Array.from({ length: 10 }, (_, i) => `s${i}`);
    const f = fakeFetch({});
    const health = proberOf(
      names.map((n) => source(n)),
      { fetch: f.fn, now: () => T0, settings: { concurrency: 3 } },
    );
    // A scheduled round takes the free slots and leaves the rest due for the next round.
    let round = await health.round();
    expect(round.results.map((r) => r.name)).toEqual(['s0', 's1', 's2']);
    expect(f.maxInFlight()).toBe(3);
    round = await health.round({ force: true });
    expect(round.results.map((r) => r.name)).toEqual(names);
    expect(f.maxInFlight()).toBe(3);
  });

  it('offers sources without a probe file unchecked and never fetches for them', async () => {
    const f = fakeFetch({});
    const sources = [source('a'), source('free', { probe: undefined }), source('p2p', { probe: undefined, redirect: false })];
    const health = proberOf(sources, { fetch: f.fn, now: () => T0 });
    const round = await health.round();
    expect(round.unprobed).toEqual(['free']);
    expect(f.calls).toEqual(['http://a.test/probe/file/resolve/main/probe.bin']);
    expect(health.snapshot().sources.free).toEqual({ ok: true, checked: null });
    expect(health.snapshot().sources.p2p).toBeUndefined();
  });

  it('reads the stored state into health, dropping records of removed sources or changed probe files, and writes each round back', async () => {
    const f = fakeFetch({ a: 'down', b: 'down' });
    const storage = memoryProbeStorage();
    const first = new SourceProber({ sources: [source('a'), source('b')], order: ['a', 'b'], fetch: f.fn, now: () => T0, storage });
    await first.round();
    expect(storage.writes()).toBe(1);
    const persisted = JSON.parse(JSON.stringify(storage.saved())) as ProbeState;
    const changed = [source('a'), source('b', { probe: { path: 'other', sha256: 'f'.repeat(64) } })];
    expect(Object.keys(currentProbeState(persisted, changed).sources)).toEqual(['a']);
    expect(currentProbeState(undefined, changed)).toEqual({ v: 1, sources: {} });
    expect(currentProbeState({ nonsense: true } as never, changed)).toEqual({ v: 1, sources: {} });
    const health = new SourceProber({ sources: changed, order: ['a', 'b'], fetch: f.fn, now: () => T0 + 10_000, storage });
    await health.load();
    expect(health.snapshot().sources).toEqual({ a: { ok: false, checked: null, reason: 'unreachable' }, b: { ok: true, checked: null } });
    // The restored schedule holds: a is not due again before its 40 s re-check.
    const next = await health.round();
    expect(next.results.map((r) => r.name)).toEqual(['b']);
    expect(storage.writes()).toBe(2);
    // A round that probed nothing writes nothing.
    await health.round();
    expect(storage.writes()).toBe(2);
  });

  it('answers Retry-After from the schedule it keeps', async () => {
    let now = T0;
    const health = proberOf([source('a')], { fetch: fakeFetch({ a: 'down' }).fn, now: () => now });
    expect(health.retryAfterSeconds()).toBe(60);
    await health.round();
    now = T0 + 10_000;
    expect(health.retryAfterSeconds()).toBe(30);
  });

  it('probes on its own timer, one source never twice at once, and stops without writing after stop()', async () => {
    const f = fakeFetch({ a: 'ok', b: 'hang' });
    const storage = memoryProbeStorage();
    const health = new SourceProber({
      sources: [source('a'), source('b')],
      order: ['a', 'b'],
      fetch: f.fn,
      storage,
      settings: { intervalSeconds: 0.02, timeoutSeconds: 5 },
    });
    health.start();
    // a is probed again and again while b's first probe hangs: a stalled source holds back no other.
    await vi.waitFor(() => expect(f.calls.filter((u) => u.includes('a.test')).length).toBeGreaterThanOrEqual(3), { timeout: 3000 });
    expect(f.calls.filter((u) => u.includes('b.test'))).toHaveLength(1);
    await health.stop();
    const writes = storage.writes();
    const calls = f.calls.length;
    await new Promise((r) => setTimeout(r, 60));
    expect(f.calls.length).toBe(calls);
    expect(storage.writes()).toBe(writes);
    expect(health.probeState().sources.b).toBeUndefined(); // the aborted probe was dropped, not recorded
  });
});

function holders(...names: string[]): SourceObject[] {
  return names.map((source) => ({ kind: 'model-hub.source', model: 'o/n', revision: 'r'.repeat(40), source, type: 'http' }));
}

describe('demand pulls a failing source forward (pullForward)', () => {
  const settings = { intervalSeconds: 2, retrySeconds: 2, retryMaxSeconds: 3600 };
  const record = (ok: boolean, probedAt: number, nextAt: number) => ({
    ok,
    checked: null,
    reason: ok ? 'verified' : 'mismatch',
    failures: ok ? 0 : 4,
    probed: new Date(probedAt).toISOString(),
    next: new Date(nextAt).toISOString(),
    probe: SHA,
  });

  it('moves a failing holder to one interval after its last probe, or now when that has passed', () => {
    const state: ProbeState = {
      v: 1,
      sources: { a: record(false, T0, T0 + 16_000), b: record(false, T0 - 10_000, T0 + 6_000), c: record(true, T0, T0 + 2_000) },
    };
    expect(pullForward(state, ['a', 'b', 'c', 'unknown'], T0 + 500, settings)).toEqual(['a', 'b']);
    expect(state.sources.a?.next).toBe(new Date(T0 + 2_000).toISOString());
    expect(state.sources.b?.next).toBe(new Date(T0 + 500).toISOString());
    // a healthy source and one already due sooner are left as they are
    expect(state.sources.c?.next).toBe(new Date(T0 + 2_000).toISOString());
    expect(pullForward(state, ['a'], T0 + 600, settings)).toEqual([]);
    // the 503's Retry-After follows the pulled schedule
    expect(probeRetryAfterSeconds(state, T0 + 500, settings)).toBe(1);
  });

  it('a running prober pulls the holders of a file it could not serve forward, and only then', async () => {
    let now = T0;
    const f = fakeFetch({ a: 'wrong', b: '404' });
    const health = proberOf([source('a'), source('b')], { fetch: f.fn, now: () => now, settings });
    const object: SourceObject = { source: 'a', type: 'http' } as SourceObject;
    const input = { id: 'o/n', revision: 'r'.repeat(40), path: 'f.bin', sources: [object, { ...object, source: 'b' }] };
    for (let i = 0; i < 4; i++) {
      await health.round({ force: true });
      now += 1_000;
    }
    const before = health.probeState().sources.a?.next;
    expect(Date.parse(before ?? '')).toBeGreaterThan(now + 2_000); // the growing schedule: 16 s after the last probe
    // Not started: nothing runs the schedule here, so demand changes nothing.
    expect(health.choose(input).ok).toBe(false);
    expect(health.probeState().sources.a?.next).toBe(before);
    health.start();
    try {
      expect(health.choose(input).ok).toBe(false);
      expect(Date.parse(health.probeState().sources.a?.next ?? '')).toBeLessThanOrEqual(now + 2_000);
    } finally {
      await health.stop();
    }
  });

  it('MemorySourceHealth without a prober folds recorded results into the same state', () => {
    const health = new MemorySourceHealth([source('a'), source('b')], ['a', 'b'], { now: () => T0 });
    const object: SourceObject = { source: 'a', type: 'http' } as SourceObject;
    const input = { id: 'o/n', revision: 'r'.repeat(40), path: 'f.bin', sources: [object, { ...object, source: 'b' }] };
    expect(health.choose(input).ok).toBe(true);
    health.record('a', { ok: false, reason: 'mismatch', at: T0 });
    health.record('b', { ok: false, reason: 'timeout', at: T0 });
    expect(health.choose(input).ok).toBe(false);
    expect(health.probeState().sources.a).toMatchObject({ ok: false, failures: 1, reason: 'mismatch' });
    expect(health.retryAfterSeconds()).toBe(40);
  });
});

describe('probe metric events (design 10.2)', () => {
  it('emits one probe event per outcome, and the restored state of each source on load', async () => {
    const events: MetricEvent[] = [];
    const metrics = { emit: (e: MetricEvent) => void events.push(e) };
    let now = T0;
    const storage = memoryProbeStorage();
    const f = fakeFetch({ a: 'ok', b: 'down', c: '404' });
    const health = new SourceProber({
      sources: [source('a'), source('b'), source('c')],
      order: ['a', 'b', 'c'],
      fetch: f.fn,
      now: () => now,
      storage,
      metrics,
    });
    await health.load();
    expect(events).toEqual([]);
    await health.round();
    // In the order the probes finished.
    const by = (e: MetricEvent) => ('source' in e ? (e.source ?? '') : '');
    expect([...events].sort((x, y) => by(x).localeCompare(by(y)))).toEqual([
      { type: 'probe', source: 'a', ok: true, reason: 'verified', seconds: 0 },
      { type: 'probe', source: 'b', ok: false, reason: 'unreachable', seconds: 0 },
      { type: 'probe', source: 'c', ok: false, reason: 'status', seconds: 0 },
    ]);
    events.length = 0;
    now = T0 + 1000;
    const restarted = new SourceProber({
      sources: [source('a'), source('b')],
      order: ['a', 'b'],
      fetch: f.fn,
      now: () => now,
      storage,
      metrics,
    });
    await restarted.load();
    expect(events).toEqual([
      { type: 'source-state', source: 'a', ok: true },
      { type: 'source-state', source: 'b', ok: false },
    ]);
  });
});
