// Where the hub / bare gap goes (issue 31): the real hub (`startServer` from the build) and a bare `node:http`
// listener that replays the hub's own bytes for the same URL, on two ports of ONE process, loaded alternately in pairs
// of wrk runs. The process's CPU time per request during each listener's runs separates the hub's request path (the
// gate, the kept-answer lookup, the write) from whatever makes a hub process slower than a bare process.
// Usage: node bench/bare-in-process.mjs [--data DIR --config FILE] [--route URL] [--accept TYPE] [--rounds 5] [--duration 2]
// Default: a fresh demo data folder and the demo manifest. Run after the build; needs wrk. The server side runs in a
// child process pinned to CPU 1, wrk on CPU 0.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { cpuSeconds } from './proc-cpu.mjs';

const root = path.join(path.dirname(new URL(import.meta.url).pathname), '..');
const { values } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== '--'),
  options: {
    data: { type: 'string' },
    config: { type: 'string' },
    route: { type: 'string', default: '/v2/demo/tiny-llama-2-gguf/manifests/latest' },
    accept: { type: 'string', default: 'application/vnd.docker.distribution.manifest.v2+json' },
    rounds: { type: 'string', default: '5' },
    duration: { type: 'string', default: '2' },
    serve: { type: 'boolean' },
  },
});
const HUB_PORT = 19700;
const BARE_PORT = 19701;

if (values.serve) {
  // The child: both listeners in this one process.
  const { startServer } = await import(path.join(root, 'apps/node-server/dist/index.js'));
  const config = values.config ? JSON.parse(readFileSync(values.config, 'utf8')) : {};
  await startServer({
    dataDir: values.data,
    port: HUB_PORT,
    host: '127.0.0.1',
    config: { ...config, logLevel: 'warn' },
    demoMirror: false,
  });
  const res = await fetch(`http://127.0.0.1:${HUB_PORT}${values.route}`, { headers: { accept: values.accept }, redirect: 'manual' });
  const headers = {};
  res.headers.forEach((v, k) => {
    if (!['date', 'connection', 'keep-alive', 'transfer-encoding'].includes(k)) headers[k] = v;
  });
  const answer = { status: res.status, headers, body: Buffer.from(await res.arrayBuffer()) };
  const bare = http.createServer((req, out) => {
    if (req.url !== values.route) {
      out.writeHead(404);
      return out.end();
    }
    out.writeHead(answer.status, answer.headers);
    out.end(answer.body);
  });
  bare.keepAliveTimeout = 65_000;
  bare.listen(BARE_PORT, '127.0.0.1', () => process.stdout.write(`ready ${res.status}\n`));
} else {
  const scratch = values.data ? undefined : mkdtempSync(path.join(os.tmpdir(), 'hub-bare-in-process-'));
  const args = [
    new URL(import.meta.url).pathname,
    '--serve',
    '--data',
    values.data ?? scratch,
    '--route',
    values.route,
    '--accept',
    values.accept,
  ];
  if (values.config) args.push('--config', values.config);
  const child = spawn('taskset', ['-c', '1', process.execPath, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, HUB_LOG_LEVEL: 'warn' },
  });
  await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      if (/ready/.test(out)) resolve();
    });
    child.on('exit', (code) => reject(new Error(`the server process exited ${code}`)));
  });
  const cpu = () => cpuSeconds(child.pid);
  const load = (port, seconds) => {
    const before = cpu();
    const out = execFileSync(
      'taskset',
      ['-c', '0', 'wrk', '-t1', '-c50', `-d${seconds}s`, '-H', `accept: ${values.accept}`, `http://127.0.0.1:${port}${values.route}`],
      {
        encoding: 'utf8',
      },
    );
    const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0);
    return { rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0), cpuUs: ((cpu() - before) * 1e6) / Math.max(1, requests) };
  };
  load(HUB_PORT, 1);
  load(BARE_PORT, 1);
  const pairs = [];
  for (let r = 0; r < Number(values.rounds); r++) {
    const order = r % 2 ? [BARE_PORT, HUB_PORT] : [HUB_PORT, BARE_PORT];
    const got = {};
    for (const port of order) got[port] = load(port, values.duration);
    pairs.push({ hub: got[HUB_PORT], bare: got[BARE_PORT] });
    console.error(
      `pair ${r + 1}: hub ${got[HUB_PORT].cpuUs.toFixed(1)} µs, bare listener ${got[BARE_PORT].cpuUs.toFixed(1)} µs per request`,
    );
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const ratios = pairs.map((p) => p.bare.cpuUs / p.hub.cpuUs);
  console.log(
    `${values.route}: one process, CPU per request: hub listener ${median(pairs.map((p) => p.hub.cpuUs)).toFixed(1)} µs, bare listener ${median(pairs.map((p) => p.bare.cpuUs)).toFixed(1)} µs; bare / hub ${median(ratios).toFixed(2)} (per pair ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}); ${pairs.length} pairs; load ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}`,
  );
  child.kill('SIGTERM');
  if (scratch) rmSync(scratch, { recursive: true, force: true });
}
