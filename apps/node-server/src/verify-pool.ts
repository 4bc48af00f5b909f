/**
 * The threads `hub index verify` reads, hashes and parses on: one worker per core (`os.availableParallelism()`), each
 * given a few jobs at a time, so more cores check more objects at once (docs/decisions/index-and-archive.md, "`hub
 * index verify` at any size"). With no worker file (the sources run without a build) or `workers: 0`, the jobs run on
 * the calling thread, one at a time, with the same results.
 */
import { existsSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { runJob, type VerifyJob, type VerifyJobResult } from './verify-jobs.js';

/** Jobs handed to one worker before it answers the first (it never waits for the main thread between two). */
const IN_FLIGHT = 2;

/**
 * A worker's heap: a job holds one fan-out folder's names or one batch of small objects, and what it allocates dies
 * young, so a small young generation (V8 grows it to 48 MB under this allocation rate) keeps each worker's memory low.
 */
const LIMITS = { maxYoungGenerationSizeMb: 8, maxOldGenerationSizeMb: 128 };

/** The built worker: next to this module in `dist`, or `dist` beside `src` when the sources run (tests). */
function verifyWorkerFile(): string | undefined {
  const here = import.meta.url;
  const file = fileURLToPath(new URL(here.endsWith('.ts') ? '../dist/verify-worker.js' : './verify-worker.js', here));
  return existsSync(file) ? file : undefined;
}

interface Slot {
  worker: Worker;
  busy: Map<number, Waiting>;
}

interface Waiting {
  job: VerifyJob;
  resolve: (r: VerifyJobResult) => void;
  reject: (e: unknown) => void;
}

export class VerifyPool {
  private readonly workers: Slot[] = [];
  private readonly queue: Waiting[] = [];
  private nextId = 0;
  /** workers started (the jobs run on this thread when none was) */
  private readonly started: number;

  /** `workers`: threads to start (default one per core); 0 runs every job on this thread. */
  constructor(workers = os.availableParallelism()) {
    const file = workers > 0 ? verifyWorkerFile() : undefined;
    this.started = file ? workers : 0;
    if (!file) return;
    for (let i = 0; i < workers; i++) {
      const slot = { worker: new Worker(file, { resourceLimits: LIMITS }), busy: new Map<number, Waiting>() };
      slot.worker.on('message', (m: { id: number; result?: VerifyJobResult; error?: string }) => {
        const w = slot.busy.get(m.id);
        slot.busy.delete(m.id);
        if (m.error !== undefined) w?.reject(new Error(m.error));
        else w?.resolve(m.result as VerifyJobResult);
        this.pump();
      });
      // A worker that fails (out of memory, a crash) fails the jobs it holds, and is given no more.
      slot.worker.on('error', (e) => {
        for (const w of slot.busy.values()) w.reject(e);
        slot.busy.clear();
        this.workers.splice(this.workers.indexOf(slot), 1);
        if (this.workers.length === 0) for (const w of this.queue.splice(0)) w.reject(e);
      });
      this.workers.push(slot);
    }
  }

  /** Threads the jobs run on (0: this one). */
  get threads(): number {
    return this.workers.length;
  }

  run(job: VerifyJob): Promise<VerifyJobResult> {
    if (this.started > 0 && this.workers.length === 0) return Promise.reject(new Error('hub index verify: every worker thread failed'));
    if (this.started === 0) return Promise.resolve().then(() => runJob(job));
    return new Promise((resolve, reject) => {
      this.queue.push({ job, resolve, reject });
      this.pump();
    });
  }

  /**
   * Hand queued jobs to workers with room. A catalog root or shard (`run`) always goes to the first worker: parsing
   * one takes tens of MB, and one worker's heap grown for it costs less than every worker's.
   */
  private pump(): void {
    for (let i = 0; i < this.queue.length && this.workers.some((s) => s.busy.size < IN_FLIGHT); ) {
      const w = this.queue[i] as Waiting;
      const slot = w.job.type === 'run' ? (this.workers[0] as Slot) : this.workers.reduce((a, b) => (b.busy.size < a.busy.size ? b : a));
      if (slot.busy.size >= IN_FLIGHT) {
        i++;
        continue;
      }
      this.queue.splice(i, 1);
      const id = this.nextId++;
      slot.busy.set(id, w);
      slot.worker.postMessage({ id, job: w.job });
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((s) => s.worker.terminate()));
  }
}
