/**
 * `hub serve`: its options, the command, and its code. What it loads to run (the server, the upstream build of a
 * refresh) is imported when it runs, so the command table stays cheap for every other command.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '@hub/core-index';
import { command, type OptionSpecs, UsageError, type Values } from './cli-framework.js';
import { CONFIG, DATA, MODELSCOPE } from './cli-options.js';
import type { ResolvedConfig } from './config.js';
import type { Refresher, RefreshSchedule } from './refresh.js';
import type { RunningHub } from './server.js';
import type { upstreamSettings } from './settings-check.js';

export const SERVE_OPTIONS = {
  port: { type: 'string', arg: 'N', help: 'The port (default 8080, or PORT).' },
  data: DATA,
  config: CONFIG,
  host: { type: 'string', arg: 'ADDR', help: 'The address to listen on.' },
  refresh: { type: 'string', arg: 'daily|hourly|<N>h', help: 'Rebuild the index from the upstream on this schedule.' },
  'refresh-at': { type: 'string', arg: 'HH:MM', help: 'The time of day (UTC) of a daily refresh (default 03:00).' },
  upstream: { type: 'string', arg: 'URL', help: 'The model host a refresh reads (default https://huggingface.co).' },
  top: { type: 'string', arg: 'N', help: 'How many trending models a refresh indexes (default 500).' },
  modelscope: MODELSCOPE,
  workers: { type: 'string', arg: 'N|auto', help: 'Run N processes on the one port (auto: one per core); /metrics sums them.' },
} as const satisfies OptionSpecs;

export const SERVE = command({
  name: 'serve',
  summary: 'Start the hub (an empty data folder is seeded with the demo index).',
  usage: [
    '[--port N] [--data DIR] [--config FILE] [--host ADDR] [--workers N|auto]',
    '[--refresh daily|hourly|<N>h [--refresh-at HH:MM] [--upstream URL] [--top N]]',
  ],
  description: `Start the hub (default 127.0.0.1:8080, loopback only; HOST=0.0.0.0 or --host 0.0.0.0 for every
interface; data in ./.hub-data). An empty data folder is seeded with the bundled demo index, and a demo
mirror serves its bytes on the next port. --refresh runs the upstream index build on a timer (daily at
03:00 UTC by default) and switches to the new index without a restart. Several hub serve (or --workers)
may share one data folder: one builds, one probes, all serve.
Environment: HOST, PORT, HUB_DATA, HUB_CONFIG, HUB_LOG_LEVEL, DATABASE_URL (override the config file).`,
  options: SERVE_OPTIONS,
  run: (args) => serveCommand(args.values),
});

/** `hub serve`: keeps running (returns `undefined`) until SIGINT or SIGTERM. */
export async function serveCommand(values: Values<typeof SERVE_OPTIONS>): Promise<undefined> {
  const { checkedSettings } = await import('./settings-check.js');
  // Every setting and option checked before anything listens or writes (settings-check.ts).
  const cfg = checkedSettings(values);
  const plan = await refreshPlan(values);
  const { createLogger } = await import('./logger.js');
  const { parseWorkers, reportReady, runPrimary } = await import('./workers.js');
  const workers = parseWorkers(values.workers);
  const { default: cluster } = await import('node:cluster');
  if (workers > 1 && cluster.isPrimary) {
    // The primary only forks, restarts and stops the workers, and sums their metrics (workers.ts).
    const code = await runPrimary(workers, createLogger({ level: cfg.logLevel }).child({ role: 'primary' }));
    process.exit(code);
  }
  const { boundHeapGrowth } = await import('./heap-growth.js');
  boundHeapGrowth();
  const { startServer } = await import('./server.js');
  const base = createLogger({ level: cfg.logLevel });
  const log = cluster.isWorker ? base.child({ worker: cluster.worker?.id, pid: process.pid }) : base;
  const running = await startServer({ dataDir: cfg.dataDir, port: cfg.port, host: cfg.host, config: cfg, logger: log });
  reportReady();
  const refresher = await serveRefresh(plan, cfg, running, log);
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    log.info({ signal }, 'shutting down');
    refresher?.stop();
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    running.close().then(() => process.exit(0));
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  return undefined;
}

