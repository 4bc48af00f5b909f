import { describe, expect, it } from 'vitest';
import { demoStore, uploadStore } from './harness.js';

/**
 * `pnpm --filter @hub/edge dev` seeds what node-server seeds on an empty data folder (issue 27): the bundled spaces
 * and the demo bucket besides the demo index, so `/spaces` and `/buckets` list them at the edge too. The dev script
 * and the edge tests build the store with the same function (scripts/seed.mjs demoStore).
 */
class MapBucket {
  readonly items = new Map<string, Uint8Array>();
  async head(key: string) {
    return this.items.has(key) ? {} : null;
  }
  async get(key: string) {
    const v = this.items.get(key);
    return v ? { text: async () => new TextDecoder().decode(v), arrayBuffer: async () => v.buffer } : null;
  }
  async put(key: string, value: Uint8Array | string) {
    this.items.set(key, typeof value === 'string' ? new TextEncoder().encode(value) : value);
  }
}

describe('the edge dev seed', () => {
  it('holds the bundled spaces and the demo bucket with the demo index, and uploads all three refs', async () => {
    const store = await demoStore();
    expect(await store.readRef('spaces')).toMatch(/^blake3:[0-9a-f]{64}$/);
    expect(await store.readRef('buckets')).toMatch(/^blake3:[0-9a-f]{64}$/);
    expect(await store.readRef('current')).toMatch(/^blake3:[0-9a-f]{64}$/);
    const bucket = new MapBucket();
    // @ts-expect-error: a plain .mjs shared with the dev script
    const seed = await import('../scripts/seed.mjs');
    expect(await seed.bucketHolds(bucket, store)).toBe(false);
    await uploadStore(store, bucket as never);
    for (const ref of ['spaces', 'buckets', 'current']) {
      expect(await (await bucket.get(`refs/${ref}`))?.text()).toBe(await store.readRef(ref));
    }
    expect(await seed.bucketHolds(bucket, store)).toBe(true);
    // a local R2 seeded before (the demo index alone) is seeded again, not kept
    bucket.items.delete('refs/spaces');
    expect(await seed.bucketHolds(bucket, store)).toBe(false);
  });
});
