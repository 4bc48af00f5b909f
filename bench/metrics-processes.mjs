// What metrics cost between processes (issue 28), one route at a time: many hubs started anew, one after the other,
// each loaded alone (wrk, after a warm-up run) while its CPU time per request is read from /proc. Two identical hub
// processes differ by up to 20 % (JIT decisions), so a variant is the median of N processes, and the variants are
// started in alternating order.
//
// Variants (any of them, in the order given): those of bench/variant-hub.mjs; on-scrape is what bench/metrics.mjs does.
//
// Usage: node bench/metrics-processes.mjs [--processes 10] [--duration 2] [--route URL] [--accept TYPE] VARIANT...
// Default route: the demo /resolve 302. Needs the build (apps/node-server/dist/cli.js) and wrk. Servers on CPU 1, wrk
// on CPU 0.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { cpuPerRequest, startVariantHub, VARIANTS } from './variant-hub.mjs';

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
const variants = positionals.length ? positionals : ['off', 'on-scrape'];
for (const v of variants) if (!VARIANTS.includes(v)) throw new Error(`unknown variant ${v}: one of ${VARIANTS.join(', ')}`);
const PORT = 19810;
const METRICS_PORT = 19811;
const N = Number(values.processes);
const data = mkdtempSync(path.join(os.tmpdir(), 'hub-bench-metrics-processes-'));
const url = `http://127.0.0.1:${PORT}${values.route}`;

/** One hub of `variant`, started anew: the mean CPU µs per request of two loaded runs after a warm-up. */
async function one(variant) {
  const hub = await startVariantHub({ variant, port: PORT, metricsPort: METRICS_PORT, dir: data, name: variant });
  try {
    await cpuPerRequest(hub.pid, url, 1, values.accept); // warm-up
    hub.startPolling();
    const a = await cpuPerRequest(hub.pid, url, Number(values.duration), values.accept);
    const b = await cpuPerRequest(hub.pid, url, Number(values.duration), values.accept);
    return (a + b) / 2;
  } finally {
    await hub.stop();
  }
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
