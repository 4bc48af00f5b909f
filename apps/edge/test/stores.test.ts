import { accountStoreContract } from '@hub/account/testing';
import { objectStoreContract } from '@hub/objects/testing';
import { afterAll, beforeAll } from 'vitest';
import type { D1DatabaseLike, R2BucketLike } from '../src/bindings.js';
import { D1AccountStore } from '../src/d1-account-store.js';
import { R2ObjectStore } from '../src/r2-object-store.js';
import { loadMiniflare, type MiniflareLike } from './harness.js';

/**
 * The store contracts against the edge's backends as workerd runs them: Miniflare starts workerd
 * with R2 and D1 bindings and hands Node proxies to them, so every R2 call and every D1 statement
 * and batch runs in workerd.
 */
let mf: MiniflareLike;
let db: D1DatabaseLike;
let bucket: R2BucketLike & { delete(keys: string[]): Promise<void> };

beforeAll(async () => {
  const { Miniflare } = await loadMiniflare();
  mf = new Miniflare({
    modules: true,
    script: 'export default { fetch() { return new Response("") } }',
    compatibilityDate: '2026-04-20',
    d1Databases: ['ACCOUNTS'],
    r2Buckets: ['OBJECTS'],
  });
  db = (await mf.getD1Database('ACCOUNTS')) as unknown as D1DatabaseLike;
  bucket = (await mf.getR2Bucket('OBJECTS')) as unknown as typeof bucket;
});

afterAll(async () => {
  await mf?.dispose();
});

accountStoreContract('D1 (workerd)', async () => {
  const store = new D1AccountStore(db);
  await store.ensureSchema();
  await db.batch(['DELETE FROM saved', 'DELETE FROM requests', 'DELETE FROM accounts'].map((s) => db.prepare(s)));
  return store;
});

objectStoreContract('R2 (workerd)', async () => {
  for (;;) {
    const page = await bucket.list({ limit: 1000 });
    if (page.objects.length === 0) break;
    await bucket.delete(page.objects.map((o) => o.key));
  }
  return new R2ObjectStore(bucket);
});
