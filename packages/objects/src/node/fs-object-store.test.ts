import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MemoryObjectStore } from '@hub/core-index';
import { afterAll, describe, expect, it } from 'vitest';
import { objectStoreContract } from '../testing/object-store.contract.js';
import { FsObjectStore } from './fs-object-store.js';

/** The ObjectStore contract on the filesystem store (and the memory store beside it), then what only a disk has. */
const made: string[] = [];
afterAll(async () => {
  for (const d of made.splice(0)) await rm(d, { recursive: true, force: true });
});
const tempDir = async () => {
  const d = await mkdtemp(path.join(os.tmpdir(), 'hub-fs-store-'));
  made.push(d);
  return d;
};

objectStoreContract('FsObjectStore', async () => new FsObjectStore(await tempDir()));
objectStoreContract('MemoryObjectStore', () => new MemoryObjectStore());

async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  async function walk(d: string) {
    for (const e of await readdir(d, { withFileTypes: true }).catch(() => [])) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) await walk(p);
      else out.push(path.relative(dir, p));
    }
  }
  await walk(dir);
  return out;
}

describe('FsObjectStore atomicity', () => {
  it('leaves nothing readable when a write is killed midway', async () => {
    const root = await tempDir();
    const child = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'test', 'fixtures', 'slow-put.mjs');
    // The child writes a large object through a slowed-down writeFile and is SIGKILLed once the temp file exists.
    const proc = spawn(process.execPath, [child, root], { stdio: ['ignore', 'pipe', 'inherit'] });
    const address: string = await new Promise((resolve, reject) => {
      let out = '';
      proc.stdout.on('data', (d) => {
        out += d;
        const m = /writing (blake3:[0-9a-f]{64})/.exec(out);
        if (m) resolve(m[1] as string);
      });
      proc.on('exit', () => reject(new Error(`child exited early: ${out}`)));
    });
    // Wait until a temp file is on disk, then kill.
    for (let i = 0; i < 200; i++) {
      if ((await listFiles(root)).some((f) => path.basename(f).startsWith('.tmp-'))) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    proc.kill('SIGKILL');
    await new Promise((r) => proc.on('close', r));
    const store = new FsObjectStore(root);
    expect(await store.get(address as `blake3:${string}`)).toBeUndefined();
    expect(await store.has(address as `blake3:${string}`)).toBe(false);
    expect((await store.list({})).items).toEqual([]);
    const files = await listFiles(root);
    // Only temp files (never read) may remain; no file under an object's name.
    expect(files.filter((f) => !path.basename(f).startsWith('.tmp-') && !f.endsWith('.meta'))).toEqual([]);
    // A retry writes the object whole.
    const bytes = new Uint8Array(1024).fill(7);
    const { meta } = await store.put(bytes, { kind: 'k', mediaType: 'application/octet-stream' });
    expect((await store.get(meta.id as `blake3:${string}`))?.bytes.byteLength).toBe(1024);
  });
});

describe('FsObjectStore grouped puts', () => {
  it('commits the puts of one turn together: each resolves, the same bytes twice are written once', async () => {
    const root = await tempDir();
    const store = new FsObjectStore(root);
    const bytes = Array.from({ length: 50 }, (_, i) => new TextEncoder().encode(`object ${i}`));
    const results = await Promise.all([
      ...bytes.map((b) => store.put(b, { kind: 'k', mediaType: 'text/plain' })),
      store.put(bytes[0] as Uint8Array, { kind: 'other', mediaType: 'text/plain' }),
    ]);
    expect(results.filter((r) => r.created)).toHaveLength(50);
    expect(results[50]).toMatchObject({ created: false, meta: { id: results[0]?.meta.id, kind: 'k' } });
    const files = await listFiles(root);
    expect(files.filter((f) => /^[0-9a-f]{64}$/.test(path.basename(f)))).toHaveLength(50);
    expect(files.filter((f) => f.endsWith('.meta'))).toHaveLength(50);
    expect(files.filter((f) => path.basename(f).startsWith('.tmp-'))).toEqual([]);
    // A new store (nothing cached) answers them as stored.
    const again = new FsObjectStore(root);
    const second = await Promise.all(bytes.map((b) => again.put(b, { kind: 'k', mediaType: 'text/plain' })));
    expect(second.every((r) => !r.created)).toBe(true);
  });

  it('rejects every put of a group that cannot be written (none hangs)', async () => {
    const root = await tempDir();
    const { writeFile } = await import('node:fs/promises');
    await writeFile(path.join(root, 'objects'), 'not a folder');
    const store = new FsObjectStore(root);
    const puts = [1, 2, 3].map((i) => store.put(new TextEncoder().encode(`x${i}`), { kind: 'k', mediaType: 'text/plain' }));
    for (const p of puts) await expect(p).rejects.toThrow();
  });
});
