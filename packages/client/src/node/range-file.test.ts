// The temp file of a ranged download (issue 42) on the real file system: it is flushed to the disk in steps while its
// bytes arrive (not all at once after the last byte), and only a verified, flushed file reaches the final path.
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { rangeFile } from './range-file.js';

const MiB = 1 << 20;
// ---- SYNTHETIC bytes: made up for this test ------------------------------------------------------
const SIZE = 80 * MiB;
const BLOCK = new Uint8Array(MiB);
for (let i = 0; i < MiB; i++) BLOCK[i] = (i * 7 + 3) & 0xff;
const SHA = (() => {
  const h = createHash('sha256');
  for (let at = 0; at < SIZE; at += MiB) h.update(BLOCK);
  return h.digest('hex');
})();

const dirs: string[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Every fdatasync of any FileHandle, counted (the handle's class is only reachable through a handle). */
async function countSyncs(dir: string): Promise<{ calls: () => number }> {
  const fh = await open(join(dir, 'probe'), 'w');
  const proto = Object.getPrototypeOf(fh) as { datasync(): Promise<void> };
  await fh.close();
  const spy = vi.spyOn(proto, 'datasync');
  return { calls: () => spy.mock.calls.length };
}

describe('rangeFile', () => {
  it('flushes the temp file in steps while it is written, then once more before the rename', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'range-file-'));
    dirs.push(dir);
    const syncs = await countSyncs(dir);
    const final = join(dir, 'model.bin');
    const t = await rangeFile(final, { path: 'model.bin', size: SIZE, sha256: SHA });
    // in file order, as one connection writes: hashed from memory as it goes
    for (let at = 0; at < SIZE; at += MiB) await t.write(at, BLOCK);
    // 80 MiB in 32 MiB steps, one flush at a time: the first began before the last byte was written (the next
    // once it ended, if these writes, faster than a network, had not ended first)
    const during = syncs.calls();
    expect(during).toBeGreaterThanOrEqual(1);
    t.hashTo(SIZE);
    expect(await t.digest()).toBe(SHA);
    await t.commit(true);
    expect(syncs.calls()).toBeGreaterThan(during);
    expect(readdirSync(dir).sort()).toEqual(['model.bin', 'probe']);
    expect(readFileSync(final).byteLength).toBe(SIZE);
  });

  it('a failed flush fails the commit: nothing at the final path', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'range-file-'));
    dirs.push(dir);
    const fh = await open(join(dir, 'probe'), 'w');
    const proto = Object.getPrototypeOf(fh) as { datasync(): Promise<void> };
    await fh.close();
    vi.spyOn(proto, 'datasync').mockRejectedValue(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' }));
    const final = join(dir, 'model.bin');
    const t = await rangeFile(final, { path: 'model.bin', size: SIZE, sha256: SHA });
    for (let at = 0; at < SIZE; at += MiB) await t.write(at, BLOCK);
    t.hashTo(SIZE);
    expect(await t.digest()).toBe(SHA);
    await expect(t.commit(true)).rejects.toThrow(/EIO/);
    expect(existsSync(final)).toBe(false);
  });
});
