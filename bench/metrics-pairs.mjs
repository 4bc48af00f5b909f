// What metrics cost (issue 28), in pairs: two hubs alive at once, one of each variant, both pinned to CPU 1, loaded
// in turn by wrk (CPU 0) in ABBA blocks of 1 s runs, so the machine's drift between seconds falls on both alike. Each
// block gives a ratio of CPU per request (B over A); a pair's figure is the median of its blocks, and the result is
// the median over pairs, each pair started anew (identical hub processes differ by a few percent for their whole life).
//
// Variants, as in bench/metrics-processes.mjs:
//   off          metrics off (the default)
//   off-live     metrics off, and one GET /-/live a second on a connection of its own
//   on           `metricsPort` set (prom-client, every request counted, default process metrics), no scrape
//   on-live      `metricsPort` set, one GET /-/live a second
//   on-scrape    `metricsPort` set, one GET /metrics a second on the metrics port (a scrape)
//   on-log       `metricsPort` and `logRequests` set (every answer timed, one log line each, to /dev/null), a scrape a second
//
// Usage: node bench/metrics-pairs.mjs [--pairs 10] [--blocks 6] [--route URL] [--accept TYPE, '' for none] [--routes hot] A B
// Default: off-live against on-scrape on the demo /resolve; `--routes hot` runs the five hot routes of bench/metrics.mjs
// one after the other (`pnpm bench --metrics-pairs` does that). Needs the build (apps/node-server/dist/cli.js) and wrk.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { cpuSeconds } from './proc-cpu.mjs';

const { values, positionals } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== '--'),
  allowPositionals: true,
  options: {
    pairs: { type: 'string', default: '10' },
    blocks: { type: 'string', default: '6' },
    route: { type: 'string' },
    accept: { type: 'string', default: 'application/vnd.docker.distribution.manifest.v2+json' },
    routes: { type: 'string' },
    'metrics-pairs': { type: 'boolean' },
  },
});
const KNOWN = ['off', 'off-live', 'on', 'on-live', 'on-scrape', 'on-log'];
const [A = 'off-live', B = 'on-scrape'] = positionals;
for (const v of [A, B]) if (!KNOWN.includes(v)) throw new Error(`unknown variant ${v}: one of ${KNOWN.join(', ')}`);
const root = path.join(path.dirname(new URL(import.meta.url).pathname), '..');
const data = mkdtempSync(path.join(os.tmpdir(), 'hub-bench-metrics-pairs-'));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** One wrk run of `seconds` on hub `h`: CPU µs per request. */
async function load(h, seconds, route) {
  const before = cpuSeconds(h.pid);
  const out = await new Promise((resolve) => {
    const args = [
      '-c',
      '0',
      'wrk',
      '-t1',
      '-c50',
      `-d${seconds}s`,
      ...(route.accept ? ['-H', `accept: ${route.accept}`] : []),
      `http://127.0.0.1:${h.port}${route.url}`,
    ];
    const c = spawn('taskset', args);
    let text = '';
    c.stdout.on('data', (d) => {
      text += d;
    });
    c.on('exit', () => resolve(text));
  });
  const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0);
  return ((cpuSeconds(h.pid) - before) * 1e6) / Math.max(1, requests);
}

