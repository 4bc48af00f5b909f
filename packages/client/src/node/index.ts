/** The Node side of @hub/client: node:crypto hashing and a file writer that never leaves unverified bytes at the final path. */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join, relative } from 'node:path';
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
  // small network chunks are gathered into writes of up to 4 MiB (one syscall each, not one per chunk)
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  const flush = async () => {
    if (pendingBytes === 0) return;
    const buf = pending.length === 1 ? (pending[0] as Uint8Array) : Buffer.concat(pending, pendingBytes);
    pending = [];
    pendingBytes = 0;
    await fh.write(buf);
  };
  return {
    temp,
    write: async (c) => {
      pending.push(c);
      pendingBytes += c.byteLength;
      if (pendingBytes >= 4 << 20) await flush();
    },
    truncate: async () => {
      pending = [];
      pendingBytes = 0;
      await fh.truncate(0);
      await fh.close();
      fh = await open(temp, 'w');
    },
    commit: async (ok) => {
      if (ok) await flush();
      await fh.close();
      if (ok) await rename(temp, finalPath);
      else await rm(temp, { force: true });
    },
  };
}

/** The model host's cache directory as its clients resolve it (HF_HUB_CACHE, HF_HOME, XDG_CACHE_HOME, ~/.cache). */
export function defaultHfCache(env: NodeJS.ProcessEnv = process.env): string {
  if (env.HF_HUB_CACHE) return env.HF_HUB_CACHE;
  if (env.HF_HOME) return join(env.HF_HOME, 'hub');
  const xdg = env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(xdg, 'huggingface', 'hub');
}

/** `models--owner--name` */
export const hfRepoFolder = (id: string) => `models--${id.split('/').join('--')}`;

/**
 * The host's cache layout: `blobs/<sha256>` (written through a temp file, renamed after the hash matched),
 * `snapshots/<commit>/<path>` a relative symlink to the blob, `refs/main` the commit.
 */
export async function hfCacheSink(
  cache: string,
  id: string,
  commit: string,
  file: { path: string; sha256: string },
): Promise<Sink & { commit(ok: boolean): Promise<void> }> {
  const repo = join(cache, hfRepoFolder(id));
  const blob = join(repo, 'blobs', file.sha256);
  const inner = await fileSink(blob);
  return {
    ...inner,
    commit: async (ok) => {
      await inner.commit(ok);
      if (!ok) return;
      const link = join(repo, 'snapshots', commit, ...file.path.split('/'));
      await mkdir(dirname(link), { recursive: true });
      await rm(link, { force: true });
      await symlink(relative(dirname(link), blob), link);
      await mkdir(join(repo, 'refs'), { recursive: true });
      const refTemp = join(repo, 'refs', `.main.${randomBytes(4).toString('hex')}`);
      await writeFile(refTemp, commit);
      await rename(refTemp, join(repo, 'refs', 'main'));
    },
  };
}
