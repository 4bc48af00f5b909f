import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Address, buildIndex, type CatalogObject, IndexLoadError, openPagedIndex } from '@hub/core-index';
import { buildWithPages, syntheticModels } from '@hub/core-index/testing';
import { FsObjectStore } from '@hub/objects/node';
import { afterAll, describe, expect, it } from 'vitest';
import { LOAD_PACK_FILE, loadVerifiedOnce, packDigest, VERIFIED_REF, verifyStore, writeLoadPack } from '../src/verify.js';
import { buildShardedDay, startTestHub } from './helpers.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

/** Change one letter inside the first JSON string value of an object file, behind the hub's back (JSON stays valid). */
async function corruptKeepingJson(dataDir: string, address: string): Promise<void> {
  const hex = address.slice('blake3:'.length);
  const file = path.join(dataDir, 'objects', hex.slice(0, 2), hex);
  const text = await readFile(file, 'utf8');
  const at = text.indexOf(':"') + 2;
  const c = text[at] === 'x' ? 'y' : 'x';
  await writeFile(file, text.slice(0, at) + c + text.slice(at + 1));
}

describe('objects are verified once, when a catalog is first started on or switched to', () => {
  it('records the verified catalog; a later start reads it without re-hashing; verify catches the bit and the next start is refused', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'hub-startv-'));
    dirs.push(dataDir);
    const first = await startTestHub({ dataDir });
    await first.close();
    const store = new FsObjectStore(dataDir);
    const current = (await store.readRef('current')) as string;
    expect(await store.readRef(VERIFIED_REF)).toBe(current);
    expect((await verifyStore(store)).faults).toEqual([]);
    // The load pack for the next start is one file in the data folder, not an object of the store.
    const pack = await readFile(path.join(dataDir, LOAD_PACK_FILE), 'utf8');
    expect(pack.slice(pack.indexOf('\n') + 1)).toContain(`"catalog":"${current}"`);
    const kinds = new Set((await store.list({ limit: 10_000 })).items.map((m) => m.kind));
    expect(kinds.has('model-hub.catalog')).toBe(true);
    expect([...kinds].filter((k) => k.includes('load-pack'))).toEqual([]);

    const catalog = JSON.parse(new TextDecoder().decode((await store.get(current as never))?.bytes)) as {
      objects: Record<string, { model: string }>;
    };
    const modelAddress = Object.values(catalog.objects)[0]?.model as string;
    await corruptKeepingJson(dataDir, modelAddress);

    // Documented: a start on an already verified catalog does not re-hash, so this corruption is not seen here ...
    const second = await startTestHub({ dataDir });
    expect((await fetch(`${second.url}/-/ready`)).status).toBe(200);
    await second.close();

    // ... `hub index verify` finds it, and withdraws the trust ...
    const report = await verifyStore(new FsObjectStore(dataDir));
    expect(report.faults.some((f) => f.startsWith(`${modelAddress}: bytes hash to`))).toBe(true);
    expect(await new FsObjectStore(dataDir).readRef(VERIFIED_REF)).toBe('none');

    // ... so the next start verifies in full and refuses the corrupted index.
    await expect(startTestHub({ dataDir })).rejects.toBeInstanceOf(IndexLoadError);
  });

  it("a first start on a store corrupted behind the hub's back is refused", async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'hub-startv-'));
    dirs.push(dataDir);
    const first = await startTestHub({ dataDir });
    await first.close();
    const store = new FsObjectStore(dataDir);
    const current = (await store.readRef('current')) as string;
    // As after a switch: no record that this catalog was verified.
    await store.writeRef(VERIFIED_REF, 'none');
    const catalog = JSON.parse(new TextDecoder().decode((await store.get(current as never))?.bytes)) as {
      objects: Record<string, { model: string }>;
    };
    await corruptKeepingJson(dataDir, Object.values(catalog.objects)[0]?.model as string);
    await expect(startTestHub({ dataDir })).rejects.toThrow(/does not hash to its address/);
  });
});

describe('a sharded catalog (root plus shards, here over a lowered limit) is verified the same way', () => {
  it('verify walks every shard; a flipped bit in a shard is found by verify and refuses the next start', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'hub-shardv-'));
    dirs.push(dataDir);
    const { store, built } = await buildShardedDay(dataDir);
    const root = JSON.parse(new TextDecoder().decode((await store.get(built.catalog))?.bytes)) as { shards: { address: string }[] };
    expect(root.shards.length).toBeGreaterThan(2);
    expect((await verifyStore(store)).faults).toEqual([]);
    expect((await loadVerifiedOnce(store, built.catalog)).totals.models).toBe(120);

    const shard = root.shards[1]?.address as Address;
    await corruptKeepingJson(dataDir, shard);
    const report = await verifyStore(new FsObjectStore(dataDir));
    expect(report.faults.some((f) => f.startsWith(`${shard}: bytes hash to`))).toBe(true);
    expect(await new FsObjectStore(dataDir).readRef(VERIFIED_REF)).toBe('none');
    await expect(loadVerifiedOnce(new FsObjectStore(dataDir), built.catalog)).rejects.toThrow(/shard 1 .* does not hash to its address/);
  });
});

