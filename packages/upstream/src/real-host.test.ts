import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import {
  type Address,
  type CatalogObject,
  type Logger,
  MemoryObjectStore,
  type MetricEvent,
  type ModelObject,
  sha256Hex,
} from '@hub/core-index';
import { http, passthrough } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { modelHostFixtures } from '../../../fixtures/model-host/load.js';
import { type Clock, UpstreamClient } from './client.js';
import { bucketOf, parseRateLimit } from './rate-limit.js';
import { runUpstreamBuild } from './run.js';

import type { FakeUpstreamData, RealHostOptions } from './testing/fake-types.js';
import { FakeUpstream } from './testing/fake-upstream.js';
import type { BuildProgress, UpstreamBuildOptions } from './types.js';

/**
 * The index run against the fake upstream's real-host mode (quotas, header shapes, error codes from
 * fixtures/model-host-recorded). Time is a virtual clock: a sleep moves it forward at once, so a 5-minute
 * window costs no real time and every wait is proven by the clock.
 */

const data: FakeUpstreamData = modelHostFixtures();
const recorded = JSON.parse(
  readFileSync(fileURLToPath(new URL('../../../fixtures/model-host-recorded/recorded.json', import.meta.url)), 'utf8'),
) as {
  rateLimits: { windowSeconds: number; tiers: Record<'anonymous' | 'free', Record<string, number>> };
  listing: { defaultFields: string[] };
};
const BASE = 'https://hf.test';
const MS = 'https://ms.test';

let fake: FakeUpstream;
const server = setupServer(http.all('*', ({ request }) => fake.handle(request)));
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

/**
 * Virtual time: a sleeper wakes at its own `now + ms`; on the next turn the clock jumps to the earliest
 * waiting sleeper (never backwards), so concurrent waits overlap as they would in real time.
 */
function virtualClock(start = Date.parse('2026-05-04T09:00:00Z')): Clock & { sleeps: number[] } {
  let t = start;
  const sleeps: number[] = [];
  const sleepers: Array<{ at: number; wake: () => void }> = [];
  const tick = () => {
    if (!sleepers.length) return;
    sleepers.sort((a, b) => a.at - b.at);
    t = Math.max(t, (sleepers[0] as { at: number }).at);
    while (sleepers.length && (sleepers[0] as { at: number }).at <= t) (sleepers.shift() as { wake: () => void }).wake();
  };
  return {
    sleeps,
    now: () => t,
    sleep: (ms) => {
      sleeps.push(ms);
      return new Promise<void>((wake) => {
        sleepers.push({ at: t + ms, wake });
        setImmediate(tick);
      });
    },
  };
}

function realHost(clock: Clock, extra: Partial<RealHostOptions> = {}): RealHostOptions {
  return {
    now: () => clock.now(),
    quotas: recorded.rateLimits.tiers.anonymous,
    tokenQuotas: recorded.rateLimits.tiers.free,
    windowSeconds: recorded.rateLimits.windowSeconds,
    defaultFields: recorded.listing.defaultFields,
    ...extra,
  };
}

function newFake(clock: Clock, extra: Partial<ConstructorParameters<typeof FakeUpstream>[1]> = {}) {
  fake = new FakeUpstream(data, { base: BASE, msBase: MS, realHost: realHost(clock), ...extra });
  return fake;
}

function collectingLog(): Logger & { lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const put = (o: Record<string, unknown>, msg?: string) => lines.push({ ...o, msg });
  return { lines, info: put, warn: put, error: put, debug: put } as unknown as Logger & { lines: Array<Record<string, unknown>> };
}

function options(store: MemoryObjectStore, clock: Clock, extra: Partial<UpstreamBuildOptions> = {}): UpstreamBuildOptions {
  return {
    objects: store,
    upstream: BASE,
    fetch: (...a) => fetch(...a),
    clock,
    top: 20,
    date: '2026-05-04',
    http: { random: () => 0.5 },
    ...extra,
  };
}

