/**
 * `hub index build` and `hub index verify`: their options, the commands, and their code. What a build loads (the
 * builder, the upstream run, the object store) is imported when it runs; nothing here imports the server.
 */
import path from 'node:path';
import { CliError, command, type OptionSpecs, UsageError, type Values } from './cli-framework.js';
import { CONFIG, DATA, MODELSCOPE, SOURCE } from './cli-options.js';
import type { ResolvedConfig } from './config.js';
import type { upstreamSettings } from './settings-check.js';
import type { VerifyProgress } from './verify-store.js';

export const INDEX_BUILD_OPTIONS = {
  'from-dir': { type: 'string', arg: 'DIR', help: 'Index this tree ({owner}/{name}/…).' },
  upstream: { type: 'string', arg: 'URL', help: 'Index the trending models of this model host.' },
  source: SOURCE,
  data: DATA,
  config: CONFIG,
  date: { type: 'string', arg: 'YYYY-MM-DD', help: "The index's day (default today, UTC)." },
  top: { type: 'string', arg: 'N', help: 'How many trending models (default 500, at most 10000).' },
  modelscope: MODELSCOPE,
  'model-concurrency': { type: 'string', arg: 'N', help: 'Models indexed at once (1-64).' },
  'request-concurrency': { type: 'string', arg: 'N', help: 'Requests to the upstream at once (1-64).' },
  'small-file-cap': { type: 'string', arg: 'BYTES', help: 'Files up to this size are downloaded and hashed.' },
  fresh: { type: 'boolean', help: 'Start over instead of reusing the models a crashed run finished.' },
  changed: {
    type: 'string',
    arg: 'FILE',
    help: 'With --from-dir: the paths that changed since the last build, one a line (- for stdin); nothing else is walked.',
  },
} as const satisfies OptionSpecs;

export const INDEX_BUILD = command({
  name: 'index build',
  interrupted: 'The index served is unchanged. Run the same command again: an upstream build reuses the models it finished.',
  summary: "Build today's index from a local tree (--from-dir) or a model host (--upstream).",
  usage: [
    '--from-dir DIR --source NAME=URL_TEMPLATE [--source …] [--data DIR] [--date YYYY-MM-DD] [--changed FILE]',
    '--upstream URL [--top N] [--data DIR] [--date YYYY-MM-DD] [--modelscope URL|off] [--source NAME=URL_TEMPLATE]',
    '  [--model-concurrency N] [--request-concurrency N] [--small-file-cap BYTES] [--fresh]',
  ],
  description: `--from-dir: index a local tree laid out as {owner}/{name}/…; every file is hashed with SHA-256.
Files unchanged since the last build (same size, times and inode) are not read again. --changed FILE is a
change feed (inotifywait, rsync --itemize-changes, zfs diff, a script's list): paths under DIR that were
added, changed or removed, one a line; the model folders it does not name are taken as the last build
listed them, without a walk. Anything changed and not named is not seen until a build without it.
--upstream: today's index of the N (default 500) trending public models of a model host (or a mirror of
its API): trees with SHA-256, small files hashed, GGUF headers read, sources found (ModelScope by
SHA-256, IPFS from pins.json in the data folder), archived and chained to the last day. Resumable: run
it again after a crash and it reuses finished models. HF_TOKEN (or HUB_UPSTREAM_TOKEN) is sent to the
upstream only.`,
  options: INDEX_BUILD_OPTIONS,
  run: (args) => indexBuildCommand(args.values),
});

export const INDEX_VERIFY_OPTIONS = {
  data: DATA,
  config: CONFIG,
  log: { type: 'string', arg: 'URL', help: "A hub's transparency log (its prefix, http://HOST/api/hub/log, or its checkpoint)." },
  key: { type: 'string', multiple: true, arg: 'VKEY', help: "With --log: the log's verifier key, from its operator (or HUB_LOG_KEY)." },
  state: { type: 'string', arg: 'FILE', help: 'With --log: the checkpoint and leaves seen before (default DATA/log-seen.json).' },
  day: { type: 'string', arg: 'YYYY-MM-DD', help: 'With --log: the day to prove and walk (default the newest).' },
  resume: {
    type: 'boolean',
    help: 'Without --log: go on from the folders a killed run had hashed (DATA/verify-progress.jsonl), not from the first.',
  },
  threads: {
    type: 'string',
    arg: 'N',
    help: 'Without --log: the worker threads that read, hash and parse the objects (default one per core; 0: none).',
  },
} as const satisfies OptionSpecs;

