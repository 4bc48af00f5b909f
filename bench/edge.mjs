// pnpm bench --edge: the edge hub's /resolve under workerd (Miniflare) against two trivial Workers under the same
// Miniflare setup, in alternating rounds of wrk on loopback: one answers every request with a minimal fixed 302 (a
// location and one header: issue 18's baseline), the other with a fixed 302 carrying the exact headers the hub
// answered (the baseline rule of bench/run.mjs: the same bytes). The gap between the two baselines is what the
// hub's documented headers cost in Miniflare's loopback proxy; the gap between the hub and the second is the hub's
// own work.
// Usage: node bench/edge.mjs [--duration 5] [--rounds 5] [--connections 50] [--warmup 3]
//   --warmup N: wrk runs of every isolate before the rounds (the same for all three). The hub's Worker is the whole hub,
//   and its isolate was still getting faster after one run (per round 0.67, 0.71, 0.82 ... 0.92 on 2026-11-28, where
//   the trivial Workers were not), so one warm-up run measured its warm-up.
//   (needs the build: apps/edge/dist/worker.js and packages/node-toolkit/dist; `pnpm bench` builds first)
import { execFileSync, spawn } from 'node:child_process';
import path from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '5' },
    connections: { type: 'string', default: '50' },
    warmup: { type: 'string', default: '3' },
    edge: { type: 'boolean' },
  },
  args: process.argv.slice(2).filter((a) => a !== '--'),
  strict: false,
});
const root = path.join(path.dirname(new URL(import.meta.url).pathname), '..');
const DURATION = Number(values.duration);
const ROUNDS = Number(values.rounds);
const CONNECTIONS = Number(values.connections);
const RESOLVE = '/demo/tiny-llama-2-GGUF/resolve/main/llama-2-tiny-random-F16.gguf';

const children = [];
function serve(port, extra = []) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['apps/edge/scripts/serve.mjs', '--port', String(port), ...extra], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    children.push(child);
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /ready (\S+)/.exec(out);
      if (m) resolve({ child, url: m[1] });
    });
    child.on('exit', (code) => reject(new Error(`serve.mjs exited with ${code}`)));
  });
}

function wrk(url) {
  const out = execFileSync('wrk', ['-t1', `-c${CONNECTIONS}`, `-d${DURATION}s`, '--latency', url], { encoding: 'utf8' });
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? 0);
  const p99 = /99%\s+([\d.]+)(\w+)/.exec(out);
  const ms = p99 ? Number(p99[1]) * ({ us: 0.001, ms: 1, s: 1000 }[p99[2]] ?? 1) : Number.NaN;
  const non3xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
  return { rps, p99ms: ms, non3xx };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const spread = (xs) => `${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)}`;

try {
  const hub = await serve(18384);
  const hubUrl = `${hub.url}${RESOLVE}`;
  const first = await fetch(hubUrl, { redirect: 'manual' });
  if (first.status !== 302) throw new Error(`the edge hub answers ${first.status} on ${RESOLVE}`);
  const same = {};
  for (const [k, v] of first.headers) if (k !== 'content-length') same[k] = v;
  const base = await serve(18385, ['--baseline']);
  const bytes = await serve(18386, ['--baseline', '--headers', JSON.stringify(same)]);
  const urls = { hub: hubUrl, base: `${base.url}${RESOLVE}`, same: `${bytes.url}${RESOLVE}` };
  // warm-up of every isolate, alternating
  for (let w = 0; w < Number(values.warmup); w++) for (const u of Object.values(urls)) wrk(u);
  const names = Object.keys(urls);
  const runs = { hub: [], base: [], same: [] };
  for (let r = 0; r < ROUNDS; r++) {
    // rotate which goes first, so none always meets the warmer machine
    const order = names.map((_, i) => names[(i + r) % names.length]);
    for (const which of order) runs[which].push(wrk(urls[which]));
    console.error(
      `round ${r + 1}: hub ${runs.hub.at(-1).rps.toFixed(0)}/s, minimal 302 Worker ${runs.base.at(-1).rps.toFixed(0)}/s, same-bytes 302 Worker ${runs.same.at(-1).rps.toFixed(0)}/s`,
    );
  }
  const rps = (w) => runs[w].map((x) => x.rps);
  const p99 = (w) => runs[w].map((x) => x.p99ms);
  const ratios = (w) => runs.hub.map((h, i) => h.rps / runs[w][i].rps);
  const errors = Object.values(runs)
    .flat()
    .reduce((n, x) => n + x.non3xx, 0);
  const row = (label, w) =>
    `| ${label} | ${median(rps(w)).toFixed(0)} (${spread(rps(w))}) | ${median(p99(w)).toFixed(2)} (${Math.min(...p99(w)).toFixed(2)}–${Math.max(...p99(w)).toFixed(2)}) |`;
  const ratioLine = (label, w) =>
    `hub / ${label}: ${median(ratios(w)).toFixed(2)} (per round ${ratios(w)
      .map((x) => x.toFixed(2))
      .join(', ')}; target ≥ 0.8); p99 hub / ${label}: ${(median(p99('hub')) / median(p99(w))).toFixed(2)} (target ≤ 2).`;
  console.log(
    [
      `Command: \`pnpm bench --edge\` (wrk -t1 -c${CONNECTIONS} -d${DURATION}s, ${ROUNDS} rotating rounds after ${values.warmup} warm-up run(s) of each; Miniflare workerd on loopback; Node ${process.version})`,
      '',
      '| server | req/s median (spread) | p99 ms median (spread) |',
      '| --- | ---: | ---: |',
      row(`edge hub GET ${RESOLVE} (${Object.keys(same).length} headers)`, 'hub'),
      row('trivial Worker, minimal fixed 302 (2 headers)', 'base'),
      row(`trivial Worker, fixed 302 with the hub's ${Object.keys(same).length} headers`, 'same'),
      '',
      ratioLine('minimal 302 Worker', 'base'),
      ratioLine('same-bytes 302 Worker', 'same'),
      `Non-3xx answers: ${errors}.`,
    ].join('\n'),
  );
} finally {
  for (const c of children) c.kill('SIGTERM');
}
