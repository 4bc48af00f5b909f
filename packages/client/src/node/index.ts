/** The Node side of @hub/client: node:crypto hashing and a file writer that never leaves unverified bytes at the final path. */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { HasherFactory, Sink } from '../index.js';

export const nodeHasher: HasherFactory = () => {
  const h = createHash('sha256');
  return {
    update: (c) => {
      h.update(c);
    },
    digest: () => h.digest('hex'),
  };
};

/**
 * Writes to `<final>.<random>.part` beside the final path; `commit(true)` renames it into place (only
 * after the caller verified the hash), `commit(false)` deletes it.
 */
export async function fileSink(finalPath: string): Promise<Sink & { commit(ok: boolean): Promise<void>; temp: string }> {
  await mkdir(dirname(finalPath), { recursive: true });
  const temp = join(dirname(finalPath), `.${randomBytes(6).toString('hex')}.part`);
  let fh = await open(temp, 'w');
  return {
    temp,
    write: async (c) => {
      await fh.write(c);
    },
    truncate: async () => {
      await fh.truncate(0);
      await fh.close();
      fh = await open(temp, 'w');
    },
    commit: async (ok) => {
      await fh.close();
      if (ok) await rename(temp, finalPath);
      else await rm(temp, { force: true });
    },
  };
}