export const INDEX_VERIFY = command({
  name: 'index verify',
  summary: "Check a data folder (every object, catalog and the archive chain), or a hub's signed log (--log).",
  usage: ['[--data DIR]', '--log URL --key VKEY [--key VKEY …] [--state FILE] [--day YYYY-MM-DD]'],
  description: `Without --log: re-hash every object, check every catalog's references, walk the archive chain.
With --log: check a hub's history from outside: the checkpoint signed by VKEY, every tile and entry
against it, the day's inclusion, the consistency with the checkpoint seen before (kept in --state),
then that day's catalog and model objects down to each file's SHA-256; a rewritten past day is named.
Exit 1 on any fault.`,
  options: INDEX_VERIFY_OPTIONS,
  run: async (args, io) =>
    args.values.log ? (await import('./log-verify.js')).logVerifyRun(args.values, io) : indexVerifyCommand(args.values),
});

export const INDEX_ANSWERS = command({
  name: 'index answers',
  summary: "Make the answers of the served day's cold look-ups again (a day served from its pages).",
  usage: ['[--data DIR] [--config FILE] [--fresh] [--threads N]'],
  description: `A day served from its index pages answers a model asked for the first time from one record of the
data folder's made-answers file, written by each build (as it writes the day's pages) and import. This writes it again for the
day served now, copying the records of the models pages the last file holds unchanged: when the file
was lost, or with --fresh after an upgrade whose answers differ (the hub then logs that it does not
use the file). A running hub takes the new file of its day within 5 seconds.`,
  options: {
    data: DATA,
    config: CONFIG,
    fresh: { type: 'boolean', help: 'Make every answer again, copying nothing from the last file.' },
    threads: {
      type: 'string',
      arg: 'N',
      help: 'The worker threads that make the answers of changed pages (default one per core from 256 models, 64 models pages, on; 0: none).',
    },
  },
  run: (args) => indexAnswersCommand(args.values),
});

async function indexAnswersCommand(values: {
  data?: string | undefined;
  config?: string | undefined;
  fresh?: boolean | undefined;
  threads?: string | undefined;
}): Promise<number> {
  const threads = threadsOption(values.threads);
  const { checkedSettings } = await import('./settings-check.js');
  const cfg = checkedSettings({ ...(values.data ? { data: values.data } : {}), ...(values.config ? { config: values.config } : {}) });
  const { FsObjectStore } = await import('@hub/objects/node');
  const { createLogger } = await import('./logger.js');
  const { writeMadeAnswers } = await import('./made-answers-writer.js');
  (await import('./blake3-node.js')).installFastBlake3();
  const store = new FsObjectStore(cfg.dataDir);
  const current = await store.readRef('current');
  if (!current) throw new CliError(`no index in ${cfg.dataDir}: run "hub index build" first`);
  const log = createLogger({ level: cfg.logLevel, destination: process.stderr as never });
  const r = await writeMadeAnswers(store, cfg.dataDir, current as Parameters<typeof writeMadeAnswers>[2], {
    reuse: !values.fresh,
    ...(threads === undefined ? {} : { workers: threads }),
    log,
    progress: (done, total) => progressLine(`making answers ${done}/${total}`),
  });
  progressLine('');
  if ('skipped' in r) throw new CliError(`no answers made: ${r.skipped}`);
  process.stdout.write(`${JSON.stringify({ catalog: current, ...r })}\n`);
  return 0;
}

/** `--threads N` of `hub index verify` and `hub index answers`: worker threads, 0 to 256. */
function threadsOption(value: string | undefined): number | undefined {
  const threads = value === undefined ? undefined : Number(value);
  if (threads !== undefined && !(Number.isInteger(threads) && threads >= 0 && threads <= 256))
    throw new UsageError(`--threads ${value}: a whole number from 0 to 256`);
  return threads;
}

function progressLine(text: string) {
  if (process.stderr.isTTY) process.stderr.write(`\r\x1b[2K${text}`);
}

