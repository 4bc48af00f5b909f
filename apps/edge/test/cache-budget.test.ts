import { MemoryObjectStore } from '@hub/core-index';
import { buildWithPages, syntheticModels } from '@hub/core-index/testing';
import { cacheUse } from '@hub/hub';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Env } from '../src/bindings.js';
import { createEdgeHub } from '../src/edge-hub.js';
import { type RunningEdge, startEdge } from './harness.js';

/**
 * One bound on every cache of an isolate (index/cache-budget.ts; Workers allow 128 MB an isolate). The edge's hub over
 * Miniflare's bindings, with `CACHE_MEGABYTES` set to 128 KB, is asked everything that fills a cache (each model
 * looked up twice, each object read twice through the object API, the browse list with rows), well past each share;
 * then every cache holds something and all of them together stay within the total. Before the budget, the kept
 * answers and the objects took 32 MB each whatever the index cache was given, and this test's 40 models filled
 * them past the total. SYNTHETIC index of 40 models.
 */

let edge: RunningEdge;
const models = syntheticModels(40);
const store = new MemoryObjectStore();
const BUDGET_MB = 0.125;

beforeAll(async () => {
  await buildWithPages(store, models);
  edge = await startEdge({ store });
}, 300_000);

afterAll(async () => {
  await edge?.close();
});

async function isolate(vars: Record<string, string>) {
  const env = {
    OBJECTS: await edge.mf.getR2Bucket('OBJECTS'),
    STATE: await edge.mf.getKVNamespace('STATE'),
    ACCOUNTS: await edge.mf.getD1Database('ACCOUNTS'),
    LOG_LEVEL: 'error',
    ...vars,
  } as unknown as Env;
  const edgeHub = await createEdgeHub(env, Date.now, undefined);
  const get = async (pathAndQuery: string) =>
    edgeHub.hub.handle({ method: 'GET', url: `http://edge.test${pathAndQuery}`, headers: { get: () => null }, body: null });
  return { edgeHub, get };
}

async function addresses(): Promise<string[]> {
  const out: string[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await store.list({ limit: 1000, ...(cursor ? { cursor } : {}) });
    out.push(...page.items.map((m) => m.id));
    if (!page.next) return out;
    cursor = page.next;
  }
}

describe('the edge’s cache budget', () => {
  it('every cache of the isolate together stays within CACHE_MEGABYTES, each holding its share', async () => {
    const { edgeHub, get } = await isolate({ CACHE_MEGABYTES: String(BUDGET_MB) });
    for (let round = 0; round < 2; round++) {
      for (const m of models) expect((await get(`/api/models/${m.id}`)).status).toBe(200);
      for (const a of await addresses()) expect((await get(`/api/v1/objects/${a}`)).status).toBe(200);
      for (const sort of ['downloads', 'likes', 'lastModified'])
        expect((await get(`/api/models?full=true&limit=40&sort=${sort}`)).status).toBe(200);
    }
    const use = cacheUse(edgeHub.hub, edgeHub.deps);
    const total = BUDGET_MB * 2 ** 20;
    expect(use.total).toBeLessThanOrEqual(total);
    // each part was asked more than its share holds, and holds up to it
    expect(use.answers).toBeGreaterThan(0);
    expect(use.answers).toBeLessThanOrEqual(total / 5);
    expect(use.objects).toBeGreaterThan(0);
    expect(use.objects).toBeLessThanOrEqual(total / 5);
    expect(use.rows).toBeGreaterThan(0);
    expect(use.rows).toBeLessThanOrEqual(total / 10);
    expect(use.index).toBeGreaterThan(0);
    expect(use.index).toBeLessThanOrEqual(total / 2);
  }, 120_000);

  it('refuses a CACHE_MEGABYTES that is not a positive number', async () => {
    await expect(isolate({ CACHE_MEGABYTES: 'lots' })).rejects.toThrow(/CACHE_MEGABYTES must be a positive number/);
  });
});
