import { type Address, loadIndex, MemoryObjectStore } from '@hub/core-index';
import { buildWithPages, syntheticModels } from '@hub/core-index/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Env } from '../src/bindings.js';
import worker from '../src/worker.js';
import { demoStore, type RunningEdge, startEdge } from './harness.js';

/**
 * A cold isolate's storage operations before its first answer (design 11.1; Workers allow 1,000 an invocation): the
 * Worker's own code (src/worker.ts) run with a fresh `env` whose R2, KV and D1 bindings are Miniflare's, each wrapped
 * to count every call, on a SYNTHETIC index of 300 models and on the demo index. With the day's pages the count is
 * small and the same at both sizes; the whole store reads every model and source object.
 *
 * The whole store's case runs on the demo day: Miniflare's bindings seen from Node make every property read of an R2
 * object a synchronous call to workerd, and under a loaded CI machine hundreds of them (300 models read whole) once
 * answered a call with another's reply (cloudflare/workers-sdk#15552, fixed only in Miniflares that need Node 22),
 * which failed the start. Every model object the demo's catalog names is asserted read, so the contrast is exact.
 */

interface Counts {
  r2: number;
  kv: number;
  d1: number;
}

/** One storage call: the binding, the method, its key (or query) and, for a ranged R2 get, the range. */
interface Call {
  binding: keyof Counts;
  method: string;
  key: unknown;
  range?: { offset: number; length: number };
}

/** A binding whose every method call is counted under `key` and logged in `calls`. */
function counted<T extends object>(binding: T, counts: Counts, calls: Call[], key: keyof Counts): T {
  return new Proxy(binding, {
    get(target, prop) {
      const v = Reflect.get(target, prop);
      if (typeof v !== 'function') return v;
      return (...args: unknown[]) => {
        counts[key]++;
        const range = (args[1] as { range?: Call['range'] } | undefined)?.range;
        calls.push({ binding: key, method: String(prop), key: args[0], ...(range ? { range } : {}) });
        return (v as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

async function coldEnv(edge: RunningEdge, vars: Record<string, string>): Promise<{ env: Env; counts: Counts; calls: Call[] }> {
  const counts: Counts = { r2: 0, kv: 0, d1: 0 };
  const calls: Call[] = [];
  const env = {
    OBJECTS: counted((await edge.mf.getR2Bucket('OBJECTS')) as object, counts, calls, 'r2'),
    STATE: counted((await edge.mf.getKVNamespace('STATE')) as object, counts, calls, 'kv'),
    ACCOUNTS: counted((await edge.mf.getD1Database('ACCOUNTS')) as object, counts, calls, 'd1'),
    LOG_LEVEL: 'error',
    ...vars,
  } as unknown as Env;
  return { env, counts, calls };
}

/** The role of the index page an R2 key holds (`models`, `ids`, …; the root has none), read from the built store. */
async function roleOf(store: MemoryObjectStore, key: unknown): Promise<string | undefined> {
  if (typeof key !== 'string' || !key.startsWith('objects/')) return undefined;
  const stored = await store.get(`blake3:${key.slice('objects/'.length)}` as Address);
  return stored ? (JSON.parse(new TextDecoder().decode(stored.bytes)) as { role?: string }).role : undefined;
}

const ctx = { waitUntil: () => {} };
const total = (c: Counts) => c.r2 + c.kv + c.d1;

let big: RunningEdge;
let small: RunningEdge;
const models = syntheticModels(300);
const store = new MemoryObjectStore();
let demo: MemoryObjectStore;

beforeAll(async () => {
  await buildWithPages(store, models);
  demo = await demoStore();
  big = await startEdge({ store });
  small = await startEdge({ store: demo });
}, 600_000);

afterAll(async () => {
  await big?.close();
  await small?.close();
});

describe('a cold isolate reads a bounded number of storage objects before its first answer', () => {
  it('at most 8 before a model look-up from the pages, as many at 300 models as at the demo’s 2', async () => {
    const id = models[245]?.id as string;
    const cold = await coldEnv(big, { INDEX_STORE: 'paged' });
    const res = await worker.fetch(new Request(`http://edge.test/api/models/${id}`), cold.env, ctx);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { id: string }).id).toBe(id);
    expect(total(cold.counts)).toBeLessThanOrEqual(8);

    const demo = await coldEnv(small, { INDEX_STORE: 'paged' });
    const r = await worker.fetch(new Request('http://edge.test/api/models/demo/tiny-bert-synthetic'), demo.env, ctx);
    expect(r.status).toBe(200);
    // the demo's models are in the root's head (no read); a model of the larger day costs its id bucket and its model
    expect(total(cold.counts)).toBeLessThanOrEqual(total(demo.counts) + 2);
    // its model by one ranged get of its own bytes (a few KB), never its models page whole (layout 3's id entries)
    const ranged = cold.calls.filter((c) => c.range);
    expect(ranged).toHaveLength(1);
    expect(await roleOf(store, ranged[0]?.key)).toBe('models');
    expect(ranged[0]?.range?.length).toBeLessThan(4096);
    const whole = cold.calls.filter((c) => c.binding === 'r2' && c.method === 'get' && !c.range);
    for (const c of whole) expect(await roleOf(store, c.key)).not.toBe('models');

    // warm: the same isolate answers another look-up of the same page's models with no storage read beyond the probes
    const before = cold.counts.r2;
    await worker.fetch(new Request(`http://edge.test/api/models/${id}`), cold.env, ctx);
    expect(cold.counts.r2).toBe(before);
  });

  it('auto pages a small day too (300 models): the same few reads as paged', async () => {
    const cold = await coldEnv(big, {});
    const res = await worker.fetch(new Request(`http://edge.test/api/models/${models[7]?.id}`), cold.env, ctx);
    expect(res.status).toBe(200);
    expect(total(cold.counts)).toBeLessThanOrEqual(8);
  });

  it('memory loads the day whole: every model object read before the first answer (what the pages remove)', async () => {
    const current = (await demo.readRef('current')) as Address;
    const day = await loadIndex(demo, current);
    const modelKeys = day.models().map((m) => `objects/${m.address.slice('blake3:'.length)}`);
    expect(modelKeys.length).toBeGreaterThan(0);

    const paged = await coldEnv(small, { INDEX_STORE: 'paged' });
    const res = await worker.fetch(new Request('http://edge.test/api/models/demo/tiny-bert-synthetic'), paged.env, ctx);
    expect(res.status, await res.clone().text()).toBe(200);
    const pagedKeys = new Set(paged.calls.filter((c) => c.binding === 'r2' && c.method === 'get').map((c) => c.key));
    for (const k of modelKeys) expect(pagedKeys.has(k)).toBe(false);

    const whole = await coldEnv(small, { INDEX_STORE: 'memory' });
    const r = await worker.fetch(new Request('http://edge.test/api/models/demo/tiny-bert-synthetic'), whole.env, ctx);
    expect(r.status, await r.clone().text()).toBe(200);
    const wholeKeys = new Set(whole.calls.filter((c) => c.binding === 'r2' && c.method === 'get').map((c) => c.key));
    for (const k of modelKeys) expect(wholeKeys.has(k)).toBe(true);
    expect(whole.counts.r2).toBeGreaterThan(paged.counts.r2);
  });
});
