import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  type Logger,
  type MemorySourceHealth,
  type ProbeRound,
  type ProbeSettings,
  type ProbeState,
  type SourceConfig,
  currentProbeState,
  healthStates,
  nextProbeDue,
  probeConfigProblem,
  probeRetryAfterSeconds,
  probeSettings,
  runProbeRound,
} from '@hub/core-index';
import { writeFileAtomic } from '@hub/objects/node';
import { ConfigError, type HubConfigFile } from './config.js';

/** The last probe results and the re-check schedule, in the data folder. */
export const PROBES_FILE = 'probes.json';

/** Probe settings from the config file (`probeIntervalSeconds`, `probeTimeoutSeconds`, …), checked. */
export function probeSettingsFrom(config: HubConfigFile): ProbeSettings {
  try {
    return probeSettings({
      ...(config.probeIntervalSeconds !== undefined ? { intervalSeconds: config.probeIntervalSeconds } : {}),
      ...(config.probeTimeoutSeconds !== undefined ? { timeoutSeconds: config.probeTimeoutSeconds } : {}),
      ...(config.probeRetrySeconds !== undefined ? { retrySeconds: config.probeRetrySeconds } : {}),
      ...(config.probeRetryMaxSeconds !== undefined ? { retryMaxSeconds: config.probeRetryMaxSeconds } : {}),
      ...(config.probeConcurrency !== undefined ? { concurrency: config.probeConcurrency } : {}),
    });
  } catch (e) {
    throw new ConfigError(`config: ${(e as Error).message}`);
  }
}

/** Refuse a `probe` entry that could never pass (bad SHA-256, no URL), rather than never probing it. */
export function checkProbeConfig(sources: SourceConfig[]): void {
  const problems = sources.map(probeConfigProblem).filter((p): p is string => Boolean(p));
  if (problems.length) throw new ConfigError(`config: ${problems.join('; ')}`);
}

/** Read the persisted state; a missing or unreadable file is an empty state (the hub probes afresh). */
export function readProbeState(dataDir: string, log?: Logger): ProbeState | undefined {
  const file = path.join(dataDir, PROBES_FILE);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  try {
    return JSON.parse(text) as ProbeState;
  } catch (e) {
    log?.warn({ file, err: (e as Error).message }, 'unreadable probe state ignored; probing afresh');
    return undefined;
  }
}

export interface ProberOptions {
  dataDir: string;
  sources: SourceConfig[];
  health: MemorySourceHealth;
  settings: ProbeSettings;
  log: Logger;
  fetch?: typeof fetch;
  now?: () => number;
}

export interface NodeProber {
  /** Start the timer: sources never probed (or overdue) are probed at once, beside requests. */
  start(): void;
  /** Stop the timer, abort a running round and write nothing more. */
  stop(): Promise<void>;
  /** Run one round now (every probed source with `force`), persist and return it. */
  runOnce(force?: boolean): Promise<ProbeRound>;
  /** The current state (what `probes.json` holds). */
  state(): ProbeState;
}

/** The longest `setTimeout` delay Node accepts. */
const MAX_DELAY = 2_147_483_647;

/**
 * The node-server prober: restores the last results into `health` at once (so a restart keeps the
 * truth), then runs `runProbeRound` on a timer that fires when the next source is due. Rounds run
 * beside requests: nothing on the request path waits for them, and they never overlap.
 */
