// pnpm bench --metrics: what metrics cost (issue 28). The same node-server build over the same data, side by side:
// hubs with metrics off (the default) and hubs with `metricsPort` (prom-client, every request counted and timed, the
// default process metrics on) with a scraper reading the loaded one's /metrics once a second (Prometheus's default is
// every 15 s). wrk on loopback over the hot routes, the hubs loaded in alternating order.
//
// The primary figure is the hub process's CPU time per request (user + system from /proc/PID/stat over each run,
// divided by the requests wrk completed): on a shared 2-core machine req/s follows whatever else runs, CPU per request
// far less. Per route: the median of the rounds' on / off ratios and their spread; req/s beside it.
//
// The same traffic on both kinds: while a metrics-off hub is loaded, the scraper sends it one `GET /-/live` a second on
// a connection of its own, as it sends the metrics-on hub one `GET /metrics` on its metrics port. wrk alone is one
// kind of request on kept connections, and Node's HTTP code is optimised for exactly that; the first request of any
// other kind (a scrape, a liveness probe, a connection that closes) deoptimises about 15-30 of its functions, which
// then run polymorphic: 3-5 % more CPU per request for a liveness probe a second on a metrics-off hub (docs/benchmarks.md,
// 2026-11-28). `--unequal` leaves the metrics-off hubs with wrk alone (the comparison before 2026-11-28).
//
// Usage: node bench/metrics.mjs [--duration 5] [--rounds 5] [--connections 50] [--hubs 2] [--fresh] [--control] [--unequal]
//   --hubs N: hubs of each kind (loaded off, on, on, off, ... and reversed in the next round; a round's figure is the
//     mean of a kind's hubs): two identical processes can differ by 10-20 % (JIT decisions), so one of each would
//     measure the processes as much as the metrics.
//   --fresh: start every hub anew at each round (same data folders), so the rounds also sample that process spread.
//   --control: the noise floor of this comparison: the "on" hubs have metrics off too (no scraper), so the ratios say
//     how far identical processes differ on this machine in this run.
//   (needs the build: apps/node-server/dist/cli.js; `pnpm bench` builds first)
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { cpuSeconds } from './proc-cpu.mjs';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '50' },
    metrics: { type: 'boolean' },
    control: { type: 'boolean' },
    hubs: { type: 'string', default: '2' },
    fresh: { type: 'boolean' },
    unequal: { type: 'boolean' },
  },
  args: process.argv.slice(2).filter((a) => a !== '--'),
  strict: false,
});
const root = path.join(path.dirname(new URL(import.meta.url).pathname), '..');
const DURATION = Number(values.duration);
const ROUNDS = Number(values.rounds);
const CONNECTIONS = Number(values.connections);
const HUBS = Math.max(1, Number(values.hubs));
const FRESH = values.fresh === true;
const CONTROL = values.control === true;
const UNEQUAL = values.unequal === true;
// Ports: hub i at BASE + 4i, its demo mirror on a free port, its metrics listener at BASE + 4i + 2.
const BASE = 18671;

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

/** One run against a hub: its requests per second and the hub's CPU time per request (µs). */
async function measure(pid, url, headers) {
  const before = cpuSeconds(pid);
  const { rps, requests } = await wrk(url, headers);
  return { rps, cpuUs: ((cpuSeconds(pid) - before) * 1e6) / Math.max(1, requests) };
}

