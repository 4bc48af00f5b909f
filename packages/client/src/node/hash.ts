/** SHA-256 on Node for @hub/client: node:crypto, in a worker thread for large files. */
import { createHash } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { Hasher, HasherFactory } from '../index.js';

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

/** Files at least this large are hashed in a worker thread (below it, starting the thread costs more than it saves). */
export const WORKER_HASH_MIN_BYTES = 8 << 20;
/** Bytes gathered before they are handed to the hashing thread (one message, one transfer, no further copy). */
const BATCH_BYTES = 1 << 20;
/** At most this much handed over and not yet hashed: `update` then returns a promise (the download waits). */
const MAX_IN_FLIGHT = 64 << 20;

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
 * 64 MiB wait to be hashed. The digest is the same node:crypto SHA-256 as {@link localHasher}'s.
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
 * node:crypto SHA-256: in a worker thread for a file of {@link WORKER_HASH_MIN_BYTES} or more (hashing overlaps the
 * download) when this machine has more than one core, on this thread for smaller files, when the size is not known,
 * on one core, or when `HUB_HASH_THREAD=0` (for measuring one against the other).
 */
export const nodeHasher: HasherFactory = (size) =>
  size !== undefined && size >= WORKER_HASH_MIN_BYTES && hashThreadWanted() ? workerHasher() : localHasher();

function hashThreadWanted(): boolean {
  return process.env.HUB_HASH_THREAD !== '0' && availableParallelism() > 1;
}
