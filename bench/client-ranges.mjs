#!/usr/bin/env node
// `hub get` in ranges (issue 42) against what a user would do instead, on one 200 MiB SYNTHETIC file served by nginx
// (Debian nginx-light, `sendfile on`, each with its own conf and prefix in a temp folder on 127.0.0.1, stopped by its
// pid) through real hubs (`hub index build --from-dir` of the file, then `hub serve`). Not a test: run by
// `pnpm bench --client` after bench/client.mjs (or `node bench/client-ranges.mjs`). Needs the build, nginx and aria2.
// Usage: node bench/client-ranges.mjs [--mib 200] [--rounds 5] [--rate 25m] [--connections 8] [--only a,b] [--prof DIR] [--hold]
// Three nginx: `limited-a` and `limited-b` with `limit_rate RATE` (per connection), `open` without a limit; three
// hubs: one over limited-a, one over limited-a and limited-b (so its resolve lists both), one over open. Each round
// runs, in alternating order:
//   get           `hub get` through the one-limited-source hub (--connections N ranges from it)
//   curl+sha      `curl -sfL -o FILE URL && sha256sum FILE` of the same resolve URL (one connection, hash after)
//   aria2         `aria2c -x N -s N --checksum=sha-256=HEX` of the same resolve URL
//   get, 2 src    `hub get` through the two-source hub (N connections to each)
//   open          `hub get` from the unlimited nginx (ranges, N connections)
//   open, 1 conn  `hub get --connections 1` from it: one request, the download of before issue 42
// and prints the medians, the ratios per round and their spread.
import { mkdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { cli, median, needTools, startHub, startNginx, stopAll, syntheticModel, timed } from './client-setup.mjs';

const { values } = parseArgs({
  args: process.argv.slice(2).filter((a) => a !== '--client' && a !== '--'),
  options: {
    mib: { type: 'string', default: '200' },
    rounds: { type: 'string', default: '5' },
    rate: { type: 'string', default: '25m' },
    connections: { type: 'string', default: '8' },
    only: { type: 'string' },
    prof: { type: 'string' },
    hold: { type: 'boolean' },
  },
  strict: false,
});
const SIZE = Number(values.mib) * 1024 * 1024;
const ROUNDS = Number(values.rounds);
const N = String(Number(values.connections));

needTools([
  ['nginx', 'nginx-light'],
  ['aria2c', 'aria2'],
]);
const { work, tree, sha } = syntheticModel('bench-ranges-', SIZE);
const [a, b, open] = await Promise.all([
  startNginx(work, tree, 'limited-a', values.rate),
  startNginx(work, tree, 'limited-b', values.rate),
  startNginx(work, tree, 'open'),
]);
const one = await startHub(work, tree, 'one', [a]);
const two = await startHub(work, tree, 'two', [a, b]);
const free = await startHub(work, tree, 'open', [open]);
const twoLinks = (await fetch(two.resolve, { redirect: 'manual' })).headers.get('link') ?? '';
if (!twoLinks.includes('limited-a') || !twoLinks.includes('limited-b')) throw new Error(`the two-source hub lists: ${twoLinks}`);

if (values.hold) {
  // the three hubs stay up for experiments by hand until this process is stopped
  console.log(JSON.stringify({ one: one.url, two: two.url, open: free.url, sha }));
  await new Promise((r) => process.once('SIGTERM', r));
  stopAll();
  rmSync(work, { recursive: true, force: true });
  process.exit(0);
}
const out = path.join(work, 'out');
mkdirSync(out, { recursive: true });
/** CPU seconds (user + system) of each `hub get` run, by case: on a busy machine steadier than the wall clock. */
const cpu = {};
const hubGet = async (h, extra = [], name = '') => {
  // GNU time's `%U %S` on the last line of stderr
  const res = await timed(
    '/usr/bin/time',
    [
      '-f',
      '%U %S',
      process.execPath,
      ...(values.prof ? ['--cpu-prof', '--cpu-prof-dir', path.join(values.prof, name)] : []),
      cli,
      'get',
      'bench/model',
      '--hub',
      h.url,
      '--to',
      path.join(out, 'get'),
      ...extra,
    ],
    {
      env: { ...process.env, HUB_LOG_LEVEL: 'warn' },
    },
  );
  const [user, sys] = res.stderr.trim().split('\n').at(-1).split(' ').map(Number);
  cpu[name] = [...(cpu[name] ?? []), user + sys];
  const summary = res.stdout
    .split('\n')
    .filter((l) => l.includes('"event":"file"'))
    .map((l) => JSON.parse(l))[0];
  if (!summary?.ok) throw new Error(`hub get: ${res.stdout}`);
  lastSources[h.url] = summary.sources ?? { [summary.source]: SIZE };
  return res.seconds;
};
const lastSources = {};
const CASES = {
  get: () => hubGet(one, ['--connections', N], 'get'),
  curlSha: async () => {
    const target = path.join(out, 'curl.bin');
    const res = await timed('sh', ['-c', `curl -sfL -o '${target}' '${one.resolve}' && sha256sum '${target}'`]);
    if (!res.stdout.startsWith(sha)) throw new Error(`sha256sum: ${res.stdout}`);
    return res.seconds;
  },
  aria2: async () =>
    (
      await timed('aria2c', [
        '-q',
        '-x',
        N,
        '-s',
        N,
        `--checksum=sha-256=${sha}`,
        '--allow-overwrite=true',
        '--auto-file-renaming=false',
        '-d',
        path.join(out, 'aria2'),
        '-o',
        'model.bin',
        one.resolve,
      ])
    ).seconds,
  getTwo: () => hubGet(two, ['--connections', N], 'getTwo'),
  open: () => hubGet(free, ['--connections', N], 'open'),
  openOne: () => hubGet(free, ['--connections', '1'], 'openOne'),
};
const names = Object.keys(CASES).filter((k) => !values.only || values.only.split(',').includes(k));
const runs = Object.fromEntries(names.map((k) => [k, []]));
for (let r = 0; r < ROUNDS; r++) {
  // alternate which goes first, so none always meets the warmer (or busier) machine
  const order = r % 2 === 0 ? names : [...names].reverse();
  for (const which of order) {
    runs[which].push(await CASES[which]());
    rmSync(out, { recursive: true, force: true });
    mkdirSync(out, { recursive: true });
  }
  console.error(`round ${r + 1}: ${order.map((k) => `${k} ${runs[k].at(-1).toFixed(2)}`).join(', ')}`);
}
stopAll();
await new Promise((r) => setTimeout(r, 200));
rmSync(work, { recursive: true, force: true });

const fmt = (x) => (x ? `median ${median(x).toFixed(3)} s (${x.map((s) => s.toFixed(2)).join(', ')})` : '-');
/** how many times faster `fast` is than `slow`: the ratio of medians, and its spread over the rounds */
const ratio = (slow, fast) => {
  if (!runs[slow] || !runs[fast]) return '-';
  const per = runs[fast].map((g, i) => runs[slow][i] / g);
  return `${(median(runs[slow]) / median(runs[fast])).toFixed(2)} (per round ${Math.min(...per).toFixed(2)}–${Math.max(...per).toFixed(2)})`;
};
console.log(
  `file: ${values.mib} MiB SYNTHETIC; nginx limit_rate ${values.rate} per connection; --connections ${N}; ${ROUNDS} alternating rounds; load ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);
console.log(`hub get, 1 limited source:        ${fmt(runs.get)}`);
console.log(`curl -o FILE && sha256sum FILE:   ${fmt(runs.curlSha)}`);
console.log(`aria2c -x ${N} -s ${N} --checksum:      ${fmt(runs.aria2)}`);
console.log(
  `hub get, 2 limited sources:       ${fmt(runs.getTwo)}; bytes per source (last run): ${JSON.stringify(lastSources[two.url] ?? {})}`,
);
console.log(`hub get, unlimited, ranges:       ${fmt(runs.open)}`);
console.log(`hub get, unlimited, --connections 1 (one request, as before): ${fmt(runs.openOne)}`);
console.log(
  `hub get CPU seconds (user + system), medians: ${Object.entries(cpu)
    .map(([k, v]) => `${k} ${median(v).toFixed(2)}`)
    .join(', ')}`,
);
console.log(`hub get speed / (curl && sha256sum):    ${ratio('curlSha', 'get')}   target >= 4`);
console.log(`hub get speed / aria2c:                 ${ratio('aria2', 'get')}   target >= 1.0`);
console.log(`2 sources / 1 source (same connections): ${ratio('get', 'getTwo')}   target >= 1.6`);
console.log(`unlimited, ranges / one request:        ${ratio('openOne', 'open')}   target >= 0.91 (not slower than before, within 10 %)`);