const CLI = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'cli.js');

function cli(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env: { ...process.env, HUB_LOG_LEVEL: 'warn', ...env } }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** `hub index build --from-dir` of SYNTHETIC models into a fresh data folder; returns the data folder and catalog. */
async function fromDirBuild(
  models: number,
  marker: string,
  env: Record<string, string> = {},
): Promise<{ dataDir: string; catalog: string }> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'hub-startpack-'));
  dirs.push(dataDir);
  const tree = path.join(dataDir, 'tree');
  for (let i = 0; i < models; i++) {
    const dir = path.join(tree, `synthetic-org`, `model-${i}`);
    await mkdir(dir, { recursive: true });
    await writeFile(path.join(dir, 'config.json'), JSON.stringify({ synthetic: true, i, marker }));
    await writeFile(path.join(dir, `model-${i}-Q4_K_M.gguf`), `SYNTHETIC ${marker} ${i}`);
  }
  const r = await cli(
    [
      'index',
      'build',
      '--from-dir',
      tree,
      '--source',
      'bench=http://localhost:9/{id}/resolve/{revision}/{path}',
      '--data',
      dataDir,
      '--date',
      '2026-11-24',
    ],
    env,
  );
  expect(r.code, r.stderr).toBe(0);
  return { dataDir, catalog: JSON.parse(r.stdout.trim().split('\n').pop() as string).catalog };
}

describe.skipIf(!existsSync(CLI))('the builder writes what the first start needs (needs the built CLI: pnpm test builds first)', () => {
  it('a build for a hub that serves the day from its pages keeps no load pack (a day of any size), and the hub starts on the pages', async () => {
    const { dataDir, catalog } = await fromDirBuild(6, 'p', { HUB_INDEX_STORE: 'paged' });
    expect(await new FsObjectStore(dataDir).readRef('current')).toBe(catalog);
    expect(existsSync(path.join(dataDir, LOAD_PACK_FILE))).toBe(false);
    const hub = await startTestHub({ dataDir, config: { indexStore: 'paged' } });
    const info = await fetch(`${hub.url}/api/models/synthetic-org/model-5`);
    expect(info.status).toBe(200);
    expect(((await info.json()) as { id: string }).id).toBe('synthetic-org/model-5');
    await hub.close();
  });

  it('hub index build --from-dir leaves the load pack and the verified ref: the first start reads the pack, not every object', async () => {
    const { dataDir, catalog } = await fromDirBuild(12, 'a');
    const store = new FsObjectStore(dataDir);
    expect(await store.readRef('current')).toBe(catalog);
    expect(await store.readRef(VERIFIED_REF)).toBe(catalog);
    const pack = await readFile(path.join(dataDir, LOAD_PACK_FILE), 'utf8');
    expect(JSON.parse(pack.split('\n')[1] as string)).toMatchObject({ kind: 'model-hub.load-pack', version: 2, catalog: catalog });
    // Checked with node:crypto SHA-256 (local start state, not a hub object).
    expect(pack.slice(0, pack.indexOf('\n'))).toBe(
      `sha256:${createHash('sha256')
        .update(pack.slice(pack.indexOf('\n') + 1))
        .digest('hex')}`,
    );
    // A model object changed on disk after the build: the first start reads the builder's pack, so it is not seen
    // (the same documented trust as a later start; `hub index verify` finds it).
    const objects = (JSON.parse(new TextDecoder().decode((await store.get(catalog as Address))?.bytes)) as CatalogObject).objects;
    await corruptKeepingJson(dataDir, Object.values(objects)[0]?.model as string);
    const first = await startTestHub({ dataDir });
    const info = await fetch(`${first.url}/api/models/synthetic-org/model-0`);
    expect(info.status).toBe(200);
    await first.close();
  });

  it('a damaged or a foreign pack means a full check at the first start: the corrupted object refuses it', async () => {
    const { dataDir, catalog } = await fromDirBuild(8, 'b');
    const other = await fromDirBuild(8, 'c');
    const store = new FsObjectStore(dataDir);
    const objects = (JSON.parse(new TextDecoder().decode((await store.get(catalog as Address))?.bytes)) as CatalogObject).objects;
    await corruptKeepingJson(dataDir, Object.values(objects)[2]?.model as string);
    const packFile = path.join(dataDir, LOAD_PACK_FILE);
    const sound = await readFile(packFile);
    // Damaged: one byte of the body flipped.
    const damaged = Buffer.from(sound);
    damaged[damaged.length - 5] = (damaged[damaged.length - 5] as number) ^ 1;
    await writeFile(packFile, damaged);
    await expect(startTestHub({ dataDir })).rejects.toThrow(/does not hash to its address/);
    // Truncated (a disk that filled up, a copy cut short).
    await store.writeRef(VERIFIED_REF, catalog);
    await writeFile(packFile, sound.subarray(0, sound.length - 100));
    await expect(startTestHub({ dataDir })).rejects.toThrow(/does not hash to its address/);
    // Foreign: another data folder's pack (sound, for another catalog), with the verified ref in place.
    await store.writeRef(VERIFIED_REF, catalog);
    await writeFile(packFile, await readFile(path.join(other.dataDir, LOAD_PACK_FILE)));
    await expect(startTestHub({ dataDir })).rejects.toThrow(/does not hash to its address/);
  });
});