/** `hub index build --from-dir … | --upstream …`. */
export async function indexBuildCommand(values: Values<typeof INDEX_BUILD_OPTIONS>): Promise<number> {
  const { checkDay, checkedSettings, sourceOptions, upstreamSettings } = await import('./settings-check.js');
  const cfg = checkedSettings({ ...(values.data ? { data: values.data } : {}), ...(values.config ? { config: values.config } : {}) });
  if (values.upstream && values['from-dir']) throw new UsageError('takes --from-dir or --upstream, not both');
  if (values.changed !== undefined && !values['from-dir']) throw new UsageError('--changed goes with --from-dir');
  // One build at a time on a data folder, whoever runs it (this command, a cron job, a hub serve --refresh).
  const { withBuildLock } = await import('./replicas.js');
  // A build allocates far more than it keeps (each model's objects are encoded, hashed, written and dropped): let V8's
  // old generation grow to 1.25× what survives instead of up to 4×, so peak RSS follows the live data (measured in
  // docs/benchmarks.md, 2026-11-28 afternoon; docs/decisions/scale-and-speed.md "Build speed"). An operator's own
  // --heap-growing-percent is left alone.
  const { boundHeapGrowth, BUILD_HEAP_GROWING_PERCENT } = await import('./heap-growth.js');
  boundHeapGrowth(BUILD_HEAP_GROWING_PERCENT);
  const oneBuild = <T>(fn: () => Promise<T>) =>
    withBuildLock(cfg.dataDir, fn, (h) => process.stderr.write(`hub: waiting for the build running in pid ${h.pid} on ${h.host}\n`));
  if (values.upstream) {
    const settings = upstreamSettings(values);
    return oneBuild(() => upstreamBuildCommand(settings, cfg));
  }
  const dir = values['from-dir'];
  if (!dir) throw new UsageError('needs --from-dir DIR or --upstream URL');
  if (values.date) checkDay(values.date);
  const sources = sourceOptions(values.source);
  if (sources.length === 0) throw new UsageError('needs at least one --source NAME=URL_TEMPLATE: the place the bytes can be fetched from');
  const { buildFromDir, ChangeFeedError, changeFeedPaths, treeLayoutProblem } = await import('@hub/node-toolkit');
  // (lists every owner folder: a build with a change feed goes on from a build of this tree that was checked)
  const layout = values.changed === undefined ? treeLayoutProblem(path.resolve(dir)) : undefined;
  if (layout) throw new CliError(`--from-dir: ${layout}`);
  // a change feed that cannot be used (a path outside the tree, no rebuild cache of it): one line
  const feedError = (e: unknown) => (e instanceof ChangeFeedError ? new CliError(`--changed: ${e.message}`) : e);
  let changed: string[] | undefined;
  if (values.changed !== undefined) {
    const { readFileSync } = await import('node:fs');
    let text: string;
    try {
      text = readFileSync(values.changed === '-' ? 0 : values.changed, 'utf8');
    } catch (e) {
      throw new CliError(`--changed: cannot read ${values.changed}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
    try {
      changed = changeFeedPaths(path.resolve(dir), text.split('\n'));
    } catch (e) {
      throw feedError(e);
    }
  }
  (await import('./blake3-node.js')).installFastBlake3();
  const { createLogger } = await import('./logger.js');
  const { loadSigners } = await import('./signing.js');
  const { FsObjectStore } = await import('@hub/objects/node');
  const { LoadPackWriter } = await import('@hub/core-index');
  const { loadPackLimit, writeLoadPackAfterBuild } = await import('./verify.js');
  const log = createLogger({ level: cfg.logLevel, destination: process.stderr as never });
  const store = new FsObjectStore(cfg.dataDir);
  const started = Date.now();
  const pack = new LoadPackWriter({ maxModels: loadPackLimit(cfg.indexStore) });
  const keys = await loadSigners(cfg);
  // A day served from its pages: its cold look-ups' answers, made as its models pages are written (made-answers-file.ts).
  const { MadeAnswersAlongBuild } = await import('./made-answers-build.js');
  const made = new MadeAnswersAlongBuild(store, cfg.dataDir, { indexStore: cfg.indexStore, log });
  const result = await oneBuild(() =>
    buildFromDir(store, {
      dir: path.resolve(dir),
      onObject: pack.add,
      pages: pack,
      onModelsPage: made.onModelsPage,
      sources,
      // The rebuild cache: unchanged files (same size, times and inode) are not read again on the next build.
      cacheFile: path.join(cfg.dataDir, 'cache', 'from-dir.json'),
      ...(changed ? { changed } : {}),
      ...(values.date ? { date: values.date } : {}),
      signers: keys,
      log,
      progress: (done, file) => progressLine(`indexing: ${done} files, ${file.slice(-60)}`),
    }).then(async (r) => {
      progressLine('');
      // What the first start needs (the load pack, the verified ref), from the objects just hashed: no re-hash at start.
      await writeLoadPackAfterBuild(store, cfg.dataDir, r.catalog, pack, log);
      await made.finish(r.catalog, (done, total) => progressLine(`making answers ${done}/${total}`));
      progressLine('');
      return r;
    }),
  ).catch(async (e: unknown) => {
    await made.abort();
    throw feedError(e);
  });
  process.stdout.write(
    `${JSON.stringify({ catalog: result.catalog, models: result.models, files: result.files, bytes: result.bytes, date: result.day.date, seconds: (Date.now() - started) / 1000 })}\n`,
  );
  return 0;
}

/** stderr on a TTY: log lines above a progress bar that redraws in place. Not a TTY: log lines only. */
function terminal<P>(progressBar: (p: P, width: number) => string) {
  const tty = Boolean(process.stderr.isTTY);
  let bar = '';
  const clear = () => {
    if (tty && bar) process.stderr.write('\r\x1b[2K');
  };
  return {
    destination: {
      write(line: string) {
        clear();
        process.stderr.write(line);
        if (tty && bar) process.stderr.write(bar);
      },
    },
    progress(p: P) {
      if (!tty) return;
      bar = progressBar(p, Math.max(10, Math.min(40, (process.stderr.columns ?? 80) - 90)));
      process.stderr.write(`\r\x1b[2K${bar}`);
    },
    end() {
      clear();
      bar = '';
    },
  };
}

/** `hub index build --upstream URL …`: prints the summary (text on stderr, JSON on stdout). Returns the exit code. */
async function upstreamBuildCommand(settings: ReturnType<typeof upstreamSettings>, cfg: ResolvedConfig): Promise<number> {
  const { buildFromUpstream, progressBar, summaryText } = await import('./upstream-build.js');
  const { createLogger } = await import('./logger.js');
  const { loadSigners } = await import('./signing.js');
  const { sourcesFromConfig } = await import('./sources-config.js');
  const { PinsError } = await import('@hub/core-index');
  const term = terminal(progressBar);
  const log = createLogger({ level: cfg.logLevel, destination: term.destination as never });
  try {
    const summary = await buildFromUpstream({
      dataDir: cfg.dataDir,
      ...(cfg.indexStore ? { indexStore: cfg.indexStore } : {}),
      ...settings,
      signers: await loadSigners(cfg),
      ...(cfg.signing ? { signing: cfg.signing } : {}),
      configuredSources: sourcesFromConfig(cfg),
      log,
      onProgress: (p) => term.progress(p),
    });
    term.end();
    process.stderr.write(summaryText(summary));
    const { result: _r, ...rest } = summary;
    process.stdout.write(`${JSON.stringify(rest)}\n`);
    return 0;
  } catch (e) {
    term.end();
    if (e instanceof PinsError) throw new CliError(e.message);
    throw e;
  }
}

/** `hub index verify`: progress of both passes on a TTY, structured log lines on stderr, faults and the total on stdout. */
export async function indexVerifyCommand(values: Values<typeof INDEX_VERIFY_OPTIONS>): Promise<number> {
  const { checkedSettings, existingDataDir } = await import('./settings-check.js');
  const threads = threadsOption(values.threads);
  const cfg = existingDataDir(checkedSettings(values));
  (await import('./blake3-node.js')).installFastBlake3();
  const { FsObjectStore } = await import('@hub/objects/node');
  const { verifyStore } = await import('./verify.js');
  const { VERIFY_PROGRESS_FILE } = await import('./verify-resume.js');
  const { createLogger } = await import('./logger.js');
  const term = terminal(verifyProgressLine);
  const log = createLogger({ level: cfg.logLevel, destination: term.destination as never });
  try {
    const report = await verifyStore(new FsObjectStore(cfg.dataDir), {
      progress: (p) => term.progress(p),
      log,
      progressFile: path.join(cfg.dataDir, VERIFY_PROGRESS_FILE),
      resume: values.resume === true,
      ...(threads === undefined ? {} : { workers: threads }),
    });
    term.end();
    for (const f of report.faults) process.stdout.write(`FAULT ${f}\n`);
    process.stdout.write(`${report.objects} objects, ${report.catalogs} catalogs, ${report.faults.length} faults\n`);
    return report.faults.length ? 1 : 0;
  } finally {
    term.end();
  }
}

/** The progress line of `hub index verify`: the hash pass by fan-out folder, then the catalog pass by shard step. */
function verifyProgressLine(p: VerifyProgress): string {
  return p.phase === 'objects'
    ? `hashing objects: folder ${p.foldersDone}/${p.folders}, ${p.objects} objects`
    : `checking ${p.catalogs} catalog${p.catalogs === 1 ? '' : 's'}: shard step ${p.step}/${p.steps}, ${p.models} rows`;
}
