/**
 * The Node side of the verifying download: the transport (node:net for `http:`, node:https), node:crypto hashing, and
 * file writers that never leave unverified bytes at the final path. Part of `@hub/client/get` (no schema library).
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm, symlink, writeFile } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import https from 'node:https';
import { availableParallelism, homedir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { ByteResponse, GetBytes, Hasher, HasherFactory, Sink } from '../download.js';
import { fileSink } from './file-sink.js';
import { type Http1Answer, http1Get } from './http1.js';

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * {@link GetBytes} on node:net (`http:`, {@link http1Get}: one reused read buffer, chunks lent until the next is
 * asked for) and node:https: the socket's bytes go straight to the hasher and the file, without a web stream
 * between. Redirects are followed (at most 10), keeping `Range`; `Authorization` is never sent on (the client
 * sends none).
 */
export const nodeGetBytes: GetBytes = (url, init) => get(url, init.headers, init.signal, 0, false, undefined, undefined);

async function get(
  url: string,
  headers: Record<string, string>,
  signal: AbortSignal,
  hops: number,
  redirected: boolean,
  hubSource: string | undefined,
  hubLinks: string | undefined,
): Promise<ByteResponse> {
  const u = new URL(url);
  const answer = u.protocol === 'http:' ? await http1Get(u, headers, signal) : await httpsGet(u, headers, signal);
  const location = answer.headers.get('location');
  if (REDIRECTS.has(answer.status) && location) {
    answer.cancel();
    if (hops >= 10) throw new Error(`more than 10 redirects from ${url}`);
    // The hub names the source it sent the client to (the first redirect that says so wins), and lists every live
    // source of the file on that redirect (Link rel="duplicate").
    const named = answer.headers.get('x-hub-source');
    const source = hubSource ?? (named ? named : undefined);
    const links = hubSource ? hubLinks : named ? answer.headers.get('link') : undefined;
    return get(new URL(location, u).href, headers, signal, hops + 1, true, source, links);
  }
  return {
    status: answer.status,
    headers: { get: (name: string) => answer.headers.get(name.toLowerCase()) ?? null },
    url,
    redirected,
    ...(hubSource ? { hubSource } : {}),
    ...(hubLinks ? { hubLinks } : {}),
    body: answer.body,
    cancel: answer.cancel,
  };
}

/** An `https:` GET on node:https, answered in {@link http1Get}'s shape (its chunks are not reused). */
function httpsGet(u: URL, headers: Record<string, string>, signal: AbortSignal): Promise<Http1Answer> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    if (u.protocol !== 'https:') return reject(new Error(`unsupported URL scheme: ${u.protocol}`));
    const req = https.get(u, { headers: { ...headers, 'accept-encoding': 'identity' }, signal }, (res: IncomingMessage) => {
      const fields = new Map<string, string>();
      for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) fields.set(k, Array.isArray(v) ? v.join(', ') : v);
      resolve({ status: res.statusCode ?? 0, headers: fields, body: res, cancel: () => res.destroy() });
    });
    req.on('error', reject);
  });
}

/** node:crypto SHA-256 on this thread. */
const localHasher = (): Hasher => {
  const h = createHash('sha256');
  return {
    update: (c) => {
      h.update(c);
    },
    digest: () => h.digest('hex'),
  };
};

/** With `HUB_HASH_THREAD=1`, files at least this large are hashed in a worker thread (below it, a thread costs more than it saves). */
export const WORKER_HASH_MIN_BYTES = 8 << 20;
/** Bytes gathered before they are handed to the hashing thread (one message, one transfer, no further copy). */
const BATCH_BYTES = 1 << 20;
/**
 * At most this much handed over and not yet hashed: `update` then returns a promise (the download waits). Kept
 * small so the batches are reused while still in the CPU cache.
 */
const MAX_IN_FLIGHT = 8 << 20;

const HASH_WORKER = `
const { parentPort } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const h = createHash('sha256');
parentPort.on('message', (m) => {
  if (m === 'digest') parentPort.postMessage({ hex: h.digest('hex') });
  else { h.update(new Uint8Array(m.buffer, 0, m.length)); parentPort.postMessage(m.buffer, [m.buffer]); }
});
`;

/**
 * SHA-256 in a worker thread, so hashing overlaps reading the socket and writing the file (design: a verified
 * download is bounded by max(transfer, hash), not their sum). Chunks are copied into 1 MiB batches whose buffers
 * are transferred (not copied again) to the thread, in order; `update` returns a promise only while more than
 * 8 MiB wait to be hashed. The digest is the same node:crypto SHA-256 as {@link localHasher}'s.
 */
