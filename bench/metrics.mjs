// pnpm bench --metrics: what metrics cost (issue 28). The same node-server build twice over the same data folder,
// side by side: two with metrics off (the default), two with `metricsPort` (prom-client, every request counted and
// timed) and a scraper reading the loaded one's /metrics once a second (Prometheus's default is every 15 s). wrk on loopback
// over the hot routes, the two hubs in alternating rounds; per route the median of each and the ratio on / off, with
// the spread of the per-round ratios.
// Usage: node bench/metrics.mjs [--duration 5] [--rounds 5] [--connections 50] [--control]
//   --control: the noise floor of this comparison: the "on" hub is a second metrics-off hub (no scraper), so the ratios
//   say how far two identical processes differ on this machine in this run.
//   (needs the build: apps/node-server/dist/cli.js; `pnpm bench` builds first)
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs, promisify } from 'node:util';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '50' },
    metrics: { type: 'boolean' },
    control: { type: 'boolean' },
  },
  args: process.argv.slice(2).filter((a) => a !== '--'),
  strict: false,
});
const root = path.join(path.dirname(new URL(import.meta.url).pathname), '..');
const DURATION = Number(values.duration);
const ROUNDS = Number(values.rounds);
const CONNECTIONS = Number(values.connections);
// Two hubs of each kind, started and loaded in the order off, on, on, off (then reversed): two identical processes
// can differ by 10-20 % on this kind of machine (the --control run shows it), so one of each would measure the
// processes as much as the metrics.
const OFF = 18671;
const ON = 18673;
const ON2 = 18677;
const OFF2 = 18679;
const METRICS = 18675;
const METRICS2 = 18681;
const CONTROL = values.control === true;

// Servers on CPU 1, wrk on CPU 0, as bench/run.mjs does.
const PIN = os.cpus().length >= 2;
const pinned = (cpu, cmd, args) => (PIN ? ['taskset', ['-c', String(cpu), cmd, ...args]] : [cmd, args]);

const data = mkdtempSync(path.join(os.tmpdir(), 'hub-bench-metrics-'));
const children = [];
function serve(port, config) {
  const file = path.join(data, `config-${port}.json`);
  writeFileSync(file, JSON.stringify(config));
  const [cmd, args] = pinned(1, process.execPath, [
    'apps/node-server/dist/cli.js',
    'serve',
    '--port',
    String(port),
    '--data',
    path.join(data, String(port)),
    '--host',
    '127.0.0.1',
    '--config',
    file,
  ]);
  const child = spawn(cmd, args, { cwd: root, env: { ...process.env, HUB_LOG_LEVEL: 'warn' }, stdio: ['ignore', 'ignore', 'inherit'] });
  children.push(child);
  return child;
}

async function waitFor(url) {
  for (let i = 0; i < 2400; i++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no answer from ${url}`);
}

/** wrk without blocking this process, so the scraper's timer runs during the load. */
async function wrk(url, headers = {}) {
  const args = ['-t1', `-c${CONNECTIONS}`, `-d${DURATION}s`];
  for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}: ${v}`);
  const { stdout } = await promisify(execFile)(...pinned(0, 'wrk', [...args, url]), { encoding: 'utf8' });
  return { rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1] ?? 0), requests: Number(/(\d+) requests in/.exec(stdout)?.[1] ?? 0) };
}

/** CPU seconds (user + system) a process has used, from /proc (clock ticks of 10 ms). */
function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** One run against a hub: its requests per second and the hub's CPU time per request (µs). */
async function measure(pid, url, headers) {
  const before = cpuSeconds(pid);
  const { rps, requests } = await wrk(url, headers);
  return { rps, cpuUs: ((cpuSeconds(pid) - before) * 1e6) / Math.max(1, requests) };
}

