// pnpm bench: requests/s of hub routes against baselines answering the same bytes, in one run.
// Each server runs in its own process; the load comes from wrk (Debian package `wrk`) on loopback.
// Usage: node bench/run.mjs [--duration 5] [--connections 50] [--rounds 3] [--only substring] [--models N] [--keep DIR]
// --models N serves a SYNTHETIC index of N generated models (built with `hub index build --from-dir`) instead of
// the bundled demo index. --keep DIR keeps that tree and index in DIR (outside the repository) and reuses them on
// the next run with the same N, so a 100,000-model index is built once; --tree-only writes the tree and stops (so a
// tree can be made ahead while the machine is busy), and a later run on a kept tree with no index builds it and times
// that build. --rebuild drops a kept index (never the tree) and builds it again. A literal `--` (pnpm 10 passes it
// on from `pnpm bench -- --duration 4`) is skipped. --data DIR [--config FILE] serves a data folder built elsewhere as
// it is (e.g. bench/scale.mjs's SYNTHETIC 1,000,000 models), its GGUF model found through the API. New flags: add
// them to FLAGS below.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { cpuSeconds as procCpuSeconds } from './proc-cpu.mjs';
import { fromDirBuildArgs, SYNTHETIC_SOURCE_TEMPLATE, writeSyntheticTree } from './synthetic-tree.mjs';

const FLAGS = {
  duration: { type: 'string', default: '5' },
  rounds: { type: 'string', default: '3' },
  connections: { type: 'string', default: '50' },
  only: { type: 'string' },
  models: { type: 'string' },
  keep: { type: 'string' },
  'tree-only': { type: 'boolean' },
  rebuild: { type: 'boolean' },
  client: { type: 'boolean' },
  edge: { type: 'boolean' },
  soak: { type: 'boolean' },
  metrics: { type: 'boolean' },
  start: { type: 'boolean' },
  all: { type: 'boolean' },
  minutes: { type: 'string' },
  data: { type: 'string' },
  config: { type: 'string' },
};
// The comparisons with flags of their own (--metrics-pairs, --scale, --edge-scale, --metrics) are dispatched before
// this script's strict parse (bench/dispatch.mjs; it exits when it ran one).
await import('./dispatch.mjs');
const { values } = parseArgs({ options: FLAGS, args: process.argv.slice(2).filter((a) => a !== '--') });
if (values.all) {
  // every comparison, one after the other (bench/all.mjs)
  await import('./all.mjs');
  process.exit(process.exitCode ?? 0);
}
if (values.client) {
  // the verifying client's benchmarks are their own scripts: hub get vs curl and @huggingface/hub on an unlimited
  // nginx, then hub get in ranges vs curl and aria2c on nginx limited per connection, with one and two sources
  await import('./client.mjs');
  await import('./client-ranges.mjs');
  process.exit(0);
}
if (values.soak) {
  // 10 minutes (--minutes N) of mixed load over the hot routes: errors, percentiles, memory at start and end
  await import('./soak.mjs');
  process.exit(process.exitCode ?? 0);
}
if (values.start) {
  // the first start after a build against a later start (--models N --keep DIR --rounds R)
  await import('./start.mjs');
  process.exit(0);
}
if (values.edge) {
  // the edge hub against a trivial fixed-302 Worker under the same Miniflare
  await import('./edge.mjs');
  process.exit(0);
}
const root = path.join(path.dirname(new URL(import.meta.url).pathname), '..');
const DURATION = Number(values.duration);
const CONNECTIONS = Number(values.connections);

try {
  execFileSync('wrk', ['--version'], { stdio: 'ignore' });
} catch (e) {
  if (e.code === 'ENOENT') {
    console.error('bench: wrk is needed (apt-get install -y wrk)');
    process.exit(2);
  }
}

// Pin every server to CPU 1 and the load generator to CPU 0 (when taskset exists and there are 2+ cores), so the
// client and the server under test do not take turns on one core and the ratios are steadier between runs.
const PIN =
  os.cpus().length >= 2 &&
  (() => {
    try {
      execFileSync('taskset', ['-c', '0', 'true']);
      return true;
    } catch {
      return false;
    }
  })();
