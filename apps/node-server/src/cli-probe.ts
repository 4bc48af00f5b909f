/** `hub probe`: its options, the command, and its code (the prober imported when it runs). */
import { command, type OptionSpecs, type Values } from './cli-framework.js';
import { CONFIG, DATA } from './cli-options.js';

export const PROBE_OPTIONS = { data: DATA, config: CONFIG } as const satisfies OptionSpecs;

export const PROBE = command({
  name: 'probe',
  summary: 'Probe every configured source once, now, and print a table.',
  usage: ['[--data DIR] [--config FILE]'],
  description: `Probe every configured source that has a probe file once, now, and print a table (source, ok,
reason, HTTP status, milliseconds) and save the results in the data folder (a hub started on it
restores them). Exit 1 when any probed source fails.`,
  options: PROBE_OPTIONS,
  run: (args) => probeCommand(args.values),
});

/** `hub probe`. */
export async function probeCommand(values: Values<typeof PROBE_OPTIONS>): Promise<number> {
  const { checkedSettings, existingDataDir } = await import('./settings-check.js');
  const { sourcesFromConfig } = await import('./sources-config.js');
  const { probeOnce, probeSettingsFrom } = await import('./prober.js');
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
