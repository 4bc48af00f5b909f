import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { namingFetch } from '@hub/client/get';
import { type Logger, PinsError } from '@hub/core-index';
import { PublishError, publishObject } from '@hub/objects';
import type { BuildProgress } from '@hub/upstream';
import { installFastBlake3 } from './blake3-node.js';
import type { OBJECTS_PUT_OPTIONS } from './cli-commands.js';
import { CliError, hubUrlOf, type Parsed, UsageError } from './cli-framework.js';
import type { ResolvedConfig } from './config.js';
import { createLogger } from './logger.js';
import { parseRefresh, type RefreshError, type Refresher, startRefresh } from './refresh.js';
import type { RunningHub } from './server.js';
import { sourcesFromConfig } from './server.js';
import { checkDay, sourceOptions, wholeOption } from './settings-check.js';
import { loadSigners } from './signing.js';
import type { progressBar as ProgressBar } from './upstream-build.js';

/** The upstream run (@hub/upstream), imported when a build runs: `hub serve` without `--refresh` never loads it. */
const upstreamBuild = () => import('./upstream-build.js');

/** stderr on a TTY: log lines above a progress bar that redraws in place. Not a TTY: log lines only. */
function terminal(progressBar: typeof ProgressBar) {
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
    progress(p: BuildProgress) {
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

interface UpstreamValues {
  upstream?: string;
  top?: string;
  date?: string;
  source?: string[];
  modelscope?: string;
  'model-concurrency'?: string;
  'request-concurrency'?: string;
  'small-file-cap'?: string;
  fresh?: boolean;
}

/** The upstream read token: `HF_TOKEN` first (as huggingface_hub and huggingface.js read it), then `HUB_UPSTREAM_TOKEN`. */
export function upstreamToken(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const t = env.HF_TOKEN?.trim() || env.HUB_UPSTREAM_TOKEN?.trim();
  return t || undefined;
}

/** The upstream build's options, checked (settings-check.ts) before anything runs. */
export function buildSettings(values: UpstreamValues) {
  const upstream = values.upstream as string;
  if (!/^https?:\/\/[^\s/]+/.test(upstream)) throw new UsageError(`--upstream ${upstream}: expected a URL such as https://huggingface.co`);
  if (values.date) checkDay(values.date);
  const ms = values.modelscope;
  if (ms !== undefined && ms !== 'off' && !/^https?:\/\//.test(ms)) throw new UsageError(`--modelscope ${ms}: expected a URL or off`);
  const sources = sourceOptions(values.source);
  const top = wholeOption('--top', values.top, 10_000);
  const modelConcurrency = wholeOption('--model-concurrency', values['model-concurrency'], 64);
  const requestConcurrency = wholeOption('--request-concurrency', values['request-concurrency'], 64);
  const cap = wholeOption('--small-file-cap', values['small-file-cap'], 1024 * 1024 * 1024);
  return {
    upstream,
    ...(top ? { top } : {}),
    ...(values.date ? { date: values.date } : {}),
    ...(ms !== undefined ? { modelscope: ms === 'off' ? (false as const) : ms } : {}),
    sources,
    ...(modelConcurrency ? { modelConcurrency } : {}),
    ...(requestConcurrency ? { requestConcurrency } : {}),
    ...(cap ? { smallFileCap: cap } : {}),
    ...(values.fresh ? { fresh: true } : {}),
    ...(process.env.HUB_CODE_COMMIT ? { codeCommit: process.env.HUB_CODE_COMMIT } : {}),
    // A read token for the upstream (higher rate limits): HF_TOKEN as the host's own clients read it, or
    // HUB_UPSTREAM_TOKEN. Sent to the upstream's origin only, never logged.
    ...(upstreamToken() ? { token: upstreamToken() as string } : {}),
  };
}

/** `hub index build --upstream URL …`: prints the summary (text on stderr, JSON on stdout). Returns the exit code. */
export async function upstreamBuildCommand(settings: ReturnType<typeof buildSettings>, cfg: ResolvedConfig): Promise<number> {
  const { buildFromUpstream, progressBar, summaryText } = await upstreamBuild();
  const term = terminal(progressBar);
  const log = createLogger({ level: cfg.logLevel, destination: term.destination as never });
  try {
    const summary = await buildFromUpstream({
      dataDir: cfg.dataDir,
      ...settings,
      signers: await loadSigners(cfg),
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

/** `hub objects put FILE --kind KIND --token TOKEN [--url BASE] [--media-type TYPE]`. */
export async function objectsPutCommand({ values, positionals }: Parsed<typeof OBJECTS_PUT_OPTIONS>): Promise<number> {
  installFastBlake3();
  const file = positionals[0] as string;
  if (!values.kind) throw new UsageError('needs --kind KIND (for example model-hub.model)');
  const token = values.token ?? process.env.HUB_PUBLISHER_TOKEN;
  if (!token) throw new UsageError('needs --token TOKEN (or HUB_PUBLISHER_TOKEN): a publisher token of the hub');
  const url = hubUrlOf(values.url, process.env);
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(await readFile(file));
  } catch (e) {
    throw new CliError(`cannot read ${file}: ${(e as Error).message}`);
  }
  const mediaType = values['media-type'] ?? (/\.json$/i.test(file) ? 'application/json' : 'application/octet-stream');
  try {
    const r = await publishObject(url, token, bytes, { kind: values.kind, mediaType, filename: path.basename(file) }, namingFetch(fetch));
    process.stdout.write(
      `${JSON.stringify({ address: r.address, created: r.created, size: bytes.byteLength, ...(r.chunks ? { chunks: r.chunks } : {}) })}\n`,
    );
    return 0;
  } catch (e) {
    if (e instanceof PublishError) {
      process.stderr.write(`hub: ${e.message}\n`);
      return 1;
    }
    throw e;
  }
}

/** `hub serve --refresh …`'s options, checked before the hub starts: the schedule and the build's settings. */
export function refreshPlan(values: { refresh?: string; 'refresh-at'?: string; upstream?: string; top?: string; modelscope?: string }) {
  if (!values.refresh) return undefined;
  let schedule: ReturnType<typeof parseRefresh>;
  try {
    schedule = parseRefresh(values.refresh, values['refresh-at']);
  } catch (e) {
    throw new UsageError((e as RefreshError).message);
  }
  return { schedule, settings: buildSettings({ ...values, upstream: values.upstream ?? 'https://huggingface.co' }) };
}

/** `hub serve --refresh daily [--refresh-at HH:MM] [--upstream URL] [--top N]`: the build on a timer, switched in without a restart. */
export function serveRefresh(
  plan: ReturnType<typeof refreshPlan>,
  cfg: ResolvedConfig,
  running: RunningHub,
  log: Logger,
): Pick<Refresher, 'stop'> {
  if (!plan) return watchCurrent(running, log);
  const { schedule, settings } = plan;
  return startRefresh({
    schedule,
    log,
    reload: () => running.reload(),
    build: async () => {
      const s = await (await upstreamBuild()).buildFromUpstream({
        dataDir: cfg.dataDir,
        ...settings,
        signers: await loadSigners(cfg),
        configuredSources: sourcesFromConfig(cfg),
        log,
        metrics: running.deps.metrics,
      });
      return { catalog: s.catalog, models: s.models };
    },
  });
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
