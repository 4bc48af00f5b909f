import { existsSync } from 'node:fs';
import { mkdir, readdir, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { BUSY } from '@hub/dialect-oci';
import { uploadSessionStoreContract } from '@hub/dialect-oci/testing';
import { tempDirs } from '@hub/node-toolkit/testing';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { FsUploadSessions, sweepUploads } from './bucket-uploads.js';
import { createLogger } from './logger.js';

const tmp = tempDirs(afterAll);
const ID = '6f1c2a3b-0d4e-4f50-8a61-72839405a6b7';

uploadSessionStoreContract('FsUploadSessions', async () => new FsUploadSessions(path.join(await tmp('hub-uploads-contract-'), 'uploads')));

describe('FsUploadSessions on disk', () => {
  it('builds no path from anything but an upload id or a checked lock name', async () => {
    const root = path.join(await tmp('hub-uploads-paths-'), 'uploads');
    const store = new FsUploadSessions(root);
    for (const bad of ['../victim', '..', 'ABCDEF01-0000-4000-8000-000000000001', `${ID}/..`]) {
      await expect(store.state(bad)).rejects.toThrow('not an upload id');
      await expect(store.remove(bad)).rejects.toThrow('not an upload id');
      await expect(store.tryLock(bad, async () => 1)).rejects.toThrow('not an upload lock name');
    }
    await expect(store.withLock('bucket-../x', async () => 1)).rejects.toThrow('not an upload lock name');
    expect(existsSync(root)).toBe(false);
  });

  it('takes over a lock not renewed for three quarters of the lease (its holder was killed)', async () => {
    const root = path.join(await tmp('hub-uploads-stale-'), 'uploads');
    const store = new FsUploadSessions(root, { leaseMs: 30_000 });
    const lock = path.join(root, 'locks', `${ID}.lock`);
    await mkdir(path.dirname(lock), { recursive: true });
    await writeFile(lock, JSON.stringify({ owner: 'killed', pid: 999999, host: 'elsewhere', since: new Date().toISOString() }));
    expect(await store.tryLock(ID, async () => 'ran')).toBe(BUSY);
    const then = new Date(Date.now() - 23_000);
    await utimes(lock, then, then);
    expect(await store.tryLock(ID, async () => 'ran')).toBe('ran');
    expect(existsSync(lock)).toBe(false);
  });

  it('a session is renamed away before it is deleted; what a kill left of that is cleared by the next listing', async () => {
    const root = path.join(await tmp('hub-uploads-gone-'), 'uploads');
    const store = new FsUploadSessions(root);
    await store.create({ uuid: ID, repository: 'hub/buckets/x', received: 0, reserved: 0, touched: Date.now() });
    await mkdir(path.join(root, `.gone-${ID}-left-by-a-kill`));
    expect((await store.list()).map((s) => s.uuid)).toEqual([ID]);
    expect((await readdir(root)).sort()).toEqual([ID]);
    await store.remove(ID);
    expect(await readdir(root)).toEqual([]);
  });
});

describe('sweepUploads', () => {
  it('sweeps every interval without waiting for a push, and stops', async () => {
    vi.useFakeTimers();
    try {
      let sweeps = 0;
      const sweeper = sweepUploads(async () => sweeps++, createLogger({ level: 'silent' }), 60_000);
      await vi.advanceTimersByTimeAsync(59_000);
      expect(sweeps).toBe(0);
      await vi.advanceTimersByTimeAsync(121_000);
      expect(sweeps).toBe(3);
      sweeper.stop();
      await vi.advanceTimersByTimeAsync(600_000);
      expect(sweeps).toBe(3);
    } finally {
      vi.useRealTimers();
    }
  });
});