/** One scrape on a connection of its own (as Prometheus's own client may; no pooled socket the listener closed). */
function scrape(port = METRICS) {
  return new Promise((resolve, reject) => {
    http
      .get(`http://127.0.0.1:${port}/metrics`, { agent: false }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => {
          text += d;
        });
        res.on('end', () => resolve(text));
      })
      .on('error', reject);
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** The sink's own cost: the same hub answering in process with metrics off and with prom-client, alternating. */
async function handleCost() {
  const { createHub } = await import('../packages/core-index/dist/index.js');
  const { createTestHub } = await import('../packages/core-index/dist/testing/index.js');
  const { hubRoutes } = await import('../packages/hub/dist/index.js');
  const { promMetrics } = await import('../apps/node-server/dist/index.js');
  const t = await createTestHub();
  const off = createHub(t.deps, hubRoutes());
  const on = createHub({ ...t.deps, metrics: promMetrics() }, hubRoutes());
  const req = {
    method: 'GET',
    url: 'http://hub.test/synthetic-org/bert-ish/resolve/main/config.json',
    headers: { get: () => null },
    body: null,
  };
  const calls = 2_000;
  const time = async (hub) => {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < calls; i++) await hub.handle(req);
    return Number(process.hrtime.bigint() - t0) / calls;
  };
  await time(off);
  await time(on);
  const offs = [];
  const ons = [];
  const rounds = 201;
  for (let r = 0; r < rounds; r++) {
    if (r % 2) {
      ons.push(await time(on));
      offs.push(await time(off));
    } else {
      offs.push(await time(off));
      ons.push(await time(on));
    }
  }
  const ratios = offs.map((o, i) => o / ons[i]);
  return {
    calls,
    rounds,
    off: median(offs),
    on: median(ons),
    ratio: median(ratios),
    spread: `${[...ratios].sort((a, b) => a - b)[Math.floor(rounds / 4)].toFixed(3)}–${[...ratios].sort((a, b) => a - b)[Math.floor((3 * rounds) / 4)].toFixed(3)}`,
  };
}