export function workerHasher(): Hasher {
  const worker = new Worker(HASH_WORKER, { eval: true });
  worker.unref();
  let batch = new Uint8Array(BATCH_BYTES);
  let filled = 0;
  /** batch bytes handed to the thread and not yet back */
  let inFlight = 0;
  let failure: Error | undefined;
  let drained: (() => void) | undefined;
  let digested: ((hex: string) => void) | undefined;
  let rejectDigest: ((e: Error) => void) | undefined;
  const fail = (e: Error) => {
    failure ??= e;
    rejectDigest?.(failure);
    drained?.();
  };
  // Batch buffers come back from the thread once hashed and are filled again: no allocation per batch.
  const free: ArrayBuffer[] = [];
  const nextBatch = () => {
    const b = free.pop();
    return b ? new Uint8Array(b) : new Uint8Array(BATCH_BYTES);
  };
  worker.on('message', (m: ArrayBuffer | { hex: string }) => {
    if (m instanceof ArrayBuffer) {
      inFlight -= BATCH_BYTES;
      free.push(m);
      if (drained && inFlight <= MAX_IN_FLIGHT / 2) {
        const d = drained;
        drained = undefined;
        d();
      }
    } else digested?.(m.hex);
  });
  worker.on('error', (e) => fail(e));
  worker.on('exit', () => fail(new Error('the hashing thread stopped')));
  const flush = () => {
    if (filled === 0) return;
    const buffer = batch.buffer as ArrayBuffer;
    inFlight += BATCH_BYTES;
    // The batch's buffer moves to the thread (no copy) with the length filled, and comes back when hashed.
    worker.postMessage({ buffer, length: filled }, [buffer]);
    batch = nextBatch();
    filled = 0;
  };
  return {
    update(chunk) {
      if (failure) throw failure;
      let at = 0;
      while (at < chunk.byteLength) {
        const n = Math.min(chunk.byteLength - at, BATCH_BYTES - filled);
        batch.set(chunk.subarray(at, at + n), filled);
        filled += n;
        at += n;
        if (filled === BATCH_BYTES) flush();
      }
      if (inFlight <= MAX_IN_FLIGHT) return undefined;
      return new Promise<void>((resolve) => {
        drained = resolve;
      }).then(() => {
        if (failure) throw failure;
      });
    },
    digest() {
      if (failure) return Promise.reject(failure);
      flush();
      const hex = new Promise<string>((resolve, reject) => {
        digested = resolve;
        rejectDigest = reject;
      });
      worker.postMessage('digest');
      return hex.finally(() => {
        digested = undefined;
        rejectDigest = undefined;
        void worker.terminate();
      });
    },
    dispose() {
      void worker.terminate();
    },
  };
}

/**
 * node:crypto SHA-256 on this thread, on the lent chunks as they arrive (1 MiB reads, still in the CPU cache): the
 * hash runs between reads while libuv's threads write the previous batches. With `HUB_HASH_THREAD=1`, a file of
 * {@link WORKER_HASH_MIN_BYTES} or more on a machine with more than one core is hashed in a worker thread instead;
 * measured against each other in `node bench/client.mjs`, the thread made `hub get` slower on this 2-core machine
 * (the copy to it, its start and its scheduling cost more than the 0.15-0.3 s of hashing it takes off this thread),
 * so it is not the default (docs/benchmarks.md).
 */
export const nodeHasher: HasherFactory = (size) =>
  size !== undefined && size >= WORKER_HASH_MIN_BYTES && hashThreadWanted() ? workerHasher() : localHasher();

function hashThreadWanted(): boolean {
  return process.env.HUB_HASH_THREAD === '1' && availableParallelism() > 1;
}

/**
 * A file's first `length` bytes (all of it by default), read into one reused 1 MiB buffer and handed to `each` in
 * order; each chunk is lent (valid until `each` returns or its promise resolves). Hashing 200 MiB this way took a
 * third to a fifth of the CPU of `createReadStream` here, which reads into fresh memory every time (docs/benchmarks.md).
 */
export async function readFileChunks(
  file: string,
  each: (chunk: Uint8Array) => void | Promise<void>,
  length = Number.POSITIVE_INFINITY,
): Promise<void> {
  const fh = await open(file, 'r');
  try {
    const buf = Buffer.allocUnsafe(READ_FILE_BYTES);
    for (let at = 0; at < length; ) {
      const { bytesRead } = await fh.read(buf, 0, Math.min(buf.length, length - at), at);
      if (bytesRead === 0) break;
      at += bytesRead;
      await each(buf.subarray(0, bytesRead));
    }
  } finally {
    await fh.close();
  }
}

/**
 * SHA-256 (hex) of a file, read in lent chunks ({@link readFileChunks}): the one file hash of the client and the CLI
 * (a mirror's files, a bundle's, the model host's cache, an OCI layout's blobs).
 */
export async function sha256File(file: string): Promise<string> {
  const h = createHash('sha256');
  await readFileChunks(file, (c) => void h.update(c));
  return h.digest('hex');
}

/** {@link readFileChunks} reads this much at a time. */
const READ_FILE_BYTES = 1 << 20;

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
  const inner = await fileSink(hfCacheBlob(cache, id, file));
  return {
    ...inner,
    commit: async (ok) => {
      await inner.commit(ok);
      if (ok) await linkHfSnapshot(cache, id, commit, file);
    },
  };
}

/** Where the host's cache keeps a file's bytes: `<cache>/models--owner--name/blobs/<sha256>`. */
export const hfCacheBlob = (cache: string, id: string, file: { sha256: string }) => join(cache, hfRepoFolder(id), 'blobs', file.sha256);

/** After the blob is in place: `snapshots/<commit>/<path>` a relative symlink to it, `refs/main` the commit. */
export async function linkHfSnapshot(cache: string, id: string, commit: string, file: { path: string; sha256: string }): Promise<void> {
  const repo = join(cache, hfRepoFolder(id));
  const link = join(repo, 'snapshots', commit, ...file.path.split('/'));
  await mkdir(dirname(link), { recursive: true });
  await rm(link, { force: true });
  await symlink(relative(dirname(link), hfCacheBlob(cache, id, file)), link);
  await mkdir(join(repo, 'refs'), { recursive: true });
  const refTemp = join(repo, 'refs', `.main.${randomBytes(4).toString('hex')}`);
  await writeFile(refTemp, commit);
  await rename(refTemp, join(repo, 'refs', 'main'));
}
