/**
 * Files that never leave unverified or unflushed bytes at a final path: {@link fileSink} (one stream, written in
 * order) and {@link stepFlusher}, the flush to the disk both it and the ranged download's temp file run while their
 * bytes arrive, so the flush before the rename has only the last step left.
 */
import { randomBytes } from 'node:crypto';
import type { FileHandle } from 'node:fs/promises';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Sink } from '../types.js';

/**
 * A flush (fdatasync) starts whenever this much more was written and none runs. A machine with much memory would
 * otherwise hold the whole file in its page cache until the flush before the rename, which then took 60-110 ms of
 * 200 MiB after the last byte here (docs/benchmarks.md); flushed as it arrives, only the last step is left.
 */
const SYNC_STEP_BYTES = 32 << 20;

/** The flushes of one open file, one at a time beside its writes. */
export interface StepFlusher {
  /** `n` more bytes were written (a flush starts when a step is full and none runs) */
  wrote(n: number): void;
  /** a flush of everything written, after the one running; its failure (or an earlier one's) is the result */
  last(): Promise<unknown>;
  /** no further flush; waits for the one running (before the file is closed) */
  stop(): Promise<void>;
}

export function stepFlusher(fh: FileHandle): StepFlusher {
  let unsynced = 0;
  let running: Promise<void> | undefined;
  let failure: unknown;
  let stopped = false;
  const soon = () => {
    if (running || stopped || failure !== undefined || unsynced < SYNC_STEP_BYTES) return;
    unsynced = 0;
    running = fh.datasync().then(
      () => {
        running = undefined;
        soon();
      },
      (e: unknown) => {
        failure ??= e;
        running = undefined;
      },
    );
  };
  return {
    wrote: (n) => {
      unsynced += n;
      soon();
    },
    last: async () => {
      while (running) await running;
      if (failure !== undefined) return failure;
      unsynced = 0;
      return fh.datasync().then(
        () => undefined,
        (e: unknown) => e,
      );
    },
    stop: async () => {
      stopped = true;
      while (running) await running;
    },
  };
}

/** The file writer copies chunks into batches of this size, each written with one call. */
const WRITE_BATCH_BYTES = 1 << 20;
/** Batches per file: one filling, the others being written; the download waits when none is free. */
const WRITE_BATCHES = 4;

/**
 * Writes to `<final>.<random>.part` beside the final path; `commit(true)` renames it into place (only
 * after the caller verified the hash, and after the file is flushed to the disk: in steps while it is written, see
 * {@link stepFlusher}), `commit(false)` deletes it.
 *
 * A chunk is copied before `write` returns (or before its promise resolves), so the transport may reuse its buffer.
 * The copies go into a few 1 MiB batches that are written in order on libuv's threads while the next bytes arrive
 * and are hashed, and are then filled again: the bytes are written while they are still in the CPU cache (fresh
 * memory for every chunk, or 64 MiB queued, cost more CPU than the whole write on this machine; docs/benchmarks.md).
 */
export async function fileSink(finalPath: string): Promise<Sink & { commit(ok: boolean): Promise<void>; temp: string }> {
  await mkdir(dirname(finalPath), { recursive: true });
  const temp = join(dirname(finalPath), `.${randomBytes(6).toString('hex')}.part`);
  let fh = await open(temp, 'w');
  let flusher = stepFlusher(fh);
  const free: Uint8Array[] = [];
  let made = 0;
  let batch: Uint8Array | undefined;
  let filled = 0;
  let queue: Promise<void> = Promise.resolve();
  let failure: unknown;
  let waiting: (() => void) | undefined;
  const giveBack = (b: Uint8Array) => {
    free.push(b);
    const w = waiting;
    waiting = undefined;
    w?.();
  };
  const takeBatch = (): Uint8Array | undefined => {
    const b = free.pop();
    if (b) return b;
    if (made >= WRITE_BATCHES) return undefined;
    made++;
    return new Uint8Array(WRITE_BATCH_BYTES);
  };
  const flush = () => {
    const b = batch;
    const n = filled;
    batch = undefined;
    filled = 0;
    if (!b) return;
    if (n === 0) return giveBack(b);
    const handle = fh;
    const flushes = flusher;
    queue = queue.then(async () => {
      try {
        if (failure === undefined) {
          for (let at = 0; at < n; ) at += (await handle.write(b, at, n - at)).bytesWritten;
          flushes.wrote(n);
        }
      } catch (e) {
        failure ??= e;
      } finally {
        giveBack(b);
      }
    });
  };
  const settled = async () => {
    flush();
    await queue;
    if (failure !== undefined) throw failure;
  };
  const write = (c: Uint8Array): Promise<void> | undefined => {
    if (failure !== undefined) return Promise.reject(failure);
    for (let at = 0; at < c.byteLength; ) {
      batch ??= takeBatch();
      if (!batch) {
        // every batch is being written: wait for one, then copy the rest (the caller keeps `c` until then)
        const rest = c.subarray(at);
        return new Promise<void>((r) => {
          waiting = r;
        }).then(() => write(rest));
      }
      const n = Math.min(c.byteLength - at, batch.byteLength - filled);
      batch.set(c.subarray(at, at + n), filled);
      filled += n;
      at += n;
      if (filled === batch.byteLength) flush();
    }
    return undefined;
  };
  return {
    temp,
    write,
    truncate: async () => {
      batch && giveBack(batch);
      batch = undefined;
      filled = 0;
      await queue;
      failure = undefined;
      await flusher.stop();
      await fh.truncate(0);
      await fh.close();
      fh = await open(temp, 'w');
      flusher = stepFlusher(fh);
    },
    commit: async (ok) => {
      let failed: unknown;
      try {
        if (ok) {
          await settled();
          failed = await flusher.last();
        } else await queue;
      } catch (e) {
        failed = e;
      }
      await flusher.stop();
      await fh.close();
      if (ok && failed === undefined) return rename(temp, finalPath);
      await rm(temp, { force: true });
      if (failed !== undefined) throw failed;
    },
  };
}
