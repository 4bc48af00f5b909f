// The operator's index commands at scale (issue 39): peak RSS and wall time of `hub bundle create`, `hub bundle
// import` and `hub index verify` on SYNTHETIC indexes of N models, for two builds of the hub side by side in the same
// run: BEFORE (another checkout, built: --before DIR) and AFTER (this one), in alternating order per round.
// Each size is built once (bench/scale.mjs --phase build, kept in --keep DIR) and served by one hub of this checkout;
// each side then creates a bundle of it over HTTP (`--top 1 --max-bytes 1`: the index only, no model files), imports
// its own bundle into a fresh data folder, and verifies that folder. Peak RSS is /usr/bin/time's "Maximum resident set
// size" of the command's process. Run it niced on a shared machine:
//   nice -n 19 node bench/bundle-scale.mjs [--sizes 10000,100000] [--rounds 2] [--keep DIR] [--before /tmp/before-s8]
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { idOf } from './synthetic-ids.mjs';

const root = path.join(path.dirname(new URL(import.meta.url).pathname), '..');
const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '10000,100000' },
    rounds: { type: 'string', default: '2' },
    keep: { type: 'string', default: os.tmpdir() },
    before: { type: 'string', default: '/tmp/before-s8' },
  },
  args: process.argv.slice(2).filter((a) => a !== '--'),
});
const sizes = values.sizes.split(',').map(Number);
const rounds = Number(values.rounds);
const sides = { before: path.resolve(values.before), after: root };
const scratch = mkdtempSync(path.join(values.keep, 'hub-bundle-scale-'));
const config = path.join(scratch, 'config.json');
// The SYNTHETIC models name two sources; their URLs are never fetched (no model file is bundled).
const source = (name) => ({ name, display: name, token: name, kind: 'http', url: 'http://localhost:9/{id}/resolve/{revision}/{path}' });
writeFileSync(config, JSON.stringify({ demo: false, sources: [source('mirror-a'), source('mirror-b')], order: ['mirror-a', 'mirror-b'] }));
const PORT = 18395;
const base = `http://127.0.0.1:${PORT}`;

/** One command of a side's CLI under /usr/bin/time -v: its peak RSS (MB), wall seconds, exit code and stdout. */
function run(side, args) {
  const t = performance.now();
  const res = spawnSync('/usr/bin/time', ['-v', process.execPath, path.join(sides[side], 'apps/node-server/dist/cli.js'), ...args], {
    env: { ...process.env, HUB_LOG_LEVEL: 'warn' },
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  const wall = (performance.now() - t) / 1000;
  const kb = /Maximum resident set size \(kbytes\): (\d+)/.exec(res.stderr ?? '')?.[1];
  const seconds = (what) => Number(new RegExp(`${what} time \\(seconds\\): ([\\d.]+)`).exec(res.stderr ?? '')?.[1]);
  const cpu = seconds('User') + seconds('System');
  if (res.status !== 0)
    process.stderr.write(`${side} ${args.slice(0, 2).join(' ')}: exit ${res.status}\n${(res.stderr ?? '').slice(-1500)}\n`);
  return { rssMb: kb ? Number(kb) / 1024 : Number.NaN, wall, cpu, code: res.status, stdout: res.stdout };
}

async function startHub(dir) {
  const child = spawn(
    process.execPath,
    ['apps/node-server/dist/cli.js', 'serve', '--port', String(PORT), '--host', '127.0.0.1', '--data', dir, '--config', config],
    { cwd: root, env: { ...process.env, HUB_LOG_LEVEL: 'warn' }, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  for (;;) {
    try {
      if ((await fetch(`${base}/api/models/${idOf(1)}`)).status === 200) break;
    } catch {}
    if (child.exitCode !== null) throw new Error(`the hub on ${dir} exited ${child.exitCode}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return child;
}
const stop = (child) =>
  new Promise((r) => {
    if (child.exitCode !== null) return r();
    child.once('exit', r);
    child.kill('SIGTERM');
  });

const results = [];
for (const n of sizes) {
  const data = path.join(values.keep, `hub-bundle-scale-${n}`);
  if (!existsSync(path.join(data, 'refs', 'current'))) {
    mkdirSync(data, { recursive: true });
    execFileSync(process.execPath, ['bench/scale.mjs', '--phase', 'build', '--n', String(n), '--dir', data], {
      cwd: root,
      stdio: 'inherit',
    });
  }
  const hub = await startHub(data);
  try {
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? ['before', 'after'] : ['after', 'before'];
      for (const side of order) {
        const out = path.join(scratch, `bundle-${side}`);
        const into = path.join(scratch, `data-${side}`);
        rmSync(out, { recursive: true, force: true });
        rmSync(into, { recursive: true, force: true });
        const create = run(side, ['bundle', 'create', out, '--top', '1', '--max-bytes', '1', '--hub', base]);
        const imp = run(side, ['bundle', 'import', out, '--data', into]);
        const verify = run(side, ['index', 'verify', '--data', into]);
        const line = /(\d+) objects, (\d+) catalogs, (\d+) faults/.exec(verify.stdout ?? '');
        const r = {
          n,
          round,
          side,
          create: { rssMb: create.rssMb, s: create.wall, cpu: create.cpu, code: create.code },
          import: { rssMb: imp.rssMb, s: imp.wall, cpu: imp.cpu, code: imp.code },
          verify: {
            rssMb: verify.rssMb,
            s: verify.wall,
            cpu: verify.cpu,
            code: verify.code,
            objects: Number(line?.[1]),
            faults: Number(line?.[3]),
          },
        };
        results.push(r);
        console.log(JSON.stringify(r));
        rmSync(out, { recursive: true, force: true });
        rmSync(into, { recursive: true, force: true });
      }
    }
  } finally {
    await stop(hub);
  }
}
rmSync(scratch, { recursive: true, force: true });

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (x) => (Number.isFinite(x) ? x.toFixed(0) : '?');
console.log(
  '\n| models | command | before peak RSS MB (spread) | after peak RSS MB (spread) | after/before | before s (CPU s) | after s (CPU s) |',
);
console.log('|---:|---|---:|---:|---:|---:|---:|');
for (const n of sizes)
  for (const cmd of ['create', 'import', 'verify']) {
    const of = (side) => results.filter((r) => r.n === n && r.side === side).map((r) => r[cmd]);
    const b = of('before');
    const a = of('after');
    const rb = median(b.map((x) => x.rssMb));
    const ra = median(a.map((x) => x.rssMb));
    const spread = (xs) => `${fmt(Math.min(...xs.map((x) => x.rssMb)))}-${fmt(Math.max(...xs.map((x) => x.rssMb)))}`;
    console.log(
      `| ${n.toLocaleString('en')} | ${cmd} | ${fmt(rb)} (${spread(b)}) | ${fmt(ra)} (${spread(a)}) | ${(ra / rb).toFixed(2)} | ${median(b.map((x) => x.s)).toFixed(1)} (${median(b.map((x) => x.cpu)).toFixed(1)}) | ${median(a.map((x) => x.s)).toFixed(1)} (${median(a.map((x) => x.cpu)).toFixed(1)}) |`,
    );
  }
