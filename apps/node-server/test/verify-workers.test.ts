// `hub index verify` at any size (issue 39): every object is hashed once, on worker threads, and the catalogs of the
// archive are walked together, so an object two days name is read and parsed once. Each day still names its own
// faults, as a check of that day alone names them; a damaged object is named once, by the hash pass; the worker
// threads and the calling thread name the same faults. (The worker is the built `dist/verify-worker.js`.)
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { type Address, buildIndex, type CatalogObject, canonicalBytes } from '@hub/core-index';
import { FsObjectStore } from '@hub/objects/node';
import { afterAll, describe, expect, it } from 'vitest';
import { verifyStore } from '../src/verify.js';
import { VERIFY_PROGRESS_FILE } from '../src/verify-resume.js';
import { SHARDED_CATALOG_LIMIT, shardedModels } from './helpers.js';

type CatalogShard = Pick<CatalogObject, 'rows' | 'objects'> & { kind: 'model-hub.catalog-shard' };
type Day = { date: string; index: string; catalog?: string; prev?: string | null; leaf?: number };

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const json = <T>(bytes: Uint8Array | undefined) => JSON.parse(new TextDecoder().decode(bytes)) as T;
const fileOf = (dataDir: string, address: string) => path.join(dataDir, 'objects', address.slice(7, 9), address.slice(7));

/** Two days of the same 120 models (one changed on the second), each catalog in several shards. */
async function twoDays() {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'hub-verify-workers-'));
  dirs.push(dataDir);
  const store = new FsObjectStore(dataDir);
  await buildIndex(store, { date: '2026-11-24', models: shardedModels(), catalogLimit: SHARDED_CATALOG_LIMIT });
  await buildIndex(store, { date: '2026-11-25', models: shardedModels(5), catalogLimit: SHARDED_CATALOG_LIMIT });
  return { dataDir, store };
}

/** Each day's shards, oldest day first. */
async function shardsByDay(store: FsObjectStore): Promise<CatalogShard[][]> {
  const archive = JSON.parse((await store.readRef('archive')) as string) as { days: Day[] };
  const out: CatalogShard[][] = [];
  for (const day of [...archive.days].reverse()) {
    const root = json<CatalogObject>((await store.get(day.index as Address))?.bytes);
    const shards: CatalogShard[] = [];
    for (const ref of root.shards ?? []) shards.push(json<CatalogShard>((await store.get(ref.address as Address))?.bytes));
    out.push(shards);
  }
  return out;
}

/** Rewrite every day's shards through `change` (oldest day first), chain the new catalogs, and serve the newest. */
async function rewriteDays(store: FsObjectStore, change: (shard: CatalogShard) => void): Promise<string[]> {
  const archive = JSON.parse((await store.readRef('archive')) as string) as { days: Day[] };
  let prev: string | null = null;
  const catalogs: string[] = [];
  for (const day of [...archive.days].reverse()) {
    const root = json<CatalogObject>((await store.get(day.index as Address))?.bytes);
    const refs = [];
    for (const ref of root.shards ?? []) {
      const shard = json<CatalogShard>((await store.get(ref.address as Address))?.bytes);
      change(shard);
      const put = await store.put(canonicalBytes(shard), { kind: 'model-hub.catalog-shard', mediaType: 'application/json' });
      refs.push({ address: put.meta.id, models: shard.rows.length });
    }
    const put = await store.put(canonicalBytes({ ...root, prev, shards: refs }), {
      kind: 'model-hub.catalog',
      mediaType: 'application/json',
    });
    // the day now names the changed catalog (its log leaf named the old one, so it is not named here)
    Object.assign(day, { index: put.meta.id, catalog: put.meta.id, prev, leaf: undefined });
    prev = put.meta.id;
    catalogs.unshift(put.meta.id);
  }
  await store.writeRef('archive', JSON.stringify(archive));
  await store.writeRef('current', prev as string);
  return catalogs; // newest first, the order verify names them in
}

/** verifyStore with its log lines kept. */
async function verify(store: FsObjectStore, workers?: number) {
  const lines: Record<string, unknown>[] = [];
  const keep = (o: object) => lines.push(o as Record<string, unknown>);
  const log = { debug() {}, info: keep, warn: keep, error: keep };
  const report = await verifyStore(store, { log, ...(workers === undefined ? {} : { workers }) });
  const event = (name: string) => lines.find((l) => l.event === name) ?? {};
  return { ...report, threads: event('verify-start').threads, checked: event('verify-catalogs').checked };
}

