#!/usr/bin/env node
// The first start after a build (issue 31): `hub index build --from-dir` of a new day over a SYNTHETIC tree, then
// `hub serve` timed from spawn to the first answer of /-/live; then the same hub started again ("later start"). The
// builder writes what a start needs (the load pack and the verified ref), so the two should match. Rounds alternate
// nothing else: each round is build → first start → later start, on a new date (a new catalog each time).
// Not a test: run by `pnpm bench --start` (or `node bench/start.mjs`). Needs the build (apps/node-server/dist).
// Usage: node bench/start.mjs --models 10000 [--keep DIR] [--rounds 3]
//   --keep DIR uses (and leaves) DIR/models-N, the folder `pnpm bench --models N --keep DIR` uses: its tree is reused.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fromDirBuildArgs, SYNTHETIC_SOURCE_TEMPLATE, writeSyntheticTree } from './synthetic-tree.mjs';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== '--start' && a !== '--'),
  options: { models: { type: 'string', default: '10000' }, keep: { type: 'string' }, rounds: { type: 'string', default: '3' } },
});
const root = path.join(path.dirname(new URL(import.meta.url).pathname), '..');
const MODELS = Number(values.models);
const ROUNDS = Number(values.rounds);
const data = values.keep ? path.resolve(values.keep, `models-${MODELS}`) : mkdtempSync(path.join(os.tmpdir(), 'hub-bench-start-'));
const tree = path.join(data, 'tree');
if (!existsSync(path.join(data, 'tree.done'))) {
  mkdirSync(data, { recursive: true });
  writeSyntheticTree(tree, MODELS, (done) => console.error(`tree: ${done} of ${MODELS} models`));
  writeFileSync(path.join(data, 'tree.done'), `${MODELS}\n`);
}
const config = path.join(data, 'bench.json');
writeFileSync(
  config,
  JSON.stringify({
    demo: false,
    sources: [{ name: 'bench', display: 'Bench', token: 'bench', kind: 'http', url: SYNTHETIC_SOURCE_TEMPLATE }],
    order: ['bench'],
  }),
);
const PORT = 18090;
const env = { ...process.env, HUB_LOG_LEVEL: 'warn' };

async function timedStart() {
  const t = performance.now();
  const child = spawn(
    process.execPath,
    ['apps/node-server/dist/cli.js', 'serve', '--port', String(PORT), '--data', data, '--host', '127.0.0.1', '--config', config],
    { cwd: root, env, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${PORT}/-/live`)).ok) break;
    } catch {}
    if (child.exitCode !== null || i > 20_000) throw new Error('hub serve did not start');
    await new Promise((r) => setTimeout(r, 10));
  }
  const seconds = (performance.now() - t) / 1000;
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  return seconds;
}

const rows = [];
for (let r = 0; r < ROUNDS; r++) {
  // a new day each round: a new catalog the hub has never started on
  const date = new Date(Date.UTC(2027, 0, 1 + r + Math.floor(Math.random() * 300))).toISOString().slice(0, 10);
  const t = performance.now();
  execFileSync(process.execPath, fromDirBuildArgs(tree, data, date), { cwd: root, env, stdio: ['ignore', 'ignore', 'inherit'] });
  const build = (performance.now() - t) / 1000;
  const first = await timedStart();
  const again = await timedStart();
  rows.push({ date, build, first, again });
  console.error(`round ${r + 1}: build ${build.toFixed(1)} s, first start ${first.toFixed(2)} s, later start ${again.toFixed(2)} s`);
}
if (!values.keep) rmSync(data, { recursive: true, force: true });
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const list = (k) => rows.map((x) => x[k].toFixed(2)).join(', ');
console.log(
  `${MODELS} SYNTHETIC models, ${ROUNDS} rounds (build of a new day, then spawn to the first /-/live answer); load ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);
console.log(`first start after the build: median ${median(rows.map((x) => x.first)).toFixed(2)} s (${list('first')})`);
console.log(`later start:                  median ${median(rows.map((x) => x.again)).toFixed(2)} s (${list('again')})`);
console.log(
  `build (hub index build --from-dir, a new day over the same tree): median ${median(rows.map((x) => x.build)).toFixed(1)} s (${list('build')})`,
);