describe('writeLoadPack without the builder objects (an imported store): every object is checked once, then the start is fast', () => {
  it('writes the pack and the verified ref after a full check; refuses a corrupted object and records nothing', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'hub-prepare-'));
    dirs.push(dataDir);
    const store = new FsObjectStore(dataDir);
    // SYNTHETIC models (made-up ids and hashes).
    const models = Array.from({ length: 10 }, (_, i) => {
      const hex = i.toString(16).padStart(8, '0');
      return {
        id: `synthetic-org/model-${i}`,
        revision: hex.repeat(5),
        files: [{ path: `model-${i}.gguf`, size: 1000 + i, sha256: hex.repeat(8) }],
        sources: [{ source: 'mirror-a', type: 'http' as const }],
      };
    });
    const built = await buildIndex(store, { date: '2026-11-24', models });
    expect(await writeLoadPack(store, dataDir, built.catalog)).toEqual({ pack: 'verified' });
    expect(await store.readRef(VERIFIED_REF)).toBe(built.catalog);
    const pack = await readFile(path.join(dataDir, LOAD_PACK_FILE), 'utf8');
    expect(JSON.parse(pack.split('\n')[1] as string)).toMatchObject({ kind: 'model-hub.load-pack', version: 2, catalog: built.catalog });

    const objects = (JSON.parse(new TextDecoder().decode((await store.get(built.catalog))?.bytes)) as CatalogObject).objects;
    await corruptKeepingJson(dataDir, Object.values(objects)[4]?.model as string);
    await rm(path.join(dataDir, LOAD_PACK_FILE));
    const reopened = new FsObjectStore(dataDir); // a fresh store: no bytes cached from before the change
    await expect(writeLoadPack(reopened, dataDir, built.catalog)).rejects.toBeInstanceOf(IndexLoadError);
    expect(await reopened.readRef(VERIFIED_REF)).toBe('none');
    expect(existsSync(path.join(dataDir, LOAD_PACK_FILE))).toBe(false);
  });
});

describe('the load pack digest (node:crypto SHA-256 in steps)', () => {
  it('equals SHA-256 of the whole body at every size around its step, and lets timers run between steps', async () => {
    const step = 8 * 1024 * 1024;
    const big = new Uint8Array(2 * step + 3).map((_, i) => (i * 31 + 7) & 255);
    for (const n of [0, 1, step - 1, step, step + 1, 2 * step + 3]) {
      const bytes = big.subarray(0, n);
      expect(await packDigest(bytes)).toBe(`sha256:${createHash('sha256').update(bytes).digest('hex')}`);
    }
    let turns = 0;
    const tick = setInterval(() => turns++, 0);
    try {
      await packDigest(new Uint8Array(4 * step));
    } finally {
      clearInterval(tick);
    }
    expect(turns).toBeGreaterThan(0);
  });
});

describe('hub index verify checks the day’s index pages (design 11.1)', () => {
  it('names a damaged page and a missing one; a sound day has no fault', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'hub-pages-'));
    dirs.push(dataDir);
    const store = new FsObjectStore(dataDir);
    const { pages, catalog } = await buildWithPages(store, syntheticModels(200));
    expect((await verifyStore(store)).faults).toEqual([]);
    const root = (await openPagedIndex(store, pages, catalog)).root;
    const page = root.models.pages?.[3] as string;
    await corruptKeepingJson(dataDir, page);
    const damaged = await verifyStore(new FsObjectStore(dataDir));
    expect(damaged.faults.some((f) => f.startsWith(`${page}: bytes hash to`))).toBe(true);
    const gone = root.ids.pages?.[0] as string;
    await rm(path.join(dataDir, 'objects', gone.slice(7, 9), gone.slice(7)));
    const missing = await verifyStore(new FsObjectStore(dataDir));
    expect(missing.faults).toContain(`archive day 2026-11-28: index page ${gone} of ${pages} is missing`);
  });
});