async function start(variant, slot, pair) {
  const port = 19830 + slot * 2;
  const config = { demoMirrorPort: 0 };
  if (variant.startsWith('on')) config.metricsPort = port + 1;
  if (variant === 'on-log') config.logRequests = true;
  const file = path.join(data, `${variant}-${pair}-${slot}.json`);
  writeFileSync(file, JSON.stringify(config));
  const args = ['apps/node-server/dist/cli.js', 'serve', '--port', String(port), '--host', '127.0.0.1'];
  const child = spawn(
    'taskset',
    ['-c', '1', process.execPath, ...args, '--data', path.join(data, `${variant}-${pair}-${slot}`), '--config', file],
    {
      cwd: root,
      stdio: 'ignore',
      env: { ...process.env, HUB_LOG_LEVEL: variant === 'on-log' ? 'info' : 'warn' },
    },
  );
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
      ? `http://127.0.0.1:${port + 1}/metrics`
      : undefined;
  const timer = poll
    ? setInterval(() => {
        http.get(poll, { agent: false }, (res) => res.resume()).on('error', () => {});
      }, 1000)
    : undefined;
  return {
    pid: child.pid,
    port,
    async stop() {
      clearInterval(timer);
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** The five hot routes of bench/metrics.mjs; `{catalog}` is the served catalog, read from the descriptor. */
const HOT = [
  { url: '/demo/tiny-llama-2-GGUF/resolve/main/llama-2-tiny-random-F16.gguf', accept: '' },
  { url: '/api/v1/objects/{catalog}', accept: '' },
  { url: '/api/models?limit=50', accept: '' },
  { url: '/v2/demo/tiny-llama-2-gguf/manifests/latest', accept: 'application/vnd.docker.distribution.manifest.v2+json' },
  { url: '/', accept: 'application/json' },
];
const routes =
  values.routes === 'hot' || (values['metrics-pairs'] && !values.route)
    ? HOT
    : [{ url: values.route ?? HOT[0].url, accept: values.accept }];

/** One route over fresh pairs: each pair's median block ratio (B over A), and every block's. */
async function measure(route) {
  const perPair = [];
  const blocks = [];
  for (let p = 0; p < Number(values.pairs); p++) {
    const a = await start(A, 0, p);
    const b = await start(B, 1, p);
    try {
      if (route.url.includes('{catalog}')) {
        const descriptor = await (await fetch(`http://127.0.0.1:${a.port}/.well-known/model-hub.json`)).json();
        route.url = route.url.replace('{catalog}', descriptor.catalog);
      }
      await load(a, 1, route); // warm-up
      await load(b, 1, route);
      const ratios = [];
      for (let k = 0; k < Number(values.blocks); k++) {
        const order = k % 2 ? [b, a, a, b] : [a, b, b, a];
        const cpu = new Map([
          [a, 0],
          [b, 0],
        ]);
        for (const h of order) cpu.set(h, cpu.get(h) + (await load(h, 1, route)));
        ratios.push(cpu.get(b) / cpu.get(a));
      }
      perPair.push(median(ratios));
      blocks.push(...ratios);
      process.stderr.write(`${route.url}: pair ${p + 1}/${values.pairs}: ${B}/${A} ${median(ratios).toFixed(3)}\n`);
    } finally {
      await a.stop();
      await b.stop();
    }
  }
  return { perPair, blocks };
}

const rows = [];
try {
  for (const route of routes) rows.push({ route, ...(await measure(route)) });
} finally {
  rmSync(data, { recursive: true, force: true });
}
const what = routes === HOT ? '--routes hot' : `--route ${routes[0].url} --accept '${values.accept}'`;
console.log(
  `Command: \`node bench/metrics-pairs.mjs --pairs ${values.pairs} --blocks ${values.blocks} ${what} ${A} ${B}\` (Node ${process.version}; load average at the end ${os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')})\n`,
);
console.log(`| route | ${B} / ${A}, CPU per request: median of ${values.pairs} pairs | median of blocks | each pair, sorted |`);
console.log('| --- | ---: | ---: | --- |');
for (const { route, perPair, blocks } of rows) {
  const sorted = [...perPair].sort((x, y) => x - y);
  const accept = route.accept ? ` (Accept: ${route.accept})` : '';
  console.log(
    `| ${route.url}${accept} | **${median(perPair).toFixed(3)}** | ${median(blocks).toFixed(3)} | ${sorted.map((x) => x.toFixed(3)).join(', ')} |`,
  );
}
if (rows.length > 1) {
  const geo = Math.exp(rows.reduce((sum, r) => sum + Math.log(median(r.perPair)), 0) / rows.length);
  console.log(`| all (geometric mean of the routes' medians) | **${geo.toFixed(3)}** | | |`);
}
process.exit(0);
