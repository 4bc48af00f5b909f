/**
 * The worker thread of `hub index verify` and of the made answers' pages (verify-pool.ts): answers each job
 * (verify-jobs.ts) with its result, by the job's id (a made-answers page when it is whole). Built as its own file
 * (`dist/verify-worker.js`, tsup.config.ts).
 */
import { parentPort } from 'node:worker_threads';
import { installFastBlake3 } from './blake3-node.js';
import type { MadePage } from './made-jobs.js';
import { collectGarbage, runJob, type VerifyJob } from './verify-jobs.js';

installFastBlake3();
parentPort?.on('message', ({ id, job }: { id: number; job: VerifyJob }) => {
  // (a made-answers page is made asynchronously: its answer is posted when it is whole)
  Promise.resolve()
    .then(() => runJob(job))
    .then(
      (result) => {
        // a made-answers page's arrays are moved, not copied (each has a buffer of its own: made-jobs.ts)
        const pages = job.type === 'made' ? [result as MadePage] : job.type === 'made-bytes' ? (result as MadePage[]) : [];
        const moved = pages.flatMap((p) => [p.bytes.buffer, p.slots.buffer]);
        parentPort?.postMessage({ id, result }, moved as ArrayBuffer[]);
        // A parsed shard (tens of MB) is dead once its run is answered: collected now, not when the heap has doubled.
        if (job.type === 'run') collectGarbage();
      },
      (e) => parentPort?.postMessage({ id, error: String((e as Error)?.message ?? e) }),
    );
});
