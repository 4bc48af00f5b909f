// Build speed of `hub index build --from-dir` over the SYNTHETIC tree of `pnpm bench --models N` (issue 18).
// Usage: node bench/build.mjs [--models 10000] [--runs 3] [--keep DIR] [--changed 1] [--feed] [--dist CHECKOUT] [--cpu-prof DIR]
// (--runs 0 with --keep: only the two rebuilds, on the data folder an earlier run kept)
// Each run builds the tree into an empty data folder (ms per model: min / median / max over the runs). Then, on the
// last run's data: the same day built again with nothing changed (0 objects written), and the next day's build after
// --changed percent of the models changed one file each (objects written: each changed model's model and source
// objects plus the catalog, or its root and changed shards). --keep DIR keeps the tree (and the last data folder) in
// DIR/models-N and reuses the tree on the next run. --feed gives both rebuilds a change feed (`--changed FILE`: none
// for the same day, the changed files for the next), so they walk only what changed. Run `pnpm build` first (it runs
// the built CLI). --dist runs the hub of another built checkout (a before/after comparison on copies of one kept folder).
// Each build's wall time and peak RSS (the build's process) are printed.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fromDirBuildArgs, syntheticModelDir, writeSyntheticTree } from './synthetic-tree.mjs';

const { values } = parseArgs({
  options: {
    models: { type: 'string', default: '10000' },
    runs: { type: 'string', default: '3' },
    keep: { type: 'string' },
    changed: { type: 'string', default: '1' },
    feed: { type: 'boolean', default: false },
    dist: { type: 'string' },
    'cpu-prof': { type: 'string' },
  },
  args: process.argv.slice(2).filter((a) => a !== '--'),
});
const root = path.join(path.dirname(new URL(import.meta.url).pathname), '..');
const MODELS = Number(values.models);
const RUNS = Number(values.runs);
const base = values.keep ? path.resolve(values.keep, `models-${MODELS}`) : mkdtempSync(path.join(os.tmpdir(), 'hub-build-bench-'));
const tree = path.join(base, 'tree');
const marker = path.join(base, 'tree.done');
if (!existsSync(marker)) {
  const t0 = performance.now();
  rmSync(tree, { recursive: true, force: true });
  writeSyntheticTree(tree, MODELS);
  writeFileSync(marker, `${MODELS}\n`);
  console.error(`wrote ${MODELS} SYNTHETIC models in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

function countObjects(data) {
  const dir = path.join(data, 'objects');
  if (!existsSync(dir)) return 0;
  let n = 0;
  for (const shard of readdirSync(dir)) {
    if (!/^[0-9a-f]{2}$/.test(shard)) continue;
    for (const name of readdirSync(path.join(dir, shard))) if (/^[0-9a-f]{64}$/.test(name)) n++;
  }
  return n;
}

function build(data, label, date = '2026-11-22', feed = undefined) {
  const before = countObjects(data);
  const prof = values['cpu-prof'] ? ['--cpu-prof', '--cpu-prof-dir', path.resolve(values['cpu-prof'])] : [];
  let changedArgs = [];
  if (feed) {
    const file = path.join(base, 'changed.txt');
    writeFileSync(file, feed.map((p) => `${p}\n`).join(''));
    changedArgs = ['--changed', file];
  }
  const t0 = performance.now();
  const out = spawnSync('/usr/bin/time', ['-f', '%M', process.execPath, ...prof, ...fromDirBuildArgs(tree, data, date), ...changedArgs], {
    cwd: values.dist ? path.resolve(values.dist) : root,
    env: { ...process.env, HUB_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
    maxBuffer: 1 << 30,
  });
  if (out.status !== 0) throw new Error(`the build failed (exit ${out.status}): ${out.stderr}`);
  const ms = performance.now() - t0;
  const result = JSON.parse(out.stdout.trim().split('\n').pop());
  // GNU time's last line: the build's peak resident set in KB
  const peakMB = Math.round(Number(out.stderr.trim().split('\n').pop()) / 1024);
  const written = countObjects(data) - before;
  console.log(
    `${label}: ${(ms / 1000).toFixed(2)} s, ${(ms / MODELS).toFixed(3)} ms/model, ${result.models} models, ${written} objects written, peak RSS ${peakMB} MB`,
  );
  return { ms, written, catalog: result.catalog };
}

const times = [];
// --runs 0 measures only the rebuilds, on the data folder kept by an earlier run with --keep.
const data = path.join(base, 'data');
for (let r = 0; r < RUNS; r++) {
  rmSync(data, { recursive: true, force: true });
  mkdirSync(data, { recursive: true });
  times.push(build(data, `build ${r + 1}/${RUNS} (empty data folder)`).ms / MODELS);
}
times.sort((a, b) => a - b);
const median = times[Math.floor(times.length / 2)];
if (RUNS > 0) {
  console.log(
    `build ms/model at ${MODELS}: min ${times[0].toFixed(3)} median ${median.toFixed(3)} max ${times.at(-1).toFixed(3)} (${RUNS} runs; 19 ms/model before issue 18 = ${(19 / median).toFixed(1)}x)`,
  );
}
build(
  data,
  `rebuild of the same day, nothing changed${values.feed ? ' (an empty change feed)' : ''}`,
  undefined,
  values.feed ? [] : undefined,
);
// Change one file of `changed` percent of the models (spread over the tree), keeping the other files as they are.
const changed = Math.max(1, Math.round((MODELS * Number(values.changed)) / 100));
const stamp = Date.now();
const feed = [];
for (let k = 0; k < changed; k++) {
  const i = Math.floor((k * MODELS) / changed);
  const file = path.join(syntheticModelDir(tree, i), 'config.json');
  writeFileSync(file, JSON.stringify({ model_type: 'llama', synthetic: true, i, changed: stamp }));
  feed.push(path.relative(tree, file));
}
const rebuilt = build(
  data,
  `next day's build, ${changed} models changed${values.feed ? ' (told by a change feed)' : ''}`,
  '2026-11-23',
  values.feed ? feed : undefined,
);
console.log(`expected objects for ${changed} changed models: ${2 * changed} (model + source each) + the catalog`);
if (!values.keep) rmSync(base, { recursive: true, force: true });
else console.log(`kept tree and data in ${base} (catalog ${rebuilt.catalog})`);
