import { readFile } from 'node:fs/promises';
import path from 'node:path';
import {
  type Logger,
  type ProbeRound,
  type ProbeSettings,
  type ProbeState,
  type ProbeStorage,
  probeConfigProblem,
  probeSettings,
  type SourceConfig,
  SourceProber,
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

/**
 * The probe state in the data folder (`probes.json`): read at start, written after each round (atomically, so a
 * kill mid-write leaves the last complete state). A missing file is nothing stored; an unreadable one is logged and
 * counts as nothing stored (the hub probes afresh).
 */
export function fileProbeStorage(dataDir: string, log?: Logger): ProbeStorage {
  const file = path.join(dataDir, PROBES_FILE);
  return {
    async read() {
      let text: string;
      try {
        text = await readFile(file, 'utf8');
      } catch {
        return undefined;
      }
      try {
        return JSON.parse(text) as ProbeState;
      } catch (e) {
        log?.warn({ file, err: (e as Error).message }, 'unreadable probe state ignored; probing afresh');
        return undefined;
      }
    },
    write: (state) => writeFileAtomic(file, `${JSON.stringify(state, null, 2)}\n`),
  };
}

/**
 * `hub probe`: one forced round of the same prober over every configured source with a probe file, as a table.
 * With `dataDir` the round continues the persisted schedule and its results are written there (a hub started
 * later on that folder restores them).
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
  const prober = new SourceProber({
    sources: options.sources,
    order: options.order,
    settings: options.settings,
    ...(options.dataDir ? { storage: fileProbeStorage(options.dataDir) } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.now ? { now: options.now } : {}),
  });
  await prober.load();
  const round = await prober.round({ force: true });
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