const decoder = new TextDecoder();
const sha256HexOf = (text: string) => sha256Hex(new TextEncoder().encode(text));
async function modelOf(store: MemoryObjectStore, catalog: CatalogObject, id: string): Promise<ModelObject> {
  const s = await store.get(catalog.objects[id]?.model as Address);
  if (!s) throw new Error(`missing model ${id}`);
  return JSON.parse(decoder.decode(s.bytes)) as ModelObject;
}

/** The GGUF block the host would compute from the stand-in GGUF (the real tiny llama-2 file every .gguf serves). */
async function ggufInfoOfStandIn(): Promise<NonNullable<RealHostOptions['ggufInfo']>> {
  const { gguf } = await import('@huggingface/gguf');
  const bytes = modelHostFixtures().gguf;
  // served from memory, with Range, as the header reader asks for it
  const fetchBytes = (async (_url: string, init?: RequestInit) => {
    const range = /bytes=(\d+)-(\d*)/.exec(new Headers(init?.headers).get('range') ?? '');
    const start = range ? Number(range[1]) : 0;
    const end = range?.[2] ? Math.min(Number(range[2]) + 1, bytes.length) : bytes.length;
    return new Response(bytes.slice(start, end), { status: range ? 206 : 200 });
  }) as typeof fetch;
  const { metadata, parameterCount } = (await gguf('http://stand-in.invalid/tiny.gguf', {
    fetch: fetchBytes,
    computeParametersCount: true,
  })) as unknown as {
    metadata: Record<string, unknown>;
    parameterCount: number;
  };
  const arch = metadata['general.architecture'] as string;
  return { architecture: arch, context_length: Number(metadata[`${arch}.context_length`]), total: parameterCount };
}

async function catalogOf(store: MemoryObjectStore, address: string): Promise<CatalogObject> {
  const s = await store.get(address as Address);
  if (!s) throw new Error(`missing ${address}`);
  return JSON.parse(decoder.decode(s.bytes)) as CatalogObject;
}

describe('rate-limit headers', () => {
  it('reads RateLimit and RateLimit-Policy as the recorded answers send them, and knows each URL’s bucket', () => {
    expect(parseRateLimit('"api";r=0;t=55', '"fixed window";"api";q=500;w=300')).toEqual({
      bucket: 'api',
      remaining: 0,
      resetSeconds: 55,
      quota: 500,
      windowSeconds: 300,
    });
    expect(parseRateLimit('"resolvers";r=2998;t=172', null)).toEqual({ bucket: 'resolvers', remaining: 2998, resetSeconds: 172 });
    expect(parseRateLimit('garbage', null)).toBeUndefined();
    expect(bucketOf(`${BASE}/api/models?limit=5`)).toBe('api');
    expect(bucketOf(`${BASE}/a/b/resolve/main/config.json`)).toBe('resolvers');
    expect(bucketOf(`${BASE}/a/b`)).toBe('pages');
  });

  it('never sends the token to another origin: not to a Link on another host, not to the second host', async () => {
    const seen: Array<{ url: string; auth: string | null }> = [];
    const stub = (async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = String(input);
      seen.push({ url, auth: new Headers(init?.headers).get('authorization') });
      return Response.json([], {
        headers: url.startsWith(BASE) ? { link: '<https://elsewhere.test/api/models?cursor=2>; rel="next"' } : {},
      });
    }) as typeof fetch;
    const client = new UpstreamClient({ fetch: stub, token: 'hf_SECRET', tokenOrigin: BASE });
    const pages = client.pages(`${BASE}/api/models`);
    await pages.next();
    await expect(pages.next()).rejects.toThrow(/another origin/);
    await client.json(`${MS}/api/v1/models/a/b/repo/files`);
    expect(seen).toEqual([
      { url: `${BASE}/api/models`, auth: 'Bearer hf_SECRET' },
      { url: `${MS}/api/v1/models/a/b/repo/files`, auth: null },
    ]);
  });
});

