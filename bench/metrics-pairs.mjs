// What metrics cost (issue 28), in pairs: two hubs alive at once, one of each variant, both pinned to CPU 1, loaded
// in turn by wrk (CPU 0) in ABBA blocks of 1 s runs, so the machine's drift between seconds falls on both alike. Each
// block gives a ratio of CPU per request (B over A); a pair's figure is the median of its blocks, and the result is
// the median over pairs, each pair started anew (identical hub processes differ by a few percent for their whole life).
//
// Variants: those of bench/variant-hub.mjs (off, off-live, on, on-live, on-scrape, on-log, token).
//
// Usage: node bench/metrics-pairs.mjs [--pairs 10] [--blocks 6] [--route URL] [--accept TYPE, '' for none] [--routes hot] A B
// Default: off-live against on-scrape on the demo /resolve; `--routes hot` runs the five hot routes of bench/metrics.mjs
// one after the other (`pnpm bench --metrics-pairs` does that). Needs the build (apps/node-server/dist/cli.js) and wrk.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { cpuPerRequest, startVariantHub, VARIANTS } from './variant-hub.mjs';

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
const [A = 'off-live', B = 'on-scrape'] = positionals;
for (const v of [A, B]) if (!VARIANTS.includes(v)) throw new Error(`unknown variant ${v}: one of ${VARIANTS.join(', ')}`);
const data = mkdtempSync(path.join(os.tmpdir(), 'hub-bench-metrics-pairs-'));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** One wrk run of `seconds` on hub `h`: CPU µs per request. */
const load = (h, seconds, route) => cpuPerRequest(h.pid, `http://127.0.0.1:${h.port}${route.url}`, seconds, route.accept);

/** Hub `slot` (0 or 1) of pair `pair`, with its request a second running from the start. */
async function start(variant, slot, pair) {
  const port = 19830 + slot * 2;
  const hub = await startVariantHub({ variant, port, metricsPort: port + 1, dir: data, name: `${variant}-${pair}-${slot}` });
  hub.startPolling();
  return hub;
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
