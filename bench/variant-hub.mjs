// One hub of a metrics variant, and one wrk run's CPU per request: what bench/metrics-processes.mjs and
// bench/metrics-pairs.mjs share.
//
// Variants:
//   off          metrics off (the default)
//   off-live     metrics off, and one GET /-/live a second on a connection of its own
//   on           `metricsPort` set (prom-client, every request counted, default process metrics), no scrape
//   on-live      `metricsPort` set, one GET /-/live a second
//   on-scrape    `metricsPort` set, one GET /metrics a second on the metrics port (a scrape)
//   on-log       `metricsPort` and `logRequests` set (every answer timed, one log line each, to /dev/null), a scrape a second
//   token        `metricsToken` set instead (metrics on, no second port), no scrape
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { cpuSeconds } from './proc-cpu.mjs';

export const VARIANTS = ['off', 'off-live', 'on', 'on-live', 'on-scrape', 'on-log', 'token'];

const root = path.join(path.dirname(new URL(import.meta.url).pathname), '..');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * One wrk run of `seconds` on `url` (wrk on CPU 0, async so this process's timers run meanwhile), with an Accept header
 * unless `accept` is empty: the CPU µs per request of process `pid`.
 */
export async function cpuPerRequest(pid, url, seconds, accept) {
  const before = cpuSeconds(pid);
  const out = await new Promise((resolve) => {
    const args = ['-c', '0', 'wrk', '-t1', '-c50', `-d${seconds}s`, ...(accept ? ['-H', `accept: ${accept}`] : []), url];
    const c = spawn('taskset', args);
    let text = '';
    c.stdout.on('data', (d) => {
      text += d;
    });
    c.on('exit', () => resolve(text));
  });
  const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0);
  return ((cpuSeconds(pid) - before) * 1e6) / Math.max(1, requests);
}

/**
 * Start the build's `hub serve` as `variant` on `port` (its metrics port `metricsPort`), pinned to CPU 1, with its data
 * and config in `dir` under `name`, and wait until it is live. `startPolling()` begins the variant's request a second.
 */
export async function startVariantHub({ variant, port, metricsPort, dir, name }) {
  if (!VARIANTS.includes(variant)) throw new Error(`unknown variant ${variant}: one of ${VARIANTS.join(', ')}`);
  const config = { demoMirrorPort: 0 };
  if (variant.startsWith('on')) config.metricsPort = metricsPort;
  if (variant === 'on-log') config.logRequests = true;
  if (variant === 'token') config.metricsToken = 'bench-metrics-token-0123456789';
  const file = path.join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(config));
  const args = ['apps/node-server/dist/cli.js', 'serve', '--port', String(port), '--host', '127.0.0.1', '--data', path.join(dir, name)];
  const child = spawn('taskset', ['-c', '1', process.execPath, ...args, '--config', file], {
    cwd: root,
    stdio: 'ignore',
    env: { ...process.env, HUB_LOG_LEVEL: variant === 'on-log' ? 'info' : 'warn' },
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  for (let i = 0; i < 600; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/-/live`)).ok) break;
    } catch {}
    if (child.exitCode !== null) throw new Error(`the ${variant} hub exited (port ${port} in use?)`);
    await sleep(50);
  }
  const poll = variant.endsWith('-live')
    ? `http://127.0.0.1:${port}/-/live`
    : variant === 'on-scrape' || variant === 'on-log'
      ? `http://127.0.0.1:${metricsPort}/metrics`
      : undefined;
  let timer;
  return {
    pid: child.pid,
    port,
    startPolling() {
      if (poll && !timer)
        timer = setInterval(() => {
          http.get(poll, { agent: false }, (res) => res.resume()).on('error', () => {});
        }, 1000);
    },
    async stop() {
      clearInterval(timer);
      child.kill('SIGTERM');
      await exited;
    },
  };
}
