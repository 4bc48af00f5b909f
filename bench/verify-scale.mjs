// `hub index verify --data DIR` at scale (issue 39): wall time, CPU time (user + system) and peak RSS of two builds of
// the hub side by side in the same run, BEFORE (another checkout, built: --before DIR) and AFTER (this one), in
// alternating order per round, on a data folder built before (bench/scale.mjs --phase build, or a bundle import).
// The folder is only read: each run verifies a scratch folder whose `objects` is a symlink to DIR's and whose refs are
// copies (verify writes the `verified` ref). Peak RSS is /usr/bin/time's "Maximum resident set size". Both sides must
// name the same number of objects, catalogs and faults. Run it niced on a shared machine:
//   nice -n 19 node bench/verify-scale.mjs --data DIR [--rounds 2] [--before /tmp/fresh-9c] [--sides before,after]
//     [--threads N (AFTER only)]
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';

const root = path.join(path.dirname(new URL(import.meta.url).pathname), '..');
const { values } = parseArgs({
  options: {
    data: { type: 'string' },
    rounds: { type: 'string', default: '2' },
    before: { type: 'string', default: '/tmp/fresh-9c' },
    sides: { type: 'string', default: 'before,after' },
    threads: { type: 'string' },
  },
  args: process.argv.slice(2).filter((a) => a !== '--'),
});
if (!values.data) {
  process.stderr.write('usage: node bench/verify-scale.mjs --data DIR [--rounds N] [--before CHECKOUT] [--sides before,after]\n');
  process.exit(2);
}
const data = path.resolve(values.data);
const rounds = Number(values.rounds);
const checkouts = { before: path.resolve(values.before), after: root };
const sides = values.sides.split(',');

/** A scratch data folder over DIR's objects, with copies of its refs. */
function scratchFolder() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hub-verify-scale-'));
  symlinkSync(path.join(data, 'objects'), path.join(dir, 'objects'));
  cpSync(path.join(data, 'refs'), path.join(dir, 'refs'), { recursive: true });
  mkdirSync(path.join(dir, 'locks'));
  return dir;
}

/** One `hub index verify` of a side under /usr/bin/time -v. */
function verify(side) {
  const dir = scratchFolder();
  const extra = side === 'after' && values.threads !== undefined ? ['--threads', values.threads] : [];
  const cli = path.join(checkouts[side], 'apps/node-server/dist/cli.js');
  const t = performance.now();
  const res = spawnSync('/usr/bin/time', ['-v', process.execPath, cli, 'index', 'verify', '--data', dir, ...extra], {
    env: { ...process.env, HUB_LOG_LEVEL: 'warn' },
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  const wall = (performance.now() - t) / 1000;
  rmSync(dir, { recursive: true, force: true });
  const kb = /Maximum resident set size \(kbytes\): (\d+)/.exec(res.stderr ?? '')?.[1];
  const seconds = (what) => Number(new RegExp(`${what} time \\(seconds\\): ([\\d.]+)`).exec(res.stderr ?? '')?.[1]);
  const line = /(\d+) objects, (\d+) catalogs, (\d+) faults/.exec(res.stdout ?? '');
  if (!line) process.stderr.write(`${side}: exit ${res.status}\n${(res.stderr ?? '').slice(-1500)}\n`);
  return {
    side,
    wall,
    cpu: seconds('User') + seconds('System'),
    rssMb: kb ? Number(kb) / 1024 : Number.NaN,
    code: res.status,
    summary: line ? line[0] : `exit ${res.status}`,
  };
}

const runs = [];
for (let r = 0; r < rounds; r++) {
  for (const side of r % 2 === 0 ? sides : [...sides].reverse()) {
    const m = verify(side);
    runs.push(m);
    process.stderr.write(
      `round ${r + 1} ${side}: ${m.wall.toFixed(1)} s wall, ${m.cpu.toFixed(1)} s CPU, ${m.rssMb.toFixed(0)} MB peak RSS, ${m.summary}\n`,
    );
  }
}
const range = (xs, digits) => `${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)}`;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const table = {};
for (const side of sides) {
  const mine = runs.filter((m) => m.side === side);
  table[side] = {
    wallS: range(
      mine.map((m) => m.wall),
      1,
    ),
    cpuS: range(
      mine.map((m) => m.cpu),
      1,
    ),
    peakRssMb: range(
      mine.map((m) => m.rssMb),
      0,
    ),
    summaries: [...new Set(mine.map((m) => m.summary))],
  };
}
if (sides.includes('before') && sides.includes('after')) {
  const of = (side, k) => median(runs.filter((m) => m.side === side).map((m) => m[k]));
  table.ratio = {
    wall: (of('after', 'wall') / of('before', 'wall')).toFixed(3),
    cpu: (of('after', 'cpu') / of('before', 'cpu')).toFixed(3),
    peakRss: (of('after', 'rssMb') / of('before', 'rssMb')).toFixed(3),
    sameSummary: table.before.summaries.join() === table.after.summaries.join(),
  };
}
process.stdout.write(`${JSON.stringify({ data, rounds, table }, null, 2)}\n`);
