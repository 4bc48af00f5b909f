import { constants } from 'node:fs';
import { mkdir, open, rename, unlink } from 'node:fs/promises';
import path from 'node:path';

// The store's durable file writes (temp file, fsync, rename; folder and filesystem flushes).

let tmpCounter = 0;

export function tempName(dir: string): string {
  return path.join(dir, `.tmp-${process.pid}-${Date.now()}-${tmpCounter++}`);
}

/** Write a new file (never an existing one) and fsync it; `mode` 0o644 unless given. */
export async function writeDurable(file: string, bytes: Uint8Array | string, mode = 0o644): Promise<void> {
  const fh = await open(file, constants.O_CREAT | constants.O_WRONLY | constants.O_EXCL, mode);
  try {
    await fh.writeFile(bytes);
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** fsync a folder, so renames into it are durable. */
export async function syncDir(dir: string): Promise<void> {
  try {
    const d = await open(dir, 'r');
    await d.sync().catch(() => {});
    await d.close();
  } catch {
    // Some filesystems do not allow opening folders; the rename is still atomic.
  }
}

/**
 * Write a file so that it is either absent or whole: write a temp file in the same folder, fsync
 * it, rename it over the target, and fsync the folder. A crash at any point leaves no partial file
 * under the target name.
 */
export async function writeFileAtomic(target: string, bytes: Uint8Array | string): Promise<void> {
  const dir = path.dirname(target);
  await mkdir(dir, { recursive: true });
  const tmp = tempName(dir);
  try {
    await writeDurable(tmp, bytes);
  } catch (e) {
    await unlink(tmp).catch(() => {});
    throw e;
  }
  await rename(tmp, target);
  await syncDir(dir);
}