try {
  // Each hub seeds the bundled demo into its own folder (the same bytes, the same catalog); demo mirrors on free ports.
  const hubs = [
    { kind: 'off', port: OFF },
    { kind: 'on', port: ON, metricsPort: METRICS },
    { kind: 'on', port: ON2, metricsPort: METRICS2 },
    { kind: 'off', port: OFF2 },
  ];
  for (const h of hubs) {
    const metrics = h.kind === 'on' && !CONTROL;
    h.child = serve(h.port, metrics ? { demoMirrorPort: 0, metricsPort: h.metricsPort } : { demoMirrorPort: 0 });
    if (!metrics) h.metricsPort = undefined;
  }
  for (const h of hubs) {
    await waitFor(`http://127.0.0.1:${h.port}/-/live`);
    if (h.metricsPort) await waitFor(`http://127.0.0.1:${h.metricsPort}/metrics`);
  }

  const descriptor = await (await fetch(`http://127.0.0.1:${OFF}/.well-known/model-hub.json`)).json();
  const cases = [
    { name: 'GET /{id}/resolve/main/{gguf} (302)', url: '/demo/tiny-llama-2-GGUF/resolve/main/llama-2-tiny-random-F16.gguf' },
    { name: 'GET /api/v1/objects/{catalog}', url: `/api/v1/objects/${descriptor.catalog}` },
    { name: 'GET /api/models?limit=50', url: '/api/models?limit=50' },
    {
      name: 'GET /v2/{id}/manifests/latest',
      url: '/v2/demo/tiny-llama-2-gguf/manifests/latest',
      headers: { accept: 'application/vnd.docker.distribution.manifest.v2+json' },
    },
    { name: 'GET / (Accept: application/json)', url: '/', headers: { accept: 'application/json' } },
  ];

  // The scraper: one GET /metrics a second from the metrics-on hub under load.
  let scrapes = 0;
  let scraping;
  const scraper = setInterval(() => {
    if (!scraping) return;
    scrape(scraping)
      .then(() => scrapes++)
      .catch(() => {});
  }, 1000);

  const rows = [];
  for (const c of cases) {
    const off = [];
    const on = [];
    const offCpu = [];
    const onCpu = [];
    const url = (port) => `http://127.0.0.1:${port}${c.url}`;
    for (const h of hubs) await wrk(url(h.port), c.headers);
    for (let r = 0; r < ROUNDS; r++) {
      const order = r % 2 ? [...hubs].reverse() : hubs;
      const round = { off: [], on: [], offCpu: [], onCpu: [] };
      for (const h of order) {
        scraping = h.metricsPort;
        const m = await measure(h.child.pid, url(h.port), c.headers);
        scraping = undefined;
        round[h.kind].push(m.rps);
        round[`${h.kind}Cpu`].push(m.cpuUs);
      }
      const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
      off.push(mean(round.off));
      on.push(mean(round.on));
      offCpu.push(mean(round.offCpu));
      onCpu.push(mean(round.onCpu));
    }
    const ratios = on.map((x, i) => x / (off[i] ?? Number.NaN));
    const cpuRatios = offCpu.map((x, i) => x / (onCpu[i] ?? Number.NaN));
    rows.push({ name: c.name, off: median(off), on: median(on), ratios, offCpu: median(offCpu), onCpu: median(onCpu), cpuRatios });
    console.error(`${c.name}: off ${median(off).toFixed(0)}/s, on ${median(on).toFixed(0)}/s`);
  }
  clearInterval(scraper);

  const exposition = CONTROL ? '' : (await scrape(METRICS)) + (await scrape(METRICS2));
  const counted = exposition
    .split('\n')
    .filter((l) => l.startsWith('hub_requests_total{'))
    .reduce((n, l) => n + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
  const inProcess = await handleCost();
  const lines = [
    `Command: \`pnpm bench -- --metrics\` (node bench/metrics.mjs after the build: wrk -t1 -c${CONNECTIONS} -d${DURATION}s per run; two hubs of each kind loaded in the order off, on, on, off and reversed in the next round, ${ROUNDS} rounds, each round's figure the mean of a kind's two hubs, medians of the rounds; servers${PIN ? ' pinned to CPU 1, wrk to CPU 0' : ''}; Node ${process.version}; ${os.cpus().length} cores; load average at the end ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')})`,
    '',
    '| route | off req/s | on req/s | on / off req/s (medians) | per round, min–max | off CPU µs/req | on CPU µs/req | off / on CPU per req (median of rounds) | per round, min–max |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows.map(
      (r) =>
        `| ${r.name} | ${r.off.toFixed(0)} | ${r.on.toFixed(0)} | ${(r.on / r.off).toFixed(3)} | ${Math.min(...r.ratios).toFixed(2)}–${Math.max(...r.ratios).toFixed(2)} | ${r.offCpu.toFixed(1)} | ${r.onCpu.toFixed(1)} | ${median(r.cpuRatios).toFixed(3)} | ${Math.min(...r.cpuRatios).toFixed(2)}–${Math.max(...r.cpuRatios).toFixed(2)} |`,
    ),
    '',
    CONTROL
      ? 'CONTROL RUN: both hubs had metrics off ("on" is a second identical process): the ratios are this run\'s noise floor.'
      : `The two metrics-on hubs counted ${counted} requests in hub_requests_total; /metrics was scraped ${scrapes} times during its rounds.`,
    '',
    `In process (no sockets: \`hub.handle\` of the /resolve 302 over SYNTHETIC models, ${inProcess.calls} calls per round, ${inProcess.rounds} alternating rounds): metrics off ${inProcess.off.toFixed(0)} ns per request, on (prom-client sink) ${inProcess.on.toFixed(0)} ns; median of the per-pair ratios (requests per second on / off) ${inProcess.ratio.toFixed(3)}, interquartile ${inProcess.spread}.`,
  ];
  console.log(lines.join('\n'));
} finally {
  for (const c of children) c.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 300));
  rmSync(data, { recursive: true, force: true });
}
process.exit(0);