interface RefreshPlan {
  schedule: RefreshSchedule;
  settings: ReturnType<typeof upstreamSettings>;
}

/** `hub serve --refresh …`'s options, checked before the hub starts: the schedule and the build's settings. */
async function refreshPlan(values: Values<typeof SERVE_OPTIONS>): Promise<RefreshPlan | undefined> {
  if (!values.refresh) return undefined;
  const { upstreamSettings } = await import('./settings-check.js');
  const { parseRefresh, RefreshError } = await import('./refresh.js');
  let schedule: RefreshSchedule;
  try {
    schedule = parseRefresh(values.refresh, values['refresh-at']);
  } catch (e) {
    if (e instanceof RefreshError) throw new UsageError(e.message);
    throw e;
  }
  return { schedule, settings: upstreamSettings({ ...values, upstream: values.upstream ?? 'https://huggingface.co' }) };
}

/**
 * `hub serve --refresh daily [--refresh-at HH:MM] [--upstream URL] [--top N]`: the build on a timer, switched in
 * without a restart. Every process picks up a new day (built by the process holding the refresh lease, or by a cron
 * job); with --refresh, the process holding the lease builds, one build at a time on the data folder.
 */
async function serveRefresh(
  plan: RefreshPlan | undefined,
  cfg: ResolvedConfig,
  running: RunningHub,
  log: Logger,
): Promise<Pick<Refresher, 'stop'>> {
  const { DEFAULT_LEASE_SECONDS, leaseFile, REFRESH_LEASE, withBuildLock } = await import('./replicas.js');
  const { startSharedRefresh } = await import('./refresh.js');
  const leaseMs = (cfg.leaseSeconds ?? DEFAULT_LEASE_SECONDS) * 1000;
  const watching = watchCurrent(running, log, leaseMs);
  if (!plan) return watching;
  const shared = startSharedRefresh({
    leaseFile: leaseFile(cfg.dataDir, REFRESH_LEASE),
    leaseMs,
    indexAge: async () => {
      const at = (await stat(path.join(cfg.dataDir, 'refs', 'current')).catch(() => undefined))?.mtimeMs;
      return at === undefined ? undefined : Date.now() - at;
    },
    schedule: plan.schedule,
    log,
    reload: () => running.reload(),
    build: async () => {
      const { buildFromUpstream } = await import('./upstream-build.js');
      const { loadSigners } = await import('./signing.js');
      const { sourcesFromConfig } = await import('./sources-config.js');
      const s = await withBuildLock(cfg.dataDir, async () =>
        buildFromUpstream({
          dataDir: cfg.dataDir,
          ...(cfg.indexStore ? { indexStore: cfg.indexStore } : {}),
          ...plan.settings,
          signers: await loadSigners(cfg),
          ...(cfg.signing ? { signing: cfg.signing } : {}),
          configuredSources: sourcesFromConfig(cfg),
          log,
          metrics: running.deps.metrics,
        }),
      );
      return { catalog: s.catalog, models: s.models };
    },
  });
  return {
    stop() {
      shared.stop();
      watching.stop();
    },
  };
}

/**
 * Without `--refresh`, a running hub still picks up an index built by another process (a cron job
 * running `hub index build`): it re-reads the `current` ref every `everyMs` and switches when it moved.
 */
export function watchCurrent(running: RunningHub, log: Logger, everyMs = 60_000): Pick<Refresher, 'stop'> {
  const timer = setInterval(() => {
    running
      .reload()
      .catch((e: unknown) =>
        log.error(
          { event: 'reload-failed', err: (e as Error).message?.slice(0, 300) },
          'the new index could not be loaded; the current one stays',
        ),
      );
  }, everyMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
