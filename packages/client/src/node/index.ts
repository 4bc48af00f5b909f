/** The Node side of @hub/client: node:crypto hashing and a file writer that never leaves unverified bytes at the final path. */
import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm, symlink, writeFile } from 'node:fs/promises';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import { homedir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import type { ByteResponse, GetBytes, Sink } from '../index.js';

export { nodeHasher } from './hash.js';

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * {@link GetBytes} on node:http and node:https: the socket's Buffers go straight to the hasher and the file, without
 * a web stream between (about twice the throughput of `fetch` on loopback, docs/benchmarks.md). Redirects are
 * followed (at most 10), keeping `Range`; `Authorization` is never sent on (the client sends none).
 */
export const nodeGetBytes: GetBytes = (url, init) => get(url, init.headers, init.signal, 0, false, undefined);

function get(
  url: string,
  headers: Record<string, string>,
  signal: AbortSignal,
  hops: number,
  redirected: boolean,
  hubSource: string | undefined,
): Promise<ByteResponse> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const u = new URL(url);
    const lib = u.protocol === 'https:' ? https : u.protocol === 'http:' ? http : undefined;
    if (!lib) return reject(new Error(`unsupported URL scheme: ${u.protocol}`));
    const req = lib.get(u, { headers: { ...headers, 'accept-encoding': 'identity' }, signal }, (res: IncomingMessage) => {
      const status = res.statusCode ?? 0;
      const location = res.headers.location;
      if (REDIRECTS.has(status) && location) {
        res.resume();
        if (hops >= 10) return reject(new Error(`more than 10 redirects from ${url}`));
        // The hub names the source it sent the client to: the first redirect that says so wins.
        const named = res.headers['x-hub-source'];
        const source = hubSource ?? (typeof named === 'string' && named ? named : undefined);
        return resolve(get(new URL(location, u).href, headers, signal, hops + 1, true, source));
      }
      resolve({
        status,
        headers: {
          get: (name: string) => {
            const v = res.headers[name.toLowerCase()];
            return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
          },
        },
        url,
        redirected,
        ...(hubSource ? { hubSource } : {}),
        body: res,
        cancel: () => res.destroy(),
      });
    });
    req.on('error', reject);
  });
}

/**
 * Writes to `<final>.<random>.part` beside the final path; `commit(true)` renames it into place (only
 * after the caller verified the hash), `commit(false)` deletes it.
 */
export async function fileSink(finalPath: string): Promise<Sink & { commit(ok: boolean): Promise<void>; temp: string }> {
  await mkdir(dirname(finalPath), { recursive: true });
  const temp = join(dirname(finalPath), `.${randomBytes(6).toString('hex')}.part`);
  let fh = await open(temp, 'w');
  // Network chunks are gathered into batches of 4 MiB, each written with one writev (no copy into one buffer), in
  // order, while the next batch arrives: the download waits for the disk only when more than 32 MiB are queued.
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  let queued = 0;
  let queue: Promise<void> = Promise.resolve();
  let failure: unknown;
  const enqueue = () => {
    if (pendingBytes === 0) return;
    const batch = pending;
    const bytes = pendingBytes;
    pending = [];
    pendingBytes = 0;
    queued += bytes;
    const handle = fh;
    queue = queue.then(async () => {
      try {
        if (failure === undefined) await handle.writev(batch);
      } catch (e) {
        failure ??= e;
      } finally {
        queued -= bytes;
      }
    });
  };
  const settled = async () => {
    await queue;
    if (failure !== undefined) throw failure;
  };
  return {
    temp,
    write: (c) => {
      if (failure !== undefined) return Promise.reject(failure);
      pending.push(c);
      pendingBytes += c.byteLength;
      if (pendingBytes < 4 << 20) return undefined;
      enqueue();
      return queued > 32 << 20 ? settled() : undefined;
    },
    truncate: async () => {
      pending = [];
      pendingBytes = 0;
      await queue;
      failure = undefined;
      await fh.truncate(0);
      await fh.close();
      fh = await open(temp, 'w');
    },
    commit: async (ok) => {
      if (ok) enqueue();
      try {
        await settled();
      } catch (e) {
        if (ok) {
          await fh.close();
          await rm(temp, { force: true });
          throw e;
        }
      }
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
const hfRepoFolder = (id: string) => `models--${id.split('/').join('--')}`;

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

export {
  heldFiles,
  type MirrorFileEvent,
  type MirrorModel,
  pullIntoMirror,
  readMirrorManifest,
  verifyMirror,
  writeMirrorManifest,
} from './mirror.js';
