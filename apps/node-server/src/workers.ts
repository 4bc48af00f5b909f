import cluster, { type Worker } from 'node:cluster';
import os from 'node:os';
import type { Logger } from '@hub/core-index';
import type { Registry } from 'prom-client';
import { UsageError } from './cli-framework.js';

/**
 * `hub serve --workers N|auto` (issue 41): N processes on one port with node:cluster. The primary only forks,
 * restarts and stops the workers and sums their metrics; each worker is a whole `hub serve` on the same data folder,
 * sharing with the others what replicas share (the leases in `DIR/locks`, the probe state, PostgreSQL). The first
 * worker starts alone (it seeds an empty data folder and migrates the database); the others follow once it listens.
 */

/** `--workers`: a count from 1 to 64, or `auto` (one per core). */
export function parseWorkers(value: string | undefined): number {
  if (value === undefined) return 1;
  if (value === 'auto') return Math.max(1, os.availableParallelism());
  const n = /^\d{1,2}$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(n) || n < 1 || n > 64) throw new UsageError(`--workers ${value}: expected a number from 1 to 64, or auto`);
  return n;
}

type Message =
  | { type: 'hub:ready' }
  | { type: 'hub:metrics-request'; id: number }
  | { type: 'hub:metrics-collect'; id: number }
  | { type: 'hub:metrics-json'; id: number; metrics: unknown[] }
  | { type: 'hub:metrics-reply'; id: number; text?: string; error?: string };

function isMessage(m: unknown): m is Message {
  return (
    typeof m === 'object' &&
    m !== null &&
    typeof (m as { type?: unknown }).type === 'string' &&
    (m as { type: string }).type.startsWith('hub:')
  );
}

/**
 * The primary: fork `n` workers (the first alone), restart one that dies while serving, and stop them all on SIGINT
 * or SIGTERM. A worker that exits before it listens (a bad config, a busy port) stops the whole start with its exit
 * code. Resolves with the exit code once every worker is gone.
 */
export function runPrimary(n: number, log: Logger): Promise<number> {
  const ready = new Set<number>();
  let stopping = false;
  let code = 0;
  const fork = (): Worker => {
    const w = cluster.fork();
    w.on('message', (m: unknown) => {
      if (!isMessage(m)) return;
      if (m.type === 'hub:ready') {
        ready.add(w.id);
        if (ready.size === 1 && Object.keys(cluster.workers ?? {}).length < n) for (let i = 1; i < n; i++) fork();
        if (ready.size === n) log.info({ workers: n }, 'every worker listens');
      } else if (m.type === 'hub:metrics-request') void answerScrape(w, m.id);
      else if (m.type === 'hub:metrics-json') {
        const p = pendingCollects.get(m.id);
        p?.got.push(m.metrics);
        if (p && p.got.length === p.want) p.done(p.got);
      }
    });
    return w;
  };
  return new Promise((resolve) => {
    cluster.on('exit', (w, exitCode, signal) => {
      const wasReady = ready.delete(w.id);
      if (!stopping && !wasReady) {
        // It never listened: the same would happen to every restart.
        log.error({ worker: w.id, code: exitCode, signal }, 'a worker exited before it listened; stopping');
        code = exitCode || 1;
        stop();
      } else if (!stopping) {
        log.warn({ worker: w.id, code: exitCode, signal }, 'a worker died; starting another');
        fork();
      }
      if (Object.keys(cluster.workers ?? {}).length === 0 && stopping) resolve(code);
    });
    const stop = () => {
      if (stopping) return;
      stopping = true;
      for (const w of Object.values(cluster.workers ?? {})) w?.process.kill('SIGTERM');
      if (Object.keys(cluster.workers ?? {}).length === 0) resolve(code);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    fork();
  });
}

let nextId = 1;
/** Collects in flight: the workers' answers (`hub:metrics-json`) gathered by id. */
const pendingCollects = new Map<number, { want: number; got: unknown[][]; done: (lists: unknown[][]) => void }>();

/** Ask every live worker for its metrics (as JSON), sum them (prom-client's AggregatorRegistry), reply to `to`. */
async function answerScrape(to: Worker, requestId: number): Promise<void> {
  const workers = Object.values(cluster.workers ?? {}).filter((w): w is Worker => !!w && w.isConnected());
  const id = nextId++;
  const lists = await new Promise<unknown[][]>((resolve) => {
    const timer = setTimeout(() => {
      pendingCollects.delete(id);
      resolve(entry.got);
    }, 5000);
    const entry = {
      want: workers.length,
      got: [] as unknown[][],
      done: (l: unknown[][]) => {
        clearTimeout(timer);
        pendingCollects.delete(id);
        resolve(l);
      },
    };
    pendingCollects.set(id, entry);
    for (const w of workers) w.send({ type: 'hub:metrics-collect', id } satisfies Message);
  });
  try {
    const { AggregatorRegistry } = await import('prom-client');
    // The hub's gauges describe what the workers share (the index served, a source's state, the last build): one
    // value, not a sum. Counters, histograms and the process metrics (each with its own rule) are summed.
    for (const list of lists)
      for (const m of list as Array<{ name: string; type: string; aggregator?: string }>)
        if (m.name.startsWith('hub_') && m.type === 'gauge') m.aggregator = 'max';
    const text = await AggregatorRegistry.aggregate(lists as Parameters<typeof AggregatorRegistry.aggregate>[0]).metrics();
    to.send({ type: 'hub:metrics-reply', id: requestId, text } satisfies Message);
  } catch (e) {
    to.send({ type: 'hub:metrics-reply', id: requestId, error: (e as Error).message } satisfies Message);
  }
}

/** In a worker: tell the primary this worker listens. */
export function reportReady(): void {
  if (cluster.isWorker) process.send?.({ type: 'hub:ready' } satisfies Message);
}

/**
 * In a worker: answer the primary's collect requests with this worker's metrics, and return the scrape that asks
 * the primary for the sum over every worker (what `/metrics` serves).
 */
export function clusterScrape(registry: Registry): () => Promise<string> {
  const waiting = new Map<number, { resolve: (t: string) => void; reject: (e: Error) => void }>();
  process.on('message', (m: unknown) => {
    if (!isMessage(m)) return;
    if (m.type === 'hub:metrics-collect') {
      void registry.getMetricsAsJSON().then((metrics) => process.send?.({ type: 'hub:metrics-json', id: m.id, metrics } satisfies Message));
    } else if (m.type === 'hub:metrics-reply') {
      const w = waiting.get(m.id);
      waiting.delete(m.id);
      if (m.text !== undefined) w?.resolve(m.text);
      else w?.reject(new Error(m.error ?? 'no metrics from the primary'));
    }
  });
  let next = 1;
  return () =>
    new Promise<string>((resolve, reject) => {
      const id = next++;
      waiting.set(id, { resolve, reject });
      process.send?.({ type: 'hub:metrics-request', id } satisfies Message);
      setTimeout(() => {
        if (waiting.delete(id)) reject(new Error('the primary did not answer the metrics request'));
      }, 10_000).unref();
    });
}
