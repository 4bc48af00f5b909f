import { MemoryObjectStore, openPagedIndex } from '@hub/core-index';
import { buildWithPages, CountingObjectStore, request, syntheticModels } from '@hub/core-index/testing';
import { describe, expect, it } from 'vitest';
import { createComposedTestHub } from './testing/test-hub.js';

/**
 * Issue 39 through the real routes: on a paged index of 10,000 SYNTHETIC models, a resolve, an OCI blob by digest,
 * a model look-up and a one-model search each read a bounded number of objects from the store (counted by a
 * wrapper around it), and a warm model (from its second ask) is answered without a read.
 */
describe('the composed hub over a paged index of 10,000 SYNTHETIC models reads what a request needs', async () => {
  const inner = new MemoryObjectStore();
  const models = syntheticModels(10_000);
  const { catalog, pages } = await buildWithPages(inner, models);
  const store = new CountingObjectStore(inner);

  async function hubOnFreshIndex() {
    const index = await openPagedIndex(store, pages, catalog);
    const t = await createComposedTestHub({}, { index: () => index });
    store.reset();
    return t.hub;
  }

  it('a resolve reads a few objects cold, and none once the model is warm (kept from its second ask)', async () => {
    const hub = await hubOnFreshIndex();
    const m = models[7211];
    if (!m) throw new Error('no model 7211');
    const res = await request(hub, `/${m.id}/resolve/main/config.json`);
    expect(res.status).toBe(302);
    expect(res.headers['x-linked-etag']).toBe(`"${m.files[1]?.sha256}"`);
    expect(store.reads).toBeGreaterThan(0);
    expect(store.reads).toBeLessThanOrEqual(3);
    // the second ask reads again (a one-off look-up keeps nothing) and keeps the model warm
    store.reset();
    const second = await request(hub, `/${m.id}/resolve/main/README.md`);
    expect(second.status).toBe(302);
    expect(store.reads).toBeGreaterThan(0);
    store.reset();
    const again = await request(hub, `/${m.id}/resolve/main/tokenizer.json`);
    expect(again.status).toBe(302);
    expect(store.reads).toBe(0);
  });

  it('an OCI blob by digest and a model info read a bounded number of objects', async () => {
    const hub = await hubOnFreshIndex();
    const m = models[5001];
    if (!m) throw new Error('no model 5001');
    const weight = m.files[2];
    const blob = await request(hub, `/v2/${m.id.toLowerCase()}/blobs/sha256:${weight?.sha256}`);
    expect(blob.status).toBe(307);
    expect(store.reads).toBeLessThanOrEqual(5);
    store.reset();
    const other = models[42];
    const info = await request(hub, `/api/models/${other?.id}`);
    expect(info.status).toBe(200);
    expect(info.json<{ id: string }>().id).toBe(other?.id);
    expect(store.reads).toBeLessThanOrEqual(3);
  });

  it('a search that matches one model reads a bounded number of objects', async () => {
    const hub = await hubOnFreshIndex();
    const res = await request(hub, '/api/models?search=model-7211&limit=5');
    expect(res.status).toBe(200);
    expect(res.json<Array<{ id: string }>>().map((r) => r.id)).toEqual([models[7211]?.id]);
    expect(store.reads).toBeLessThanOrEqual(30);
  });
});
