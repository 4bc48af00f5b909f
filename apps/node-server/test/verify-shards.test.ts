// `hub index verify` checks a sharded catalog a shard at a time (issue 39: memory bounded by a shard, whatever the
// index size) and names the same faults as a check of the whole catalog: a row against its entry's manifest and its
// model object's revision, a shard's row count against the root, and a row and its entry that sit in different shards
// (never so in a built catalog) are matched across shards, not reported.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type Address, type CatalogObject, canonicalBytes } from '@hub/core-index';
import type { FsObjectStore } from '@hub/objects/node';
import { afterAll, describe, expect, it } from 'vitest';
import { verifyStore } from '../src/verify.js';
import { buildShardedDay } from './helpers.js';

type CatalogShard = Pick<CatalogObject, 'rows' | 'objects'> & { kind: 'model-hub.catalog-shard' };

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const json = <T>(bytes: Uint8Array | undefined) => JSON.parse(new TextDecoder().decode(bytes)) as T;

/** 120 SYNTHETIC models in a catalog of several shards (helpers.ts `buildShardedDay`). */
async function sharded() {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'hub-verify-shards-'));
  dirs.push(dataDir);
  const { store, built } = await buildShardedDay(dataDir);
  const root = json<CatalogObject>((await store.get(built.catalog))?.bytes);
  const shards: CatalogShard[] = [];
  for (const ref of root.shards ?? []) shards.push(json<CatalogShard>((await store.get(ref.address as Address))?.bytes));
  expect(shards.length).toBeGreaterThan(3);
  expect((await verifyStore(store)).faults).toEqual([]);
  return { store, root, shards };
}

/** Put `shards` (as changed) and a root naming them (`models` per shard unless given), and make it the day served. */
async function serve(store: FsObjectStore, root: CatalogObject, shards: CatalogShard[], models?: number[]): Promise<string> {
  const refs = [];
  for (const [i, s] of shards.entries()) {
    const put = await store.put(canonicalBytes(s), { kind: 'model-hub.catalog-shard', mediaType: 'application/json' });
    refs.push({ address: put.meta.id, models: models?.[i] ?? s.rows.length });
  }
  const put = await store.put(canonicalBytes({ ...root, shards: refs }), { kind: 'model-hub.catalog', mediaType: 'application/json' });
  const address = put.meta.id;
  const archive = JSON.parse((await store.readRef('archive')) as string);
  // the day now names the changed catalog (its log leaf named the old one, so it is not named here)
  archive.days[0] = { ...archive.days[0], index: address, catalog: address, leaf: undefined };
  await store.writeRef('archive', JSON.stringify(archive));
  await store.writeRef('current', address);
  return address;
}

describe('a sharded catalog, checked a shard at a time', () => {
  it("names a row's manifest and revision that differ from its entry's, and a shard's row count the root misstates", async () => {
    const { store, root, shards } = await sharded();
    const s2 = shards[2] as CatalogShard;
    const [a, b] = s2.rows as [CatalogShard['rows'][number], CatalogShard['rows'][number]];
    const otherManifest = shards[0]?.rows[0]?.svc.manifest as string;
    s2.rows[0] = { ...a, svc: { ...a.svc, manifest: otherManifest } };
    s2.rows[1] = { ...b, sha: 'f'.repeat(40) };
    const counts = shards.map((s) => s.rows.length);
    counts[3] = (counts[3] as number) + 1;
    const catalog = await serve(store, root, shards, counts);
    const faults = (await verifyStore(store)).faults;
    const modelB = json<{ revision: string }>((await store.get(s2.objects[b.id]?.model as Address))?.bytes);
    expect(faults).toContain(`catalog ${catalog}: row ${a.id} names manifest ${otherManifest}`);
    expect(faults).toContain(`catalog ${catalog}: row ${b.id} has sha ${'f'.repeat(40)}, its model object ${modelB.revision}`);
    const shard3 = (json<CatalogObject>((await store.get(catalog as Address))?.bytes).shards ?? [])[3];
    expect(faults).toContain(`catalog ${catalog} shard 3 (${shard3?.address}): ${shards[3]?.rows.length} rows, the root says ${counts[3]}`);
    expect(faults).toHaveLength(3);
  });

  it('matches a row and its entry held by different shards (as a whole-catalog check does), and names a row with no entry anywhere', async () => {
    const { store, root, shards } = await sharded();
    const s0 = shards[0] as CatalogShard;
    const s3 = shards[3] as CatalogShard;
    // the entry of shard 0's first row moves to shard 3; the entry of shard 3's last row moves to shard 0
    const early = s0.rows[0]?.id as string;
    const late = s3.rows.at(-1)?.id as string;
    const earlyEntry = s0.objects[early] as CatalogShard['objects'][string];
    const lateEntry = s3.objects[late] as CatalogShard['objects'][string];
    delete s0.objects[early];
    delete s3.objects[late];
    s3.objects[early] = earlyEntry;
    s0.objects[late] = lateEntry;
    expect((await verifyStore(store)).faults).toEqual([]);
    await serve(store, root, shards);
    expect((await verifyStore(store)).faults).toEqual([]);

    // a row whose entry no shard holds
    const s1 = shards[1] as CatalogShard;
    const lost = s1.rows[0] as CatalogShard['rows'][number];
    delete s1.objects[lost.id];
    const catalog = await serve(store, root, shards);
    expect((await verifyStore(store)).faults).toEqual([`catalog ${catalog}: row ${lost.id} names manifest ${lost.svc.manifest}`]);
  });
});
