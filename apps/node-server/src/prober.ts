import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  currentProbeState,
  healthStates,
  type Logger,
  type MemorySourceHealth,
  nextProbeDue,
  type ProbeRound,
  type ProbeSettings,
  type ProbeState,
  probeConfigProblem,
  probedSources,
  probeRetryAfterSeconds,
  probeSettings,
  pullForward,
  runProbeRound,
  type SourceConfig,
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
  /** Stop the timer, abort probes in flight (their outcome is dropped), finish pending writes, write nothing more. */
  stop(): Promise<void>;
  /** The current state (what `probes.json` holds). */
  state(): ProbeState;
}

/** The longest `setTimeout` delay Node accepts. */
const MAX_DELAY = 2_147_483_647;

/**
 * The node-server prober: restores the last results into `health` at once (so a restart keeps the
 * truth), then probes each source when it is due, on one timer. Probes run beside requests: nothing on
 * the request path waits for them. A source is never probed twice at once, at most `concurrency` probes
 * are in flight, and a source that stalls for the whole timeout does not hold back the others' probes.
 */
export function createProber(options: ProberOptions): NodeProber {
  const { dataDir, sources, health, settings, log } = options;
  const now = options.now ?? (() => Date.now());
  const fetchImpl = options.fetch ?? globalThis.fetch;
  const file = path.join(dataDir, PROBES_FILE);
  const probed = probedSources(sources);
  let state = currentProbeState(readProbeState(dataDir, log), sources);
  health.restore(healthStates(state));
  health.useRetryAfter(() => probeRetryAfterSeconds(state, now(), settings));
  // A file asked for with no live holder: its failing holders are re-checked at the interval (issue 19).
  health.onWanted((holders) => {
    if (stopped) return;
    const moved = pullForward(state, holders, now(), settings);
    if (moved.length) schedule();
  });

  let timer: ReturnType<typeof setTimeout> | undefined;
  let started = false;
  let stopped = false;
  const inFlight = new Set<string>();
  const batches = new Set<Promise<unknown>>();
  let writing: Promise<void> = Promise.resolve();
  const stopper = new AbortController();
  // A probe in flight when the hub closes is aborted, not waited for.
  const fetchWithStop: typeof fetch = (input, init) =>
    fetchImpl(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, stopper.signal]) : stopper.signal });
  const guardedHealth = {
    record: (name: string, result: Parameters<MemorySourceHealth['record']>[1]) => {
      if (!stopped) health.record(name, result);
    },
  };
  const dueAt = (s: SourceConfig) => {
    const r = state.sources[s.name];
    return r ? Date.parse(r.next) : Number.NEGATIVE_INFINITY;
  };

  function persist(): Promise<void> {
    // Writes are chained, and each writes the state as it is when its turn comes, so the newest wins.
    // `stop()` waits for the chain, so nothing is written after the hub has closed.
    writing = writing.then(async () => {
      try {
        await writeFileAtomic(file, `${JSON.stringify(state, null, 2)}\n`);
      } catch (e) {
        log.warn({ file, err: (e as Error).message }, 'could not persist probe results');
      }
    });
    return writing;
  }

  /** Probe one source (already marked in flight) with `runProbeRound`, fold its record in, persist. */
  async function probe(source: SourceConfig): Promise<ProbeRound> {
    const before = state;
    try {
      const result = await runProbeRound({
        sources: [source],
        fetch: fetchWithStop,
        now,
        state,
        settings,
        force: true,
        health: guardedHealth,
      });
      if (stopped) return result;
      const next: ProbeState = { v: 1, sources: { ...state.sources } };
      for (const r of result.results) {
        const record = result.state.sources[r.name];
        if (record) next.sources[r.name] = record;
        const was = before.sources[r.name];
        const fields = {
          source: r.name,
          ok: r.ok,
          reason: r.reason,
          ms: r.ms,
          ...(r.status ? { status: r.status } : {}),
          ...(r.detail ? { detail: r.detail } : {}),
        };
        if (r.ok && was && !was.ok) log.info(fields, 'source back: probe passed');
        else if (!r.ok && (!was || was.ok))
          log.warn({ ...fields, recheck: record?.next }, 'source down: no redirects to it until a probe passes');
        else log.debug(fields, 'probe');
      }
      state = next;
      if (result.results.length) await persist();
      return { ...result, state };
    } finally {
      inFlight.delete(source.name);
    }
  }

  function launch(source: SourceConfig): Promise<ProbeRound> {
    inFlight.add(source.name);
    const p = probe(source);
    batches.add(p);
    p.catch((e: unknown) => log.error({ err: (e as Error).message }, 'probe failed'))
      .finally(() => {
        batches.delete(p);
        schedule();
      })
      .catch(() => {});
    return p;
  }

  /** Start probes for the sources that are due, as far as free slots allow; then set the timer. */
  function tick() {
    timer = undefined;
    if (stopped) return;
    const t = now();
    const free = settings.concurrency - inFlight.size;
    const due = probed.filter((s) => !inFlight.has(s.name) && dueAt(s) <= t).sort((a, b) => dueAt(a) - dueAt(b));
    // One probe per source, each folded in when it ends, so a stalled source holds back no other.
    for (const s of due.slice(0, Math.max(0, free))) launch(s);
    schedule();
  }

  /** Set the timer for the next source that is due and not in flight (when a slot is free). */
  function schedule() {
    if (stopped || !started) return;
    clearTimeout(timer);
    timer = undefined;
    if (inFlight.size >= settings.concurrency) return; // a finishing probe calls schedule() again
    let next: number | undefined;
    for (const s of probed) {
      if (inFlight.has(s.name)) continue;
      const d = dueAt(s);
      if (next === undefined || d < next) next = d;
    }
    if (next === undefined) return;
    timer = setTimeout(tick, Math.min(MAX_DELAY, Math.max(0, next - now())));
    timer.unref?.();
  }

  return {
    start() {
      if (stopped || started) return;
      started = true;
      const first = nextProbeDue(state, sources, now());
      if (first !== undefined) log.info({ sources: probed.map((s) => s.name), firstInMs: Math.max(0, first - now()) }, 'prober started');
      schedule();
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      timer = undefined;
      stopper.abort();
      await Promise.allSettled([...batches]);
      await writing;
    },
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