const onClientCpu = (cmd, args) => (PIN ? ['taskset', ['-c', '0', cmd, ...args]] : [cmd, args]);
const onServerCpu = (cmd, args) => (PIN ? ['taskset', ['-c', '1', cmd, ...args]] : [cmd, args]);

const children = [];
function start(args, readyPattern, env = {}) {
  return new Promise((resolve, reject) => {
    if (!readyPattern) {
      const child = spawn(...onServerCpu(process.execPath, args), {
        cwd: root,
        env: { ...process.env, HUB_LOG_LEVEL: 'warn', ...env },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      children.push(child);
      return resolve(child);
    }
    const child = spawn(...onServerCpu(process.execPath, args), {
      cwd: root,
      env: { ...process.env, HUB_LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let out = '';
    const onData = (d) => {
      out += d;
      if (readyPattern.test(out)) resolve(child);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('exit', (code) => reject(new Error(`${args.join(' ')} exited ${code}: ${out}`)));
  });
}

async function waitFor(url, tries = 100) {
  for (let i = 0; i < tries; i++) {
    try {
      await fetch(url);
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 20));
    }
  }
  throw new Error(`no answer from ${url}`);
}

function wrk(url, headers = {}) {
  const args = ['-t1', `-c${CONNECTIONS}`, `-d${DURATION}s`, '--latency'];
  for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}: ${v}`);
  const out = execFileSync(...onClientCpu('wrk', [...args, url]), { encoding: 'utf8' });
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0);
  const p99 = /99%\s+([\d.]+\w+)/.exec(out)?.[1] ?? '?';
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
  const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0);
  return { rps, p99, non2xx, requests };
}

/** CPU seconds (user + system) the process has used so far, from /proc (0 where there is no /proc). */
function cpuSeconds(pid) {
  try {
    return procCpuSeconds(pid);
  } catch {
    return 0;
  }
}

function rssKiB(pid) {
  try {
    return Number(execFileSync('ps', ['-o', 'rss=', '-p', String(pid)], { encoding: 'utf8' }).trim());
  } catch {
    return 0;
  }
}

const PORT = 18080;
const MODELS = values.models ? Number(values.models) : 0;
const keep = values.keep && MODELS > 0 ? path.resolve(values.keep, `models-${MODELS}`) : undefined;
const data = values.data ? path.resolve(values.data) : (keep ?? mkdtempSync(path.join(os.tmpdir(), 'hub-bench-')));
if (keep && values.rebuild && existsSync(path.join(data, 'bench.json'))) {
  // a new build on the kept tree: the index goes, the tree stays
  for (const f of ['objects', 'refs', 'cache', 'bench.json', 'probes.json', 'load-pack', 'missing.txt'])
    rmSync(path.join(data, f), { recursive: true, force: true });
}
const reused = keep !== undefined && existsSync(path.join(data, 'bench.json'));
const scratch = mkdtempSync(path.join(os.tmpdir(), 'hub-bench-run-'));
const serveArgs = ['apps/node-server/dist/cli.js', 'serve', '--port', String(PORT), '--data', data, '--host', '127.0.0.1'];
let buildSeconds;
if (MODELS > 0 && !reused) {
  mkdirSync(data, { recursive: true });
  // SYNTHETIC models: generated names and bytes, indexed like any local tree. The source URL is never fetched.
  const tree = path.join(data, 'tree');
  const treeDone = path.join(data, 'tree.done');
  if (!existsSync(treeDone)) {
    const t = performance.now();
    writeSyntheticTree(tree, MODELS, (done) => console.error(`tree: ${done} of ${MODELS} models`));
    writeFileSync(treeDone, `${MODELS}\n`);
    console.error(`wrote the SYNTHETIC tree of ${MODELS} models in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  }
  if (values['tree-only']) process.exit(0);
  const t0 = performance.now();
  execFileSync(process.execPath, fromDirBuildArgs(tree, data), {
    cwd: root,
    env: { ...process.env, HUB_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  buildSeconds = (performance.now() - t0) / 1000;
  console.error(`built ${MODELS} SYNTHETIC models in ${buildSeconds.toFixed(1)} s`);
  const config = path.join(data, 'bench.json');
  writeFileSync(
    config,
    JSON.stringify({
      demo: false,
      sources: [{ name: 'bench', display: 'Bench', token: 'bench', kind: 'http', url: SYNTHETIC_SOURCE_TEMPLATE }],
      order: ['bench'],
    }),
  );
}
if (MODELS > 0) serveArgs.push('--config', path.join(data, 'bench.json'));
if (values.data && values.config) serveArgs.push('--config', path.resolve(values.config));
const base = `http://127.0.0.1:${PORT}`;
// Start time: from spawning the process to the first answer of /-/live. The first start on a catalog verifies it in
// full (re-hash and schema check); every later start reads the verified catalog as stored.
async function timedStart() {
  const t = performance.now();
  const child = await start(serveArgs, null);
  await waitFor(`${base}/-/live`, 3000);
  return { child, seconds: (performance.now() - t) / 1000 };
}
const firstStart = await timedStart();
firstStart.child.kill('SIGTERM');
await new Promise((r) => firstStart.child.once('exit', r));
const secondStart = await timedStart();
const hub = secondStart.child;
console.error(`start ${firstStart.seconds.toFixed(2)} s (first on this catalog), ${secondStart.seconds.toFixed(2)} s (again)`);

const descriptor = await (await fetch(`${base}/.well-known/model-hub.json`)).json();
let gguf = MODELS > 0 ? 'bench-org-0/model-0' : 'demo/tiny-llama-2-GGUF';
let ggufFile = MODELS > 0 ? 'model-0-Q4_K_M.gguf' : 'llama-2-tiny-random-F16.gguf';
if (values.data) {
  // a folder built elsewhere: its first GGUF model in browse order, and that model's first .gguf file
  const [first] = await (await fetch(`${base}/api/models?filter=gguf&limit=1`)).json();
  const model = await (await fetch(`${base}/api/models/${first.id}`)).json();
  gguf = model.id;
  ggufFile = model.siblings.find((s) => s.rfilename.endsWith('.gguf')).rfilename;
}
const cases = [
  { name: 'GET / (Accept: application/json)', url: '/', headers: { accept: 'application/json' } },
  { name: 'GET /api/v1/objects/{catalog}', url: `/api/v1/objects/${descriptor.catalog}` },
  { name: 'GET /{id}/resolve/main/{gguf} (302)', url: `/${gguf}/resolve/main/${ggufFile}` },
  { name: 'GET /api/models?limit=50', url: '/api/models?limit=50' },
  { name: `GET /api/models?search=…&limit=50`, url: `/api/models?search=${MODELS > 0 || values.data ? 'model-12' : 'llama'}&limit=50` },
  {
    name: 'GET /v2/{id}/manifests/latest',
    url: `/v2/${gguf.toLowerCase()}/manifests/latest`,
    headers: { accept: 'application/vnd.docker.distribution.manifest.v2+json' },
  },
  { name: 'HEAD /v2/{id}/blobs/{digest}', url: null, method: 'HEAD' },
].filter((c) => !values.only || c.name.includes(values.only));

// Resolve the blob digest from the manifest, if the OCI dialect answers.
const manifestRes = await fetch(`${base}/v2/${gguf.toLowerCase()}/manifests/latest`, {
  headers: { accept: 'application/vnd.docker.distribution.manifest.v2+json' },
});
if (manifestRes.ok) {
  const m = await manifestRes.json();
  const layer = m.layers?.find((l) => l.mediaType === 'application/vnd.ollama.image.model') ?? m.layers?.[0];
  const c = cases.find((x) => x.method === 'HEAD');
  if (c && layer) c.url = `/v2/${gguf.toLowerCase()}/blobs/${layer.digest}`;
}

// Capture the exact answers the hub gives, for the baselines to replay.
const fixtures = [];
const runnable = [];
for (const c of cases) {
  if (!c.url) continue;
  const res = await fetch(`${base}${c.url}`, { method: c.method ?? 'GET', headers: c.headers ?? {}, redirect: 'manual' });
  if (res.status === 404 || res.status >= 500) {
    console.error(`skip ${c.name}: the hub answers ${res.status}`);
    continue;
  }
  const headers = {};
  res.headers.forEach((v, k) => {
    if (!['date', 'connection', 'keep-alive', 'transfer-encoding'].includes(k)) headers[k] = v;
  });
  const body = Buffer.from(await res.arrayBuffer());
  fixtures.push({ url: c.url, status: res.status, headers, body: body.toString('base64') });
  runnable.push(c);
}
const fixtureFile = path.join(scratch, 'fixtures.json');
writeFileSync(fixtureFile, JSON.stringify(fixtures));
const koaServer = await start(['bench/baseline.mjs', 'koa', '18181', fixtureFile], /ready/);
const bareServer = await start(['bench/baseline.mjs', 'bare', '18182', fixtureFile], /ready/);
const pidOf = { [PORT]: hub.pid, 18181: koaServer.pid, 18182: bareServer.pid };

const ROUNDS = Number(values.rounds);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const rows = [];
for (const c of runnable) {
  // req/s, p99, and the server's CPU time per request over the run (user + system, from /proc): with the server
  // pinned to its own core the two agree; the CPU figure is the steadier one when other work shares the machine.
  const run = (port) => {
    const url = `http://127.0.0.1:${port}${c.url}`;
    const before = cpuSeconds(pidOf[port]);
    let result;
    if (c.method === 'HEAD') {
      // wrk waits for a body after a HEAD answer with Content-Length; a small Node client measures HEAD instead.
      const out = execFileSync(
        ...onClientCpu(process.execPath, [path.join(root, 'bench/head-load.mjs'), url, String(CONNECTIONS), String(DURATION)]),
        {
          encoding: 'utf8',
        },
      );
      const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0);
      result = { rps, p99: 'n/a', non2xx: 0, requests: rps * DURATION };
    } else {
      result = wrk(url, c.headers ?? {});
    }
    const cpu = cpuSeconds(pidOf[port]) - before;
    return { ...result, cpuUs: result.requests > 0 ? (cpu * 1e6) / result.requests : 0 };
  };
  // warm-up: every server, so none is measured before its JIT has compiled the path
  for (const port of [PORT, 18181, 18182]) run(port);
  // Alternate the servers over several rounds and keep each one's median, so load elsewhere on the machine
  // during one run does not decide the ratio.
  const results = { ours: [], koa: [], bare: [] };
  for (let r = 0; r < ROUNDS; r++) {
    const order = [
      ['ours', PORT],
      ['koa', 18181],
      ['bare', 18182],
    ];
    if (r % 2) order.reverse();
    for (const [k, port] of order) results[k].push(run(port));
  }
  const pick = (arr) => {
    const m = median(arr.map((x) => x.rps));
    return arr.find((x) => x.rps === m);
  };
  const perRound = results.ours.map((o, i) => o.rps / results.bare[i].rps);
  const row = {
    name: c.name,
    ours: pick(results.ours),
    koa: pick(results.koa),
    bare: pick(results.bare),
    spread: `${Math.min(...perRound).toFixed(2)}–${Math.max(...perRound).toFixed(2)}`,
    cpuOurs: median(results.ours.map((x) => x.cpuUs)),
    cpuBare: median(results.bare.map((x) => x.cpuUs)),
  };
  rows.push(row);
  console.error(
    `${c.name}: hub ${row.ours.rps.toFixed(0)}/s, koa ${row.koa.rps.toFixed(0)}/s, bare ${row.bare.rps.toFixed(0)}/s; hub/bare per round ${row.spread}; CPU per request hub ${row.cpuOurs.toFixed(1)} µs, bare ${row.cpuBare.toFixed(1)} µs`,
  );
}

// The edge (workerd under Miniflare, seeded with the same demo index): /resolve beside node-server's.
const EDGE_PORT = 18383;
let edgeLine = '';
const resolveCase = runnable.find((c) => c.name.includes('/resolve/'));
if (resolveCase && MODELS === 0 && !values.data) {
  try {
    const edge = await start(['apps/edge/scripts/serve.mjs', '--port', String(EDGE_PORT)], /ready/);
    const url = `http://127.0.0.1:${EDGE_PORT}${resolveCase.url}`;
    const first = await fetch(url, { redirect: 'manual' });
    if (first.status !== 302) throw new Error(`the edge answers ${first.status}`);
    wrk(url); // warm-up
    const edgeRun = wrk(url);
    const nodeRow = rows.find((r) => r.name === resolveCase.name);
    edgeLine = `Edge (workerd via Miniflare, one isolate) ${resolveCase.name}: ${edgeRun.rps.toFixed(0)} req/s, p99 ${edgeRun.p99}; node-server ${nodeRow ? nodeRow.ours.rps.toFixed(0) : '?'} req/s in the same run.`;
    console.error(edgeLine);
    edge.kill('SIGTERM');
  } catch (e) {
    edgeLine = `Edge: not measured (${e.message}).`;
    console.error(edgeLine);
  }
}

const rss = rssKiB(hub.pid);
const listRow = rows.find((r) => r.name === 'GET /api/models?limit=50');
const searchRow = rows.find((r) => r.name.includes('search='));
const searchRatio = listRow && searchRow ? (searchRow.ours.rps / listRow.ours.rps).toFixed(2) : 'n/a';
const lines = [
  `Command: \`pnpm bench\` (wrk -t1 -c${CONNECTIONS} -d${DURATION}s per run, HEAD by bench/head-load.mjs; median of ${ROUNDS} alternating rounds per server; each server in its own process on loopback${PIN ? ', servers pinned to CPU 1 and the load generator to CPU 0' : ''}; Node ${process.version}; ${os.cpus().length} cores; index: ${values.data ? `the data folder ${values.data}` : MODELS > 0 ? `${MODELS} SYNTHETIC models` : 'the bundled demo (2 models)'})`,
  '',
  '| route | hub req/s | Koa 1-middleware req/s | bare node:http req/s | hub / Koa | hub / bare | per round | hub p99 | bare p99 | CPU µs per request, hub / bare | bare / hub CPU |',
  '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ...rows.map(
    (r) =>
      `| ${r.name} | ${r.ours.rps.toFixed(0)} | ${r.koa.rps.toFixed(0)} | ${r.bare.rps.toFixed(0)} | ${(r.ours.rps / r.koa.rps).toFixed(2)} | ${(r.ours.rps / r.bare.rps).toFixed(2)} | ${r.spread} | ${r.ours.p99} | ${r.bare.p99} | ${r.cpuOurs.toFixed(1)} / ${r.cpuBare.toFixed(1)} | ${r.cpuOurs > 0 ? (r.cpuBare / r.cpuOurs).toFixed(2) : 'n/a'} |`,
  ),
  '',
  `Build (\`hub index build --from-dir\`): ${buildSeconds === undefined ? (values.data ? 'the data folder was built elsewhere' : MODELS > 0 ? 'reused from an earlier run (--keep)' : 'the demo index is seeded') : `${buildSeconds.toFixed(1)} s, ${((buildSeconds * 1000) / MODELS).toFixed(2)} ms per model`}.`,
  `Start (spawn to first /-/live answer): ${firstStart.seconds.toFixed(2)} s first, ${secondStart.seconds.toFixed(2)} s again.`,
  `Search: hub /api/models?search=… at ${searchRatio} of /api/models?limit=50 req/s (target ≥ 0.5).`,
  `Hub resident memory after the run: ${(rss / 1024).toFixed(1)} MiB${MODELS > 0 ? ` (${(rss / MODELS).toFixed(1)} KiB per model, everything included)` : ''}.`,
  ...(edgeLine ? ['', edgeLine] : []),
];
console.log(lines.join('\n'));
for (const c of children) c.kill('SIGTERM');
if (!keep && !values.data) rmSync(data, { recursive: true, force: true });
rmSync(scratch, { recursive: true, force: true });
process.exit(0);