export function createProber(options: ProberOptions): NodeProber {
  const { dataDir, sources, health, settings, log } = options;
  const now = options.now ?? (() => Date.now());
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const file = path.join(dataDir, PROBES_FILE);
  let state = currentProbeState(readProbeState(dataDir, log), sources);
  health.restore(healthStates(state));
  health.useRetryAfter(() => probeRetryAfterSeconds(state, now(), settings));

  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<ProbeRound> | undefined;
  let stopped = false;
  const stopper = new AbortController();
  // A probe in flight when the hub closes is aborted, not waited for.
  const fetchWithStop: typeof fetch = (input, init) =>
    fetchImpl(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, stopper.signal]) : stopper.signal });
  const guardedHealth = {
    record: (name: string, result: Parameters<MemorySourceHealth['record']>[1]) => {
      if (!stopped) health.record(name, result);
    },
  };

  async function round(force: boolean): Promise<ProbeRound> {
    const before = state;
    const result = await runProbeRound({ sources, fetch: fetchWithStop, now, state, settings, force, health: guardedHealth });
    if (stopped) return result;
    state = result.state;
    for (const r of result.results) {
      const was = before.sources[r.name];
      const fields = { source: r.name, ok: r.ok, reason: r.reason, ms: r.ms, ...(r.status ? { status: r.status } : {}), ...(r.detail ? { detail: r.detail } : {}) };
      if (r.ok && was && !was.ok) log.info(fields, 'source back: probe passed');
      else if (!r.ok && (!was || was.ok)) log.warn({ ...fields, recheck: state.sources[r.name]?.next }, 'source down: no redirects to it until a probe passes');
      else log.debug(fields, 'probe');
    }
    if (result.results.length) {
      try {
        await writeFileAtomic(file, `${JSON.stringify(state, null, 2)}\n`);
      } catch (e) {
        log.warn({ file, err: (e as Error).message }, 'could not persist probe results');
      }
    }
    return result;
  }

  function runOnce(force = false): Promise<ProbeRound> {
    const p = (running ?? Promise.resolve()).catch(() => {}).then(() => round(force));
    running = p;
    p.finally(() => {
      if (running === p) running = undefined;
    }).catch(() => {});
    return p;
  }

  function schedule(at: number | undefined) {
    if (stopped || at === undefined) return;
    clearTimeout(timer);
    timer = setTimeout(tick, Math.min(MAX_DELAY, Math.max(0, at - now())));
    timer.unref?.();
  }

  async function tick() {
    timer = undefined;
    if (stopped) return;
    try {
      const result = await runOnce(false);
      // Never spin: a source due "now" again waits at least a tenth of a second.
      schedule(result.nextDue === undefined ? undefined : Math.max(result.nextDue, now() + 100));
    } catch (e) {
      log.error({ err: (e as Error).message }, 'probe round failed');
      schedule(now() + settings.intervalSeconds * 1000);
    }
  }

  return {
    start() {
      if (stopped || timer || running) return;
      const first = nextProbeDue(state, sources, now());
      if (first !== undefined) log.info({ sources: sources.filter((s) => s.probe).map((s) => s.name), firstInMs: Math.max(0, first - now()) }, 'prober started');
      schedule(first);
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      timer = undefined;
      stopper.abort();
      await running?.catch(() => {});
    },
    runOnce,
    state: () => state,
  };
}

/**
 * `hub probe`: one forced round over every configured source with a probe file, as a table. With `dataDir`
 * the round continues the persisted schedule and its results are written there (a hub started later on
 * that folder restores them).
 */
export async function probeOnce(options: {
  sources: SourceConfig[];
  order: string[];
  settings: ProbeSettings;
  dataDir?: string;
  fetch?: typeof fetch;
  now?: () => number;
}): Promise<{ round: ProbeRound; table: string; ok: boolean }> {
  checkProbeConfig(options.sources);
  const state = options.dataDir ? readProbeState(options.dataDir) : undefined;
  const round = await runProbeRound({
    sources: options.sources,
    fetch: options.fetch ?? globalThis.fetch,
    now: options.now ?? (() => Date.now()),
    settings: options.settings,
    force: true,
    ...(state ? { state } : {}),
  });
  if (options.dataDir && round.results.length) {
    await writeFileAtomic(path.join(options.dataDir, PROBES_FILE), `${JSON.stringify(round.state, null, 2)}\n`);
  }
  const rank = (n: string) => (options.order.includes(n) ? options.order.indexOf(n) : options.order.length);
  const names = options.sources.filter((s) => s.redirect !== false).map((s) => s.name);
  names.sort((a, b) => rank(a) - rank(b));
  const rows: string[][] = [['SOURCE', 'OK', 'REASON', 'HTTP', 'MS', 'DETAIL']];
  for (const name of names) {
    const r = round.results.find((x) => x.name === name);
    if (r) rows.push([name, r.ok ? 'yes' : 'no', r.reason, r.status ? String(r.status) : '-', String(Math.round(r.ms)), r.detail ?? r.url]);
    else rows.push([name, 'yes', '-', '-', '-', 'no probe file: offered, never checked']);
  }
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((row) => (row[i] ?? '').length))) ?? [];
  const table = rows.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join('  ')).join('\n');
  return { round, table: `${table}\n`, ok: round.results.every((r) => r.ok) };
}
