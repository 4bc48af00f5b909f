import { MemoryObjectStore } from '@hub/core-index';
import { buildWithPages, syntheticModels } from '@hub/core-index/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Env } from '../src/bindings.js';
import { createEdgeHub } from '../src/edge-hub.js';
import type { ColoCacheLike } from '../src/r2-object-store.js';
import { loadMiniflare, type RunningEdge, startEdge } from './harness.js';

/**
 * The data center's cache (the Workers Cache API, Miniflare's here): an index page one isolate read from R2 is read
 * from there by the next cold isolate of the same data center, checked against its address (a damaged copy is dropped
 * and read again from R2). SYNTHETIC index of 40 models.
 */

let edge: RunningEdge;
const models = syntheticModels(40);

beforeAll(async () => {
  const store = new MemoryObjectStore();
  await buildWithPages(store, models);
  edge = await startEdge({ store });
}, 300_000);

afterAll(async () => {
  await edge?.close();
});

/**
 * Miniflare's cache, as the Worker sees `caches.default`: this test runs the Worker's code in Node, and Miniflare's
 * proxy takes its own Request and Response classes, so each call is translated to them.
 */
async function miniflareColo(): Promise<ColoCacheLike> {
  const mf = (await loadMiniflare()) as unknown as {
    Request: new (url: string) => unknown;
    Response: new (body: Uint8Array, init: { status: number; headers: Record<string, string> }) => unknown;
  };
  const cache = (await edge.mf.getCaches()).default as {
    match(r: unknown): Promise<{ status: number; arrayBuffer(): Promise<ArrayBuffer> } | undefined>;
    put(r: unknown, res: unknown): Promise<void>;
    delete(r: unknown): Promise<boolean>;
  };
  return {
    async match(req) {
      const r = await cache.match(new mf.Request(req.url));
      return r ? new Response(new Uint8Array(await r.arrayBuffer()), { status: r.status }) : undefined;
    },
    async put(req, res) {
      const headers = Object.fromEntries(res.headers.entries());
      await cache.put(new mf.Request(req.url), new mf.Response(new Uint8Array(await res.arrayBuffer()), { status: res.status, headers }));
    },
    delete: (req) => cache.delete(new mf.Request(req.url)),
  };
}

/** A fresh isolate's hub over Miniflare's bindings, R2 calls counted, with `colo` as its data center's cache. */
async function isolate(colo: ColoCacheLike) {
  const counts = { r2: 0 };
  const bucket = (await edge.mf.getR2Bucket('OBJECTS')) as object;
  const env = {
    OBJECTS: new Proxy(bucket, {
      get(target, prop) {
        const v = Reflect.get(target, prop);
        if (typeof v !== 'function') return v;
        return (...args: unknown[]) => {
          counts.r2++;
          return (v as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    }),
    STATE: await edge.mf.getKVNamespace('STATE'),
    ACCOUNTS: await edge.mf.getD1Database('ACCOUNTS'),
    LOG_LEVEL: 'error',
    INDEX_STORE: 'paged',
  } as unknown as Env;
  const hub = await createEdgeHub(env, Date.now, colo);
  const lookUp = async (id: string) => {
    const res = await hub.hub.handle({ method: 'GET', url: `http://edge.test/api/models/${id}`, headers: { get: () => null }, body: null });
    return res;
  };
  return { hub, counts, lookUp };
}

describe('index pages in the data center’s cache', () => {
  it('a second cold isolate reads from the cache what the first read from R2, with the same answer', async () => {
    const colo = await miniflareColo();
    const id = models[23]?.id as string;
    const first = await isolate(colo);
    const a = await first.lookUp(id);
    expect(a.status).toBe(200);
    expect(first.hub.objects.coloHits).toBe(0);
    const second = await isolate(colo);
    const b = await second.lookUp(id);
    expect(b.status).toBe(200);
    expect(new TextDecoder().decode(b.body as Uint8Array)).toBe(new TextDecoder().decode(a.body as Uint8Array));
    expect(second.hub.objects.coloHits).toBeGreaterThanOrEqual(1);
    expect(second.counts.r2).toBeLessThan(first.counts.r2);
  });

  it('a damaged copy in the cache is dropped and read again from R2', async () => {
    const colo = await miniflareColo();
    const id = models[31]?.id as string;
    const first = await isolate(colo);
    expect((await first.lookUp(id)).status).toBe(200);
    // every page key this look-up put there now holds other bytes
    const damaged = new Set<string>();
    const lying: ColoCacheLike = {
      async match(req) {
        const res = await colo.match(req);
        if (!res) return res;
        damaged.add(req.url);
        const bytes = new Uint8Array(await res.arrayBuffer());
        bytes[bytes.length - 2] = (bytes[bytes.length - 2] as number) ^ 1;
        return new Response(bytes, { status: 200 });
      },
      put: (req, res) => colo.put(req, res),
      delete: (req) => colo.delete(req),
    };
    const second = await isolate(lying);
    const res = await second.lookUp(id);
    expect(res.status).toBe(200);
    expect(((await JSON.parse(new TextDecoder().decode(res.body as Uint8Array))) as { id: string }).id).toBe(id);
    expect(damaged.size).toBeGreaterThanOrEqual(1);
    expect(second.hub.objects.coloHits).toBe(0);
  });
});
