/** The server-side `hub` commands (serve, index build, index verify, probe), loaded only when one of them runs. */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { StartPack } from '@hub/core-index';
import { buildFromDir, treeLayoutProblem } from '@hub/node-toolkit';
import { FsObjectStore } from '@hub/objects/node';
import { installFastBlake3 } from './blake3-node.js';
import type { INDEX_BUILD_OPTIONS, INDEX_VERIFY_OPTIONS, PROBE_OPTIONS, SERVE_OPTIONS } from './cli-commands.js';
import { CliError, UsageError, type Values } from './cli-framework.js';
import { buildSettings, refreshPlan, serveRefresh, upstreamBuildCommand } from './cli-index-run.js';
import type { ResolvedConfig } from './config.js';
import { createLogger } from './logger.js';
import { probeOnce, probeSettingsFrom } from './prober.js';
import { sourcesFromConfig, startServer } from './server.js';
import { checkDay, checkedSettings, sourceOptions } from './settings-check.js';
import { loadSigners } from './signing.js';
import { startPrepared, verifyStore } from './verify.js';

function progressLine(text: string) {
  if (process.stderr.isTTY) process.stderr.write(`\r\x1b[2K${text}`);
}

/** A read-only command's data folder must exist: a mistyped `--data` is not created, it is refused. */
function existingDataDir(cfg: ResolvedConfig): ResolvedConfig {
  if (!existsSync(cfg.dataDir)) throw new CliError(`no data folder at ${cfg.dataDir}: name one with --data DIR (or HUB_DATA)`);
  return cfg;
}

/** `hub serve`: keeps running (returns `undefined`) until SIGINT or SIGTERM. */
export async function serveCommand(values: Values<typeof SERVE_OPTIONS>): Promise<undefined> {
  // Every setting and option checked before anything listens or writes (settings-check.ts).
  const cfg = checkedSettings(values);
  const plan = refreshPlan(values);
  const log = createLogger({ level: cfg.logLevel });
  const running = await startServer({ dataDir: cfg.dataDir, port: cfg.port, host: cfg.host, config: cfg, logger: log });
  const refresher = serveRefresh(plan, cfg, running, log);
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
  const cfg = checkedSettings({ ...(values.data ? { data: values.data } : {}), ...(values.config ? { config: values.config } : {}) });
  if (values.upstream && values['from-dir']) throw new UsageError('takes --from-dir or --upstream, not both');
  if (values.upstream) return upstreamBuildCommand(buildSettings(values), cfg);
  const dir = values['from-dir'];
  if (!dir) throw new UsageError('needs --from-dir DIR or --upstream URL');
  if (values.date) checkDay(values.date);
  const sources = sourceOptions(values.source);
  if (sources.length === 0) throw new UsageError('needs at least one --source NAME=URL_TEMPLATE: the place the bytes can be fetched from');
  const layout = treeLayoutProblem(path.resolve(dir));
  if (layout) throw new CliError(`--from-dir: ${layout}`);
  const log = createLogger({ level: cfg.logLevel, destination: process.stderr as never });
  const store = new FsObjectStore(cfg.dataDir);
  const started = Date.now();
  const pack = new StartPack();
  const result = await buildFromDir(store, {
    dir: path.resolve(dir),
    onObject: pack.add,
    sources,
    // The rebuild cache: unchanged files (same size, times and inode) are not read again on the next build.
    cacheFile: path.join(cfg.dataDir, 'cache', 'from-dir.json'),
    ...(values.date ? { date: values.date } : {}),
    signers: await loadSigners(cfg),
    log,
    progress: (done, total, file) => progressLine(`hashing ${done}/${total} ${file.slice(-60)}`),
  });
  progressLine('');
  // What the first start needs (the load pack, the verified ref), from the objects just hashed: no re-hash at start.
  await startPrepared(store, cfg.dataDir, result.catalog, pack, log);
  process.stdout.write(
    `${JSON.stringify({ catalog: result.catalog, models: result.models, files: result.files, bytes: result.bytes, date: result.day.date, seconds: (Date.now() - started) / 1000 })}\n`,
  );
  return 0;
}

/** `hub probe`. */
export async function probeCommand(values: Values<typeof PROBE_OPTIONS>): Promise<number> {
  const cfg = existingDataDir(checkedSettings(values));
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
  const cfg = existingDataDir(checkedSettings(values));
  const report = await verifyStore(new FsObjectStore(cfg.dataDir), (n) => progressLine(`verified ${n} objects`));
  progressLine('');
  for (const f of report.faults) process.stdout.write(`FAULT ${f}\n`);
  process.stdout.write(`${report.objects} objects, ${report.catalogs} catalogs, ${report.faults.length} faults\n`);
  return report.faults.length ? 1 : 0;
}
