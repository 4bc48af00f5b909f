import { createHash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { Worker } from 'node:worker_threads';

/** Files up to this size are read in one read instead of a stream. */
export const SMALL_FILE = 1 << 20;

/**
 * What identifies a file's content without reading it, as git's index does: size, modification and change times
 * (nanoseconds) and inode. The change time cannot be set from user space, so `touch -r` or an rsync that keeps
 * times still changes the stamp when it rewrites bytes.
 */
export interface FileStamp {
  size: number;
  mtimeNs: string;
  ctimeNs: string;
  ino: string;
  dev: string;
  /** modification and change times in milliseconds, for the racy-entry rule of the rebuild cache */
  changedMs: number;
}

export function stampOf(st: { size: bigint; mtimeNs: bigint; ctimeNs: bigint; ino: bigint; dev: bigint }): FileStamp {
  return {
    size: Number(st.size),
    mtimeNs: String(st.mtimeNs),
    ctimeNs: String(st.ctimeNs),
    ino: String(st.ino),
    dev: String(st.dev),
    changedMs: Math.max(Number(st.mtimeNs / 1_000_000n), Number(st.ctimeNs / 1_000_000n)),
  };
}

export interface HashedFile {
  sha256: string;
  size: number;
  /** the file's stamp, taken before its bytes were read */
  stamp: FileStamp;
  /** a small file's first bytes (up to 4), to tell a GGUF file by its magic without another read */
  head?: Uint8Array;
}

/**
 * SHA-256 of a file and its stamp. A small file (≤ {@link SMALL_FILE}) is opened, stat'ed and read synchronously on
 * the calling thread: for the config and README files of a tree, four system calls cost less than four thread-pool
 * round trips. A bigger file is streamed (never whole in memory).
 */
export async function hashFileStamped(file: string): Promise<HashedFile> {
  const fd = openSync(file, 'r');
  let stamp: FileStamp;
  try {
    stamp = stampOf(fstatSync(fd, { bigint: true }));
    if (stamp.size <= SMALL_FILE) {
      const bytes = readFileSync(fd);
      return {
        sha256: createHash('sha256').update(bytes).digest('hex'),
        size: bytes.byteLength,
        stamp,
        head: bytes.subarray(0, 4),
      };
    }
  } finally {
    closeSync(fd);
  }
  const { sha256, size } = await sha256InWorker(file);
  return { sha256, size, stamp };
}

// A big file is hashed in a worker thread: node:crypto hashes on the thread that calls `update`, so streamed hashes of
// several weight files would otherwise queue on the main thread (one core) while the others sit idle.
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const { createReadStream } = require('node:fs');
parentPort.on('message', async ({ file }) => {
  try {
    const hash = createHash('sha256');
    let size = 0;
    for await (const chunk of createReadStream(file, { highWaterMark: 1 << 20 })) {
      hash.update(chunk);
      size += chunk.length;
    }
    parentPort.postMessage({ sha256: hash.digest('hex'), size });
  } catch (e) {
    parentPort.postMessage({ error: String((e && e.message) || e) });
  }
});
`;

interface HashTask {
  file: string;
  resolve: (r: { sha256: string; size: number }) => void;
  reject: (e: Error) => void;
}

const idle: Worker[] = [];
const queue: HashTask[] = [];
let workers = 0;
const POOL_SIZE = Math.max(1, Math.min(4, os.availableParallelism()));

const running = new Map<Worker, HashTask>();

function runOn(worker: Worker, task: HashTask): void {
  worker.ref();
  running.set(worker, task);
  worker.once('message', (m: { sha256?: string; size?: number; error?: string }) => {
    running.delete(worker);
    if (m.error !== undefined) task.reject(new Error(`${task.file}: ${m.error}`));
    else task.resolve({ sha256: m.sha256 as string, size: m.size as number });
    const next = queue.shift();
    if (next) runOn(worker, next);
    else {
      // An idle worker does not keep the process alive.
      worker.unref();
      idle.push(worker);
    }
  });
  worker.postMessage({ file: task.file });
}

/** SHA-256 of a file, streamed in a pool of worker threads (at most 4, at most one per core). */
export function sha256InWorker(file: string): Promise<{ sha256: string; size: number }> {
  return new Promise((resolve, reject) => {
    const task = { file, resolve, reject };
    const free = idle.pop();
    if (free) return runOn(free, task);
    if (workers < POOL_SIZE) return runOn(startWorker(), task);
    queue.push(task);
  });
}

function startWorker(): Worker {
  workers++;
  const worker = new Worker(WORKER_SOURCE, { eval: true });
  worker.on('error', (e) => {
    // A worker that dies fails its task; the next task starts another.
    workers--;
    running.get(worker)?.reject(e);
    running.delete(worker);
    const next = queue.shift();
    if (next) runOn(startWorker(), next);
  });
  return worker;
}
