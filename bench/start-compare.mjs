#!/usr/bin/env node
// Starts of several `hub serve` builds on one prepared data folder, alternating (issue 31): spawn to the first answer
// of /-/live, and the CPU time (user + system, from /proc) the process had used by then. The data folder is one a
// build already prepared (its load pack and verified ref written), so every start reads it as a first start after a
// build does. Each round starts every build once, the order reversed every other round. Not a test.
// Usage: node bench/start-compare.mjs --data DIR [--config FILE] [--rounds 7] LABEL=path/to/cli.js[@DIR] LABEL=…
//   LABEL=CLI@DIR starts that build on its own folder (builds whose load packs differ each need one).
//   DIR: for example /tmp/speed-bench/models-10000 (bench/start.mjs --keep) or a data folder seeded with the demo.
//   Give --config FILE for a folder built without the demo (bench/start.mjs writes DIR/bench.json).
// Builds to compare: a checkout of another commit built with `pnpm build` (its apps/node-server/dist/cli.js).
import { spawn } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { cpuSeconds } from './proc-cpu.mjs';

const { values, positionals } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== '--'),
  options: { data: { type: 'string' }, config: { type: 'string' }, rounds: { type: 'string', default: '7' } },
  allowPositionals: true,
});
if (positionals.length === 0) {
  console.error('usage: node bench/start-compare.mjs --data DIR [--config FILE] [--rounds N] LABEL=path/to/cli.js[@DIR] …');
  process.exit(2);
}
const builds = positionals.map((spec) => {
  const i = spec.indexOf('=');
  if (i <= 0) {
    console.error(`${spec}: expected LABEL=path/to/cli.js`);
    process.exit(2);
  }
  // LABEL=CLI@DIR: this build starts on its own data folder (a build whose load pack format differs from another's)
  const [cli, data = values.data] = spec.slice(i + 1).split('@');
  return { label: spec.slice(0, i), cli: path.resolve(cli), data, seconds: [], cpu: [] };
});
const PORT = 18191;

async function start(cli, data) {
  if (!data) throw new Error(`${cli}: no data folder (--data DIR, or LABEL=CLI@DIR)`);
  const args = [cli, 'serve', '--port', String(PORT), '--host', '127.0.0.1', '--data', data];
  if (values.config) args.push('--config', values.config);
  const t = performance.now();
  const child = spawn(process.execPath, args, { env: { ...process.env, HUB_LOG_LEVEL: 'warn' }, stdio: ['ignore', 'ignore', 'inherit'] });
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${PORT}/-/live`)).ok) break;
    } catch {}
    if (child.exitCode !== null || i > 20_000) throw new Error(`${cli} serve did not start`);
    await new Promise((r) => setTimeout(r, 10));
  }
  const seconds = (performance.now() - t) / 1000;
  const cpu = cpuSeconds(child.pid);
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
  return { seconds, cpu };
}

const loads = [];
for (let r = 0; r < Number(values.rounds); r++) {
  for (const b of r % 2 ? [...builds].reverse() : builds) {
    const { seconds, cpu } = await start(b.cli, b.data);
    b.seconds.push(seconds);
    b.cpu.push(cpu);
  }
  loads.push(os.loadavg()[0]);
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const list = (xs) => xs.map((x) => x.toFixed(2)).join(', ');
console.log(
  `${[...new Set(builds.map((b) => b.data))].join(' and ')}, ${values.rounds} alternating rounds; load (1 min) after each round: ${loads.map((l) => l.toFixed(1)).join(' ')}`,
);
for (const b of builds) {
  const ratio =
    b === builds[0]
      ? ''
      : `; ${b.label}/${builds[0].label}: ${(median(b.seconds) / median(builds[0].seconds)).toFixed(2)} (CPU ${(median(b.cpu) / median(builds[0].cpu)).toFixed(2)})`;
  console.log(
    `${b.label}: start median ${median(b.seconds).toFixed(2)} s (${list(b.seconds)}), CPU median ${median(b.cpu).toFixed(2)} s (${list(b.cpu)})${ratio}`,
  );
}