describe('the index run against the real host', () => {
  it('a 500-model run with the anonymous quota completes with every model, pausing on the reset, never over a bucket', async () => {
    const clock = virtualClock();
    newFake(clock);
    const log = collectingLog();
    const progress: BuildProgress[] = [];
    const events: MetricEvent[] = [];
    const store = new MemoryObjectStore();
    const run = await runUpstreamBuild(
      options(store, clock, {
        top: 500,
        pageSize: 100,
        log,
        onProgress: (p) => progress.push(p),
        modelscope: false,
        metrics: { emit: (e) => void events.push(e) },
      }),
    );
    expect(run.models).toBe(500);
    expect(run.skipped).toEqual([]);
    // More API requests than one anonymous window holds: the run paused for the reset instead of failing.
    expect(run.requestsByBucket.api).toBeGreaterThan(recorded.rateLimits.tiers.anonymous.api as number);
    expect(clock.sleeps.some((ms) => ms >= 1000)).toBe(true);
    expect(run.seconds).toBeGreaterThan(0);
    // Every request honoured its bucket: no window of any bucket went over its quota, so the host never said 429.
    expect(fake.overQuota).toEqual({});
    expect(run.rateLimited).toBe(0);
    // Only the api bucket waited; resolvers went on.
    const waits = log.lines.filter((l) => l.event === 'rate-limit-wait');
    expect(waits.length).toBeGreaterThan(0);
    expect(new Set(waits.map((w) => w.bucket))).toEqual(new Set(['api']));
    // The progress line knew the quota left and the pause.
    expect(progress.some((p) => p.waiting?.bucket === 'api' && p.waiting.seconds > 0)).toBe(true);
    expect(progress.some((p) => p.quota?.some((q) => q.bucket === 'resolvers' && q.quota === 3000))).toBe(true);
    // The run's metric events (design 10.2) add up to its summary: requests per bucket, pauses, models, the end.
    const count = (pick: (e: MetricEvent) => string | undefined) => {
      const out: Record<string, number> = {};
      for (const e of events) {
        const k = pick(e);
        if (k !== undefined) out[k] = (out[k] ?? 0) + 1;
      }
      return out;
    };
    expect(count((e) => (e.type === 'upstream-request' ? e.bucket : undefined))).toEqual(run.requestsByBucket);
    expect(count((e) => (e.type === 'upstream-pause' ? e.bucket : undefined))).toEqual({ api: waits.length });
    expect(count((e) => (e.type === 'upstream-model' ? e.outcome : undefined))).toEqual({ done: 500 });
    expect(events.filter((e) => e.type === 'upstream-run')).toEqual([{ type: 'upstream-run', ok: true, seconds: run.seconds }]);
    // The next day: 25 of the 500 (5%) have a new revision; the rest reuse yesterday's objects.
    for (const id of fake.order.slice(0, 500).filter((_, i) => i % 20 === 0)) fake.bump(id);
    const daily = await runUpstreamBuild(options(store, clock, { top: 500, pageSize: 100, modelscope: false, date: '2026-05-05' }));
    expect(daily.models).toBe(500);
    expect(daily.reused).toBe(475);
    expect(daily.requestsByBucket.api).toBeLessThan(recorded.rateLimits.tiers.anonymous.api as number);
    // The figures docs/operations.md is computed from.
    console.log(`500-model cold run: ${JSON.stringify(run.requestsByBucket)} requests, ${run.seconds} s on the host's clock`);
    console.log(`500-model daily run (25 changed): ${JSON.stringify(daily.requestsByBucket)} requests, ${daily.seconds} s`);
  }, 120_000);

  it('a 429 storm during the listing: the run waits for the window and completes', async () => {
    const clock = virtualClock();
    newFake(clock);
    // Ten 429s in a row on the listing, in the documented shape (RateLimit with r=0, no Retry-After).
    fake.inject(
      /\/api\/models\?/,
      Array.from({ length: 10 }, () => ({ status: 429 })),
    );
    const run = await runUpstreamBuild(options(new MemoryObjectStore(), clock, { top: 30, pageSize: 10 }));
    expect(run.models).toBe(30);
    expect(run.rateLimited).toBe(10);
    expect(run.retries).toBe(0);
    // Each 429 paused the api bucket until the reset the header named.
    expect(run.waitedMs).toBeGreaterThan(0);
    expect(clock.sleeps.filter((ms) => ms >= 1000).length).toBeGreaterThanOrEqual(1);
  });

  it('with a token: the token quota applies and the token never reaches the second host', async () => {
    const clock = virtualClock();
    newFake(clock, {
      realHost: realHost(clock, { token: 'hf_TESTTOKEN' }),
      modelscope: { 'deepseek-ai/DeepSeek-V4-Pro': { from: 'deepseek-ai/DeepSeek-V4-Pro', mode: 'same' } },
    });
    const log = collectingLog();
    const run = await runUpstreamBuild(
      options(new MemoryObjectStore(), clock, { top: 10, token: 'hf_TESTTOKEN', modelscope: { base: MS }, log }),
    );
    expect(run.models).toBe(10);
    expect(fake.authElsewhere).toBe(0);
    expect(JSON.stringify(log.lines)).not.toContain('hf_TESTTOKEN');
    expect(JSON.stringify(run)).not.toContain('hf_TESTTOKEN');
    expect([...fake.windows.keys()].every((k) => k.startsWith('token:'))).toBe(true);
    expect(run.sources['modelscope.cn']).toBe('checked');
  });

  it('the second host refusing connections costs seconds, not minutes: same run with it off, summary says unreachable', async () => {
    // A loopback port nobody listens on: connections are refused, as from networks where the host is dark.
    const port = await new Promise<number>((resolve) => {
      const s = createServer();
      s.listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const dark = `http://127.0.0.1:${port}`;
    server.use(http.all(`${dark}/*`, () => passthrough()));

    const offClock = virtualClock();
    newFake(offClock);
    const t0 = performance.now();
    const off = await runUpstreamBuild(options(new MemoryObjectStore(), offClock, { modelscope: false }));
    const offMs = performance.now() - t0;

    const darkClock = virtualClock();
    newFake(darkClock);
    const log = collectingLog();
    const t1 = performance.now();
    const on = await runUpstreamBuild(options(new MemoryObjectStore(), darkClock, { modelscope: { base: dark }, log }));
    const onMs = performance.now() - t1;

    expect(on.models).toBe(20);
    expect(on.catalog).toBe(off.catalog);
    expect(on.sources['modelscope.cn']).toBe('unreachable');
    expect(off.sources['modelscope.cn']).toBe('off');
    // Within a few seconds of the run without it, on the run's clock (waits included) and on the wall clock.
    expect(on.seconds - off.seconds).toBeLessThan(5);
    expect(onMs - offMs).toBeLessThan(5000);
    // Said once.
    expect(log.lines.filter((l) => l.event === 'source-unreachable')).toHaveLength(1);
  });

  it('a model failing transiently on day 2 stays in the catalog with its day-1 object, counted as kept', async () => {
    const clock = virtualClock();
    newFake(clock);
    const store = new MemoryObjectStore();
    const day1 = await runUpstreamBuild(options(store, clock, { top: 10 }));
    const id = fake.order[2] as string;
    const before = await catalogOf(store, day1.catalog);
    fake.bump(id);
    // Its new tree answers 503 every time (more than the retries), the others are fine.
    fake.inject(
      new RegExp(`/api/models/${id}/tree/`),
      Array.from({ length: 10 }, () => ({ status: 503 })),
    );
    const outcomes: string[] = [];
    const metrics = { emit: (e: MetricEvent) => void (e.type === 'upstream-model' && outcomes.push(e.outcome)) };
    const day2 = await runUpstreamBuild(options(store, clock, { top: 10, date: '2026-05-05', metrics }));
    expect(outcomes.filter((o) => o === 'kept')).toHaveLength(1);
    expect(outcomes.filter((o) => o === 'done')).toHaveLength(9);
    const after = await catalogOf(store, day2.catalog);
    expect(day2.models).toBe(10);
    expect(after.objects[id]?.model).toBe(before.objects[id]?.model);
    expect(day2.kept).toBe(1);
    expect(day2.keptByReason).toEqual({ 'HTTP 503': 1 });
    expect(day2.skipped.filter((s) => s.id === id)).toEqual([]);
  });

  it('takes GGUF facts from the listing (expand[]=gguf) instead of range reads, and falls back to range reads without them', async () => {
    const info = await ggufInfoOfStandIn();
    newFake(virtualClock());
    const ggufIds = fake.order.filter((id) => fake.models.get(id)?.files.some((f) => /\.gguf$/i.test(f.path))).slice(0, 5);
    expect(ggufIds.length).toBeGreaterThan(0);
    const top = fake.order.indexOf(ggufIds[ggufIds.length - 1] as string) + 1;

    const clock = virtualClock();
    newFake(clock, { realHost: realHost(clock, { ggufInfo: info }) });
    const store = new MemoryObjectStore();
    const listed = await runUpstreamBuild(options(store, clock, { top, modelscope: false }));
    expect(fake.counts.range ?? 0).toBe(0);
    expect(fake.log.some((l) => l.includes('expand%5B%5D=gguf') || l.includes('expand[]=gguf'))).toBe(true);
    const m = await modelOf(store, await catalogOf(store, listed.catalog), ggufIds[0] as string);
    expect(m.facts.gguf?.find((g) => g.architecture)).toMatchObject({ architecture: info.architecture, parameters: info.total });

    const clock2 = virtualClock();
    newFake(clock2);
    const store2 = new MemoryObjectStore();
    const read = await runUpstreamBuild(options(store2, clock2, { top, modelscope: false }));
    expect(fake.counts.range ?? 0).toBeGreaterThan(0);
    const m2 = await modelOf(store2, await catalogOf(store2, read.catalog), ggufIds[0] as string);
    expect(m2.facts.gguf?.find((g) => g.architecture)).toMatchObject({ architecture: info.architecture, parameters: info.total });
  });

  it('a GGUF header read that fails is not kept as final: the next run reads it again', async () => {
    const clock = virtualClock();
    newFake(clock);
    const id = fake.order.find((i) => fake.models.get(i)?.files.some((f) => /\.gguf$/i.test(f.path))) as string;
    const top = fake.order.indexOf(id) + 1;
    const store = new MemoryObjectStore();
    // The first range read of its GGUF answers 503 on all 7 attempts (1 + 6 retries): day 1 gets no header.
    fake.inject(
      new RegExp(`/${id}/resolve/.*\\.gguf$`),
      Array.from({ length: 7 }, () => ({ status: 503 })),
    );
    const day1 = await runUpstreamBuild(options(store, clock, { top, modelscope: false }));
    const m1 = await modelOf(store, await catalogOf(store, day1.catalog), id);
    expect(m1.facts.gguf?.some((g) => g.architecture)).toBe(false);
    expect(fake.counts['injected-503']).toBe(7);
    const day2 = await runUpstreamBuild(options(store, clock, { top, modelscope: false, date: '2026-05-05' }));
    const m2 = await modelOf(store, await catalogOf(store, day2.catalog), id);
    expect(m2.revision).toBe(m1.revision);
    expect(m2.facts.gguf?.some((g) => g.architecture)).toBe(true);
  });

  it('follows tree pages of 1,000 entries with an absolute Link, and ignores xetHash beside lfs', async () => {
    const clock = virtualClock();
    newFake(clock);
    const id = fake.order[0] as string;
    const m = fake.models.get(id);
    if (!m) throw new Error('no model');
    // SYNTHETIC: 2,400 LFS shards in one repository (real sharded checkpoints and dataset-like repos reach thousands).
    for (let i = 0; i < 2400; i++) {
      const lfs = sha256HexOf(`SYNTHETIC shard ${i}`);
      m.files.push({ path: `shards/part-${String(i).padStart(5, '0')}.bin`, size: 1000 + i, lfs });
    }
    const run = await runUpstreamBuild(options(new MemoryObjectStore(), clock, { top: 1, modelscope: false }));
    expect(run.models).toBe(1);
    expect(run.files).toBeGreaterThan(2400);
    // 2,400 files, a directory and the small files: three pages of at most 1,000.
    expect(fake.counts.tree).toBe(3);
    const pages = fake.log.filter((l) => l.includes('/tree/'));
    expect(pages[1]).toContain('cursor=1000');
    // The host's tree carries xetHash beside lfs; the run takes the SHA-256 from lfs.oid only.
    const tree = (await (await fetch(`${BASE}/api/models/${id}/tree/${m.sha}?recursive=true`)).json()) as Array<Record<string, unknown>>;
    const shard = tree.find((e) => e.path === 'shards/part-00000.bin') as { lfs: { oid: string }; xetHash: string };
    expect(shard.xetHash).toMatch(/^[0-9a-f]{64}$/);
    expect(shard.xetHash).not.toBe(shard.lfs.oid);
    const store = new MemoryObjectStore();
    const again = await runUpstreamBuild(options(store, clock, { top: 1, modelscope: false }));
    const model = await modelOf(store, await catalogOf(store, again.catalog), id);
    expect(model.files.find((f) => f.path === 'shards/part-00000.bin')?.sha256).toBe(shard.lfs.oid);
  });

  it('a throttled second host is paced like the upstream: its 429s wait and its lookups still land', async () => {
    const clock = virtualClock();
    newFake(clock, { modelscope: { 'deepseek-ai/DeepSeek-V4-Pro': { from: 'deepseek-ai/DeepSeek-V4-Pro', mode: 'same' } } });
    const top = fake.order.indexOf('deepseek-ai/DeepSeek-V4-Pro') + 1;
    expect(top).toBeGreaterThan(0);
    fake.inject(
      /^https:\/\/ms\.test\//,
      Array.from({ length: 4 }, () => ({ status: 429, headers: { 'retry-after': '30' } })),
    );
    const store = new MemoryObjectStore();
    const run = await runUpstreamBuild(options(store, clock, { top, modelscope: { base: MS } }));
    expect(run.models).toBe(top);
    expect(run.sources['modelscope.cn']).toBe('checked');
    expect(clock.sleeps.filter((ms) => ms === 30_000).length).toBeGreaterThanOrEqual(1);
    const catalog = await catalogOf(store, run.catalog);
    const sources = await Promise.all(
      (catalog.objects['deepseek-ai/DeepSeek-V4-Pro']?.sources ?? []).map(
        async (a) => JSON.parse(decoder.decode((await store.get(a as Address))?.bytes)) as { source: string },
      ),
    );
    expect(sources.map((x) => x.source)).toContain('modelscope.cn');
  });
});

describe('small files per model', () => {
  it('at most the bound at once; the first failure aborts the others and starts no more', async () => {
    const { boundedAll } = await import('@hub/core-index');
    let active = 0;
    let peak = 0;
    const started: number[] = [];
    const aborted: number[] = [];
    const items = Array.from({ length: 20 }, (_, i) => i);
    const run = boundedAll(items, 4, async (i, _index, signal) => {
      started.push(i);
      active++;
      peak = Math.max(peak, active);
      try {
        await new Promise<void>((resolve, reject) => {
          const t = setTimeout(resolve, i === 5 ? 1 : 50);
          signal.addEventListener('abort', () => {
            clearTimeout(t);
            aborted.push(i);
            reject(signal.reason);
          });
        });
        if (i === 5) throw new Error('file 5 failed');
        return i;
      } finally {
        active--;
      }
    });
    await expect(run).rejects.toThrow('file 5 failed');
    expect(peak).toBe(4);
    // Item 5 failed while 4 others ran: they were aborted, and none after them started.
    expect(aborted.length).toBeGreaterThan(0);
    expect(started.length).toBeLessThan(20);
  });
});
