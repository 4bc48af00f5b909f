/**
 * The file a ranged download writes (issue 42): `.<name>.<sha256 prefix>.part` beside the final path, its full size
 * from the start, each range written in place; the SHA-256 follows the completed prefix in order as it grows: a batch
 * written right at the hashed end is hashed at once (still in the CPU cache), the rest is read back from the file (the
 * page cache) when the prefix reaches it; with `HUB_HASH_THREAD=1` a worker thread reads back and hashes everything
 * (its start cost more CPU than it saved on this 2-core machine: docs/benchmarks.md). Which ranges are complete is kept in `<temp>.ranges` (written to a temp name and renamed), so an
 * interrupted download continues from them. Only a verified file is renamed to its final path, after an fsync.
 */

import { createHash } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { mkdir, open, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { type Interval, parseRangeRecord, rangeRecord } from '../ranges.js';
import type { RangeTarget, RemoteFile } from '../types.js';
import { stepFlusher } from './file-sink.js';
import { hfCacheBlob, linkHfSnapshot } from './transfer.js';

/**
 * The hashing thread: it opens the temp file itself, reads `[hashed, upTo)` in 1 MiB reads when told the prefix grew,
 * and answers the digest once asked (messages are handled in order, so a digest follows every earlier `upTo`).
 */
const PREFIX_HASH_WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const { openSync, readSync } = require('node:fs');
const fd = openSync(workerData.path, 'r');
const buf = Buffer.allocUnsafe(1 << 20);
let h = createHash('sha256');
let at = 0;
parentPort.on('message', (m) => {
  if (m === 'digest') return parentPort.postMessage({ hex: h.digest('hex') });
  if (m === 'reset') { h = createHash('sha256'); at = 0; return; }
  while (at < m) {
    const n = readSync(fd, buf, 0, Math.min(buf.length, m - at), at);
    if (n === 0) return parentPort.postMessage({ error: 'the temp file is shorter than the bytes written to it' });
    h.update(buf.subarray(0, n));
    at += n;
  }
});
`;

/** The temp file and range record of `file` beside `finalPath` (the same names on every run, so a run resumes). */
function rangeFilePaths(finalPath: string, file: Pick<RemoteFile, 'sha256'>): { temp: string; record: string } {
  const temp = join(dirname(finalPath), `.${basename(finalPath)}.${file.sha256.slice(0, 16)}.part`);
  return { temp, record: `${temp}.ranges` };
}

/**
 * A {@link RangeTarget} for `file` at `finalPath`. A kept temp file of the right size with a record for the same
 * SHA-256 and size is resumed (its recorded ranges are `held`); anything else starts anew.
 */
export async function rangeFile(finalPath: string, file: RemoteFile): Promise<RangeTarget & { temp: string }> {
  await mkdir(dirname(finalPath), { recursive: true });
  const { temp, record } = rangeFilePaths(finalPath, file);
  let held: Interval[] = [];
  const kept = await stat(temp).catch(() => undefined);
  if (kept?.isFile() && kept.size === file.size) {
    held = parseRangeRecord(await readFile(record, 'utf8').catch(() => ''), file) ?? [];
  }
  const fh = await open(temp, held.length > 0 ? 'r+' : 'w+');
  if (held.length === 0) await fh.truncate(file.size);
  const hash = process.env.HUB_HASH_THREAD === '1' && availableParallelism() > 1 ? threadPrefixHash(temp) : inlinePrefixHash(fh);
  let closed = false;
  let syncing: Promise<unknown> | undefined;
  // flushed to the disk in steps while it is written (one flush at a time)
  const flushes = stepFlusher(fh);
  const close = async () => {
    if (closed) return;
    closed = true;
    hash.stop();
    await flushes.stop();
    await fh.close();
  };
  return {
    temp,
    held,
    write: async (offset, chunk) => {
      for (let at = 0; at < chunk.byteLength; ) {
        at += (await fh.write(chunk, at, chunk.byteLength - at, offset + at)).bytesWritten;
      }
      hash.wrote(offset, chunk);
      flushes.wrote(chunk.byteLength);
    },
    read: async (offset, length) => {
      const buf = new Uint8Array(length);
      for (let at = 0; at < length; ) {
        const { bytesRead } = await fh.read(buf, at, length - at, offset + at);
        if (bytesRead === 0) break;
        at += bytesRead;
      }
      return buf;
    },
    hashTo: (upTo) => {
      hash.hashTo(upTo);
      // every byte is written: the flush to the disk runs while the hash catches up (the rename waits for both)
      if (upTo === file.size) syncing ??= flushes.last();
    },
    digest: () => hash.digest(),
    rehash: () => {
      hash.reset();
      syncing = undefined;
    },
    record: async (done) => {
      if (closed) return;
      const t = `${record}.${process.pid}.tmp`;
      await writeFile(t, JSON.stringify(rangeRecord(file, done as Interval[])));
      await rename(t, record);
    },
    discard: async () => {
      await close();
      await rm(record, { force: true });
      await rm(temp, { force: true });
    },
    commit: async (ok) => {
      if (!ok) {
        // what is kept (the temp file and its record) is resumed by the next run
        await close();
        return;
      }
      const synced = await (syncing ?? flushes.last());
      await close();
      // not on the disk: not renamed (the temp file and its record stay for a later run to check and resume)
      if (synced !== undefined) throw synced;
      await rename(temp, finalPath);
      await rm(record, { force: true });
    },
  };
}

/** {@link rangeFile} into the host's cache layout: the blob by SHA-256, then the snapshot link and `refs/main`. */
export async function hfCacheRangeFile(cache: string, id: string, commit: string, file: RemoteFile): Promise<RangeTarget> {
  const inner = await rangeFile(hfCacheBlob(cache, id, file), file);
  return {
    ...inner,
    commit: async (ok) => {
      await inner.commit(ok);
      if (ok) await linkHfSnapshot(cache, id, commit, file);
    },
  };
}

/** The SHA-256 of a file's completed prefix, computed as it grows. */
interface PrefixHash {
  /** `bytes` were just written at `at` (and are final) */
  wrote(at: number, bytes: Uint8Array): void;
  /** bytes `[0, upTo)` are complete */
  hashTo(upTo: number): void;
  /** the digest once `hashTo(size)` was called; the hash then ends */
  digest(): Promise<string>;
  /** from byte 0 again */
  reset(): void;
  stop(): void;
}

/**
 * On this thread: a batch written at the hashed end is hashed from memory; the prefix that completes elsewhere is read
 * back from the file in 1 MiB reads, one read at a time, in order.
 */
function inlinePrefixHash(fh: FileHandle): PrefixHash {
  let h = createHash('sha256');
  let hashed = 0;
  let target = 0;
  let reading: Promise<void> = Promise.resolve();
  let buf: Buffer | undefined;
  const readBack = async () => {
    buf ??= Buffer.allocUnsafe(1 << 20);
    while (hashed < target) {
      const at = hashed;
      const mine = h;
      const { bytesRead } = await fh.read(buf, 0, Math.min(buf.length, target - at), at);
      if (bytesRead === 0) throw new Error('the temp file is shorter than the bytes written to it');
      // a batch written meanwhile at the hashed end was hashed from memory; a reset started over: read again
      if (hashed !== at || h !== mine) continue;
      h.update(buf.subarray(0, bytesRead));
      hashed = at + bytesRead;
    }
  };
  return {
    wrote: (at, bytes) => {
      if (at !== hashed) return;
      h.update(bytes);
      hashed += bytes.byteLength;
      target = Math.max(target, hashed);
    },
    hashTo: (upTo) => {
      if (upTo <= target) return;
      target = upTo;
      reading = reading.then(readBack);
    },
    digest: async () => {
      await reading;
      return h.digest('hex');
    },
    reset: () => {
      h = createHash('sha256');
      hashed = 0;
      target = 0;
    },
    stop: () => {},
  };
}

/** In a worker thread that reads the completed prefix back from the file and hashes it (`HUB_HASH_THREAD=1`). */
function threadPrefixHash(temp: string): PrefixHash {
  let worker: Worker | undefined;
  let failure: Error | undefined;
  let digested: ((hex: string) => void) | undefined;
  let rejectDigest: ((e: Error) => void) | undefined;
  const fail = (e: Error) => {
    failure ??= e;
    rejectDigest?.(failure);
  };
  const hashing = () => {
    if (worker) return worker;
    const w = new Worker(PREFIX_HASH_WORKER, { eval: true, workerData: { path: temp } });
    w.unref();
    w.on('message', (m: { hex?: string; error?: string }) => {
      if (m.error) fail(new Error(m.error));
      else if (m.hex) digested?.(m.hex);
    });
    w.on('error', (e) => fail(e));
    w.on('exit', () => fail(new Error('the hashing thread stopped')));
    worker = w;
    return w;
  };
  const stop = () => {
    const w = worker;
    worker = undefined;
    w?.removeAllListeners('exit');
    void w?.terminate();
  };
  return {
    wrote: () => {},
    hashTo: (upTo) => {
      hashing().postMessage(upTo);
    },
    digest: () => {
      if (failure) return Promise.reject(failure);
      const w = hashing();
      const hex = new Promise<string>((resolve, reject) => {
        digested = resolve;
        rejectDigest = reject;
      });
      w.postMessage('digest');
      return hex.finally(() => {
        digested = undefined;
        rejectDigest = undefined;
        // a digest ends the hash; the next hashTo starts a new thread from byte 0
        stop();
      });
    },
    reset: stop,
    stop,
  };
}