/** One GET on a connection of its own (as Prometheus's own client may; no pooled socket the listener closed). */
function scrape(port, path = '/metrics') {
  return new Promise((resolve, reject) => {
    http
      .get(`http://127.0.0.1:${port}${path}`, { agent: false }, (res) => {
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

const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
const spread = (xs) => `${Math.min(...xs).toFixed(3)}–${Math.max(...xs).toFixed(3)}`;

/** Start (or restart) every hub and wait until each answers. */
async function startAll(hubs) {
  for (const h of hubs) {
    const metrics = h.kind === 'on' && !CONTROL;
    h.child = serve(h.port, metrics ? { demoMirrorPort: 0, metricsPort: h.metricsPort } : { demoMirrorPort: 0 });
    h.scrapeAt = metrics ? h.metricsPort : undefined;
    // what the scraper sends this hub once a second while it is loaded: its metrics, else its liveness
    h.poll = metrics ? { port: h.metricsPort, path: '/metrics' } : UNEQUAL ? undefined : { port: h.port, path: '/-/live' };
  }
  for (const h of hubs) {
    await waitFor(`http://127.0.0.1:${h.port}/-/live`);
    if (h.scrapeAt) await waitFor(`http://127.0.0.1:${h.scrapeAt}/metrics`);
  }
}

async function stopAll(hubs) {
  await Promise.all(
    hubs.map(
      (h) =>
        new Promise((resolve) => {
          if (h.child.exitCode !== null) return resolve();
          h.child.once('exit', resolve);
          h.child.kill('SIGTERM');
        }),
    ),
  );
}

/** What each metrics-on hub counted in hub_requests_total, read before it stops. */
async function counted(hubs) {
  let n = 0;
  for (const h of hubs) {
    if (!h.scrapeAt) continue;
    const text = await scrape(h.scrapeAt);
    n += text
      .split('\n')
      .filter((l) => l.startsWith('hub_requests_total{'))
      .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
  }
  return n;
}

try {
  // Each hub seeds the bundled demo into its own folder (the same bytes, the same catalog); demo mirrors on free ports.
  // Kinds in the order off, on, on, off, off, on, ... so neither kind is always loaded first.
  const hubs = Array.from({ length: 2 * HUBS }, (_, i) => ({
    kind: [0, 3].includes(i % 4) ? 'off' : 'on',
    port: BASE + 4 * i,
    metricsPort: BASE + 4 * i + 2,
  }));
  await startAll(hubs);

  const descriptor = await (await fetch(`http://127.0.0.1:${hubs[0].port}/.well-known/model-hub.json`)).json();
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

  // The scraper: one GET /metrics a second from the metrics-on hub under load, one GET /-/live from a metrics-off one.
  let scrapes = 0;
  let polls = 0;
  let scraping;
  const scraper = setInterval(() => {
    if (!scraping) return;
    const metrics = scraping.path === '/metrics';
    scrape(scraping.port, scraping.path)
      .then(() => (metrics ? scrapes++ : polls++))
      .catch(() => {});
  }, 1000);

  // Per route and round: each kind's mean req/s and CPU µs per request.
  const results = cases.map(() => ({ off: [], on: [], offCpu: [], onCpu: [] }));
  let total = 0;
  for (let r = 0; r < ROUNDS; r++) {
    if (FRESH && r > 0) {
      total += await counted(hubs);
      await stopAll(hubs);
      await startAll(hubs);
    }
    for (const [i, c] of cases.entries()) {
      const url = (port) => `http://127.0.0.1:${port}${c.url}`;
      // warm-up: the route's answer kept and its code compiled in every hub
      if (r === 0 || FRESH) for (const h of hubs) await wrk(url(h.port), c.headers);
      const order = (r + i) % 2 ? [...hubs].reverse() : hubs;
      const round = { off: [], on: [], offCpu: [], onCpu: [] };
      for (const h of order) {
        scraping = h.poll;
        const m = await measure(h.child.pid, url(h.port), c.headers);
        scraping = undefined;
        round[h.kind].push(m.rps);
        round[`${h.kind}Cpu`].push(m.cpuUs);
      }
      for (const k of Object.keys(round)) results[i][k].push(mean(round[k]));
    }
    console.error(`round ${r + 1}/${ROUNDS} done (load ${os.loadavg()[0].toFixed(1)})`);
  }
  clearInterval(scraper);
  total += await counted(hubs);

  const rows = cases.map((c, i) => {
    const x = results[i];
    return {
      name: c.name,
      offCpu: median(x.offCpu),
      onCpu: median(x.onCpu),
      cpuRatios: x.onCpu.map((v, j) => v / x.offCpu[j]),
      off: median(x.off),
      on: median(x.on),
      ratios: x.on.map((v, j) => v / x.off[j]),
    };
  });
  // All routes at once: per round, the geometric mean of the routes' CPU ratios.
  const overall = Array.from({ length: ROUNDS }, (_, j) => Math.exp(mean(rows.map((row) => Math.log(row.cpuRatios[j])))));
  const inProcess = await handleCost();
  const load = os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
  const lines = [
    `Command: \`node bench/metrics.mjs${process.argv.slice(2).length ? ` ${process.argv.slice(2).join(' ')}` : ''}\` (after the build; wrk -t1 -c${CONNECTIONS} -d${DURATION}s per run; ${HUBS} hub(s) of each kind loaded in alternating order, ${ROUNDS} rounds${FRESH ? ', every hub started anew at each round' : ''}, each round's figure the mean of a kind's hubs; servers${PIN ? ' pinned to CPU 1, wrk to CPU 0' : ''}; Node ${process.version}; ${os.cpus().length} cores; load average at the end ${load})`,
    '',
    '| route | off CPU µs/req | on CPU µs/req | on / off CPU per request (median of rounds) | per round, min–max | off req/s | on req/s | on / off req/s (median of rounds) | per round, min–max |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows.map(
      (r) =>
        `| ${r.name} | ${r.offCpu.toFixed(1)} | ${r.onCpu.toFixed(1)} | ${median(r.cpuRatios).toFixed(3)} | ${spread(r.cpuRatios)} | ${r.off.toFixed(0)} | ${r.on.toFixed(0)} | ${median(r.ratios).toFixed(3)} | ${spread(r.ratios)} |`,
    ),
    `| all five (geometric mean per round) | | | ${median(overall).toFixed(3)} | ${spread(overall)} | | | | |`,
    '',
    CONTROL
      ? 'CONTROL RUN: every hub had metrics off (the "on" hubs are more identical processes): the ratios are this run\'s noise floor.'
      : `The metrics-on hubs counted ${total} requests in hub_requests_total; /metrics was scraped ${scrapes} times during their runs${UNEQUAL ? ', and the metrics-off hubs had wrk alone (--unequal)' : `, and the metrics-off hubs were sent GET /-/live ${polls} times during theirs`}.`,
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