describe('hub index verify walks the days together, on worker threads', () => {
  it('checks an object both days name once, and still names its faults for each day, as each day alone names them', async () => {
    const { store, dataDir } = await twoDays();
    const [day1, day2] = (await shardsByDay(store)) as [CatalogShard[], CatalogShard[]];
    // every model and source object the days name, once
    const named = new Set<string>();
    for (const shard of [...day1, ...day2])
      for (const e of Object.values(shard.objects)) for (const a of [e.model, ...e.sources]) named.add(a);
    const sound = await verify(store, 2);
    expect(sound.faults).toEqual([]);
    expect(sound.threads).toBe(2);
    // 2 × 120 models, each with a model and a source object: 480 names, 242 objects (model 5 changed on day 2)
    expect(named.size).toBe(242);
    expect(sound.checked).toBe(named.size);

    // Day 1's shard 0 and day 2's shard 0 both name model 0 and its source: give model 0 an object that hashes to its
    // address but is no model object, and remove its source object.
    const entry = day2[0]?.objects['synthetic-org/model-0'] as CatalogShard['objects'][string];
    expect(entry).toBeDefined();
    expect(day1[0]?.objects['synthetic-org/model-0']).toEqual(entry);
    const notModel = (
      await store.put(canonicalBytes({ kind: 'model-hub.model', id: 'synthetic-org/model-0' }), {
        kind: 'model-hub.model',
        mediaType: 'application/json',
      })
    ).meta.id;
    const source = entry.sources[0] as string;
    await rm(fileOf(dataDir, source));
    const catalogs = await rewriteDays(store, (shard) => {
      const e = shard.objects['synthetic-org/model-0'];
      const row = shard.rows.find((r) => r.id === 'synthetic-org/model-0');
      if (e && row) {
        e.model = notModel;
        row.svc.manifest = notModel;
      }
    });
    const bad = await verify(new FsObjectStore(dataDir), 2);
    const schema = bad.faults.filter((f) => f.startsWith(`model synthetic-org/model-0: ${notModel} does not match its schema (`));
    expect(schema).toHaveLength(2);
    expect(bad.faults).toEqual([
      schema[0],
      `source of synthetic-org/model-0: ${source} is missing`,
      schema[1],
      `source of synthetic-org/model-0: ${source} is missing`,
    ]);
    expect(catalogs).toHaveLength(2);
    // the same faults from this thread alone
    const here = await verify(new FsObjectStore(dataDir), 0);
    expect(here.threads).toBe(0);
    expect(here.faults).toEqual(bad.faults);
  });

  it('names a damaged object both days name once, from the hash pass, and the catalogs trust that pass for every other object', async () => {
    const { store, dataDir } = await twoDays();
    const [day1, day2] = (await shardsByDay(store)) as [CatalogShard[], CatalogShard[]];
    const model = day2[1]?.objects[Object.keys(day2[1]?.objects ?? {})[0] as string]?.model as string;
    expect(day1.some((s) => Object.values(s.objects).some((e) => e.model === model))).toBe(true);
    // another revision written into the object behind the hub's back: it still parses as a model object (each day's
    // row would disagree with it), but it hashes elsewhere
    const { readFile, writeFile } = await import('node:fs/promises');
    const text = await readFile(fileOf(dataDir, model), 'utf8');
    const revision = (JSON.parse(text) as { revision: string }).revision;
    expect(text).toContain(`"revision":"${revision}"`);
    await writeFile(fileOf(dataDir, model), text.replace(`"revision":"${revision}"`, `"revision":"${'f'.repeat(40)}"`));
    for (const workers of [2, 0]) {
      const report = await verify(new FsObjectStore(dataDir), workers);
      expect(report.threads).toBe(workers);
      expect(report.faults).toHaveLength(1);
      expect(report.faults[0]).toMatch(new RegExp(`^${model}: bytes hash to blake3:[0-9a-f]{64}$`));
    }
  });

  it('goes on from the folders a killed run had hashed (resume), starts afresh without it, and removes the record when done', async () => {
    const { store, dataDir } = await twoDays();
    const file = path.join(dataDir, VERIFY_PROGRESS_FILE);
    const folders = (await readdir(path.join(dataDir, 'objects'))).filter((d) => /^[0-9a-f]{2}$/.test(d)).sort();
    const first = folders[0] as string;
    const inFirst = (await readdir(path.join(dataDir, 'objects', first))).filter((n) => /^[0-9a-f]{64}$/.test(n)).length;
    // What a run killed after its first folder left: that folder's line (here naming a fault, as if an object there
    // had been damaged when it was read), then a line cut short by the kill.
    const fault = `blake3:${first}${'0'.repeat(62)}: bytes hash to blake3:${'1'.repeat(64)}`;
    await writeFile(
      file,
      `${JSON.stringify({ format: 'hub.verify-progress/v1' })}\n${JSON.stringify({ folder: first, objects: 7, faults: [fault], bad: [] })}\n{"folder":"${folders[1]}","obj`,
    );
    const resumed = await verifyStore(store, { progressFile: file, resume: true });
    expect(resumed.faults).toEqual([fault]);
    expect(existsSync(file)).toBe(false);
    const fresh = await verifyStore(store, { progressFile: file });
    expect(fresh.faults).toEqual([]);
    expect(resumed.objects).toBe(fresh.objects - inFirst + 7);
    // without resume, a record left by a killed run is not taken
    await writeFile(
      file,
      `${JSON.stringify({ format: 'hub.verify-progress/v1' })}\n${JSON.stringify({ folder: first, objects: 7, faults: [fault], bad: [] })}\n`,
    );
    expect((await verifyStore(store, { progressFile: file })).faults).toEqual([]);
  });
});
