// pnpm bench --all: every comparison of issue 31 and issue 28 in one sitting, one after the other (never two at once:
// each pins its servers to CPU 1 and its load to CPU 0), each printing its own table. Not a test.
//   1. the hot routes against Koa and bare node:http on the demo index (bench/run.mjs), and, with --models N --keep DIR,
//      at N SYNTHETIC models
//   2. metrics on against off (bench/metrics.mjs), then the same with two metrics-off hubs (--control: the noise floor)
//   3. the first start after a build against a later start (bench/start.mjs; at --models N, default 10,000)
//   4. the edge against a trivial Worker (bench/edge.mjs)
//   5. `hub get` against curl + sha256sum and @huggingface/hub (bench/client.mjs)
// Usage: node bench/all.mjs [--duration 3] [--rounds 3] [--models N --keep DIR]
// The load average before and after each part is printed with it: a busy machine moves every figure.
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== '--' && a !== '--all'),
  options: {
    duration: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '3' },
    models: { type: 'string' },
    keep: { type: 'string' },
  },
});
const root = path.join(path.dirname(new URL(import.meta.url).pathname), '..');
const timing = ['--duration', values.duration, '--rounds', values.rounds];
const scale = values.models && values.keep ? ['--models', values.models, '--keep', values.keep] : [];
const parts = [
  ['hot routes, demo index', ['bench/run.mjs', ...timing]],
  ...(scale.length ? [[`hot routes, ${values.models} models`, ['bench/run.mjs', ...timing, ...scale]]] : []),
  ['metrics on / off', ['bench/metrics.mjs', ...timing]],
  ['metrics: noise floor (two metrics-off hubs)', ['bench/metrics.mjs', ...timing, '--control']],
  ['first start after a build', ['bench/start.mjs', '--rounds', values.rounds, ...(scale.length ? scale : ['--models', '10000'])]],
  ['edge against a trivial Worker', ['bench/edge.mjs', ...timing]],
  ['hub get', ['bench/client.mjs', '--rounds', String(Math.max(5, Number(values.rounds)))]],
];
const load = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
let failed = 0;
for (const [name, args] of parts) {
  console.log(`\n## ${name}: node ${args.join(' ')} (load average ${load()})\n`);
  const r = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) {
    failed++;
    console.log(`(${name}: exited ${r.status ?? r.signal})`);
  }
  console.log(`\n(load average after: ${load()})`);
}
process.exit(failed ? 1 : 0);
