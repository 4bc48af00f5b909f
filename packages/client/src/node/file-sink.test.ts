// The one-stream file writer of `hub get` on the real file system: a verified file reaches its final path only after
// it is flushed to the disk (in steps while it is written, then the rest), and not at all when a flush fails.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fileSink } from './file-sink.js';

const MiB = 1 << 20;
// ---- SYNTHETIC bytes: made up for this test ------------------------------------------------------
const BLOCK = new Uint8Array(MiB);
for (let i = 0; i < MiB; i++) BLOCK[i] = (i * 13 + 5) & 0xff;
const BLOCKS = 40;

const dirs: string[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A temp folder and a spy on every FileHandle's fdatasync (the class is only reachable through a handle). */
async function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'file-sink-'));
  dirs.push(dir);
  const fh = await open(join(dir, '.probe'), 'w');
  const proto = Object.getPrototypeOf(fh) as { datasync(): Promise<void> };
  await fh.close();
  rmSync(join(dir, '.probe'));
  return { dir, datasync: vi.spyOn(proto, 'datasync') };
}

async function writeAll(sink: Awaited<ReturnType<typeof fileSink>>, blocks = BLOCKS) {
  for (let i = 0; i < blocks; i++) await sink.write(BLOCK);
}

describe('fileSink', () => {
  it('commit(true) flushes the file to the disk before it is renamed into place', async () => {
    const { dir, datasync } = await setup();
    const final = join(dir, 'model.bin');
    const sink = await fileSink(final);
    // 8 MiB: less than a flush step, so only the flush before the rename
    await writeAll(sink, 8);
    expect(datasync).not.toHaveBeenCalled();
    await sink.commit(true);
    expect(datasync).toHaveBeenCalledTimes(1);
    expect(readdirSync(dir)).toEqual(['model.bin']);
    expect(readFileSync(final).byteLength).toBe(8 * MiB);
  });

  it('a failed flush fails the commit: nothing at the final path, no temp file left', async () => {
    const { dir, datasync } = await setup();
    datasync.mockRejectedValue(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' }));
    const final = join(dir, 'model.bin');
    const sink = await fileSink(final);
    await writeAll(sink);
    await expect(sink.commit(true)).rejects.toThrow(/EIO/);
    expect(existsSync(final)).toBe(false);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('commit(false) flushes nothing and leaves nothing', async () => {
    const { dir, datasync } = await setup();
    const sink = await fileSink(join(dir, 'model.bin'));
    await sink.write(BLOCK);
    await sink.commit(false);
    expect(datasync).not.toHaveBeenCalled();
    expect(readdirSync(dir)).toEqual([]);
  });
});
