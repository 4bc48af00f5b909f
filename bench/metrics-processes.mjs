// What metrics cost between processes (issue 28), one route at a time: many hubs started anew, one after the other,
// each loaded alone (wrk, after a warm-up run) while its CPU time per request is read from /proc. Two identical hub
// processes differ by up to 20 % (JIT decisions), so a variant is the median of N processes, and the variants are
// started in alternating order.
//
// Variants (any of them, in the order given):
//   off          metrics off (the default)
//   off-live     metrics off, and one GET /-/live a second on a connection of its own while loaded
//   on           `metricsPort` set (prom-client, every request counted and timed, default process metrics), no scrape
//   on-live      `metricsPort` set, one GET /-/live a second
//   on-scrape    `metricsPort` set, one GET /metrics a second on the metrics port (what bench/metrics.mjs does)
//   token        `metricsToken` set instead (metrics on, no second port), no scrape
//
// Usage: node bench/metrics-processes.mjs [--processes 10] [--duration 2] [--route URL] [--accept TYPE] VARIANT...
// Default route: the demo /resolve 302. Needs the build (apps/node-server/dist/cli.js) and wrk. Servers on CPU 1, wrk
// on CPU 0.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { cpuSeconds as cpu } from './proc-cpu.mjs';

const { values, positionals } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== '--'),
  allowPositionals: true,
  options: {
    processes: { type: 'string', default: '10' },
    duration: { type: 'string', default: '2' },
    route: { type: 'string', default: '/demo/tiny-llama-2-GGUF/resolve/main/llama-2-tiny-random-F16.gguf' },
    accept: { type: 'string', default: 'application/vnd.docker.distribution.manifest.v2+json' },
  },
});
const KNOWN = ['off', 'off-live', 'on', 'on-live', 'on-scrape', 'token'];
const variants = positionals.length ? positionals : ['off', 'on-scrape'];
for (const v of variants) if (!KNOWN.includes(v)) throw new Error(`unknown variant ${v}: one of ${KNOWN.join(', ')}`);
const root = path.join(path.dirname(new URL(import.meta.url).pathname), '..');
const PORT = 19810;
const METRICS_PORT = 19811;
const N = Number(values.processes);
const data = mkdtempSync(path.join(os.tmpdir(), 'hub-bench-metrics-processes-'));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** One wrk run (async, so this process's timer can send its request a second meanwhile): CPU µs per request. */
async function load(pid, seconds) {
  const before = cpu(pid);
  const out = await new Promise((resolve) => {
    const args = [
      '-c',
      '0',
      'wrk',
      '-t1',
      '-c50',
      `-d${seconds}s`,
      '-H',
      `accept: ${values.accept}`,
      `http://127.0.0.1:${PORT}${values.route}`,
    ];
    const c = spawn('taskset', args);
    let text = '';
    c.stdout.on('data', (d) => {
      text += d;
    });
    c.on('exit', () => resolve(text));
  });
  const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0);
  return ((cpu(pid) - before) * 1e6) / Math.max(1, requests);
}

async function one(variant) {
  const config = { demoMirrorPort: 0 };
  if (variant.startsWith('on')) config.metricsPort = METRICS_PORT;
  if (variant === 'token') config.metricsToken = 'bench-metrics-token-0123456789';
  const file = path.join(data, `${variant}.json`);
  writeFileSync(file, JSON.stringify(config));
  const args = ['apps/node-server/dist/cli.js', 'serve', '--port', String(PORT), '--data', path.join(data, variant), '--host', '127.0.0.1'];
  const child = spawn('taskset', ['-c', '1', process.execPath, ...args, '--config', file], {
    cwd: root,
    stdio: 'ignore',
    env: { ...process.env, HUB_LOG_LEVEL: 'warn' },
  });
  for (let i = 0; i < 600; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${PORT}/-/live`)).ok) break;
    } catch {}
    await sleep(50);
  }
  const poll = variant.endsWith('-live')
    ? `http://127.0.0.1:${PORT}/-/live`
    : variant === 'on-scrape'
      ? `http://127.0.0.1:${METRICS_PORT}/metrics`
      : undefined;
  await load(child.pid, 1); // warm-up
  const timer = poll
    ? setInterval(() => {
        http.get(poll, { agent: false }, (res) => res.resume()).on('error', () => {});
      }, 1000)
    : undefined;
  const a = await load(child.pid, Number(values.duration));
  const b = await load(child.pid, Number(values.duration));
  clearInterval(timer);
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
  return (a + b) / 2;
}

const results = Object.fromEntries(variants.map((v) => [v, []]));
try {
  for (let r = 0; r < N; r++) {
    for (const v of r % 2 ? [...variants].reverse() : variants) results[v].push(await one(v));
    process.stderr.write(`process ${r + 1}/${N} of each variant done\n`);
  }
} finally {
  rmSync(data, { recursive: true, force: true });
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const first = median(results[variants[0]]);
console.log(
  `Command: \`node bench/metrics-processes.mjs --processes ${N} --duration ${values.duration} --route ${values.route} ${variants.join(' ')}\` (Node ${process.version}; load average at the end ${os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')})\n`,
);
console.log(`| variant | CPU µs per request, median of ${N} processes | against ${variants[0]} | each process, sorted |`);
console.log('| --- | ---: | ---: | --- |');
for (const v of variants) {
  const sorted = [...results[v]].sort((a, b) => a - b);
  console.log(
    `| ${v} | ${median(sorted).toFixed(2)} | ${(median(sorted) / first).toFixed(3)} | ${sorted.map((x) => x.toFixed(1)).join(', ')} |`,
  );
}
process.exit(0);
