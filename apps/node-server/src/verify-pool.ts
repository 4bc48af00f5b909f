/**
 * The threads `hub index verify` reads, hashes and parses on: one worker per core (`os.availableParallelism()`), each
 * given a few jobs at a time, so more cores check more objects at once (docs/decisions/index-and-archive.md, "`hub
 * index verify` at any size"). With no worker file (the sources run without a build) or `workers: 0`, the jobs run on
 * the calling thread, one at a time, with the same results.
 */
import { existsSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import vm from 'node:vm';
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
export function verifyWorkerFile(): string | undefined {
  const here = import.meta.url;
  const file = fileURLToPath(new URL(here.endsWith('.ts') ? '../dist/verify-worker.js' : './verify-worker.js', here));
  return existsSync(file) ? file : undefined;
}

interface Waiting {
  job: VerifyJob;
  resolve: (r: VerifyJobResult) => void;
  reject: (e: unknown) => void;
}

export class VerifyPool {
  private readonly workers: { worker: Worker; busy: Map<number, Waiting> }[] = [];
  private readonly queue: Waiting[] = [];
  private nextId = 0;

  /** `workers`: threads to start (default one per core); 0 runs every job on this thread. */
  constructor(workers = os.availableParallelism()) {
    const file = workers > 0 ? verifyWorkerFile() : undefined;
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
      slot.worker.on('error', (e) => {
        for (const w of slot.busy.values()) w.reject(e);
        slot.busy.clear();
      });
      this.workers.push(slot);
    }
  }

  /** Threads the jobs run on (0: this one). */
  get threads(): number {
    return this.workers.length;
  }

  run(job: VerifyJob): Promise<VerifyJobResult> {
    if (this.workers.length === 0) {
      try {
        return Promise.resolve(runJob(job));
      } catch (e) {
        return Promise.reject(e);
      }
    }
    return new Promise((resolve, reject) => {
      this.queue.push({ job, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.queue.length > 0) {
      const slot = this.workers.reduce((a, b) => (b.busy.size < a.busy.size ? b : a));
      if (slot.busy.size >= IN_FLIGHT) return;
      const w = this.queue.shift() as Waiting;
      const id = this.nextId++;
      slot.busy.set(id, w);
      slot.worker.postMessage({ id, job: w.job });
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((s) => s.worker.terminate()));
  }
}

let fullGc: (() => void) | null | undefined;

/**
 * A full garbage collection of this thread, where V8 allows one (`--expose-gc` set now, the function taken from a new
 * context). The catalog pass calls it after each step: what a step allocates (the workers' answers, a run's rows) is
 * dead by then, but it outlived the young generation, and V8 lets the old one grow by hundreds of MB before it
 * collects on its own (measured: heap 160 MB, 25 MB of it live, at 100,000 models).
 */
export function collectGarbage(): void {
  if (fullGc === undefined) {
    try {
      v8.setFlagsFromString('--expose-gc');
      fullGc = vm.runInNewContext('gc') as () => void;
    } catch {
      fullGc = null;
    }
  }
  fullGc?.();
}
