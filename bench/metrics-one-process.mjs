// What the metrics sink costs per request with the process held equal (issue 28): two hubs in ONE process, started
// with `startServer` from the build over the bundled demo, one with `metricsPort` and one without, loaded alternately
// by wrk. The figure is the process's CPU time per request (user + system from /proc/PID/stat) during each hub's run.
// Both hubs share the process-wide parts (prom-client's GC observer and event-loop timer, the heap, the compiled
// code), so the ratio is the work requests and scrapes cost, without the spread between separate processes that
// bench/metrics.mjs has to average over.
// Usage: node bench/metrics-one-process.mjs [--rounds 12] [--duration 3] [--route /api/models?limit=50] [--no-scrape]
//   --no-scrape: no scraper (by default /metrics is read once a second during the metrics hub's runs)
//   (needs the build: apps/node-server/dist/index.js; `pnpm bench` builds first)
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { cpuSeconds } from './proc-cpu.mjs';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '12' },
    duration: { type: 'string', default: '3' },
    route: { type: 'string', default: '/api/models?limit=50' },
    'no-scrape': { type: 'boolean' },
    child: { type: 'string' },
  },
  args: process.argv.slice(2).filter((a) => a !== '--'),
  strict: false,
});
const root = path.join(path.dirname(new URL(import.meta.url).pathname), '..');
const ON = 18771;
const METRICS = 18773;
const OFF = 18775;

if (values.child) {
  // The server process: both hubs, each over its own copy of the demo.
  process.on('SIGTERM', () => process.exit(0));
  const { startServer } = await import(path.join(root, 'apps/node-server/dist/index.js'));
  const dir = values.child;
  await startServer({
    port: ON,
    host: '127.0.0.1',
    dataDir: path.join(dir, 'on'),
    config: { demoMirrorPort: 0, logLevel: 'warn', metricsPort: METRICS },
  });
  await startServer({ port: OFF, host: '127.0.0.1', dataDir: path.join(dir, 'off'), config: { demoMirrorPort: 0, logLevel: 'warn' } });
} else {
  const ROUNDS = Number(values.rounds);
  const DURATION = Number(values.duration);
  const SCRAPE = values['no-scrape'] !== true;
  const PIN = os.cpus().length >= 2;
  const pinned = (cpu, cmd, args) => (PIN ? ['taskset', ['-c', String(cpu), cmd, ...args]] : [cmd, args]);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hub-bench-metrics-one-'));
  const child = spawn(...pinned(1, process.execPath, [new URL(import.meta.url).pathname, '--child', dir]), {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  try {
    const waitFor = async (url) => {
      for (let i = 0; i < 2400; i++) {
        try {
          if ((await fetch(url)).ok) return;
        } catch {}
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`no answer from ${url}`);
    };
    await waitFor(`http://127.0.0.1:${ON}/-/live`);
    await waitFor(`http://127.0.0.1:${OFF}/-/live`);
    const processCpu = () => cpuSeconds(child.pid);
    const wrk = async (port, seconds) => {
      const { stdout } = await promisify(execFile)(
        ...pinned(0, 'wrk', ['-t1', '-c50', `-d${seconds}s`, `http://127.0.0.1:${port}${values.route}`]),
        { encoding: 'utf8' },
      );
      return Number(/(\d+) requests in/.exec(stdout)?.[1] ?? 0);
    };
    let scraping = false;
    const scraper = setInterval(() => {
      if (scraping) http.get(`http://127.0.0.1:${METRICS}/metrics`, { agent: false }, (r) => r.resume()).on('error', () => {});
    }, 1000);
    await wrk(ON, 3);
    await wrk(OFF, 3);
    const cpu = { on: [], off: [] };
    for (let r = 0; r < ROUNDS; r++) {
      for (const kind of r % 2 ? ['on', 'off'] : ['off', 'on']) {
        scraping = SCRAPE && kind === 'on';
        const before = processCpu();
        const requests = await wrk(kind === 'on' ? ON : OFF, DURATION);
        cpu[kind].push(((processCpu() - before) * 1e6) / Math.max(1, requests));
        scraping = false;
      }
    }
    clearInterval(scraper);
    const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const ratios = cpu.on.map((x, i) => x / cpu.off[i]);
    console.log(
      `Command: \`node bench/metrics-one-process.mjs ${process.argv.slice(2).join(' ')}\` (${ROUNDS} pairs of wrk -t1 -c50 -d${DURATION}s, alternating; scraper ${SCRAPE ? 'once a second on the metrics hub' : 'off'}; Node ${process.version}; load average at the end ${os
        .loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')})`,
    );
    console.log(
      `${values.route}: CPU per request off ${median(cpu.off).toFixed(2)} µs, on ${median(cpu.on).toFixed(2)} µs; on / off median of pairs ${median(ratios).toFixed(3)}, per pair ${Math.min(...ratios).toFixed(3)}–${Math.max(...ratios).toFixed(3)}`,
    );
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 300));
    rmSync(dir, { recursive: true, force: true });
  }
  process.exit(0);
}
