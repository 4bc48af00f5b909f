import { MemoryObjectStore } from '@hub/core-index';
import { buildWithPages, syntheticModels } from '@hub/core-index/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Env } from '../src/bindings.js';
import worker from '../src/worker.js';
import { type RunningEdge, startEdge } from './harness.js';

/**
 * A cold isolate's storage operations before its first answer (design 11.1; Workers allow 1,000 an invocation): the
 * Worker's own code (src/worker.ts) run with a fresh `env` whose R2, KV and D1 bindings are Miniflare's, each wrapped
 * to count every call, on a SYNTHETIC index of 300 models and on the demo index. With the day's pages the count is
 * small and the same at both sizes; the whole store reads every model and source object.
 */

interface Counts {
  r2: number;
  kv: number;
  d1: number;
}

/** A binding whose every method call is counted under `key`. */
function counted<T extends object>(binding: T, counts: Counts, key: keyof Counts): T {
  return new Proxy(binding, {
    get(target, prop) {
      const v = Reflect.get(target, prop);
      if (typeof v !== 'function') return v;
      return (...args: unknown[]) => {
        counts[key]++;
        return (v as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

async function coldEnv(edge: RunningEdge, vars: Record<string, string>): Promise<{ env: Env; counts: Counts }> {
  const counts: Counts = { r2: 0, kv: 0, d1: 0 };
  const env = {
    OBJECTS: counted((await edge.mf.getR2Bucket('OBJECTS')) as object, counts, 'r2'),
    STATE: counted((await edge.mf.getKVNamespace('STATE')) as object, counts, 'kv'),
    ACCOUNTS: counted((await edge.mf.getD1Database('ACCOUNTS')) as object, counts, 'd1'),
    LOG_LEVEL: 'error',
    ...vars,
  } as unknown as Env;
  return { env, counts };
}

const ctx = { waitUntil: () => {} };
const total = (c: Counts) => c.r2 + c.kv + c.d1;

let big: RunningEdge;
let small: RunningEdge;
const models = syntheticModels(300);

beforeAll(async () => {
  const store = new MemoryObjectStore();
  await buildWithPages(store, models);
  big = await startEdge({ store });
  small = await startEdge();
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
    // the demo's models are in the root's head (no read); a model of the larger day costs its id bucket and its page
    expect(total(cold.counts)).toBeLessThanOrEqual(total(demo.counts) + 2);

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
    const cold = await coldEnv(big, { INDEX_STORE: 'memory' });
    const res = await worker.fetch(new Request(`http://edge.test/api/models/${models[7]?.id}`), cold.env, ctx);
    expect(res.status).toBe(200);
    expect(cold.counts.r2).toBeGreaterThan(300);
  }, 300_000);
});
