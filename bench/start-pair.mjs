#!/usr/bin/env node
// Two builds of the hub started on their own kept data folders, alternating (issue 31): for a before/after of the start
// on a verified catalog with a sound load pack (the path of the first start after a build, and of every later start).
// Each start is timed from spawn to the first answer of /-/live, as bench/start.mjs does, and its resident memory read
// then. Not a test: it measures. Each data folder must already hold an index built and started once by its own build
// (so its pack is the one that build writes); give each build its own folder (a hard-linked copy of
// /tmp/speed-bench/models-N with its own refs, pack and accounts file works: the objects never change).
// Usage: node bench/start-pair.mjs --a ROOT:DATA --b ROOT:DATA [--rounds 3]
//   ROOT is a checkout with apps/node-server/dist built; DATA its data folder (with bench.json from bench/start.mjs).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== '--'),
  options: { a: { type: 'string' }, b: { type: 'string' }, rounds: { type: 'string', default: '3' } },
});
if (!values.a || !values.b) {
  console.error('usage: node bench/start-pair.mjs --a ROOT:DATA --b ROOT:DATA [--rounds 3]');
  process.exit(2);
}
const PORT = 18190;

async function timedStart(spec) {
  const [root, data] = spec.split(':');
  const t = performance.now();
  const child = spawn(
    process.execPath,
    [
      'apps/node-server/dist/cli.js',
      'serve',
      '--port',
      String(PORT),
      '--data',
      data,
      '--host',
      '127.0.0.1',
      '--config',
      path.join(data, 'bench.json'),
    ],
    { cwd: root, env: { ...process.env, HUB_LOG_LEVEL: 'warn' }, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${PORT}/-/live`)).ok) break;
    } catch {}
    if (child.exitCode !== null || i > 30_000) throw new Error(`hub serve in ${root} did not start`);
    await new Promise((r) => setTimeout(r, 10));
  }
  const seconds = (performance.now() - t) / 1000;
  const rssMiB = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1]) / 1024;
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  return { seconds, rssMiB };
}

const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
const before = load();
const rows = { a: [], b: [] };
for (let r = 0; r < Number(values.rounds); r++) {
  // alternate which goes first
  for (const k of r % 2 === 0 ? ['a', 'b'] : ['b', 'a']) {
    const x = await timedStart(values[k]);
    rows[k].push(x);
    console.error(`round ${r + 1} ${k}: ${x.seconds.toFixed(2)} s, ${x.rssMiB.toFixed(0)} MiB`);
  }
}
const median = (xs) => [...xs].sort((p, q) => p - q)[Math.floor(xs.length / 2)];
console.log(`load average ${before} before, ${load()} after`);
for (const k of ['a', 'b']) {
  const s = rows[k].map((x) => x.seconds);
  const m = rows[k].map((x) => x.rssMiB);
  console.log(
    `${k} (${values[k]}): start median ${median(s).toFixed(2)} s (${s.map((x) => x.toFixed(2)).join(', ')}), RSS ${Math.min(...m).toFixed(0)}–${Math.max(...m).toFixed(0)} MiB`,
  );
}
console.log(`b / a: ${(median(rows.b.map((x) => x.seconds)) / median(rows.a.map((x) => x.seconds))).toFixed(2)}`);
