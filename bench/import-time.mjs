#!/usr/bin/env node
// The cost of importing modules, each in a fresh `node` per sample, alternating (issue 31): wall time of the
// `await import()` and the CPU (user + system) the process had used by then, which includes Node's own start.
// Not a test. Usage: node bench/import-time.mjs [--rounds 11] SPECIFIER_OR_PATH …
//   for example the server's command code of two builds: apps/node-server/dist/cli-main-*.js and another checkout's.
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== '--'),
  options: { rounds: { type: 'string', default: '11' } },
  allowPositionals: true,
});
if (positionals.length === 0) {
  console.error('usage: node bench/import-time.mjs [--rounds N] SPECIFIER_OR_PATH …');
  process.exit(2);
}
// a path (./x.js, /x.js) is imported by its file URL, anything else as a package specifier from the current folder
const target = (spec) => (spec.startsWith('.') || spec.startsWith('/') ? pathToFileURL(path.resolve(spec)).href : spec);
const results = positionals.map((spec) => ({ spec, wall: [], cpu: [] }));
const script =
  'const t = performance.now(); await import(process.argv[1]); const c = process.cpuUsage();' +
  ' console.log(JSON.stringify({ wall: performance.now() - t, cpu: (c.user + c.system) / 1000 }));';
for (let r = 0; r < Number(values.rounds); r++) {
  for (const x of r % 2 ? [...results].reverse() : results) {
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script, target(x.spec)], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const { wall, cpu } = JSON.parse(out.toString().trim().split('\n').pop());
    x.wall.push(wall);
    x.cpu.push(cpu);
  }
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(
  `${values.rounds} alternating rounds; load ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);
for (const x of results) {
  console.log(
    `${x.spec}: wall median ${median(x.wall).toFixed(0)} ms (${x.wall.map((v) => v.toFixed(0)).join(' ')}), CPU median ${median(x.cpu).toFixed(0)} ms`,
  );
}
