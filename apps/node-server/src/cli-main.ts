/** The server-side `hub` commands (serve, index build, index verify, probe), loaded only when one of them runs. */
import cluster from 'node:cluster';
import path from 'node:path';
import { LoadPackWriter } from '@hub/core-index';
import { buildFromDir } from '@hub/node-toolkit';
import { FsObjectStore } from '@hub/objects/node';
import { installFastBlake3 } from './blake3-node.js';
import type { INDEX_BUILD_OPTIONS, INDEX_VERIFY_OPTIONS, PROBE_OPTIONS, SERVE_OPTIONS } from './cli-commands.js';
import { CliError, UsageError, type Values } from './cli-framework.js';
import { serveRefresh, upstreamBuildCommand } from './cli-index-run.js';
import { ConfigError, type ResolvedConfig, resolveConfig } from './config.js';
import { createLogger } from './logger.js';
import { probeOnce, probeSettingsFrom } from './prober.js';
import { withBuildLock } from './replicas.js';
import { sourcesFromConfig, startServer } from './server.js';
import { loadSigners } from './signing.js';
import { verifyStore, writeLoadPackAfterBuild } from './verify.js';
import { parseWorkers, reportReady, runPrimary } from './workers.js';

function progressLine(text: string) {
  if (process.stderr.isTTY) process.stderr.write(`\r\x1b[2K${text}`);
}

/** The configuration, a wrong one being the user's mistake (one line, exit 2). */
function config(values: { data?: string; config?: string; port?: string; host?: string }) {
  try {
    return resolveConfig(values);
  } catch (e) {
    if (e instanceof ConfigError) throw new CliError(e.message);
    throw e;
  }
}

/** The log's signing keys; a key file that cannot be used is the user's mistake (one line naming the file, exit 2). */
async function signers(cfg: ResolvedConfig) {
  try {
    return await loadSigners(cfg);
  } catch (e) {
    if (e instanceof ConfigError) throw new CliError(e.message);
    throw e;
  }
}

/** `hub serve`: keeps running (returns `undefined`) until SIGINT or SIGTERM. */
export async function serveCommand(values: Values<typeof SERVE_OPTIONS>): Promise<undefined> {
  const cfg = config(values);
  const workers = parseWorkers(values.workers);
  if (workers > 1 && cluster.isPrimary) {
    // The primary only forks, restarts and stops the workers, and sums their metrics (workers.ts).
    const code = await runPrimary(workers, createLogger({ level: cfg.logLevel }).child({ role: 'primary' }));
    process.exit(code);
  }
  const base = createLogger({ level: cfg.logLevel });
  const log = cluster.isWorker ? base.child({ worker: cluster.worker?.id, pid: process.pid }) : base;
  const running = await startServer({ dataDir: cfg.dataDir, port: cfg.port, host: cfg.host, config: cfg, logger: log });
  reportReady();
  let refresher: ReturnType<typeof serveRefresh>;
  try {
    refresher = serveRefresh(values, cfg, running, log);
  } catch (e) {
    await running.close();
    throw e;
  }
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

/** `hub index build --from-dir … | --upstream …`. */
export async function indexBuildCommand(values: Values<typeof INDEX_BUILD_OPTIONS>): Promise<number> {
  installFastBlake3();
  const cfg = config({ ...(values.data ? { data: values.data } : {}), ...(values.config ? { config: values.config } : {}) });
  if (values.upstream && values['from-dir']) throw new UsageError('takes --from-dir or --upstream, not both');
  // One build at a time on a data folder, whoever runs it (this command, a cron job, a hub serve --refresh).
  const oneBuild = <T>(fn: () => Promise<T>) =>
    withBuildLock(cfg.dataDir, fn, (h) => process.stderr.write(`hub: waiting for the build running in pid ${h.pid} on ${h.host}\n`));
  if (values.upstream) return oneBuild(() => upstreamBuildCommand(values, cfg));
  const dir = values['from-dir'];
  if (!dir) throw new UsageError('needs --from-dir DIR or --upstream URL');
  const sources = (values.source ?? []).map((s) => {
    const i = s.indexOf('=');
    if (i <= 0) throw new UsageError(`--source ${s}: expected NAME=URL_TEMPLATE`);
    return { name: s.slice(0, i), url: s.slice(i + 1) };
  });
  if (sources.length === 0) throw new UsageError('needs at least one --source NAME=URL_TEMPLATE: the place the bytes can be fetched from');
  if (values.date && !/^\d{4}-\d{2}-\d{2}$/.test(values.date)) throw new UsageError('--date must be YYYY-MM-DD');
  const log = createLogger({ level: cfg.logLevel, destination: process.stderr as never });
  const store = new FsObjectStore(cfg.dataDir);
  const started = Date.now();
  const pack = new LoadPackWriter();
  const keys = await signers(cfg);
  const result = await oneBuild(() =>
    buildFromDir(store, {
      dir: path.resolve(dir),
      onObject: pack.add,
      pages: pack,
      sources,
      // The rebuild cache: unchanged files (same size, times and inode) are not read again on the next build.
      cacheFile: path.join(cfg.dataDir, 'cache', 'from-dir.json'),
      ...(values.date ? { date: values.date } : {}),
      signers: keys,
      log,
      progress: (done, total, file) => progressLine(`hashing ${done}/${total} ${file.slice(-60)}`),
    }).then(async (r) => {
      progressLine('');
      // What the first start needs (the load pack, the verified ref), from the objects just hashed: no re-hash at start.
      await writeLoadPackAfterBuild(store, cfg.dataDir, r.catalog, pack, log);
      return r;
    }),
  );
  process.stdout.write(
    `${JSON.stringify({ catalog: result.catalog, models: result.models, files: result.files, bytes: result.bytes, date: result.day.date, seconds: (Date.now() - started) / 1000 })}\n`,
  );
  return 0;
}

/** `hub probe`. */
export async function probeCommand(values: Values<typeof PROBE_OPTIONS>): Promise<number> {
  const cfg = config(values);
  const sources = sourcesFromConfig(cfg);
  const { table, ok } = await probeOnce({
    sources,
    order: cfg.order ?? sources.map((s) => s.name),
    settings: probeSettingsFrom(cfg),
    dataDir: cfg.dataDir,
  });
  process.stdout.write(table);
  return ok ? 0 : 1;
}

/** `hub index verify`. */
export async function indexVerifyCommand(values: Values<typeof INDEX_VERIFY_OPTIONS>): Promise<number> {
  installFastBlake3();
  const cfg = config(values);
  const report = await verifyStore(new FsObjectStore(cfg.dataDir), (n) => progressLine(`verified ${n} objects`));
  progressLine('');
  for (const f of report.faults) process.stdout.write(`FAULT ${f}\n`);
  process.stdout.write(`${report.objects} objects, ${report.catalogs} catalogs, ${report.faults.length} faults\n`);
  return report.faults.length ? 1 : 0;
}
