/**
 * The worker thread of `hub index verify` (verify-pool.ts): answers each job (verify-jobs.ts) with its result, in the
 * order the jobs came. Built as its own file (`dist/verify-worker.js`, tsup.config.ts).
 */
import { parentPort } from 'node:worker_threads';
import { installFastBlake3 } from './blake3-node.js';
import { collectGarbage, runJob, type VerifyJob } from './verify-jobs.js';

installFastBlake3();
parentPort?.on('message', ({ id, job }: { id: number; job: VerifyJob }) => {
  try {
    parentPort?.postMessage({ id, result: runJob(job) });
    // A parsed shard (tens of MB) is dead once its run is answered: collected now, not when the heap has doubled.
    if (job.type === 'run') collectGarbage();
  } catch (e) {
    parentPort?.postMessage({ id, error: String((e as Error)?.message ?? e) });
  }
});
