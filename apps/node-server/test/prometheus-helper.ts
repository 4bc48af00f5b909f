import { type ChildProcess, spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { freePort } from '@hub/node-toolkit';

export const PROMETHEUS = '/usr/bin/prometheus';

/** Poll `fn` every 250 ms until it returns a truthy value; throw naming `what` after `timeoutMs`. */
export async function waitFor<T>(what: string, fn: () => Promise<T | undefined | false>, timeoutMs = 30_000): Promise<T> {
  const start = Date.now();
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}${last ? ` (last error: ${String(last)})` : ''}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

export interface RunningPrometheus {
  /** One instant query: the value of each series, keyed by the label `by` (`value` for a series without it). */
  query(q: string, by?: string): Promise<Record<string, number>>;
  /** The URL of an HTTP API path (`rules`, `query?query=…`). */
  url(p: string): string;
  logs: string[];
  stop(): Promise<void>;
}

/**
 * Debian's Prometheus with its own config and data folder in `dir`, its web listener on a free 127.0.0.1 port,
 * scraping `target` (host:port) as job `hub` every 500 ms and evaluating `ruleFiles` as often; stopped by its pid.
 */
export async function startPrometheus(dir: string, target: string, ruleFiles: string[] = []): Promise<RunningPrometheus> {
  const port = await freePort();
  const config = path.join(dir, 'prometheus.yml');
  await writeFile(
    config,
    [
      'global:',
      '  scrape_interval: 500ms',
      '  scrape_timeout: 400ms',
      '  evaluation_interval: 500ms',
      ...(ruleFiles.length ? ['rule_files:', ...ruleFiles.map((f) => `  - ${JSON.stringify(f)}`)] : []),
      'scrape_configs:',
      '  - job_name: hub',
      '    static_configs:',
      `      - targets: ['${target}']`,
      '',
    ].join('\n'),
  );
  const logs: string[] = [];
  const prom: ChildProcess = spawn(
    PROMETHEUS,
    [
      `--config.file=${config}`,
      `--storage.tsdb.path=${path.join(dir, 'tsdb')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--web.console.templates=/nonexistent',
      '--web.console.libraries=/nonexistent',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  prom.stdout?.on('data', (d) => logs.push(String(d)));
  prom.stderr?.on('data', (d) => logs.push(String(d)));
  const api = async (p: string) => {
    const body = (await (await fetch(`http://127.0.0.1:${port}/api/v1/${p}`)).json()) as { status: string; data: any };
    if (body.status !== 'success') throw new Error(`${p}: ${JSON.stringify(body)}`);
    return body.data;
  };
  return {
    logs,
    async query(q, by = 'source') {
      const data = (await api(`query?query=${encodeURIComponent(q)}`)) as {
        result: Array<{ metric: Record<string, string>; value: [number, string] }>;
      };
      return Object.fromEntries(data.result.map((r) => [r.metric[by] ?? 'value', Number(r.value[1])]));
    },
    url: (p) => `http://127.0.0.1:${port}/api/v1/${p}`,
    async stop() {
      if (prom.exitCode !== null || prom.pid === undefined) return;
      const exited = new Promise((resolve) => prom.once('exit', resolve));
      process.kill(prom.pid, 'SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
      if (prom.exitCode === null) process.kill(prom.pid, 'SIGKILL');
    },
  };
}
